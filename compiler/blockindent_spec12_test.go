package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// TestBlockIndentationIndicatorPositions: spec 7 maps a CEL problem's
// column through block scalars to the offending token; a block with an
// explicit indentation indicator (`|2-`, `>4`: needed when the `when`
// starts with white space, and what the rule store writes for such a
// `when`) is a block scalar too. Before, every problem in it was at the
// indicator ("when: |2-", column 7): the agent whose `when` starts with
// a space got its problems without a position in the `when`.
func TestBlockIndentationIndicatorPositions(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct {
		when string // the when's lines in the file, after "when: "
		at   string // line:col of tol
	}{
		{"|2-\n    tol == 'x'\n", "7:5"},
		{"|2\n  tool == 'x' &&\n      tol == 'x'\n", "8:7"},
		{"|4\n      tol == 'x'\n", "7:7"},
		{">2-\n    tool == 'x' &&\n    tol == 'x'\n", "8:5"},
		{"|-2\n   tol == 'x'\n", "7:4"},
		{"|2- # comment\n  \ttol == 'x'\n", "7:4"},
	} {
		id := fmt.Sprintf("R%d", i)
		file := filepath.Join(dir, id+".yaml")
		text := "oar: '1.0'\nid: " + id + "\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: " + tc.when
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := LoadFile(file, Options{})
		want := file + ":" + tc.at + ": error: undeclared reference to 'tol'"
		if got := diags.Text(); !strings.Contains(got, want) {
			t.Errorf("when: %q: want %q in:\n%s", tc.when, want, got)
		}
	}
}

// TestBlockLeadingBlankLinePositions: a block scalar whose value starts
// with a blank line (a `when` the rule store received starting with a
// line break) maps its positions too. Before, the re-scan dropped the
// leading line breaks, did not reproduce the value, and every problem
// was at the block's indicator.
func TestBlockLeadingBlankLinePositions(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct{ when, at string }{
		{"|-\n\n  tol == 'x'\n", "8:3"},
		{"|2-\n  \n    tool == 'x' &&\n     tol == 'x'\n", "9:6"},
		{">-\n\n\n  tool == 'x' &&\n  tol == 'x'\n", "10:3"},
	} {
		id := fmt.Sprintf("B%d", i)
		file := filepath.Join(dir, id+".yaml")
		text := "oar: '1.0'\nid: " + id + "\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: " + tc.when
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := LoadFile(file, Options{})
		want := file + ":" + tc.at + ": error: undeclared reference to 'tol'"
		if got := diags.Text(); !strings.Contains(got, want) {
			t.Errorf("when: %q: want %q in:\n%s", tc.when, want, got)
		}
	}
}

// FuzzBlockIndicatorMap: a value written as a literal block with an
// explicit indentation indicator (each line indented by the indicator,
// under a key at the given indentation) maps every byte of its value to
// the place of that byte in the file.
func FuzzBlockIndicatorMap(f *testing.F) {
	for _, s := range []string{"  a &&\n b", "\ta", "\n  x", "a\n\n  b", " é → b", "a\n   \nb", "a\n\t\nb"} {
		f.Add(s, uint8(2), uint8(0))
		f.Add(s, uint8(4), uint8(2))
	}
	f.Fuzz(func(t *testing.T, value string, ind, parent uint8) {
		d, p := int(ind%9)+1, int(parent%5)
		if !utf8.ValidString(value) || strings.ContainsAny(value, "\r\u0085\u2028\u2029\ufeff") || strings.TrimSpace(value) == "" || strings.HasSuffix(value, "\n") {
			return
		}
		for _, r := range value {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0xd800 && r < 0xe000 || r == 0xfffe || r == 0xffff {
				return
			}
		}
		var b strings.Builder
		pad := strings.Repeat(" ", p)
		if p > 0 {
			b.WriteString("outer:\n")
		}
		fmt.Fprintf(&b, "%swhen: |%d-\n", pad, d)
		lines := strings.Split(value, "\n")
		for _, l := range lines {
			if l != "" {
				b.WriteString(pad + strings.Repeat(" ", d) + l)
			}
			b.WriteByte('\n')
		}
		text := b.String()
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
			return
		}
		n := doc.Content[0].Content[1]
		if p > 0 {
			n = n.Content[1]
		}
		if n.Value != value {
			return // not the value YAML reads (no test of the parser)
		}
		src := newSource("f", []byte(text))
		m := src.mapScalar(n)
		if len(m.at) == 0 {
			t.Fatalf("no exact map of %q in:\n%s", value, text)
		}
		head := 1 + min(p, 1)
		for k := range len(value) {
			line := strings.Count(value[:k], "\n")
			col := utf8.RuneCountInString(value[strings.LastIndex(value[:k], "\n")+1:k]) + 1 + p + d
			got := m.position(k)
			if value[k] == '\n' || !utf8.RuneStart(value[k]) {
				continue
			}
			if got.Line != head+1+line || got.Col != col {
				t.Fatalf("byte %d of %q at %d:%d, want %d:%d in:\n%s", k, value, got.Line, got.Col, head+1+line, col, text)
			}
		}
	})
}

// TestBlockWhiteSpaceLinePositions: in a block scalar, a line of white
// space longer than the block's indentation is a line of the value (YAML
// keeps the spaces past the indentation, and a tab there), not a blank
// line; positions after it are mapped all the same. Before, the re-scan
// took it for a blank line, did not reproduce the value, and every
// problem of the `when` was at its indicator: a rule an agent submitted
// with an indented empty line lost its positions.
func TestBlockWhiteSpaceLinePositions(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct{ when, at string }{
		{"|-\n  tool == 'x' &&\n     \n  tol == 'x'\n", "9:3"},
		{"|-\n  tool == 'x' &&\n  \t\n  tol == 'x'\n", "9:3"},
		{"|\n  tool == 'x' &&\n    \n\n    tol == 'x'\n", "10:5"},
		{">-\n  tool == 'x' &&\n     \n  tol == 'x'\n", "9:3"},
	} {
		id := fmt.Sprintf("W%d", i)
		file := filepath.Join(dir, id+".yaml")
		text := "oar: '1.0'\nid: " + id + "\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: " + tc.when
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := LoadFile(file, Options{})
		want := file + ":" + tc.at + ": error: undeclared reference to 'tol'"
		if got := diags.Text(); !strings.Contains(got, want) {
			t.Errorf("when: %q: want %q in:\n%s", tc.when, want, got)
		}
	}
}
