package oarc

import (
	"io/fs"
	"os"
	"path"
	"testing"
)

// TestRuntimeSourceComplete: every directory RuntimeSource holds holds
// every file of that directory a build needs (IsBuildSource), so that
// generated code builds from an installed binary; a file added beside
// them (an assembly file for another architecture, say) but not to the
// list of source.go's embed directive fails here rather than in a user's
// build.
func TestRuntimeSourceComplete(t *testing.T) {
	dirs := map[string]bool{}
	err := fs.WalkDir(RuntimeSource, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			dirs[path.Dir(p)] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"runtime", "runtime/impl", "lycaon"} {
		if !dirs[want] {
			t.Errorf("RuntimeSource holds nothing of %s", want)
		}
	}
	delete(dirs, ".") // the module's go.mod and go.sum, not the package oarc
	for dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := path.Join(dir, e.Name())
			if e.IsDir() || !IsBuildSource(p) {
				continue
			}
			if _, err := fs.Stat(RuntimeSource, p); err != nil {
				t.Errorf("%s is not in RuntimeSource: add it to source.go's go:embed list", p)
			}
		}
	}
}

// TestIsBuildSource: Go files but their tests, and assembly.
func TestIsBuildSource(t *testing.T) {
	for p, want := range map[string]bool{
		"runtime/impl/regex.go":      true,
		"runtime/impl/pair_amd64.s":  true,
		"runtime/impl/regex_test.go": false,
		"go.mod":                     false,
		"runtime/impl/README.md":     false,
	} {
		if got := IsBuildSource(p); got != want {
			t.Errorf("IsBuildSource(%q) = %v, want %v", p, got, want)
		}
	}
}
