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

// TestSetCatalogCopies: packs of one set that each vendor their host's
// catalog name files that are not the same file but are one catalog; a
// copy that differs in any byte (here only a fact's description, which
// the set's rendering would read from one of them) is still a different
// catalog (spec 9: OAR_CATALOG at the later pack).
func TestSetCatalogCopies(t *testing.T) {
	const cat = catspecHead + "facts:\n  - {name: repo_dirty, type: bool, description: dirty}\n"
	root := t.TempDir()
	rule := func(id string) map[string]string {
		return map[string]string{id: "effect: block\nwhen: acme.repo_dirty\n"}
	}
	a := writePack(t, filepath.Join(root, "a"), "oar: '1.0'\nname: a\ncatalog: acme.yaml\n", rule("RA"))
	b := writePack(t, filepath.Join(root, "b"), "oar: '1.0'\nname: b\ncatalog: acme.yaml\n", rule("RB"))
	write := func(dir, text string) {
		if err := os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a, cat)
	write(b, cat)
	for _, order := range [][]string{{a, b}, {b, a}} {
		set, diags := Load(order, Options{})
		if diags.HasErrors() {
			t.Fatalf("copies of one catalog, packs %s:\n%s", strings.Join(order, " "), diags.Text())
		}
		if set.Catalog.Host != "acme" {
			t.Errorf("packs %s: the set's catalog is %q, want acme", strings.Join(order, " "), set.Catalog.Host)
		}
	}
	write(b, strings.Replace(cat, "description: dirty", "description: unclean", 1))
	_, diags := Load([]string{a, b}, Options{})
	want := filepath.Join(b, "pack.yaml") + ":3:10: error: pack b names the catalog " + filepath.Join(b, "acme.yaml") +
		", but pack a names " + filepath.Join(a, "acme.yaml") + ": the packs of a set use one catalog [OAR_CATALOG]"
	if got := diags.Text(); !strings.Contains(got, want) {
		t.Errorf("copies that differ: want %q in\n%s", want, got)
	}
}
