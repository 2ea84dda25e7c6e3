package compiler

import (
	"path/filepath"
	"strings"
	"testing"
)

// Spec 4: a rule above its limit is OAR_COST "pointing at the
// sub-expression that costs the most". When the whole when is one call
// whose own cost is the cost (a match of one 64 KiB string against
// another), the part that costs the most is that call, not one of its
// operands of cost 1.
func TestCostPointsAtACostlyRoot(t *testing.T) {
	cat, diags := ParseCatalog("c.yaml", []byte("oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n"+
		"  - {name: s, type: string}\n  - {name: p, type: string}\n  - {name: lm, type: 'list(map(string, dyn))'}\n"))
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	for _, tc := range []struct{ when, want string }{
		// The call is the costliest part: the whole when.
		{"acme.s.matches(acme.p)", "R.yaml:5:8: error: estimated worst-case cost of when is 107375823, above the default limit 1000000; the costliest part is `acme.s.matches(acme.p)` (107375823)"},
		// Below the root, the descent already stops at the call.
		{"acme.p.size() > 1 && acme.s.matches(acme.p)", "R.yaml:5:29: error: estimated worst-case cost of when is 107375826, above the default limit 1000000; the costliest part is `acme.s.matches(acme.p)` (107375823)"},
		// A comprehension's cost is its loop's, repeated: it points at
		// the loop step, not at the whole when.
		{`acme.lm.exists(x, x.exists(y, y.contains("a")))`, "R.yaml:5:22: error: estimated worst-case cost of when is 693114882, above the default limit 1000000; the costliest part is `(x, x.exists(y, y.contains(\"a\")))` (676867)"},
		// A root whose own cost is small still points into it.
		{"!acme.s.matches(acme.p)", "R.yaml:5:9: error: estimated worst-case cost of when is 107375824, above the default limit 1000000; the costliest part is `acme.s.matches(acme.p)` (107375823)"},
	} {
		dir := writePack(t, filepath.Join(t.TempDir(), "p"), "oar: '1.0'\nname: p\n", map[string]string{"R": "when: '" + tc.when + "'\neffect: block\n"})
		_, diags := Load([]string{dir}, Options{Catalog: cat})
		if text := diags.Text(); !strings.Contains(text, tc.want) {
			t.Errorf("%s: want %q in\n%s", tc.when, tc.want, text)
		}
	}
}
