package runtime

import (
	"testing"
)

// These tests kill the mutants gremlins left alive or uncovered in
// decision.go (docs/mutation.md): the text an agent reads for a decision.
// Each compares the whole text, so a changed branch, label or separator
// shows.

func TestMutantRejectionFailedClosedPreamble(t *testing.T) {
	r := &Rule{ID: "R1", Effect: Block, Copy: Copy{Title: "No rm"}}
	d := &Decision{Effect: Block, Code: "R1", Rule: r,
		FailedClosed: []string{"R0", "R1"},
		Errors: []RuleError{
			{Rule: "R0", Err: Err{Kind: ErrDivideByZero}},
			{Rule: "R1", Err: Err{Kind: ErrProvider, S: "p\nq"}},
		}}
	// The error of R1, not R0's, and on one line (spec 5.1: an agent is
	// never told it broke a rule it did not break).
	want := "This rule could not be evaluated (provider p q failed); it applies because it fails closed.\nNo rm\nCode: R1"
	if got := d.Rejection(); got != want {
		t.Fatalf("Rejection() = %q, want %q", got, want)
	}
	// Listed as failed closed without an error of its own: the preamble
	// without a reason.
	d.Errors = d.Errors[:1]
	want = "This rule could not be evaluated; it applies because it fails closed.\nNo rm\nCode: R1"
	if got := d.Rejection(); got != want {
		t.Fatalf("Rejection() without error = %q, want %q", got, want)
	}
	// Another rule failed closed, not the decider: no preamble.
	d.FailedClosed = []string{"R0"}
	if got := d.Rejection(); got != "No rm\nCode: R1" {
		t.Fatalf("Rejection() of a rule that fired = %q", got)
	}
}

func TestMutantRejectionDenyByDefault(t *testing.T) {
	r := &Rule{ID: "DENY", Effect: Block, DenyByDefault: true, Copy: Copy{What: "not allowed"}}
	d := &Decision{Effect: Block, Code: "DENY", Rule: r, Errors: []RuleError{
		{Rule: "A1", Err: Err{Kind: ErrDivideByZero}, Allow: true},
		{Rule: "P1", Err: Err{Kind: ErrIntOverflow}},
		{Rule: "A2", Err: Err{Kind: ErrTimeout, S: "v"}, Allow: true},
	}}
	want := "The allow rule A1 could not be evaluated (division by zero), so it did not allow this action.\n" +
		"The allow rule A2 could not be evaluated (" + (Err{Kind: ErrTimeout, S: "v"}).Error() + "), so it did not allow this action.\n" +
		"What: not allowed\nCode: DENY"
	if got := d.Rejection(); got != want {
		t.Fatalf("Rejection() = %q, want %q", got, want)
	}
	// An allow error with no message still names the rule.
	d.Errors = []RuleError{{Rule: "A3", Allow: true}}
	want = "The allow rule A3 could not be evaluated, so it did not allow this action.\nWhat: not allowed\nCode: DENY"
	if got := d.Rejection(); got != want {
		t.Fatalf("Rejection() = %q, want %q", got, want)
	}
	// No allow rule failed: the copy alone.
	d.Errors = []RuleError{{Rule: "P1", Err: Err{Kind: ErrIntOverflow}}}
	if got := d.Rejection(); got != "What: not allowed\nCode: DENY" {
		t.Fatalf("Rejection() = %q", got)
	}
	// The same errors on a rule that is not deny by default: no lines.
	d.Rule = &Rule{ID: "B", Effect: Block}
	d.Errors = []RuleError{{Rule: "A1", Err: Err{Kind: ErrDivideByZero}, Allow: true}}
	if got := d.Rejection(); got != "Code: B" {
		t.Fatalf("Rejection() = %q", got)
	}
}

func TestMutantRejectionNoRule(t *testing.T) {
	d := &Decision{Effect: Block, Errors: []RuleError{
		{Rule: "X", Err: Err{Kind: ErrDivideByZero}},
		{Rule: "", Err: Err{Kind: ErrAnchor, S: "a\rb"}},
	}}
	want := "The guardrails could not evaluate this action (" + (Err{Kind: ErrAnchor, S: "a b"}).Error() + "); it is blocked."
	if got := d.Rejection(); got != want {
		t.Fatalf("Rejection() = %q, want %q", got, want)
	}
	// Not blocked: no text.
	d.Effect = Allow
	if got := d.Rejection(); got != "" {
		t.Fatalf("Rejection() of an allow = %q", got)
	}
	// Blocked with only rule errors: no text either.
	d.Effect = Block
	d.Errors = d.Errors[:1]
	if got := d.Rejection(); got != "" {
		t.Fatalf("Rejection() with rule errors only = %q", got)
	}
}

