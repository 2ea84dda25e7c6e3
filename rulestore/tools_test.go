package rulestore_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/rulestore"
)

// TestToolDefinitions: the five tools, each with a description and a
// JSON Schema of its arguments that compiles and accepts a good call and
// refuses a bad one.
func TestToolDefinitions(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	tools := s.Tools()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if len(tl.Description) < 40 {
			t.Errorf("%s: description %q", tl.Name, tl.Description)
		}
	}
	if diff := cmp.Diff([]string{"rules_list", "rules_search", "rule_add", "rule_retire", "rule_status"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	calls := map[string][2]string{ // good, bad arguments
		"rules_list":   {`{"status":"all"}`, `{"status":"some"}`},
		"rules_search": {`{"query":"git push","limit":3}`, `{"limit":3}`},
		"rule_add": {`{"rule":{"oar":"1.0","id":"X_Y","kind":"policy","anchor":"tool.pre_invoke","effect":"block","when":"true"},"rationale":"why"}`,
			`{"rule":{"oar":"1.0","id":"x","kind":"policy","anchor":"tool.pre_invoke","effect":"allow"},"rationale":"why"}`},
		"rule_retire": {`{"id":"X_Y","reason":"superseded"}`, `{"id":"X_Y"}`},
		"rule_status": {`{"id":"X_Y"}`, `{"name":"X_Y"}`},
	}
	for _, tl := range tools {
		sch, err := compiler.CompileSchema(tl.Schema)
		if err != nil {
			t.Errorf("%s: schema: %v", tl.Name, err)
			continue
		}
		for i, args := range calls[tl.Name] {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(v); (err == nil) != (i == 0) {
				t.Errorf("%s %s: valid %v", tl.Name, args, err == nil)
			}
		}
	}
}

// TestToolCalls: what an agent reads back from each tool.
func TestToolCalls(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{Now: clock()})
	tools := map[string]rulestore.Tool{}
	for _, tl := range s.Tools() {
		tools[tl.Name] = tl
	}
	call := func(name, args string) string {
		t.Helper()
		out, err := tools[name].Call(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	steps := []struct{ tool, args, want string }{
		{"rules_list", ``, "The rule store has no such rules."},
		{"rule_add", `{"rule":{"oar":"1.0","id":"LEASE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","selector":{"tool":"bash"},"requires":{"profiles":["tool"]},"when":"tool_arg_string(\"command\").contains(\"--force\") && !tool_arg_string(\"command\").contain(\"lease\")","copy":{"title":"Force push without a lease"}},"rationale":"a force push lost work"}`,
			"LEASE was not added: 1 error(s); correct them and add it again:\n" +
				"when:1:79: error: undeclared reference to 'contain' (did you mean 'contains'?) [OAR_UNKNOWN_FACT]\n" +
				"   | tool_arg_string(\"command\").contains(\"--force\") && !tool_arg_string(\"command\").contain(\"lease\")\n" +
				"   |                                                                               ^\n" +
				"The positions are in your `when` (when:LINE:COL) or name the field (rule.FIELD)."},
		{"rule_add", `{"rule":{"oar":"1.0","id":"LEASE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","selector":{"tool":"bash"},"requires":{"profiles":["tool"]},"when":"tool_arg_string(\"command\").contains(\"--force\")","copy":{"title":"Force push without a lease"}},"rationale":"a force push lost work","tags":["git"]}`,
			"Added LEASE as a candidate: in force now, in monitor (it does not block you), and listed in your rules as provisional. It is on trial until it fires in 5 distinct sessions without an error; then a person can promote it.\n"},
		{"rule_add", `{"rule":{"oar":"1.0","id":"LEASE_AGAIN","kind":"policy","anchor":"tool.pre_invoke","effect":"block","selector":{"tool":"bash"},"requires":{"profiles":["tool"]},"when":"tool_arg_string('command').contains('--force')"},"rationale":"again"}`,
			"An equivalent rule is already live: LEASE (candidate). Nothing was added; rule_status LEASE shows it.\n"},
		{"rules_list", `{}`, "- LEASE (candidate, trial: 0/5 sessions, pending): tool.pre_invoke block: Force push without a lease\n"},
		{"rules_search", `{"query":"git force"}`, "1.50 LEASE (candidate, trial: 0/5 sessions, pending): tool.pre_invoke block: Force push without a lease\n"},
		{"rule_status", `{"id":"LEASE"}`, "LEASE: candidate since 2026-05-01T10:00:01Z (in force, monitored)\n" +
			`rule: {"oar":"1.0","id":"LEASE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","selector":{"tool":"bash"},"requires":{"profiles":["tool"]},"when":"tool_arg_string(\"command\").contains(\"--force\")","copy":{"title":"Force push without a lease"}}` + "\n" +
			"rationale: a force push lost work\ntags: git\ntrial: evaluated in 0 sessions, fired in 0/5, 0 monitored firings, 0 errors: pending\n"},
		{"rule_status", `{"id":"NOPE"}`, "The rule store has no rule NOPE; rules_list shows the ids."},
		{"rule_retire", `{"id":"LEASE"}`, "rule_retire: give the reason the rule is retired."},
		{"rule_retire", `{"id":"LEASE","reason":"a compiled rule covers it"}`, "Retired LEASE: a compiled rule covers it. It is no longer in force; its id stays taken."},
		{"rule_retire", `{"id":"LEASE","reason":"again"}`, "rule LEASE is retired already."},
		{"rules_list", `{"status":"retired"}`, "- LEASE (retired): tool.pre_invoke block: Force push without a lease\n"},
		{"rules_list", `{"colour":"red"}`, `rules_list: the arguments do not match the tool's schema (json: unknown field "colour"); call it again with a JSON object of its arguments.`},
		{"rule_add", `{"rationale":"none"}`, `rule_add: give the rule (an OAR 1.0 rule document as a JSON object) in "rule".`},
	}
	for i, st := range steps {
		if got := call(st.tool, st.args); got != st.want {
			t.Errorf("step %d %s %s:\n%s", i, st.tool, st.args, cmp.Diff(st.want, got))
		}
	}
}

// TestToolCap: the add tool at the cap tells the agent to retire one.
func TestToolCap(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{Cap: 1})
	if _, err := s.Add(rulestore.Draft{Rule: doc("CAP_ONE", `tool == "a"`)}); err != nil {
		t.Fatal(err)
	}
	for _, tl := range s.Tools() {
		if tl.Name != rulestore.ToolAdd {
			continue
		}
		out, err := tl.Call(context.Background(), json.RawMessage(`{"rule":`+string(doc("CAP_TWO", `tool == "b"`))+`,"rationale":"x"}`))
		if err != nil || !strings.HasPrefix(out, "the store holds 1 live rules (candidates and active), its cap is 1: retire one first") {
			t.Errorf("%q %v", out, err)
		}
	}
}

// TestToolArgsExactNames: a tool reads its arguments by their exact
// names, as the guard's rules read tool_args (a map of the members as
// written) and as the tools' schemas say (additionalProperties false): a
// member whose name differs only in case is refused, never read as the
// argument it folds to. Otherwise a call evaluated with tool_args.id
// "KEEP" (or no id at all) would retire another rule than its rules saw.
func TestToolArgsExactNames(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{Now: clock()})
	for _, id := range []string{"KEEP", "OTHER"} {
		if _, err := s.Add(rulestore.Draft{Rule: doc(id, `tool == "`+strings.ToLower(id)+`"`)}); err != nil {
			t.Fatal(err)
		}
	}
	var retire rulestore.Tool
	for _, tl := range s.Tools() {
		if tl.Name == rulestore.ToolRetire {
			retire = tl
		}
	}
	for _, args := range []string{`{"ID":"OTHER","reason":"r"}`, `{"id":"KEEP","Id":"OTHER","reason":"r"}`, `{"id":"OTHER","Reason":"r"}`} {
		out, err := retire.Call(context.Background(), json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "do not match the tool's schema") {
			t.Errorf("%s: %q; want the arguments refused", args, out)
		}
	}
	for _, id := range []string{"KEEP", "OTHER"} {
		if in, err := s.Status(id); err != nil || in.Record.Status != rulestore.Candidate {
			t.Errorf("%s: %v %v; want it still a candidate", id, in.Record.Status, err)
		}
	}
}
