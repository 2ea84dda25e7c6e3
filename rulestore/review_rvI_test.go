package rulestore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
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
// session (rule_add now refuses them, but a record may come from
// elsewhere). The rule's JSON keeps them as \u escapes (it decodes to the
// same rule), free text shows U+FFFD.
func TestReviewRvIToolsShowNothingInvisible(t *testing.T) {
	tags := "\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065" // "ignore" in tag characters
	when := `tool == "x` + tags + "\u200b" + `"`
	rule, _ := json.Marshal(map[string]any{"oar": "1.0", "id": "V_WHEN", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
		"requires": map[string]any{"profiles": []string{"tool"}}, "selector": map[string]any{"tool": "x\u202eyz"}, "when": when, "copy": map[string]any{"title": "Visible"}})
	path := writeFile(t,
		// Add refuses such a rule (TestReviewRvIInvisibleInCondition);
		// a record written otherwise holds it.
		`{"id":"V_WHEN","created_at":"2026-01-02T03:04:05Z","status":"candidate","rule":`+string(rule)+`,"rationale":"why"}`+"\n",
		`{"id":"V_FILE","created_at":"2026-01-02T03:04:05Z","status":"retired","rule":{"oar":"1.0","id":"V_FILE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","requires":{"profiles":["tool"]},"when":"tool == \"rm\"","copy":{"title":"Hi\u200b\u202eyou\u0007","fix":"f\u2066x"}},"rationale":"r\u200bx","source":"s\u00adx","tags":["t\ufeffx"],"reason":"gone\u2067"}`+"\n")
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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

// TestReviewRvIRuleThatNoLongerChecksFailsClosed: a live rule of the
// store that no longer checks against the compilation set (a rule it
// names went away, the catalog changed, a record edited by hand) was
// reported when the store loaded and then left out of every evaluation:
// an active block rule that stopped was a silent allow, decision after
// decision. It is now an evaluation error of the rule at its anchor
// (spec 6: every error is handled by the rule's on_error and reported
// in the decision): fail_closed fires it with its effect, saying why;
// fail_open reports the error; a candidate is monitored and its trial
// fails.
func TestReviewRvIRuleThatNoLongerChecksFailsClosed(t *testing.T) {
	gone := `fire_count_of("NOPE") > 0 || tool == "rm"`
	openDoc := strings.Replace(string(doc("H_B_OPEN", gone)), `"when"`, `"on_error":"fail_open","when"`, 1)
	path := writeFile(t,
		record("H_A_CAND", "candidate", gone, `,"trial":{"sessions":0,"fired_sessions":0,"monitored":0,"errors":0,"threshold":5,"verdict":"pending"}`)+"\n",
		`{"id":"H_B_OPEN","created_at":"2026-01-02T03:04:05Z","status":"active","rule":`+openDoc+"}\n",
		record("H_C_GONE", "active", gone, "")+"\n",
	)
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.Problems()); n != 3 {
		t.Errorf("%d problems, want 3: %v", n, s.Problems())
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	var d runtime.Decision
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: "ls"}}
	if err := ev.Evaluate(context.Background(), occ, runtime.NewSession("s1"), &d); err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, e := range d.Errors {
		errs = append(errs, e.Rule+":"+e.Err.Kind.String())
	}
	if d.Effect != runtime.Block || d.Code != "H_C_GONE" || !cmp.Equal(d.Codes, []string{"H_C_GONE"}) ||
		!cmp.Equal(d.Monitored, []string{"H_A_CAND"}) || !cmp.Equal(d.FailedClosed, []string{"H_A_CAND", "H_C_GONE"}) ||
		!cmp.Equal(errs, []string{"H_A_CAND:rule_store", "H_B_OPEN:rule_store", "H_C_GONE:rule_store"}) {
		t.Errorf("decision %v code %s codes %v monitored %v failed closed %v errors %v", d.Effect, d.Code, d.Codes, d.Monitored, d.FailedClosed, errs)
	}
	rej := d.Rejection()
	if !strings.HasPrefix(rej, "This rule could not be evaluated (rule store: rule H_C_GONE does not load: ") || !strings.Contains(rej, "NOPE") ||
		!strings.HasSuffix(rej, "\nRule H_C_GONE\nFix: Do it otherwise.\nCode: H_C_GONE") {
		t.Errorf("rejection:\n%s", rej)
	}
	if in, _ := s.Status("H_A_CAND"); in.Record.Trial.Errors != 1 || in.Record.Trial.Verdict != "failing" {
		t.Errorf("H_A_CAND trial %+v", in.Record.Trial)
	}
	if out := callTool(t, s, "rule_status", `{"id":"H_C_GONE"}`); !strings.Contains(out, "(does not load, so it fails closed at tool.pre_invoke: ") {
		t.Errorf("rule_status:\n%s", out)
	}
}

