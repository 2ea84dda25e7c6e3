package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 18.24: the digest (spec 10) covers every rule file and pack.yaml
// of the set, by path and content, and the catalog's fingerprint: a change
// to any of them changes it, and nothing else does.
func TestDigestCovers(t *testing.T) {
	root := t.TempDir()
	pack := writePack(t, filepath.Join(root, "p"), "oar: '1.0'\nname: p\n", map[string]string{
		"A": "effect: warn\n",
		"B": "effect: block\nwhen: tool == \"x\"\nrequires: {profiles: [tool]}\n",
	})
	cat := filepath.Join(root, "host.catalog.yaml")
	writeCat := func(facts string) {
		os.WriteFile(cat, []byte("oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n"+facts), 0o644)
	}
	writeCat("  - {name: dirty, type: bool}\n")
	loadCat := func() Options {
		t.Helper()
		text, _ := os.ReadFile(cat)
		c, diags := ParseCatalog(cat, text) // LoadCatalog reads a file once per process
		if diags.HasErrors() {
			t.Fatalf("catalog: %s", diags.Text())
		}
		return Options{Catalog: c}
	}
	digest := func(opts Options) string {
		t.Helper()
		s, diags := Load([]string{pack}, opts)
		if diags.HasErrors() {
			t.Fatalf("load: %s", diags.Text())
		}
		return s.Digest
	}
	base := digest(Options{})
	withCat := digest(loadCat())
	if base == withCat {
		t.Errorf("the catalog does not change the digest")
	}
	change := func(name, file, content string, wantSame bool) {
		t.Helper()
		old, _ := os.ReadFile(file)
		os.WriteFile(file, []byte(content), 0o644)
		defer os.WriteFile(file, old, 0o644)
		if got := digest(Options{}); (got == base) != wantSame {
			t.Errorf("%s: digest %s, base %s (want same: %v)", name, got, base, wantSame)
		}
	}
	a := filepath.Join(pack, "policy", "A.yaml")
	aText, _ := os.ReadFile(a)
	change("a rule's when", a, string(aText)+"when: 'true'\n", false)
	change("a comment in a rule", a, string(aText)+"# note\n", false)
	change("pack.yaml", filepath.Join(pack, "pack.yaml"), "oar: '1.0'\nname: p\n# v2\n", false)
	os.MkdirAll(filepath.Join(pack, "fixtures"), 0o755)
	change("a fixture", filepath.Join(pack, "fixtures", "f.json"), "[]", true)
	change("a file the loader ignores", filepath.Join(pack, "README.md"), "notes", true)
	// A renamed rule file (same content, another path) is another set.
	b := filepath.Join(pack, "policy", "B.yaml")
	bText, _ := os.ReadFile(b)
	os.Remove(b)
	os.WriteFile(filepath.Join(pack, "policy", "C.yaml"), []byte(strings.Replace(string(bText), "id: B", "id: C", 1)), 0o644)
	if got := digest(Options{}); got == base {
		t.Errorf("renaming a rule keeps the digest")
	}
	// The catalog's semantics, not its text: a description does not count,
	// a fact's type does.
	withCat = digest(loadCat())
	writeCat("  - {name: dirty, type: bool, description: Uncommitted changes.}\n")
	if got := digest(loadCat()); got != withCat {
		t.Errorf("a catalog description changes the digest")
	}
	writeCat("  - {name: dirty, type: string}\n")
	if got := digest(loadCat()); got == withCat {
		t.Errorf("a catalog fact's type does not change the digest")
	}
}

// Issue 18.24: deny by default across the packs of a set (spec 5.8): two
// packs listing one anchor, a code equal to a rule of another pack or to
// another pack's code, and the required fields.
func TestDenyByDefaultAcrossPacks(t *testing.T) {
	root := t.TempDir()
	deny := func(code string) string {
		return "oar: '1.0'\nname: %s\norigin: stock\ndeny_by_default:\n  anchors: [tool.pre_invoke]\n  code: " + code + "\n"
	}
	a := writePack(t, filepath.Join(root, "a"), strings.Replace(deny("NOT_LISTED"), "%s", "a", 1), map[string]string{"ALLOW_A": "effect: allow\n"})
	b := writePack(t, filepath.Join(root, "b"), strings.Replace(deny("ALLOW_A"), "%s", "b", 1), map[string]string{"ALLOW_B": "effect: allow\n"})
	c := writePack(t, filepath.Join(root, "c"), "oar: '1.0'\nname: c\norigin: stock\ndeny_by_default:\n  anchors: [tool.post_invoke]\n  code: NOT_LISTED\n", nil)
	d := writePack(t, filepath.Join(root, "d"), "oar: '1.0'\nname: d\norigin: stock\ndeny_by_default:\n  enforcement: monitor\n", nil)
	e := writePack(t, filepath.Join(root, "e"), "oar: '1.0'\nname: e\norigin: stock\ndeny_by_default:\n  anchors: []\n  code: E_CODE\n", nil)
	_, diags := Load([]string{a, b, c, d, e}, Options{})
	text := diags.Text()
	for _, want := range []string{
		"b/pack.yaml:5:13: error: anchor tool.pre_invoke is already listed by the deny_by_default of pack a; one pack per anchor [OAR_VALUE]",
		"b/pack.yaml:6:9: error: deny_by_default code ALLOW_A is the id of a rule of the set",
		"c/pack.yaml:6:9: error: deny_by_default code NOT_LISTED is already the code of pack a [OAR_ID]",
		"d/pack.yaml:4:1: error: deny_by_default: missing required field anchors [OAR_MISSING_FIELD]",
		"d/pack.yaml:4:1: error: deny_by_default: missing required field code [OAR_MISSING_FIELD]",
		"e/pack.yaml:5:12: error: deny_by_default.anchors is empty; list the block-plane anchors it applies to [OAR_MISSING_FIELD]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}
