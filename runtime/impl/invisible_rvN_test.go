package impl

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/oarc/oarc/runtime"
)

// The rendered context (a system prompt) shows every invisible character
// of a rule's title, fix and instead as U+FFFD, the variation selectors
// and Hangul fillers included; a presentation selector stays after a
// visible character ("⚠️") and nowhere else.
func TestContextShowsNothingInvisible(t *testing.T) {
	var miss []string
	for h := rune(0); h <= unicode.MaxRune; h++ {
		if !runtime.HiddenRune(h) || h == 0xFE0E || h == 0xFE0F {
			continue
		}
		s := "a" + string(h) + "b"
		got := Render([]ContextRule{{ID: "R", Title: s, Fix: s, Instead: s, Global: true}}, "", 0)
		if strings.ContainsRune(got, h) || strings.Count(got, "a\uFFFDb") != 3 {
			miss = append(miss, fmt.Sprintf("%U", h))
		}
	}
	if len(miss) > 0 {
		t.Errorf("%d invisible characters reach the prompt, e.g. %v", len(miss), miss[:min(len(miss), 12)])
	}
	for in, want := range map[string]string{
		"Stop \u26A0\uFE0F now": "Stop \u26A0\uFE0F now",
		"\uFE0Fx":               "\uFFFDx",
		"a \uFE0F":              "a \uFFFD",
		"a\uFE0F\uFE0F":         "a\uFE0F\uFFFD",
		"a\uFE01":               "a\uFFFD",
	} {
		got := Render([]ContextRule{{ID: "R", Title: in, Global: true}}, "", 0)
		if !strings.Contains(got, "**R**: "+want+"\n") {
			t.Errorf("title %q renders %q, want %q in it", in, got, want)
		}
	}
}