// TestReviewRvICorrectedRecordReloads: a record that gives a rule that
// did not load a new document (a person corrected the file) is checked
// again when Reload reads it; the rule's old problem does not stay (it
// now fails closed, so a stale problem would block every call).
func TestReviewRvICorrectedRecordReloads(t *testing.T) {
	path := writeFile(t, record("R_FIXED", "active", `fire_count_of("NOPE") > 0`, "")+"\n")
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if in, _ := s.Status("R_FIXED"); in.InForce || in.Problem == "" {
		t.Fatalf("before: %+v", in)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(record("R_FIXED", "active", `tool == "rm"`, "") + "\n")
	f.Close()
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if in, _ := s.Status("R_FIXED"); !in.InForce || in.Problem != "" || len(in.FailsAt) != 0 {
		t.Errorf("after the corrected record: %+v", in)
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]runtime.Effect{"ls": runtime.Allow, "rm": runtime.Block} {
		var d runtime.Decision
		ev.Evaluate(context.Background(), &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: tool}}, nil, &d)
		if d.Effect != want || len(d.Errors) != 0 {
			t.Errorf("%s: %v %v", tool, d.Effect, d.Errors)
		}
	}
}

// TestReviewRvICostLimitOfTheSet: a pack's max_cost (spec 4) is the
// limit its rules are held to. The store's rules were checked against
// the default 1,000,000 whatever the packs of the set said, so a rule a
// host's pack limits to 5,000 ran from the store at up to 200 times
// that, and, once promoted into that pack, did not compile (OAR_COST).
// Without Options.Check.MaxCost, a store's rule is held to the lowest
// max_cost of the set's packs.
func TestReviewRvICostLimitOfTheSet(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(dir+"/policy", 0o755)
	os.WriteFile(dir+"/pack.yaml", []byte("oar: '1.0'\nname: cheap\norigin: project\nmax_cost: 5000\n"), 0o644)
	os.WriteFile(dir+"/policy/C_SMALL.yaml", []byte("oar: '1.0'\nid: C_SMALL\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires:\n  profiles: [tool]\nwhen: tool == \"x\"\n"), 0o644)
	set, ds := compiler.Load([]string{"testdata/packs/base", dir}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	costly := `tool_arg_string("command").matches("a+b") && tool_arg_string("path").matches("c+d")`
	s, _ := openTemp(t, set, rulestore.Options{})
	if err := addErr(t, s, rulestore.Draft{Rule: doc("C_COSTLY", costly)}); !strings.Contains(err.Error(), "[OAR_COST]") {
		t.Errorf("a rule above the set's max_cost: %v", err)
	}
	if _, err := s.Add(rulestore.Draft{Rule: doc("C_CHEAP", `tool == "y"`)}); err != nil {
		t.Errorf("a cheap rule: %v", err)
	}
	// The host's own limit decides when it gives one.
	s2, _ := openTemp(t, set, rulestore.Options{Check: compiler.Options{MaxCost: 5_000_000}})
	if _, err := s2.Add(rulestore.Draft{Rule: doc("C_COSTLY", costly)}); err != nil {
		t.Errorf("with the host's limit: %v", err)
	}
}

// TestReviewRvICopySizes: a store rule's copy is rendered into every
// prompt (its candidates always render, spec 10, 12) and a rule could
// take half a store line (512 KiB): an agent could fill every later
// session's context with its text, or bury the rules under it. A store
// rule's title takes at most 120 characters and each other copy text
// 500; its record at most 32 tags of 64 characters.
func TestReviewRvICopySizes(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	withCopy := func(id string, cp map[string]string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"oar": "1.0", "id": id, "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
			"requires": map[string]any{"profiles": []string{"tool"}}, "when": `tool == "` + id + `"`, "copy": cp})
		return b
	}
	long := func(n int) string { return strings.Repeat("é", n) }
	for _, c := range []struct {
		name string
		d    rulestore.Draft
		want string
	}{
		{"title", rulestore.Draft{Rule: withCopy("S_TITLE", map[string]string{"title": long(121)})}, "rule.copy: error: copy.title is 121 characters long"},
		{"fix", rulestore.Draft{Rule: withCopy("S_FIX", map[string]string{"title": "t", "fix": long(501)})}, "rule.copy: error: copy.fix is 501 characters long"},
		{"why", rulestore.Draft{Rule: withCopy("S_WHY", map[string]string{"title": "t", "why": long(501)})}, "copy.why is 501"},
		{"tags", rulestore.Draft{Rule: withCopy("S_TAGS", map[string]string{"title": "t"}), Tags: strings.Fields(strings.Repeat("a ", 33) + "b")}, "34 tags"},
		{"tag", rulestore.Draft{Rule: withCopy("S_TAG", map[string]string{"title": "t"}), Tags: []string{long(65)}}, "a tag is 65 characters long"},
	} {
		// Tags are distinct after sanitising: make them so.
		for i := range c.d.Tags {
			c.d.Tags[i] += fmt.Sprint(i)
		}
		if c.name == "tag" {
			c.d.Tags[0] = long(65)
		}
		err := addErr(t, s, c.d)
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "[OAR_VALUE]") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	tags := make([]string, 32)
	for i := range tags {
		tags[i] = fmt.Sprint("t", i, long(60))
	}
	if _, err := s.Add(rulestore.Draft{Rule: withCopy("S_OK", map[string]string{"title": long(120), "fix": long(500), "instead": long(500), "what": long(500)}), Tags: tags}); err != nil {
		t.Errorf("at the limits: %v", err)
	}
}

