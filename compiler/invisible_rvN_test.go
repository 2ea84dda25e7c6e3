package compiler

import (
	"fmt"
	"strings"
	"testing"
)

// oarc check warns at every copy text an agent would be shown with
// U+FFFD (runtime.RejectionText, runtime.HiddenAfter): the Hangul
// fillers, the variation selectors, the combining grapheme joiner were
// shown as they are and not warned about. A presentation selector after
// a visible character ("⚠️") is copy as authors write it: no warning.
func TestCopyInvisibleWarnings(t *testing.T) {
	for title, want := range map[string]string{
		`a\u3164b`:          "U+3164",
		`\u115F\u1160`:      "2 invisible characters from U+115F",
		`x\uFFA0`:           "U+FFA0",
		`a\uFE00`:           "U+FE00",
		`a\U000E0100`:       "U+E0100",
		`a\u034Fb`:          "U+034F",
		`a\u17B4`:           "U+17B4",
		`a\u180B`:           "U+180B",
		`\uFE0Fx`:           "U+FE0F",
		`a \uFE0F`:          "U+FE0F",
		`a\uFE0F\uFE0F`:     "U+FE0F",
		`Stop \u26A0\uFE0F`: "",
		`\u2764\uFE0E love`: "",
	} {
		doc := fmt.Sprintf(`{"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block", "copy": {"title": "%s"}}`, title)
		_, diags := LoadRuleDoc("r.json", []byte(doc), "", Options{})
		text := diags.Text()
		if want == "" {
			if strings.Contains(text, "invisible") {
				t.Errorf("title %s: %s", title, text)
			}
			continue
		}
		if !strings.Contains(text, "copy.title holds") || !strings.Contains(text, want) {
			t.Errorf("title %s: want a warning naming %s, got:\n%s", title, want, text)
		}
	}
}
