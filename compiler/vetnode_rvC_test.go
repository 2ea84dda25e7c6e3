package compiler

import (
	"strings"
	"testing"
)

// TestVetNodeField: a provenance node (spec 5.11) is a map with the keys
// id, kind, tool, origin, trust_tier, labels, args and input only. A
// misspelt field (n.tol, n["lables"]) is an error on every node, so a rule
// that fails open never fires on it: OAR_VET_NODE_FIELD at the field. A
// has() test of such a field is always false. A comprehension variable
// of another range with the same name is left alone.
func TestVetNodeField(t *testing.T) {
	req := "requires: {profiles: [provenance]}\n" + titled + "effect: block\n"
	got, text := vetPack(t, map[string]string{
		"pack.yaml": "oar: '1.0'\nmax_cost: 100000000\n",
		"A":         req + "on_error: fail_open\nwhen: 'provenance_nodes.exists(n, n.tol == \"read\")'\n",
		"B":         req + "when: 'provenance_nodes.exists(n, \"x\" in n[\"lables\"]) || has(provenance_nodes[0].orign)'\n",
		"C":         req + "when: 'provenance_nodes.exists(n, n.tool == \"read\" && \"pii\" in n.labels && !n.input && n.args.path != \"\" && n.id != n.kind && n.origin == n.trust_tier)'\n",
		"D":         "requires: {profiles: [provenance, tool]}\n" + titled + "effect: block\nwhen: 'provenance_nodes.exists(n, [{\"tol\": 1}].exists(n, n.tol == 1)) && tool != \"\"'\n",
	})
	want := []string{"A OAR_VET_NODE_FIELD 9:37", "B OAR_VET_NODE_FIELD 8:44", "B OAR_VET_NODE_FIELD 8:82"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), text)
	}
	for _, s := range []string{"fails open: it never fires", "id, kind, tool, origin, trust_tier, labels, args, input", "is always false"} {
		if !strings.Contains(text, s) {
			t.Errorf("warnings do not say %q:\n%s", s, text)
		}
	}
}
