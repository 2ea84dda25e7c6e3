package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatalogDuplicateAfterBadEntry: spec 9 reports every problem of a
// catalog, a name given twice at its later occurrence. An anchor entry
// whose id is well formed but whose planes are wrong still claims its id,
// so that a later entry with the same id is reported (it was not).
func TestCatalogDuplicateAfterBadEntry(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	text := "oar_catalog: '1.0'\nhost: acme\nanchors:\n" +
		"  - {id: tool.pre_invoke, planes: [shout]}\n" +
		"  - {id: tool.pre_invoke, planes: [block]}\n" +
		"  - {id: a.b}\n" +
		"  - {id: a.b, planes: [inform]}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadCatalog(file)
	got := diags.Text()
	for _, want := range []string{
		file + ":4:36: error: plane \"shout\" is not one of block, inform, transform [OAR_CATALOG]",
		file + ":5:10: error: anchor tool.pre_invoke is given twice [OAR_CATALOG]",
		file + ":6:5: error: anchor a.b: missing required field planes [OAR_CATALOG]",
		file + ":7:10: error: anchor a.b is given twice [OAR_CATALOG]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 4 {
		t.Errorf("got %d diagnostics, want 4:\n%s", n, got)
	}
}
