package compiler

import (
	"fmt"
	"testing"
)

// TestPositionsAfterUnicodeBreaks: yaml.v3 reads U+0085, U+2028 and
// U+2029 as line breaks (YAML 1.1), an editor does not, and yaml.Marshal
// writes them raw into quoted strings. Every line:col oarc check prints
// is the editor's: after such a character on an earlier line, or earlier
// on the same line, and inside a when that holds one. The file is not
// refused.
func TestPositionsAfterUnicodeBreaks(t *testing.T) {
	for _, r := range []string{"\u2028", "\u2029", "\u0085"} {
		name := fmt.Sprintf("%U", []rune(r)[0])
		cases := []struct {
			doc  string
			want string // the first diagnostic's "line:col: ... [CODE]" and its source line
			line string
		}{
			// A comment on line 1 holds the break.
			{doc: "# note" + r + "# more\noar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: tool == 1\n",
				want: "7:12", line: "when: tool == 1"},
			// A quoted copy title holds it, the error is on a later line.
			{doc: "oar: '1.0'\nid: A\nkind: policy\ncopy: {title: \"a" + r + "b\"}\nanchor: tool.pre_invoke\neffect: block\nwhen: tool == 1\n",
				want: "7:12", line: "when: tool == 1"},
			// Earlier on the same line.
			{doc: "oar: '1.0'\nid: A\nkind: policy\ncopy: {title: \"a" + r + "b\", why: 3}\nanchor: tool.pre_invoke\neffect: block\n",
				want: "4:27", line: "copy: {title: \"a" + r + "b\", why: 3}"},
			// Inside the when itself, before the offending token.
			{doc: "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: 'tool == \"a" + r + "b\" && nope'\n",
				want: "6:25", line: "when: 'tool == \"a" + r + "b\" && nope'"},
			// In a block scalar the break ends the scalar's line, and the
			// text after it is not indented: a YAML error, at that text.
			{doc: "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: |\n  tool == \"a" + r + "b\" &&\n  nope\n",
				want: "7:14", line: "  tool == \"a" + r + "b\" &&"},
			// A break between two indented lines of a block scalar.
			{doc: "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: |\n  tool == \"a\" &&" + r + "  nope\n",
				want: map[bool]string{true: "7:20", false: "7:17"}[r == "\u0085"], line: "  tool == \"a\" &&" + r + "  nope"},
		}
		for i, c := range cases {
			_, diags := LoadRuleDoc("f.yaml", []byte(c.doc), "stock", Options{})
			if len(diags) == 0 {
				t.Errorf("%s case %d: no diagnostic", name, i)
				continue
			}
			d := diags[0]
			if got := fmt.Sprintf("%d:%d", d.Pos.Line, d.Pos.Col); got != c.want {
				t.Errorf("%s case %d: at %s, want %s\n%s", name, i, got, c.want, diags.Text())
			}
			if d.Source != "" && d.Source != c.line {
				t.Errorf("%s case %d: source line %q, want %q", name, i, d.Source, c.line)
			}
		}
	}
}

// TestYAMLErrorAfterUnicodeBreak: a YAML syntax error yaml.v3 names by
// its own line number is reported at the editor's line.
func TestYAMLErrorAfterUnicodeBreak(t *testing.T) {
	doc := "# a" + "\u2028" + "# b" + "\u2028" + "# c\noar: '1.0'\nid: A\nkind: [policy\n"
	_, diags := LoadRuleDoc("f.yaml", []byte(doc), "stock", Options{})
	if len(diags) != 1 || diags[0].Code != CodeYAML || diags[0].Pos.Line > 4 {
		t.Fatalf("want one OAR_YAML on a line of the file's 4:\n%s", diags.Text())
	}
}

// TestBadCharAfterCR: a file whose lines end in a bare CR (YAML and
// editors break lines there) reports a NUL at its line.
func TestBadCharAfterCR(t *testing.T) {
	doc := "oar: '1.0'\rid: A\rkind: po\x00licy\r"
	_, diags := LoadRuleDoc("f.yaml", []byte(doc), "stock", Options{})
	if len(diags) != 1 || diags[0].Pos.Line != 3 || diags[0].Pos.Col != 9 {
		t.Fatalf("want one error at 3:9:\n%s", diags.Text())
	}
}

// TestPositionsAfterBOM: a UTF-8 byte order mark is no character of the
// first line to yaml.v3 or to an editor; positions on that line inside a
// when, and of a bad character, do not count it either.
func TestPositionsAfterBOM(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{doc: "\ufeffwhen: 'tool == \"x\" && nope'\noar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [tool]}\n", want: "1:23"},
		{doc: "\ufeffid: A\x01\noar: '1.0'\n", want: "1:6"},
	} {
		_, diags := LoadRuleDoc("f.yaml", []byte(c.doc), "stock", Options{})
		if len(diags) == 0 || fmt.Sprintf("%d:%d", diags[0].Pos.Line, diags[0].Pos.Col) != c.want {
			t.Errorf("%q: want the first diagnostic at %s\n%s", c.doc, c.want, diags.Text())
		}
	}
}

// TestPositionsAfterTag: a tag (`when: !!str ...`) is where yaml.v3 says
// the node starts; a position inside the when is still the token's.
func TestPositionsAfterTag(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [tool]}\n"
	for _, c := range []struct{ when, want string }{
		{when: "!!str tool == 1", want: "7:18"},
		{when: "!!str 'tool == 1'", want: "7:19"},
		{when: "!<tag:yaml.org,2002:str> \"tool == 1\"", want: "7:38"},
		{when: "!!str |\n  tool == 1", want: "8:8"},
	} {
		doc := head + "when: " + c.when + "\n"
		_, diags := LoadRuleDoc("f.yaml", []byte(doc), "stock", Options{})
		if len(diags) != 1 || fmt.Sprintf("%d:%d", diags[0].Pos.Line, diags[0].Pos.Col) != c.want {
			t.Errorf("%q: want one diagnostic at %s\n%s", c.when, c.want, diags.Text())
		}
	}
}
