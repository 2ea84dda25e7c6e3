package runtime

import "testing"

// TestBlankTitleIsUntitled: a title of white space only is no title, as the
// rendered context has it (impl.Render leaves such a rule out as
// untitled): a banner or notes part names the rule's id instead (spec
// 5.1: "its id when untitled"), and a rejection has no title line, as for
// a rule without a title.
func TestBlankTitleIsUntitled(t *testing.T) {
	w := &Rule{ID: "W", Effect: Warn, Copy: Copy{Title: " \t ", Instead: "Do this."}}
	n := &Rule{ID: "N", Effect: Nudge, Copy: Copy{Title: "\n", Fix: "Fix it."}}
	d := &Decision{Effect: Warn, Rule: w, Firings: []Firing{{Rule: w}, {Rule: n}}}
	if got, want := d.Banner(), "W\nInstead: Do this.\nCode: W"; got != want {
		t.Errorf("Banner() = %q, want %q", got, want)
	}
	if got, want := d.Notes(), "N\nFix: Fix it.\nCode: N"; got != want {
		t.Errorf("Notes() = %q, want %q", got, want)
	}
	b := &Rule{ID: "B", Effect: Block, Copy: Copy{Title: "\u2028", Why: "Because."}}
	if got, want := RejectionText(b), "Why: Because.\nCode: B"; got != want {
		t.Errorf("RejectionText = %q, want %q", got, want)
	}
	if got, want := RejectionText(&Rule{ID: "U", Copy: Copy{Why: "Because."}}), "Why: Because.\nCode: U"; got != want {
		t.Errorf("RejectionText of an untitled rule = %q, want %q", got, want)
	}
}
