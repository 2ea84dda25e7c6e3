package rulestore_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/runtime"
)

// Sanitize (what the store keeps of an agent's copy, rationale, source,
// tags) leaves no invisible character: the Hangul fillers, the variation
// selectors, the combining grapheme joiner and the reserved
// default-ignorable code points were kept as they were. A presentation
// selector after a visible character stays, as it does in a pack's copy.
func TestSanitizeInvisibleClass(t *testing.T) {
	var miss []string
	for h := rune(0); h <= unicode.MaxRune; h++ {
		if !runtime.HiddenRune(h) || h == 0xFE0E || h == 0xFE0F {
			continue
		}
		if got := rulestore.Sanitize("a" + string(h) + "b"); strings.ContainsRune(got, h) || runtime.HasHidden(got) {
			miss = append(miss, fmt.Sprintf("%U: %q", h, got))
		}
	}
	if len(miss) > 0 {
		t.Errorf("%d invisible characters kept, e.g. %v", len(miss), miss[:min(len(miss), 10)])
	}
	for in, want := range map[string]string{
		"Stop \u26A0\uFE0F now": "Stop \u26A0\uFE0F now",
		"a \uFE0F":              "a \uFFFD",
		"a\uFE0F\uFE0F":         "a\uFE0F\uFFFD",
		"\uFE0Fa":               "\uFFFDa",
		"a\u3164b":              "a\uFFFDb",
	} {
		if got := rulestore.Sanitize(in); got != want || rulestore.Sanitize(got) != got {
			t.Errorf("Sanitize(%q) = %q, want %q (and stable)", in, got, want)
		}
	}
}

// The store's tools answer the model: a store file not written by Add
// may hold any copy, rationale or reason, and rule_status shows the rule
// as JSON. Nothing in an answer may be invisible; the rule's JSON keeps
// what a condition holds as \u escapes, so that it decodes to the rule.
func TestToolsShowNoInvisibleClass(t *testing.T) {
	odd := "\u3164\uFE01\u034F\U000E0100\u115F\uFFA0\u17B4\u2065"
	when := `tool == "x` + odd + `"`
	rule, _ := json.Marshal(map[string]any{"oar": "1.0", "id": "V_WHEN", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
		"requires": map[string]any{"profiles": []string{"tool"}}, "when": when, "copy": map[string]any{"title": "Visible " + odd, "fix": "f" + odd}})
	path := writeFile(t,
		`{"id":"V_WHEN","created_at":"2026-01-02T03:04:05Z","status":"candidate","rule":`+string(rule)+`,"rationale":"why`+odd+`","source":"s`+odd+`","tags":["t`+odd+`"]}`+"\n",
		`{"id":"V_GONE","created_at":"2026-01-02T03:04:05Z","status":"retired","rule":{"oar":"1.0","id":"V_GONE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","requires":{"profiles":["tool"]},"when":"tool == \"rm\"","copy":{"title":"Hi`+odd+`"}},"rationale":"r","reason":"gone`+odd+`"}`+"\n")
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range [][2]string{
		{"rules_list", `{"status":"all"}`},
		{"rules_search", `{"query":"hi visible"}`},
		{"rule_status", `{"id":"V_WHEN"}`},
		{"rule_status", `{"id":"V_GONE"}`},
		{"rule_status", `{"id":"X` + odd + `"}`},
		{"rule_retire", `{"id":"X` + odd + `","reason":"r"}`},
	} {
		if out := callTool(t, s, c[0], c[1]); runtime.HasHidden(out) {
			t.Errorf("%s %s: the answer holds an invisible character:\n%+q", c[0], c[1], out)
		}
	}
	if ctx := s.Context("", 0); runtime.HasHidden(ctx) {
		t.Errorf("the store's context holds an invisible character:\n%+q", ctx)
	}
	out := callTool(t, s, "rule_status", `{"id":"V_WHEN"}`)
	_, js, ok := strings.Cut(out, "\nrule: ")
	if !ok {
		t.Fatalf("no rule line:\n%s", out)
	}
	js, _, _ = strings.Cut(js, "\n")
	var got struct {
		When string `json:"when"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	if got.When != when || !strings.Contains(js, `\u3164`) {
		t.Errorf("rule_status does not show the rule's when as escapes: %s", js)
	}
}
