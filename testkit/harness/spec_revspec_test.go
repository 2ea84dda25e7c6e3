package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRevspecIDsOfTheSet: a fixture that runs against its pack (no rule
// of its own) sets counters and presets blocked calls of the pack's
// rules: spec 5.3 keeps counters in fixed slots of the rules of the set.
// A counter of an id the set does not have (RM_RFF for RM_RF) is state no
// rule reads: the fixture would test nothing of what it says, so it is
// invalid at that id, with the nearest one. A fixture with a rule of its
// own keeps spec 8's example (another rule's counters beside the rule
// alone). A history call's code may be one the set does not have (a
// session may hold calls blocked by a rule removed since).
func TestRevspecIDsOfTheSet(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pack.yaml", "oar: '1.0'\nname: p\norigin: stock\ndeny_by_default:\n  anchors: [tool.pre_invoke]\n  code: NOT_LISTED\n")
	write("policy/RM_RF.yaml", "oar: '1.0'\nid: RM_RF\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: fire_count > 2\n")
	write("policy/LS_OK.yaml", "oar: '1.0'\nid: LS_OK\nkind: policy\nanchor: tool.pre_invoke\nselector: {tool: ls}\nrequires: {profiles: [tool]}\neffect: allow\n")
	const in = `"anchor": "tool.pre_invoke", "facts": {"tool": "ls"}`
	write("fixtures/f.json", `[
{"name": "counter typo", "input": {`+in+`, "counters": {"RM_RFF": {"fire": 3}}}, "expected": {"decision": "allow"}},
{"name": "counter of the deny code", "input": {`+in+`, "counters": {"NOT_LISTED": {"fire": 3}}}, "expected": {"decision": "allow"}},
{"name": "history code", "steps": [{"input": {`+in+`, "history": [{"tool": "x", "code": "RM_RF"}, {"tool": "x", "code": "REMOVED_SINCE"}]}, "expected": {"decision": "allow"}}]},
{"name": "check counter typo", "check": [{`+in+`, "counters": {"LS_OK": {"fire": 1}, "LS_OKK": {"fire": 1}}}], "expected": [{"decision": "allow"}]},
{"name": "good", "input": {`+in+`, "counters": {"RM_RF": {"fire": 2}, "LS_OK": {"breaker": 1}}, "history": [{"tool": "x", "code": "NOT_LISTED"}, {"tool": "x", "code": "RM_RF"}, {"tool": "x"}]}, "expected": {"decision": "allow", "codes": ["LS_OK"]}},
{"name": "own rule", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn"},
 "input": {"anchor": "tool.pre_invoke", "counters": {"OTHER_RULE": {"fire": 2}}, "history": [{"tool": "x", "code": "OTHER_RULE"}]}, "expected": {"decision": "warn"}}
]`)
	rep := RunReport([]string{dir}, Options{Engines: Reference})
	want := map[string]string{
		"counter typo":             `f.json:2:103: fixture "counter typo": input.counters.RM_RFF: no rule of the set has the id RM_RFF (did you mean "RM_RF"?)`,
		"counter of the deny code": `input.counters.NOT_LISTED: no rule of the set has the id NOT_LISTED`,
		"history code":             "",
		"check counter typo":       `check[0].counters.LS_OKK: no rule of the set has the id LS_OKK (did you mean "LS_OK"?)`,
		"good":                     "",
		"own rule":                 "",
	}
	if len(rep.Results) != len(want) {
		t.Fatalf("%d results: %+v", len(rep.Results), rep.Results)
	}
	for _, r := range rep.Results {
		w := want[r.Name]
		msg := strings.Join(r.Messages, "\n")
		if w == "" {
			if r.Status != Pass {
				t.Errorf("%s: %s %s", r.Name, r.Status, msg)
			}
			continue
		}
		if r.Status != Invalid || !strings.Contains(msg, w) {
			t.Errorf("%s: %s %q, want invalid with %q", r.Name, r.Status, msg, w)
		}
	}
}
