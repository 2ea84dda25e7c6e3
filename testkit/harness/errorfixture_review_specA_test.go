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