func TestMutantBannerNotes(t *testing.T) {
	w1 := &Rule{ID: "W1", Effect: Warn, Copy: Copy{Title: "Careful", Fix: "f", Instead: "i"}}
	w2 := &Rule{ID: "W2", Effect: Warn}
	n1 := &Rule{ID: "N1", Effect: Nudge, Copy: Copy{Title: "code: x"}}
	d := &Decision{Effect: Warn,
		Firings: []Firing{{Rule: w1}, {Rule: nil}, {Rule: n1, FailedClosed: true}, {Rule: w2, FailedClosed: true}},
		Errors:  []RuleError{{Rule: "W2", Err: Err{Kind: ErrDivideByZero}}},
	}
	want := "Careful\nFix: f\nInstead: i\nCode: W1\n\n" +
		"This rule could not be evaluated (division by zero); it applies because it fails closed.\nW2\nCode: W2"
	if got := d.Banner(); got != want {
		t.Fatalf("Banner() = %q, want %q", got, want)
	}
	want = "This rule could not be evaluated; it applies because it fails closed.\nTitle: code: x\nCode: N1"
	if got := d.Notes(); got != want {
		t.Fatalf("Notes() = %q, want %q", got, want)
	}
	d.Firings = d.Firings[:2]
	if got := d.Notes(); got != "" {
		t.Fatalf("Notes() with no nudge = %q", got)
	}
	if got := (&Decision{}).Banner(); got != "" {
		t.Fatalf("Banner() of nothing = %q", got)
	}
}

func TestMutantOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb":                               "a b",
		"a\rb":                                 "a b",
		"a\r":                                  "a ",
		"a\n\v\fb":                             "a   b",
		"a\tb":                                 "a\tb",
		"a\x00\x1b\x1f b":                      "a\uFFFD\uFFFD\uFFFD b",
		"a\x7f~":                               "a\uFFFD~",
		" !":                                   " !",
		"a\xffb":                               "a\uFFFDb",
		"a\x80b":                               "a\uFFFDb",
		"a\u0085\u2028\u2029b":                 "a   b",
		"a\u0080\u009fb":                       "a\uFFFD\uFFFDb",
		"a\u00a0b":                             "a\u00a0b",
		"a\u200b\u202e\U000E0041\u00ad\ufeffb": "a\uFFFD\uFFFD\uFFFD\uFFFD\uFFFDb",
		"é日":                                   "é日",
	} {
		got := RejectionText(&Rule{ID: "C", Copy: Copy{What: in}})
		if got != "What: "+want+"\nCode: C" {
			t.Errorf("RejectionText(What: %q) = %q, want %q", in, got, "What: "+want+"\nCode: C")
		}
	}
}

func TestMutantLooksLikeCode(t *testing.T) {
	for title, want := range map[string]string{
		"code:":          "Title: code:\n",
		" \u2028CODE: x": "Title:   CODE: x\n",
		"code":           "code\n",
		"cod:":           "cod:\n",
		"codes: x":       "codes: x\n",
	} {
		got := RejectionText(&Rule{ID: "C", Copy: Copy{Title: title}})
		if got != want+"Code: C" {
			t.Errorf("RejectionText(Title: %q) = %q, want %q", title, got, want+"Code: C")
		}
	}
}

func TestMutantHiddenRune(t *testing.T) {
	for r, want := range map[rune]bool{
		'\t': false, '\n': false, '\r': false, '\v': false, '\f': false, 0x85: false,
		0: true, 0x1b: true, 0x7f: true, 0x80: true, 0x200b: true, 0xe0041: true, 0xad: true,
		'a': false, 0xa0: false, 0x2028: false,
	} {
		if got := HiddenRune(r); got != want {
			t.Errorf("HiddenRune(%U) = %v, want %v", r, got, want)
		}
	}
}

// A decision whose only firing is a nudge has notes and no banner (kills
// the negation of parts' count, which would see no nudge).
func TestMutantNotesOnlyNudge(t *testing.T) {
	d := &Decision{Firings: []Firing{{Rule: &Rule{ID: "N", Effect: Nudge, Copy: Copy{Fix: "f"}}}}}
	if got := d.Notes(); got != "N\nFix: f\nCode: N" {
		t.Fatalf("Notes() = %q", got)
	}
	if got := d.Banner(); got != "" {
		t.Fatalf("Banner() = %q", got)
	}
}