// TestReviewRvIInvisibleInCondition: copy is sanitised, but a `when`, a
// selector value or any other text of the rule an agent adds was kept as
// written: a condition that hides characters (bidirectional controls
// that make it read as another condition, tag characters spelling a
// sentence) reached the person who promotes it and the rule file oarc
// promote writes. Add rejects them, saying how to write them visibly (a
// CEL string takes the escape \u200b).
func TestReviewRvIInvisibleInCondition(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	sel := func(id, v string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"oar": "1.0", "id": id, "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
			"requires": map[string]any{"profiles": []string{"tool"}}, "selector": map[string]any{"tool": []string{"a", v}}, "copy": map[string]any{"title": "t"}})
		return b
	}
	for _, c := range []struct {
		d    rulestore.Draft
		want string
	}{
		{rulestore.Draft{Rule: doc("I_WHEN", "tool == \"rm\u202e\" || false")}, "rule.when: error: when holds the invisible character U+202E"},
		{rulestore.Draft{Rule: doc("I_COMMENT", "tool == \"rm\" // \u2066 || true")}, "U+2066"},
		{rulestore.Draft{Rule: doc("I_TAGS", "tool == \"x\U000E0069\"")}, `U+E0069; write the rule visibly (in a CEL string, as the escape \U000e0069)`},
		{rulestore.Draft{Rule: sel("I_SEL", "b\u200bc")}, "rule.selector: error: selector.tool holds the invisible character U+200B"},
	} {
		if err := addErr(t, s, c.d); !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "[OAR_VALUE]") {
			t.Errorf("%v", err)
		}
	}
	// Written visibly, the same condition is a rule.
	if _, err := s.Add(rulestore.Draft{Rule: doc("I_ESCAPED", `tool == "b\u200bc"`)}); err != nil {
		t.Errorf("escaped: %v", err)
	}
}
