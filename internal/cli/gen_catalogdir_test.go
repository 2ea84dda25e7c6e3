package cli

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/module"
)

// TestGenCatalogDirOfReservedHost: a host named con, aux, nul, prn,
// com1..com9 or lpt1..lpt9 is a valid catalog host, but the go command
// refuses those names as an element of an import path ("disallowed as
// path element component on Windows", on every system): the catalog
// package oarc gen wrote into <out>/<host> could not be imported and the
// generated set did not build. Its directory is <host>_.
func TestGenCatalogDirOfReservedHost(t *testing.T) {
	for _, host := range []string{"con", "aux", "nul", "prn", "com1", "lpt9", "acme"} {
		root := t.TempDir()
		write := func(name, text string) {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("go.mod", "module example.com/agent\n\ngo 1.26\n")
		write("cat.yaml", "oar_catalog: '1.0'\nhost: "+host+"\nanchors: [{id: tool.pre_invoke, planes: [block]}]\nfacts: [{name: x, type: int}]\n")
		write("pack/pack.yaml", "oar: '1.0'\nname: p\ncatalog: ../cat.yaml\n")
		write("pack/policy/R.yaml", "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: '"+host+".x == 1'\n")
		out := filepath.Join(root, "rules")
		if code, _, errs := run("gen", "-pack", filepath.Join(root, "pack"), "-out", out); code != 0 {
			t.Fatalf("%s: gen: exit %d, %s", host, code, errs)
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(out, GenFileName), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if err := module.CheckImportPath(p); err != nil {
				t.Errorf("%s: the set imports %s: %v", host, p, err)
			}
			if rel, ok := strings.CutPrefix(p, "example.com/agent/rules/"); ok {
				found = true
				if _, err := os.Stat(filepath.Join(out, rel, CatalogFileName)); err != nil {
					t.Errorf("%s: the set imports %s, which has no catalog file: %v", host, p, err)
				}
			}
		}
		if !found {
			t.Errorf("%s: the set does not import a catalog package under rules/", host)
		}
	}
}

// TestGenCatalogImportPathInvalid: a catalog package whose directory is
// no valid import path (a space in -out) was written and imported, and
// the set did not build ("malformed import path"). gen refuses, writing
// nothing, and says what to do.
func TestGenCatalogImportPathInvalid(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/agent\n\ngo 1.26\n")
	write("cat.yaml", "oar_catalog: '1.0'\nhost: shop\nanchors: [{id: tool.pre_invoke, planes: [block]}]\nfacts: [{name: x, type: int}]\n")
	write("pack/pack.yaml", "oar: '1.0'\nname: p\ncatalog: ../cat.yaml\n")
	write("pack/policy/R.yaml", "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: 'shop.x == 1'\n")
	out := filepath.Join(root, "my rules")
	code, _, errs := run("gen", "-pack", filepath.Join(root, "pack"), "-out", out, "-pkg", "rules")
	if code != ExitFailure || !strings.Contains(errs, `"example.com/agent/my rules/shop" is not a valid import path`) || !strings.Contains(errs, "pass -catalog-pkg") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("gen wrote %s (%v)", out, err)
	}
}
