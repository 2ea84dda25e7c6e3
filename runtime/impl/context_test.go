package impl

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokens(t *testing.T) {
	for in, want := range map[string][]string{
		"":                          nil,
		"  -- ":                     nil,
		"Delete the build/ DIR":     {"delete", "the", "build", "dir"},
		"ETC_WRITE_FORBIDDEN":       {"etc", "write", "forbidden"},
		"breach:agent_reliability2": {"breach", "agent", "reliability2"},
		"Ünïcode ΣΊΣΥΦΟΣ σίσυφος": {"ünïcode", "ςίςυφος", "ςίςυφος"}, // a fold orbit's smallest lower-case letter
		"ſtraße K": {"straße", "k"}, // long s and the Kelvin sign fold to s and k
		"a\u0301b": {"a", "b"},      // a combining mark is not a letter
		"x\xffy":   {"x", "y"},
	} {
		if got := Tokens(in); !cmp.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRenderEdges covers what the pack-level golden tests of oarc render
// cannot build: no rules, only monitored rules, copy text with line breaks.
func TestRenderEdges(t *testing.T) {
	mon := ContextRule{ID: "M", Title: "Monitored", Monitor: true, Tags: []string{"bash", "m"}}
	cases := []struct {
		name  string
		rules []ContextRule
		hint  string
		k     int
		want  string
	}{
		{"none", nil, "", 0, ""},
		{"untitled only", []ContextRule{{ID: "U", Title: " \n", Global: true}}, "", 0, ""},
		{"monitored only", []ContextRule{mon}, "bash", 1,
			"## Rules\n\n### Provisional rules (under evaluation)\n\n" + ProvisionalNote + "\n\n- **M**: Monitored\n"},
		{"line breaks", []ContextRule{{ID: "A", Title: "Two\nlines ", Fix: "fix\r\n\n  it", Instead: " \t", Global: true}}, "", 0,
			"## Rules\n\n- **A**: Two lines\n  - Fix: fix it\n"},
		{"control characters", []ContextRule{{ID: "A", Title: "nul\x00 esc\x1b[31m red\x7f", Fix: "c1\u0085next\u009b x\xff", Global: true}}, "", 0,
			"## Rules\n\n- **A**: nul\uFFFD esc\uFFFD[31m red\uFFFD\n  - Fix: c1 next\uFFFD x\uFFFD\n"},
		{"monitored take no place in k", []ContextRule{
			{ID: "A", Title: "a", Tags: []string{"x"}},
			mon,
			{ID: "B", Title: "b", Tags: []string{"y"}, Text: []string{"bash"}},
			{ID: "C", Title: "c", Global: true},
		}, "bash", 1,
			"## Rules\n\n- **B**: b\n- **C**: c\n\n### Provisional rules (under evaluation)\n\n" + ProvisionalNote + "\n\n- **M**: Monitored\n\n(1 more rules not shown)\n"},
		{"score sums tags and text", []ContextRule{
			{ID: "A", Title: "a", Text: []string{"go", "build"}},
			{ID: "B", Title: "b", Tags: []string{"build"}},
			{ID: "C", Title: "c", Tags: []string{"build"}, Text: []string{"build"}},
		}, "build build GO", 1, "## Rules\n\n- **C**: c\n\n(2 more rules not shown)\n"},
	}
	for _, tc := range cases {
		if got := Render(tc.rules, tc.hint, tc.k); got != tc.want {
			t.Errorf("%s:\n%s", tc.name, cmp.Diff(tc.want, got))
		}
	}
}

// TestRenderKDefault checks that k <= 0 means DefaultContextK.
func TestRenderKDefault(t *testing.T) {
	var rules []ContextRule
	for i := 0; i < DefaultContextK+3; i++ {
		rules = append(rules, ContextRule{ID: string(rune('A' + i)), Title: "t", Tags: []string{"x"}})
	}
	for _, k := range []int{0, -1, DefaultContextK} {
		if got := Render(rules, "x", k); !strings.HasSuffix(got, "\n(3 more rules not shown)\n") {
			t.Errorf("k=%d:\n%s", k, got)
		}
	}
}

// Issue 18.9: the rendered context carries nothing invisible, and no copy
// text opens raw HTML: "<!--" in one rule and "-->" in a later one would
// hide the rules between them where the Markdown is shown as HTML.
func TestRenderNeutralises(t *testing.T) {
	rules := []ContextRule{
		{ID: "A", Title: "Open <!-- here", Global: true},
		{ID: "B", Title: "Hidden\U000E0049\U000E0047 rule\u200b", Fix: "bidi \u202Eevil\u202C soft\u00adhyphen \ufeffbom", Global: true},
		{ID: "C", Title: "close --> here <div hidden>", Instead: "<details>", Global: true},
	}
	got := Render(rules, "", 0)
	want := "## Rules\n\n" +
		"- **A**: Open \\<!-- here\n" +
		"- **B**: Hidden\uFFFD\uFFFD rule\uFFFD\n  - Fix: bidi \uFFFDevil\uFFFD soft\uFFFDhyphen \uFFFDbom\n" +
		"- **C**: close --> here \\<div hidden>\n  - Instead: \\<details>\n"
	if got != want {
		t.Errorf("Render:\n got %q\nwant %q", got, want)
	}
	if strings.Contains(strings.ReplaceAll(got, "\\<", ""), "<") {
		t.Errorf("an HTML comment opens in %q", got)
	}
}
