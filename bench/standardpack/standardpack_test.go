package standardpack

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/testkit/shared"
)

// TestCopyMatchesShared keeps the project's copy of the standard pack equal
// to the shared one, file for file in both directions.
func TestCopyMatchesShared(t *testing.T) {
	want := readTree(t, shared.Dir(t, "bench", "standard-pack"))
	got := readTree(t, packDir)
	if len(want) == 0 {
		t.Fatal("the shared standard pack has no files")
	}
	for rel, w := range want {
		g, ok := got[rel]
		switch {
		case !ok:
			t.Errorf("bench/standard-pack/%s is missing (the shared copy has it)", rel)
		case !bytes.Equal(g, w):
			t.Errorf("bench/standard-pack/%s differs from the shared copy", rel)
		}
	}
	for rel := range got {
		if _, ok := want[rel]; !ok {
			t.Errorf("bench/standard-pack/%s is not in the shared copy", rel)
		}
	}
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
