package compiler

import (
	"strings"
	"testing"
)

// TestYAMLErrorColumnOnLineOne: yaml.v3 writes a scanner error on the
// first line without "line 1:", so the column search never ran there and
// every such error was at 1:1 (spec 7: path:line:col of the problem). A
// byte order mark is no character of the line.
func TestYAMLErrorColumnOnLineOne(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"id: acme: x\n", "a.yaml:1:9: error: YAML syntax: mapping values are not allowed in this context [OAR_YAML]"},
		{"\ufeffid: acme: x\n", "a.yaml:1:9: error: YAML syntax: mapping values are not allowed in this context [OAR_YAML]"},
		{"tïtlé: é: x\r\n", "a.yaml:1:9: error: YAML syntax: mapping values are not allowed in this context [OAR_YAML]"},
		{"title: `x`\n", "a.yaml:1:8: error: YAML syntax: found character that cannot start any token [OAR_YAML]"},
	} {
		got := YAMLDiagnostics("a.yaml", []byte(tc.text)).Text()
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: want %q in:\n%s", tc.text, tc.want, got)
		}
	}
}

// TestYAMLUnclosedQuoteOnLineOne: a quoted string opened on the first
// line and never closed is at its quote, as on any other line (the docs'
// choice); yaml.v3 names the end of the text for it (its line of the
// scalar's start is 0, which it does not print), and the error was at
// the last line, column 1.
func TestYAMLUnclosedQuoteOnLineOne(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"when: \"abc\nfoo\nbar\n", "a.yaml:1:7: error: YAML syntax: found unexpected end of stream [OAR_YAML]"},
		{"title: 'x\n\nid: A\n", "a.yaml:1:8: error: YAML syntax: found unexpected end of stream [OAR_YAML]"},
		{"a: 1\nwhen: 'abc\nfoo\n", "a.yaml:2:7: error: YAML syntax: found unexpected end of stream [OAR_YAML]"},
	} {
		got := YAMLDiagnostics("a.yaml", []byte(tc.text)).Text()
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: want %q in:\n%s", tc.text, tc.want, got)
		}
	}
}
