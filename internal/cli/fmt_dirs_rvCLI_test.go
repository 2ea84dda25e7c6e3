package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFmtPolicyDirAndEmptyDir: `oarc fmt -l` given a pack's policy/
// directory (cd pack/policy; oarc fmt -l .), or a directory with no pack
// under it (a CI check with a wrong path), listed nothing and exited 0:
// the files were not checked, and the check passed. A policy directory
// now formats its rule files, as oarc check reads them; a directory with
// no pack under it is an error.
func TestFmtPolicyDirAndEmptyDir(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "pack")
	if err := os.MkdirAll(filepath.Join(pack, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	rule := filepath.Join(pack, "policy", "A.yaml")
	if err := os.WriteFile(rule, []byte("id: A\noar: '1.0'\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("fmt", "-l", filepath.Join(pack, "policy"))
	if code != ExitFailure || strings.TrimSpace(out) != rule {
		t.Errorf("policy/: exit %d, want 1 listing %s:\n%s%s", code, rule, out, errOut)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(filepath.Join(empty, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run("fmt", "-l", empty)
	if code != ExitFailure || out != "" || !strings.Contains(errOut, empty) || !strings.Contains(errOut, "no pack") {
		t.Errorf("a directory without packs: exit %d, want 1 and a message:\n%s%s", code, out, errOut)
	}
}
