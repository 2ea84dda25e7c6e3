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

// TestCatalogHostNamedLikeAMapFact: a host named tool_args would make
// tool_args.path read the host's fact path where rules mean the
// argument (cel-go resolves the longest declared name first): OAR_CATALOG
// at the host. A host named like a fact that is not a map (tool) is
// unambiguous (tool.x cannot select on a string) and stays accepted.
func TestCatalogHostNamedLikeAMapFact(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ host, want string }{
		{"tool_args", ":2:7: error: host \"tool_args\" is the name of a map fact: tool_args.x would read the host's fact x where a rule means the map's field x; choose another host name [OAR_CATALOG]"},
		{"tool", ""},
	} {
		file := filepath.Join(dir, tc.host+".yaml")
		text := "oar_catalog: '1.0'\nhost: " + tc.host + "\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n  - {name: path, type: string}\n"
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cat, diags := LoadCatalog(file)
		switch got := diags.Text(); {
		case tc.want == "" && (cat == nil || got != ""):
			t.Errorf("host %s: %s", tc.host, got)
		case tc.want != "" && (cat != nil || got != file+tc.want+"\n"):
			t.Errorf("host %s:\n%s\nwant:\n%s%s", tc.host, got, file, tc.want)
		}
	}
}
