package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// TestErrorFixtureNeedsARejection: spec 8, "a rule that must be rejected:
// expected: {error: CODE}; the fixture passes when loading reports that
// code". A rule that loads, with a warning of that code (a listed profile
// the rule never reads is a warning, spec 3), was not rejected: the
// fixture fails. Before, any diagnostic's code passed it.
func TestErrorFixtureNeedsARejection(t *testing.T) {
	const fixtures = `[
 {"name": "warning only", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke",
   "effect": "block", "requires": {"profiles": ["tool"]}}, "expected": {"error": "OAR_REQUIRES"}},
 {"name": "error", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke",
   "effect": "block", "when": "tool == \"x\""}, "expected": {"error": "OAR_REQUIRES"}},
 {"name": "warning beside another error", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke",
   "effect": "nope", "requires": {"profiles": ["tool"]}}, "expected": {"error": "OAR_REQUIRES"}}
]`
	file := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(file, []byte(fixtures), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := RunReport([]string{file}, Options{Engines: Reference})
	want := map[string]Status{"warning only": Fail, "error": Pass, "warning beside another error": Fail}
	if len(rep.Results) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(rep.Results), len(want), rep.Results)
	}
	for _, r := range rep.Results {
		if r.Status != want[r.Name] {
			t.Errorf("%s: %v, want %v (%v)", r.Name, r.Status, want[r.Name], r.Messages)
		}
	}
}

// TestSpecExampleFixture: the fixture spec section 8 gives as its example
// passes as written. It sets the counters of OTHER_RULE, a rule that is
// not in the set (the fixture's rule alone): state no rule can read
// (spec 5.3), which made the fixture invalid before.
func TestSpecExampleFixture(t *testing.T) {
	const example = `{
  "name": "triage-lite-write-blocked",
  "rule": { "oar": "1.0", "id": "TRIAGE_LITE_WRITE_FORBIDDEN", "kind": "policy",
            "anchor": "tool.pre_invoke", "selector": { "tool": ["write", "edit"] },
            "requires": { "profiles": ["session", "tool"] },
            "when": "session_posture == \"spec\" && lycaon.tool_is_state",
            "effect": "block" },
  "input": {
    "anchor": "tool.pre_invoke",
    "facts": { "tool": "write", "session_posture": "spec",
               "lycaon": { "tool_is_state": true } },
    "profiles": ["session", "tool"],
    "content": "text at a model-IO anchor",
    "counters": { "OTHER_RULE": { "fire": 2, "breaker": 0 } },
    "detectors": { "injection.v1": { "hit": true, "facts": { "prompt_injection_score": 0.93 } },
                   "secrets.v2": { "error": "timeout" } },
    "providers": { "path_outside_scope": { "path": true },
                   "mcp_field_bool": { "is_ready": true },
                   "lycaon.source_includes": { "web": false } }
  },
  "expected": { "decision": "block", "code": "TRIAGE_LITE_WRITE_FORBIDDEN",
                "codes": ["TRIAGE_LITE_WRITE_FORBIDDEN"], "monitored": [],
                "errors": 0, "content": "rewritten content (transform only)" }
}`
	file := filepath.Join(t.TempDir(), "example.json")
	if err := os.WriteFile(file, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := RunReport([]string{file}, Options{Engines: Reference})
	if len(rep.Results) != 1 {
		t.Fatalf("%d results: %+v", len(rep.Results), rep.Results)
	}
	// The example's expected content is a transform's ("transform only"):
	// not compared for its block, so the example passes as written.
	if r := rep.Results[0]; r.Status != Pass {
		t.Fatalf("the spec's example: %v %v", r.Status, r.Messages)
	}
}
