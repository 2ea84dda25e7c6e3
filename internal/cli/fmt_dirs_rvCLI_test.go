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

// TestFmtLinkedPack: packs are often assembled from links (docs/
// choices-frontend.md); oarc check reads a pack through a symlink, but
// oarc fmt -l searching a directory of packs skipped a pack that is a
// symlink (WalkDir does not follow links), so its files went unchecked.
// A symlink to a pack directory is a pack (its own files; nothing under
// it is searched further, so a link loop cannot recur).
func TestFmtLinkedPack(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "vendor", "stock")
	if err := os.MkdirAll(filepath.Join(real, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "policy", "A.yaml"), []byte("id: A\noar: '1.0'\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	packs := filepath.Join(dir, "packs")
	if err := os.MkdirAll(packs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(packs, "stock")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink(dir, filepath.Join(packs, "loop")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run("fmt", "-l", packs)
	if want := filepath.Join(packs, "stock", "policy", "A.yaml"); code != ExitFailure || strings.TrimSpace(out) != want {
		t.Errorf("exit %d, want 1 listing %s:\n%s%s", code, want, out, errOut)
	}
}
