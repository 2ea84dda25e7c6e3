package compiler

import (
	"testing"
	"unicode/utf8"
)

// FuzzYAMLErrorPos: the position found for a YAML syntax error is on a
// line of the file and at most one past its last character, whatever
// the text (line breaks of every kind, a BOM, tabs, non-ASCII).
func FuzzYAMLErrorPos(f *testing.F) {
	for _, s := range []string{
		"id: acme: x\n", "\ufeffid: a: b\r\n", "a:\n  b: 1\n\tc: 2\n", "a: \"x\\q\"\n", "a: 'x\n\nb: 1\n",
		"a: é: b\u2028c: d\n", "a: [1, 2\n", "k: v\rl: m: n\r", "a: \"\\x4\"\n", "- a\nb: c\n", "a: `x`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		var d Diagnostics
		c := &fileCtx{src: newSource("f.yaml", []byte(text)), diags: &d}
		if err := yamlProblem([]byte(text)); err == "" {
			return
		}
		c.yamlError(errorString(yamlProblem([]byte(text))))
		for _, g := range d {
			if g.Pos.Line < 1 || g.Pos.Line > len(c.src.lines) {
				t.Fatalf("%q: line %d of %d: %s", text, g.Pos.Line, len(c.src.lines), g.Message)
			}
			if n := utf8.RuneCountInString(c.src.lines[g.Pos.Line-1]); g.Pos.Col < 1 || g.Pos.Col > n+1 {
				t.Fatalf("%q: col %d on a line of %d characters: %s", text, g.Pos.Col, n, g.Message)
			}
		}
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }
