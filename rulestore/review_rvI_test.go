package rulestore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/runtime"
)

// callTool runs the store's tool name with args and returns its text.
func callTool(t *testing.T, s *rulestore.Store, name, args string) string {
	t.Helper()
	for _, tl := range s.Tools() {
		if tl.Name == name {
			out, err := tl.Call(context.Background(), json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s %s: %v", name, args, err)
			}
			return out
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

// hidden returns the first character of s an agent would not see (spec
// 5.1: controls but tab and line breaks, Unicode Cf), or "".
func hidden(s string) string {
	for _, r := range s {
		if runtime.HiddenRune(r) {
			return fmt.Sprintf("%U", r)
		}
	}
	return ""
}

// TestReviewRvIToolsShowNothingInvisible: what the store's tools answer
// reaches the model as a tool result, so nothing in it may be invisible
// (spec 5.1: copy text is sanitised wherever it reaches an agent,
// section 12's store included). An agent can hide a sentence in tag
// characters inside a string literal of its `when` or in a selector
// value, and a store file not written by Add can hold any copy,
// rationale or reason; rule_status showed them raw to every later
// session. The rule's JSON keeps them as \u escapes (it decodes to the
// same rule), free text shows U+FFFD.
func TestReviewRvIToolsShowNothingInvisible(t *testing.T) {
	tags := "\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065" // "ignore" in tag characters
	when := `tool == "x` + tags + "\u200b" + `"`
	rule, _ := json.Marshal(map[string]any{"oar": "1.0", "id": "V_WHEN", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
		"requires": map[string]any{"profiles": []string{"tool"}}, "selector": map[string]any{"tool": "x\u202eyz"}, "when": when, "copy": map[string]any{"title": "Visible"}})
	path := writeFile(t,
		`{"id":"V_FILE","created_at":"2026-01-02T03:04:05Z","status":"retired","rule":{"oar":"1.0","id":"V_FILE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","requires":{"profiles":["tool"]},"when":"tool == \"rm\"","copy":{"title":"Hi\u200b\u202eyou\u0007","fix":"f\u2066x"}},"rationale":"r\u200bx","source":"s\u00adx","tags":["t\ufeffx"],"reason":"gone\u2067"}`+"\n")
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Add(rulestore.Draft{Rule: rule, Rationale: "why"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{"rules_list", `{"status":"all"}`},
		{"rules_search", `{"query":"hi visible"}`},
		{"rule_status", `{"id":"V_FILE"}`},
		{"rule_status", `{"id":"V_WHEN"}`},
		{"rule_status", `{"id":"X\u200bY"}`},
		{"rule_retire", `{"id":"X\u200bY","reason":"r"}`},
		{"rule_add", `{"rule":{"oar":"1.0","id":"V_BAD","kind":"policy","anchor":"tool.pre_invoke","effect":"block","when":"tool == \"\u200b\" &&"},"rationale":"r"}`},
	} {
		out := callTool(t, s, c[0], c[1])
		if h := hidden(out); h != "" {
			t.Errorf("%s %s: the answer holds %s:\n%q", c[0], c[1], h, out)
		}
	}
	// The rule's JSON in rule_status is the rule: its when decodes to
	// the when the agent wrote.
	out := callTool(t, s, "rule_status", `{"id":"V_WHEN"}`)
	_, js, ok := strings.Cut(out, "\nrule: ")
	if !ok {
		t.Fatalf("no rule line:\n%s", out)
	}
	js, _, _ = strings.Cut(js, "\n")
	var got struct {
		When     string            `json:"when"`
		Selector map[string]string `json:"selector"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	if got.When != when || got.Selector["tool"] != "x\u202eyz" {
		t.Errorf("rule_status shows another rule: when %q selector %q", got.When, got.Selector)
	}
	if !strings.Contains(js, `\udb40\udc69`) {
		t.Errorf("the tag characters are not shown as escapes: %s", js)
	}
}

// TestReviewRvIVerdictFollowsCounts: a trial's verdict is ready under the
// rule of oarc stats, fired in at least N distinct sessions with no
// error (spec 10, 12), N the store's threshold. The verdict a record
// holds was the writer's; a record that says ready with errors (a file
// edited by hand, a writer with a lower N) was shown as ready by the
// tools, Status and oarc store.
func TestReviewRvIVerdictFollowsCounts(t *testing.T) {
	trial := func(id, tr string) string {
		return record(id, "candidate", `tool == "x"`, `,"trial":`+tr) + "\n"
	}
	path := writeFile(t,
		trial("V_ERRORS", `{"sessions":6,"fired_sessions":6,"monitored":6,"errors":3,"threshold":5,"verdict":"ready"}`),
		trial("V_LOWER_N", `{"sessions":5,"fired_sessions":5,"monitored":5,"errors":0,"threshold":5,"verdict":"ready"}`),
		trial("V_READY", `{"sessions":9,"fired_sessions":8,"monitored":8,"errors":0,"threshold":8,"verdict":"pending"}`),
	)
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{Sessions: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]string{"V_ERRORS": "failing", "V_LOWER_N": "pending", "V_READY": "ready"}
	for id, v := range want {
		in, err := s.Status(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Record.Trial; got.Verdict != v || got.Threshold != 8 {
			t.Errorf("%s: verdict %s threshold %d, want %s at 8", id, got.Verdict, got.Threshold, v)
		}
		if out := callTool(t, s, "rule_status", `{"id":"`+id+`"}`); !strings.Contains(out, "errors: "+v+"\n") {
			t.Errorf("rule_status %s, want %s:\n%s", id, v, out)
		}
	}
	if out := callTool(t, s, "rules_list", `{}`); !strings.Contains(out, "V_ERRORS (candidate, trial: 6/8 sessions, failing)") ||
		!strings.Contains(out, "V_LOWER_N (candidate, trial: 5/8 sessions, pending)") {
		t.Errorf("rules_list:\n%s", out)
	}
	// oarc store reads the records without a store's N: the record's.
	recs, _, err := rulestore.ReadRecords("f", strings.NewReader(trial("V_ERRORS", `{"sessions":6,"fired_sessions":6,"monitored":6,"errors":3,"threshold":5,"verdict":"ready"}`)+
		trial("V_READY", `{"sessions":5,"fired_sessions":5,"monitored":5,"errors":0,"threshold":5,"verdict":"pending"}`)))
	if err != nil || len(recs) != 2 {
		t.Fatal(recs, err)
	}
	if recs[0].Trial.Verdict != "failing" || recs[1].Trial.Verdict != "ready" {
		t.Errorf("ReadRecords: %+v %+v", recs[0].Trial, recs[1].Trial)
	}
	// A trial that is no trial (a threshold below 1 would make any rule
	// ready; negative counts) is not a record.
	for _, tr := range []string{
		`{"sessions":0,"fired_sessions":0,"monitored":0,"errors":0,"threshold":0,"verdict":"ready"}`,
		`{"sessions":0,"fired_sessions":0,"monitored":0,"errors":-1,"threshold":5,"verdict":"pending"}`,
	} {
		recs, problems, _ := rulestore.ReadRecords("f", strings.NewReader(trial("V_BAD", tr)))
		if len(recs) != 0 || len(problems) != 1 {
			t.Errorf("%s: records %v problems %v", tr, recs, problems)
		}
	}
}
