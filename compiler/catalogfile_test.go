package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatalogSizeLimit: a catalog file of exactly 1 MiB loads, one byte
// more is OAR_CATALOG at the file, with a message about catalog files (it
// named the limit of rule files).
func TestCatalogSizeLimit(t *testing.T) {
	dir := t.TempDir()
	text := "oar_catalog: '1.0'\nhost: acme\nanchors: [{id: tool.pre_invoke, planes: [block]}]\n"
	exact, big := filepath.Join(dir, "exact.yaml"), filepath.Join(dir, "big.yaml")
	os.WriteFile(exact, []byte(padTo(text, maxFileSize)), 0o644)
	os.WriteFile(big, []byte(padTo(text, maxFileSize+1)), 0o644)
	if _, diags := LoadCatalog(exact); diags.HasErrors() {
		t.Errorf("a catalog of exactly 1 MiB: %s", diags.Text())
	}
	_, diags := LoadCatalog(big)
	checkDiags(t, diags, []wantDiag{{big, CodeCatalog, "larger than the limit of 1 MiB (1048576 bytes) for catalog files"}})
	if strings.Contains(diags.Text(), "rule files") {
		t.Errorf("the catalog's size error names rule files: %s", diags.Text())
	}
}
