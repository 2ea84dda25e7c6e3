package compiler

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxCostYAMLInts: a pack's max_cost is read as YAML reads an int
// (spec 4 and 1: pack.yaml is YAML), as flow.within is. Before, 0x7FFFFFFF,
// 0o17 and +5 (YAML ints) were rejected with "is not a positive integer".
func TestMaxCostYAMLInts(t *testing.T) {
	// ≈6.7M, as in TestMaxCost.
	const roots = "effect: block\nrequires: {profiles: [tool, session]}\nwhen: '!principal_roles.exists(r, tool_arg_string(\"path\").startsWith(r))'\n"
	for _, tc := range []struct{ value, want string }{
		{"0x7FFFFFFF", ""},
		{"0o17", "above the pack's max_cost 15"},
		{"+10000000", ""},
		{"0x0", "max_cost 0x0 is not a positive integer"},
		{"-0x10", "max_cost -0x10 is not a positive integer"},
	} {
		dir := writePack(t, filepath.Join(t.TempDir(), "p"), "oar: '1.0'\nname: p\norigin: stock\nmax_cost: "+tc.value+"\n", map[string]string{"ROOTS": roots})
		_, diags := Load([]string{dir}, Options{})
		text := diags.Text()
		if tc.want == "" && text != "" {
			t.Errorf("max_cost: %s: want no diagnostics, got\n%s", tc.value, text)
		}
		if tc.want != "" && !strings.Contains(text, tc.want) {
			t.Errorf("max_cost: %s: want %q in\n%s", tc.value, tc.want, text)
		}
	}
}
