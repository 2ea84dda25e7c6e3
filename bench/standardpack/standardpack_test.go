package standardpack

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCopyMatchesShared keeps the project's copy of the standard pack equal
// to the shared one.
func TestCopyMatchesShared(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "bench", "standard-pack")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no shared checkout at %s", shared)
	}
	filepath.WalkDir(shared, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(packDir, rel))
		if err != nil || string(got) != string(want) {
			t.Errorf("bench/standard-pack/%s differs from the shared copy", rel)
		}
		return nil
	})
}
