package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDanglingPolicySymlink: a pack's policy/ that is a symlink whose
// target is gone (packs are often assembled from links; a mount or a
// checkout that is missing) loaded as a pack of pack.yaml alone, with a
// warning and exit status 0: every rule was dropped and the set
// generated blocks nothing. It is an error at policy/, as a dangling
// pack.yaml is (docs/choices-frontend.md), not an absent directory.
func TestDanglingPolicySymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte("oar: '1.0'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "policy")); err != nil {
		t.Skip("no symlinks:", err)
	}
	_, diags := LoadPack(dir, Options{})
	if !diags.HasErrors() {
		t.Fatalf("a dangling policy/ loads:\n%s", diags.Text())
	}
	found := false
	for _, d := range diags {
		if d.Severity == Error && d.Code == CodeYAML && d.Pos.File == filepath.Join(dir, "policy") && strings.Contains(d.Message, "symlink") {
			found = true
		}
	}
	if !found {
		t.Errorf("want an OAR_YAML error at policy/ naming the symlink:\n%s", diags.Text())
	}
}
