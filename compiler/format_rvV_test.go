package compiler

import (
	"strings"
	"testing"
)

// TestFormatUnicodeLineBreaks: YAML reads U+0085, U+2028 and U+2029 as
// line breaks (yaml.v3 does), the layout's lines are split at LF: a file
// that held one in a comment, with a literal when, made Format panic
// (oarc fmt: "internal error"). Format now leaves such a file as it is,
// with an error at the character.
func TestFormatUnicodeLineBreaks(t *testing.T) {
	for _, r := range []string{"\u2028", "\u2029", "\u0085"} {
		src := "# Source: s" + r + "# t\noar: '1.0'\nid: X_Y\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: |-\n  a\n  b\n"
		out, err := func() (out []byte, err error) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%U: panic: %v", []rune(r)[0], p)
				}
			}()
			return Format("X_Y.yaml", []byte(src))
		}()
		if err == nil || !strings.Contains(err.Error(), "1:12: ") || !strings.Contains(err.Error(), "line break") {
			t.Errorf("%U: %v\n%s", []rune(r)[0], err, out)
		}
	}
}
