//go:build unix

package compiler

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadOnlyRegularFiles checks that rule files and pack.yaml are read
// only when they are regular files (a symlink to one is fine): a FIFO must
// not block, a symlink to /dev/zero must not be read, a directory or a
// symlink to one is an error at its path.
func TestReadOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy")
	elsewhere := filepath.Join(dir, "elsewhere")
	os.MkdirAll(pol, 0o755)
	os.MkdirAll(filepath.Join(elsewhere, "sub"), 0o755)
	os.WriteFile(filepath.Join(pol, "OK.yaml"), []byte(ruleText("OK")), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "target.yaml"), []byte(ruleText("LINK")), 0o644)
	must(t, os.Symlink(filepath.Join(elsewhere, "target.yaml"), filepath.Join(pol, "LINK.yaml")))
	must(t, os.Symlink(filepath.Join(elsewhere, "sub"), filepath.Join(pol, "DIRLINK.yaml")))
	must(t, os.Symlink("/dev/zero", filepath.Join(pol, "ZERO.yaml")))
	must(t, os.Symlink(filepath.Join(elsewhere, "gone.yaml"), filepath.Join(pol, "DANGLING.yaml")))
	must(t, syscall.Mkfifo(filepath.Join(pol, "FIFO.yaml"), 0o644))
	must(t, os.Mkdir(filepath.Join(pol, "DIR.yaml"), 0o755))
	must(t, syscall.Mkfifo(filepath.Join(dir, "pack.yaml"), 0o644))

	pk, diags := loadWithin(t, dir)
	checkDiags(t, diags, []wantDiag{
		{filepath.Join(dir, "pack.yaml"), CodeYAML, "is a named pipe, not a regular file"},
		{filepath.Join(pol, "DANGLING.yaml"), CodeYAML, "no such file or directory"},
		{filepath.Join(pol, "DIR.yaml"), CodeYAML, "is a directory, not a regular file"},
		{filepath.Join(pol, "DIRLINK.yaml"), CodeYAML, "is a directory, not a regular file"},
		{filepath.Join(pol, "FIFO.yaml"), CodeYAML, "is a named pipe, not a regular file"},
		{filepath.Join(pol, "ZERO.yaml"), CodeYAML, "is a device, not a regular file"},
	})
	var ids []string
	for _, r := range pk.Rules {
		ids = append(ids, r.ID)
	}
	if len(ids) != 2 || ids[0] != "LINK" || ids[1] != "OK" {
		t.Errorf("rules %v, want [LINK OK]", ids)
	}

	// Named on their own, as `oarc check FILE` does.
	solo := t.TempDir()
	must(t, syscall.Mkfifo(filepath.Join(solo, "FIFO.yaml"), 0o644))
	must(t, os.Symlink("/dev/zero", filepath.Join(solo, "ZERO.yaml")))
	for _, tc := range []struct{ path, msg string }{
		{filepath.Join(solo, "FIFO.yaml"), "is a named pipe, not a regular file"},
		{filepath.Join(solo, "ZERO.yaml"), "is a device, not a regular file"},
		{"/dev/zero", "is a device, not a regular file"},
	} {
		pk, diags := loadWithin(t, tc.path)
		checkDiags(t, diags, []wantDiag{{tc.path, CodeYAML, tc.msg}})
		if len(pk.Rules) != 0 {
			t.Errorf("%s: rules %+v", tc.path, pk.Rules)
		}
	}
	// A symlink to a rule file loads (with the pack.yaml of its pack,
	// here a FIFO).
	pk, diags = loadWithin(t, filepath.Join(pol, "LINK.yaml"))
	checkDiags(t, diags, []wantDiag{{filepath.Join(dir, "pack.yaml"), CodeYAML, "is a named pipe, not a regular file"}})
	if len(pk.Rules) != 1 || pk.Rules[0].ID != "LINK" {
		t.Errorf("symlink to a rule file: rules %+v", pk.Rules)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
