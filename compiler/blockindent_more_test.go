package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlockIndicatorPositionsMixed: the position of a CEL problem in a
// block scalar with an indentation indicator, found from the value
// (75915b6), through CR LF line ends, leading blank lines, a line of white
// space longer than the indentation (text, as YAML reads it), non-ASCII
// text before the token, and a rule file indented as a whole.
func TestBlockIndicatorPositionsMixed(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct {
		pad, nl, when, at string
	}{
		{"", "\r\n", "|2-\r\n\r\n    'é' == 'x' && tol == 'x'\r\n", "8:19"},
		{"", "\n", "|2-\n   \n  tol == 'x'\n", "8:3"},
		{"   ", "\n", "|2-\n\n     tool == 'é' &&\n       tol == 'x'\n", "9:11"},
		{"  ", "\n", "|3\n     tool == 'b' ||\n     tol == 'x'\n", "8:8"},
	} {
		id := fmt.Sprintf("M%d", i)
		file := filepath.Join(dir, id+".yaml")
		var b strings.Builder
		for _, l := range []string{"oar: '1.0'", "id: " + id, "kind: policy", "anchor: tool.pre_invoke", "effect: block"} {
			b.WriteString(tc.pad + l + tc.nl)
		}
		b.WriteString(tc.pad + "when: " + strings.ReplaceAll(tc.when, "\n  ", "\n"+tc.pad+"  "))
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := LoadFile(file, Options{})
		want := file + ":" + tc.at + ": error: undeclared reference to 'tol'"
		if got := diags.Text(); !strings.Contains(got, want) {
			t.Errorf("%q: want %q in:\n%s", b.String(), want, got)
		}
	}
}
