package compiler

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMaxCost: spec section 4. A pack's max_cost admits a rule above the
// default limit, in a set each pack keeps its own limit, -max-cost
// overrides every pack's, and a max_cost that is not a positive integer is
// an error at its position.
func TestMaxCost(t *testing.T) {
	// ≈6.7M: above the default 1,000,000, below 10,000,000.
	const roots = "effect: block\nrequires: {profiles: [tool, session]}\nwhen: '!principal_roles.exists(r, tool_arg_string(\"path\").startsWith(r))'\n"
	pack := func(name, extra string) string {
		return "oar: '1.0'\nname: " + name + "\norigin: stock\n" + extra
	}
	root := t.TempDir()
	big := writePack(t, filepath.Join(root, "big"), pack("big", "max_cost: 10000000\n"), map[string]string{"BIG_ROOTS": roots})
	small := writePack(t, filepath.Join(root, "small"), pack("small", ""), map[string]string{"SMALL_ROOTS": roots})

	_, diags := Load([]string{big, small}, Options{})
	text := diags.Text()
	if strings.Contains(text, "big/policy/BIG_ROOTS.yaml:7:9") {
		t.Errorf("the pack's max_cost 10000000 should admit BIG_ROOTS:\n%s", text)
	}
	if !strings.Contains(text, "small/policy/SMALL_ROOTS.yaml:7:9: error: estimated worst-case cost of when is 6717443, above the default limit 1000000") {
		t.Errorf("SMALL_ROOTS should be rejected at the default limit:\n%s", text)
	}

	_, diags = Load([]string{big}, Options{MaxCost: 100})
	if text := diags.Text(); !strings.Contains(text, "above -max-cost 100") {
		t.Errorf("-max-cost 100 should override the pack's max_cost:\n%s", text)
	}
	_, diags = Load([]string{small}, Options{MaxCost: 7000000})
	if text := diags.Text(); strings.Contains(text, "OAR_COST") {
		t.Errorf("-max-cost 7000000 should admit SMALL_ROOTS:\n%s", text)
	}

	for _, tc := range []struct{ value, want string }{
		{"0", "pack.yaml:4:11: error: max_cost 0 is not a positive integer (the default limit is 1000000) [OAR_VALUE]"},
		{"-5", "pack.yaml:4:11: error: max_cost -5 is not a positive integer"},
		{"1.5", "pack.yaml:4:11: error: max_cost must be a positive integer, got a number (1.5) [OAR_FIELD_TYPE]"},
		{"'100'", "pack.yaml:4:11: error: max_cost must be a positive integer, got a string (100) [OAR_FIELD_TYPE]"},
		{"[1]", "pack.yaml:4:11: error: max_cost must be a positive integer, got a list [OAR_FIELD_TYPE]"},
		{"99999999999999999999999", "pack.yaml:4:11: error: max_cost must be a positive integer, got a number (99999999999999999999999)"},
	} {
		dir := writePack(t, filepath.Join(t.TempDir(), "bad"), pack("bad", "max_cost: "+tc.value+"\n"), map[string]string{"OK": "effect: warn\nwhen: 'true'\n"})
		_, diags := Load([]string{dir}, Options{})
		if text := diags.Text(); !strings.Contains(text, tc.want) {
			t.Errorf("max_cost: %s: want %q in\n%s", tc.value, tc.want, text)
		}
	}
}
