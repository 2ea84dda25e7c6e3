package compiler

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/runtime/impl"
)

// tokenInputs are texts whose tokens both tokenisers must agree on.
var tokenInputs = []string{
	"", " ", "delete the build directory", "ETC_WRITE_FORBIDDEN", "tool_args.path == '/etc'",
	"Ünïcode ΣΊΣΥΦΟΣ σίσυφος ſtraße K İstanbul ǅ ǆ Ǆ", "a\u0301b", "x\xffy\xc3", "١٢٣ digits ٤", "日本語のテキスト",
	"--force-with-lease", "tab\tnew\nline\r\u2028sep", "\U0001F600emoji\U0001F600", "ΐ ΰ ﬀ ﬁ",
}

// TestTokensAgree checks that the compiler tokenises rules exactly as the
// generated code tokenises hints (runtime/impl.Tokens): a rule matches a
// hint only when both sides split and fold alike.
func TestTokensAgree(t *testing.T) {
	for _, s := range tokenInputs {
		checkTokens(t, s)
	}
	// Every rune of the BMP and a sample beyond, alone and inside a word.
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r > 0xFFFF && r%97 != 0 {
			continue
		}
		s := string(r)
		checkTokens(t, s)
		checkTokens(t, "a"+s+"B")
	}
}

func checkTokens(t *testing.T, s string) {
	t.Helper()
	c, i := Tokens(s), impl.Tokens(s)
	if !cmp.Equal(c, i) {
		t.Fatalf("Tokens(%q): compiler %q, runtime/impl %q", s, c, i)
	}
	// Tokens are non-empty, valid UTF-8, and their own tokens (folding is
	// idempotent and never makes a letter a separator).
	for _, tok := range c {
		if tok == "" || !utf8.ValidString(tok) {
			t.Fatalf("Tokens(%q): bad token %q", s, tok)
		}
	}
	if again := Tokens(strings.Join(c, " ")); !cmp.Equal(again, c) {
		t.Fatalf("Tokens(%q) = %q, but tokenising them again gives %q", s, c, again)
	}
}

// FuzzTokens checks the agreement on arbitrary text.
func FuzzTokens(f *testing.F) {
	for _, s := range tokenInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTokens(t, s) })
}

// TestRuleTokens pins a rule's tags (selector values, then the id) and
// text (the copy), distinct, in order of appearance.
func TestRuleTokens(t *testing.T) {
	r := &Rule{
		ID: "WRITE_ETC",
		Selector: []SelectorClause{
			{Fact: "tool", Values: []any{"write", "edit"}},
			{Fact: "lycaon.tool_is_state", Values: []any{true}},
			{Fact: "lycaon.active_worker_count", Values: []any{int64(3)}},
		},
		Copy: Copy{Title: "Write to /etc", What: "what", Cause: "cause", Why: "why", Fix: "Fix the write", Instead: "instead"},
	}
	tags, text := ruleTokens(r)
	if want := []string{"write", "edit", "true", "3", "etc"}; !cmp.Equal(tags, want) {
		t.Errorf("tags %q, want %q", tags, want)
	}
	if want := []string{"write", "to", "etc", "what", "cause", "why", "fix", "the", "instead"}; !cmp.Equal(text, want) {
		t.Errorf("text %q, want %q", text, want)
	}
}
