package runtime

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// invisibleRunes are every rune of the class (HiddenRune), and the
// presentation selectors, which are invisible out of place.
func invisibleRunes() []rune {
	var out []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if HiddenRune(r) {
			out = append(out, r)
		}
	}
	return out
}

// Every text the runtime renders for an agent (the rejection, the
// banner, the notes, the question, the failed-closed line) shows every
// invisible character as U+FFFD: the variation selectors, the Hangul
// fillers, the combining grapheme joiner, the Khmer inherent vowels and
// the reserved default-ignorable code points reached the agent as they
// were (only controls and Unicode Cf were replaced).
func TestRenderedTextsShowNothingInvisible(t *testing.T) {
	var miss []string
	for _, h := range invisibleRunes() {
		if h == 0xFE0E || h == 0xFE0F {
			continue // after "a" they stay: TestPresentationSelectors
		}
		s := "a" + string(h) + "b"
		rule := &Rule{ID: "R", Effect: Ask, Copy: Copy{Title: s, What: s, Cause: s, Why: s, Fix: s, Instead: s}}
		warn := &Rule{ID: "W", Effect: Warn, Copy: Copy{Title: s, Fix: s, Instead: s}}
		nudge := &Rule{ID: "N", Effect: Nudge, Copy: Copy{Title: s, Fix: s, Instead: s}}
		d := &Decision{Effect: Ask, Code: "R", Rule: rule, FailedClosed: []string{"R", "W"},
			Errors:  []RuleError{{Rule: "R", Err: Err{Kind: ErrProvider, S: s}}, {Rule: "W", Err: Err{Kind: ErrProvider, S: s}}},
			Firings: []Firing{{Rule: rule, FailedClosed: true}, {Rule: warn, FailedClosed: true}, {Rule: nudge}}}
		for what, got := range map[string]string{"rejection": d.Rejection(), "question": d.Question(), "unasked": d.Unasked(), "banner": d.Banner(), "notes": d.Notes()} {
			if strings.ContainsRune(got, h) || !strings.Contains(got, "a\uFFFDb") {
				miss = append(miss, fmt.Sprintf("%U in the %s", h, what))
				break
			}
		}
	}
	if len(miss) > 0 {
		t.Errorf("%d invisible characters reach the agent, e.g. %v", len(miss), miss[:min(len(miss), 12)])
	}
}

// The presentation selectors stay where they choose how the character
// before them is drawn (docs/texts.md): "⚠️" is common in copy. Out of
// place (first, after a space, repeated) they are U+FFFD.
func TestPresentationSelectors(t *testing.T) {
	for in, want := range map[string]string{
		"Stop \u26A0\uFE0F now": "Stop \u26A0\uFE0F now",
		"\u2764\uFE0E":          "\u2764\uFE0E",
		"1\uFE0F\u20E3 first":   "1\uFE0F\u20E3 first",
		"\uFE0Fx":               "\uFFFDx",
		"a \uFE0F":              "a \uFFFD",
		"a\n\uFE0F":             "a \uFFFD",
		"a\uFE0F\uFE0F\uFE0E":   "a\uFE0F\uFFFD\uFFFD",
		"a\u200B\uFE0F":         "a\uFFFD\uFFFD",
		"a\uFE00":               "a\uFFFD",
		"a\U000E0100\U000E0101": "a\uFFFD\uFFFD",
		"\u3164":                "\uFFFD",
	} {
		if got := RejectionText(&Rule{ID: "C", Copy: Copy{Title: in}}); got != want+"\nCode: C" {
			t.Errorf("title %q: %q, want %q", in, got, want+"\nCode: C")
		}
	}
}
