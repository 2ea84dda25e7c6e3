package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hiddenIn returns the first character of s a terminal would act on or a
// reader would not see (a control character other than the line feed
// that ends a line and the tab that aligns a caret, or an invisible
// one), -1 if none.
func hiddenIn(s string) rune {
	prev := rune(-1)
	for _, r := range s {
		if r != '\n' && r != '\t' && (r == 0x85 || r == '\r' || r == '\v' || r == '\f' || hiddenAfter(prev, r)) {
			return r
		}
		prev = r
	}
	return -1
}

// TestDiagnosticTextEscapes: the text of a diagnostic carried characters
// of the rule file raw to the terminal: cel-go's lexer error quotes the
// character it did not recognise (an ESC written "\e" in a double-quoted
// when), a regular expression's error quotes the pattern (CEL's own
// "\x1b]0;title\x07" sets a terminal's title), and the source line under
// it holds a bidirectional override written raw in the file. Spec 7's
// form is one line per diagnostic; a message, a path or a source line
// now shows such a character as an escape (\x1b, \u202e), and the caret
// stays under the column it points at.
func TestDiagnosticTextEscapes(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [tool]}\n"
	for _, c := range []struct{ when, want string }{
		{`"\e[2J"`, `\x1b`},
		{`tool.matches("\x1b]0;pwned\x07(")`, `\x1b]0;pwned\x07(`},
		{`tool.matches("\u202e(")`, `\u202e(`},
		{`"tool == \"\u200b\" && nope\e"`, `\x1b`},
	} {
		_, diags := LoadRuleDoc("A.yaml", []byte(head+"when: "+c.when+"\n"), "stock", Options{})
		if !diags.HasErrors() {
			t.Fatalf("%s: loads", c.when)
		}
		text := diags.Text()
		if r := hiddenIn(text); r >= 0 {
			t.Errorf("%s: the text holds %U raw:\n%q", c.when, r, text)
		}
		if !strings.Contains(text, c.want) {
			t.Errorf("%s: the text does not show %s:\n%s", c.when, c.want, text)
		}
	}

	// A raw bidi override in the file: the source line shows it escaped,
	// and the caret is under the token the diagnostic points at.
	_, diags := LoadRuleDoc("A.yaml", []byte(head+"when: tool == \"\u202ex\" && nope\n"), "stock", Options{})
	text := diags.Text()
	if r := hiddenIn(text); r >= 0 {
		t.Errorf("the text holds %U raw:\n%q", r, text)
	}
	lines := strings.Split(text, "\n")
	for len(lines) > 0 && !strings.Contains(lines[0], "undeclared reference") {
		lines = lines[1:]
	}
	if len(lines) < 3 || !strings.Contains(lines[1], `"\u202ex"`) {
		t.Fatalf("source line:\n%s", text)
	}
	if i, j := strings.Index(lines[1], "nope"), strings.Index(lines[2], "^"); i < 0 || utf8.RuneCountInString(lines[1][:i]) != utf8.RuneCountInString(lines[2][:j]) {
		t.Errorf("caret not under nope:\n%s", text)
	}

	// A tab stays: a message may quote a line for the author to copy.
	if got := visible("when: 'a\tb'\x1b\u00ad"); got != "when: 'a\tb'\\x1b\\u00ad" {
		t.Errorf("visible: %q", got)
	}

	// A rule file whose name holds an ESC.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy", "A\x1b[2J.yaml"), []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags = LoadPack(dir, Options{})
	text = diags.Text()
	if !diags.HasErrors() || hiddenIn(text) >= 0 || !strings.Contains(text, `A\x1b[2J.yaml:2:5:`) {
		t.Errorf("file name:\n%q", text)
	}
}
