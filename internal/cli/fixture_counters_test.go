package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixtureCountersOfAnotherPack: a fixture's counters for a rule that
// is not in the set it runs against are accepted and do nothing (spec 8's
// own example sets OTHER_RULE's beside a rule of its own). The same
// fixture file runs against its pack alone or, given with other packs,
// against the whole compilation set (spec 8), where the other pack's rule
// is; its validity must not depend on which.
func TestFixtureCountersOfAnotherPack(t *testing.T) {
	a := revspecPack(t, "oar: '1.0'\nname: a\n", map[string]string{
		"NO_GIT": revspecSel + "selector: {tool: git}\neffect: block\n",
	})
	b := revspecPack(t, "oar: '1.0'\nname: b\n", map[string]string{
		"OTHER_RULE": revspecSel + "selector: {tool: curl}\neffect: warn\n",
	})
	if err := os.MkdirAll(filepath.Join(a, "fixtures"), 0o755); err != nil {
		t.Fatal(err)
	}
	fx := `[{"name": "counters of b's rule", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "git"},
  "counters": {"OTHER_RULE": {"fire": 2, "breaker": 0}}}, "expected": {"decision": "block", "code": "NO_GIT"}}]`
	if err := os.WriteFile(filepath.Join(a, "fixtures", "f.json"), []byte(fx), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{a}, {a, b}} {
		code, out, stderr := run(append([]string{"test", "-engine", "reference"}, args...)...)
		if code != 0 || !strings.HasSuffix(out, "1 passed, 0 failed\n") {
			t.Errorf("oarc test %v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
}
