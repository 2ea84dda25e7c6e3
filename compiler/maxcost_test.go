package compiler

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/runtime"
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

// TestNodeLabelsCost: a provenance node's labels are bounded by the
// runtime's per-node limit, not assumed a list fact of 1,024 elements, so
// that spec 5.11's own example loads at the default limit; iterating them
// still costs what 256 labels a node cost.
func TestNodeLabelsCost(t *testing.T) {
	if maxNodeLabels != runtime.DefaultLabelLimit {
		t.Fatalf("maxNodeLabels %d, runtime.DefaultLabelLimit %d: the estimate must bound what a store admits", maxNodeLabels, runtime.DefaultLabelLimit)
	}
	rule := func(when string) map[string]string {
		return map[string]string{"R": "effect: block\nrequires: {profiles: [provenance]}\nwhen: '" + when + "'\n"}
	}
	pack := "oar: '1.0'\nname: p\norigin: stock\n"
	example := writePack(t, filepath.Join(t.TempDir(), "p"), pack, rule(`provenance_nodes.exists(n, n.tool == "read_document" && "confidential" in n.labels && !n.input)`))
	if _, diags := Load([]string{example}, Options{}); len(diags) > 0 {
		t.Errorf("spec 5.11's example rule:\n%s", diags.Text())
	}
	// 1,024 nodes of 256 labels each: far above the limit, and a quarter
	// of what 1,024 labels a node would cost.
	nested := writePack(t, filepath.Join(t.TempDir(), "p"), pack, rule(`provenance_nodes.exists(n, n.labels.exists(l, l.startsWith("conf")))`))
	_, diags := Load([]string{nested}, Options{})
	if text := diags.Text(); !strings.Contains(text, "estimated worst-case cost of when is 1580034,") {
		t.Errorf("labels iterated in every node:\n%s", text)
	}
	// Labels of something else are a list fact's size as before.
	other := writePack(t, filepath.Join(t.TempDir(), "p"), pack, rule(`tool_args.labels.exists(l, "x" in tool_args.labels)`))
	if _, diags := Load([]string{other}, Options{}); !strings.Contains(diags.Text(), "OAR_COST") {
		t.Errorf("tool_args.labels should keep the 1,024 bound:\n%s", diags.Text())
	}
}

// TestSystemOnlyZoneAsRuntime: the compiler's copy of the zone names only
// a system's zoneinfo directory has (it does not import the runtime)
// refuses what the runtime refuses at run time, so a name checks the same
// at load and at run time (spec 5.13).
func TestSystemOnlyZoneAsRuntime(t *testing.T) {
	for _, name := range []string{"localtime", "posixrules", "right/UTC", "posix/Europe/Paris", "right", "posix",
		"UTC", "Europe/Paris", "America/New_York", "Local", "", "Localtime", "rightUTC", "Etc/GMT+3",
		"Europe//Paris", "./UTC", "Europe/./Paris", "/UTC", "UTC/", "Europe/../Europe/Paris", "..", "America/Argentina/Buenos_Aires"} {
		if got, want := systemOnlyZone(name), runtime.SystemOnlyZone(name); got != want {
			t.Errorf("%q: compiler %v, runtime %v", name, got, want)
		}
	}
}
