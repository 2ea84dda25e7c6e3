package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCoverage: per rule, the steps in which it fired, failed closed, had
// an error and was reached, from the engines' answers.
func TestCoverage(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755)
	rule := func(id, body string) {
		doc := "oar: '1.0'\nid: " + id + "\nanchor: tool.pre_invoke\n" + body
		os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(doc), 0o644)
	}
	// In evaluation order: A_GATE (schema) blocks bash; B_WARN warns on
	// long commands; C_FLAKY fails closed when no provider answers;
	// D_NEVER is never fired; E_OTHER is at another anchor.
	rule("A_GATE", "kind: schema\neffect: block\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n")
	rule("B_WARN", "kind: policy\neffect: warn\nrequires: {profiles: [tool]}\nwhen: size(tool_arg_string(\"command\")) > 3\n")
	rule("C_FLAKY", "kind: policy\neffect: warn\nrequires: {profiles: [tool, filesystem]}\nwhen: path_outside_scope(\"/x\")\n")
	rule("D_NEVER", "kind: policy\neffect: nudge\nrequires: {profiles: [tool]}\nwhen: tool == \"never\"\n")
	os.WriteFile(filepath.Join(dir, "policy", "E_OTHER.yaml"), []byte("oar: '1.0'\nid: E_OTHER\nkind: policy\nanchor: tool.post_invoke\neffect: warn\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "fixtures", "f.json"), []byte(`[
 {"name": "bash is blocked", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}, "providers": {"path_outside_scope": {}}},
  "expected": {"decision": "block", "code": "A_GATE"}},
 {"name": "long read", "steps": [
   {"input": {"anchor": "tool.pre_invoke", "facts": {"tool": "read", "tool_args": {"command": "abcd"}}, "providers": {"path_outside_scope": {}}},
    "expected": {"decision": "warn", "codes": ["B_WARN"]}},
   {"input": {"anchor": "tool.pre_invoke", "facts": {"tool": "read"}},
    "expected": {"decision": "warn", "codes": ["C_FLAKY"], "failed_closed": ["C_FLAKY"]}}]}
]`), 0o644)
	for _, engines := range []Engines{Reference, Generated} {
		rep := RunReport([]string{dir}, Options{Engines: engines})
		for _, r := range rep.Results {
			if r.Status != Pass {
				t.Fatalf("%s: %v", r.Name, r.Messages)
			}
		}
		if len(rep.Coverage) != 1 {
			t.Fatalf("%d coverages", len(rep.Coverage))
		}
		c := rep.Coverage[0]
		var got []RuleCoverage
		for _, r := range c.Rules {
			rc := *r
			rc.File = filepath.Base(rc.File)
			got = append(got, rc)
		}
		pk := filepath.Base(dir)
		want := []RuleCoverage{
			{Rule: "A_GATE", Pack: pk, File: "A_GATE.yaml", Anchor: "tool.pre_invoke", Fired: 1, Reached: 3},
			{Rule: "B_WARN", Pack: pk, File: "B_WARN.yaml", Anchor: "tool.pre_invoke", Fired: 1, Reached: 2},
			{Rule: "C_FLAKY", Pack: pk, File: "C_FLAKY.yaml", Anchor: "tool.pre_invoke", Fired: 1, FailedClosed: 1, Errors: 1, Reached: 2},
			{Rule: "D_NEVER", Pack: pk, File: "D_NEVER.yaml", Anchor: "tool.pre_invoke", Reached: 2},
			{Rule: "E_OTHER", Pack: pk, File: "E_OTHER.yaml", Anchor: "tool.post_invoke"},
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(RuleCoverage{})); diff != "" {
			t.Errorf("engines %d (-want +got):\n%s", engines, diff)
		}
		var status []string
		for _, r := range c.Rules {
			status = append(status, r.Status())
		}
		if diff := cmp.Diff([]string{"covered", "covered", "failed-closed", "not-fired", "unreached"}, status); diff != "" {
			t.Errorf("status (-want +got):\n%s", diff)
		}
		if c.Fixtures != 2 || c.Steps != 3 || c.Covered() != 2 || c.Percent() != 40 {
			t.Errorf("fixtures %d steps %d covered %d percent %v", c.Fixtures, c.Steps, c.Covered(), c.Percent())
		}
	}
}

// TestCoverageWithoutFixtures: a pack without fixtures is reported, with
// nothing covered.
func TestCoverageWithoutFixtures(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.WriteFile(filepath.Join(dir, "policy", "R.yaml"), []byte("oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n"), 0o644)
	rep := RunReport([]string{dir}, Options{Engines: Reference})
	if len(rep.Results) != 0 || len(rep.Coverage) != 1 || rep.Coverage[0].Fixtures != 0 || len(rep.Coverage[0].Rules) != 1 || rep.Coverage[0].Percent() != 0 {
		t.Errorf("%+v %+v", rep.Results, rep.Coverage)
	}
}
