//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFmtWriteRefusesReadOnlyAndLinked: oarc fmt -w replaced a read-only
// file (mode 0444: its owner said "do not change it") by renaming a new
// one over it, and replaced a file with another hard link by a new file,
// so that the other name kept the old text and fmt -l through it still
// listed it. Both are now refused, like a symlink, and left as they are.
func TestFmtWriteRefusesReadOnlyAndLinked(t *testing.T) {
	dir := t.TempDir()
	unformatted := "id: A_B\noar: '1.0'\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: t}\n"
	ro := filepath.Join(dir, "RO.yaml")
	if err := os.WriteFile(ro, []byte(unformatted), 0o444); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "LINKED.yaml")
	if err := os.WriteFile(linked, []byte(unformatted), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.yaml")
	if err := os.Link(linked, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for file, want := range map[string]string{ro: "is read-only", linked: "has 2 hard links"} {
		code, _, errs := run("fmt", "-w", file)
		if code != ExitFailure || !strings.Contains(errs, want) || !strings.Contains(errs, "refusing to replace it") {
			t.Errorf("fmt -w %s: exit %d, stderr %q; want 1 and %q", filepath.Base(file), code, errs, want)
		}
		if got, _ := os.ReadFile(file); string(got) != unformatted {
			t.Errorf("fmt -w %s changed it: %q", filepath.Base(file), got)
		}
	}
	st1, err1 := os.Stat(linked)
	st2, err2 := os.Stat(other)
	if err1 != nil || err2 != nil || !os.SameFile(st1, st2) {
		t.Errorf("the hard link was broken: %v %v", err1, err2)
	}
	if st, err := os.Stat(ro); err != nil || st.Mode().Perm() != 0o444 {
		t.Errorf("the read-only file's mode changed: %v %v", st, err)
	}
	// A formatted read-only file is not a failure: nothing is written.
	if err := os.Chmod(ro, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run("fmt", "-w", ro); code != ExitOK {
		t.Fatalf("fmt -w: exit %d, stderr %q", code, errs)
	}
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run("fmt", "-w", ro); code != ExitOK || errs != "" {
		t.Errorf("fmt -w of a formatted read-only file: exit %d, stderr %q", code, errs)
	}
}
