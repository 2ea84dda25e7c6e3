package interp

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/oarc/oarc/runtime"
)

// The reference engine puts copy on one line exactly as the runtime does,
// invisible characters included (the fixtures compare the texts of both).
func TestFlatMatchesRuntime(t *testing.T) {
	var miss []string
	for h := rune(0); h <= unicode.MaxRune; h++ {
		for _, s := range []string{"a" + string(h) + "b", string(h), " " + string(h), "a\uFE0F" + string(h), "a" + string(h) + "\uFE0F"} {
			want := runtime.RejectionText(&runtime.Rule{ID: "C", Copy: runtime.Copy{Fix: s}})
			got := "Fix: " + flat(s) + "\nCode: C"
			if strings.TrimSpace(s) == "" {
				// A text of only white space gives no line (docs/texts.md).
				got = "Code: C"
			}
			if got != want {
				miss = append(miss, fmt.Sprintf("%q: %q, runtime %q", s, got, want))
				break
			}
		}
	}
	if len(miss) > 0 {
		t.Errorf("%d characters differ, e.g. %v", len(miss), miss[:min(len(miss), 8)])
	}
}

// A title that reads as a code line after any white space (a no-break
// space, U+2028, an ideographic space) is labelled "Title: " by the
// reference engine as by the runtime: it trimmed only spaces and tabs, so
// "\u00a0Code: X" was a line the agent could take for the decision's code
// in the reference's text and not in the runtime's.
func TestTitleLineMatchesRuntime(t *testing.T) {
	for h := rune(0); h <= 0x3000; h++ {
		for _, title := range []string{string(h) + "Code: X", string(h) + "cOdE: X", "Code" + string(h) + ": X"} {
			want := runtime.RejectionText(&runtime.Rule{ID: "C", Copy: runtime.Copy{Title: title}})
			if got := titleLine(title) + "\nCode: C"; got != want {
				t.Errorf("%q: %q, runtime %q", title, got, want)
			}
		}
	}
}
