package interp

import (
	"fmt"
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
			if got := "Fix: " + flat(s) + "\nCode: C"; got != want {
				miss = append(miss, fmt.Sprintf("%q: %q, runtime %q", s, got, want))
				break
			}
		}
	}
	if len(miss) > 0 {
		t.Errorf("%d characters differ, e.g. %v", len(miss), miss[:min(len(miss), 8)])
	}
}
