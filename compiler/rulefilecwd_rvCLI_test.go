package compiler

import (
	"path/filepath"
	"testing"
)

// TestRuleFileFromPolicyDir: a single rule file <pack>/policy/X.yaml takes
// the origin (and catalog) of <pack>/pack.yaml. Given from inside policy/
// (cd pack/policy; oarc check X.yaml, or ./X.yaml), the file's directory
// was "." and not "policy": the stock pack's allow rule was checked as a
// project rule (OAR_EFFECT), so the same file checked differently by the
// way its path was written.
func TestRuleFileFromPolicyDir(t *testing.T) {
	dir := writePack(t, t.TempDir(), "oar: '1.0'\norigin: stock\n", map[string]string{"A": "effect: allow\n"})
	for _, c := range []struct{ cwd, file string }{
		{dir, filepath.Join("policy", "A.yaml")},
		{filepath.Join(dir, "policy"), "A.yaml"},
		{filepath.Join(dir, "policy"), "./A.yaml"},
		{filepath.Join(dir, "policy"), "../policy/A.yaml"},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Chdir(c.cwd)
			set, diags := LoadFile(c.file, Options{})
			if diags.HasErrors() || set == nil || len(set.Rules) != 1 || set.Rules[0].Pack.Origin != "stock" {
				t.Errorf("want the stock pack's rule:\n%s", diags.Text())
			}
		})
	}
}
