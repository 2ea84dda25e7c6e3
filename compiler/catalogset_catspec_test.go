package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetCatalogMissingAndDifferent: spec 7 reports every load problem,
// spec 9 makes packs naming different catalogs OAR_CATALOG. A set whose
// second pack names a catalog file that does not exist has both problems:
// the missing file was not reported, only the difference.
func TestSetCatalogMissingAndDifferent(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "acme.yaml"), []byte(catspecHead), 0o644); err != nil {
		t.Fatal(err)
	}
	a := writePack(t, filepath.Join(root, "a"), "oar: '1.0'\nname: a\ncatalog: ../acme.yaml\n", map[string]string{"RA": "effect: block\n"})
	b := writePack(t, filepath.Join(root, "b"), "oar: '1.0'\nname: b\ncatalog: ../nonexist.yaml\n", map[string]string{"RB": "effect: block\n"})
	for _, order := range [][]string{{a, b}, {b, a}} {
		_, diags := Load(order, Options{})
		got := diags.Text()
		for _, want := range []string{
			filepath.Join(b, "pack.yaml") + ":3:10: error: catalog " + filepath.Join(root, "nonexist.yaml") + ": no such file [OAR_CATALOG]",
			"the packs of a set use one catalog [OAR_CATALOG]",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("packs %s: want %q in\n%s", strings.Join(order, " "), want, got)
			}
		}
	}
}
