package impl

import "testing"

// TestReviewSpecCHintMatchingOnlyUnranked: a hint that matches only rules
// that always render (global, monitored) matches no ranked rule, so every
// titled rule renders (spec 10: "a hint that matches nothing"), and
// nothing is counted as left out; a hint that matches one ranked rule
// shows the top k of them.
func TestReviewSpecCHintMatchingOnlyUnranked(t *testing.T) {
	rules := []ContextRule{
		{ID: "A", Title: "a", Tags: []string{"bash"}},
		{ID: "B", Title: "b", Tags: []string{"git"}},
		{ID: "G", Title: "g", Global: true, Text: []string{"kind"}},
		{ID: "M", Title: "m", Monitor: true, Tags: []string{"trial"}},
	}
	all := "## Rules\n\n- **A**: a\n- **B**: b\n- **G**: g\n\n### Provisional rules (under evaluation)\n\n" + ProvisionalNote + "\n\n- **M**: m\n"
	for _, hint := range []string{"kind", "trial", "kind trial", "nothing"} {
		if got := Render(rules, hint, 1); got != all {
			t.Errorf("hint %q:\n%s\nwant\n%s", hint, got, all)
		}
	}
	want := "## Rules\n\n- **B**: b\n- **G**: g\n\n### Provisional rules (under evaluation)\n\n" + ProvisionalNote + "\n\n- **M**: m\n\n(1 more rules not shown)\n"
	if got := Render(rules, "git kind", 1); got != want {
		t.Errorf("hint git:\n%s\nwant\n%s", got, want)
	}
}
