package codegen_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
)

// catalogImporter resolves one import path to a package type-checked from
// the given source, every other path from source as the compiler would.
type catalogImporter struct {
	path string
	pkg  *types.Package
	rest types.Importer
}

func (c catalogImporter) Import(path string) (*types.Package, error) {
	if path == c.path {
		return c.pkg, nil
	}
	return c.rest.Import(path)
}

// Issue 18.24: a set generated against one version of a catalog does not
// compile against the catalog package of another version (spec 9: "fails
// to compile in the host instead of misreading facts"), and the error
// names the fingerprint the set needs.
func TestCatalogFingerprintMismatchFailsBuild(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	catalogText := func(factType string) string {
		return "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n  - {name: dirty, type: " + factType + "}\n"
	}
	write("p/policy/R.yaml", "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: acme.dirty\n")
	const catPath = "example.com/host/rules/acme"
	gen := func(file string, withSet bool) (catalogSrc []byte, fp string, setSrc []byte) {
		t.Helper()
		cat, diags := compiler.ParseCatalog(file, []byte(catalogText(strings.TrimSuffix(filepath.Base(file), ".yaml"))))
		if diags.HasErrors() {
			t.Fatal(diags.Text())
		}
		cs, err := codegen.GenerateCatalog(compiler.CatalogIR(cat), codegen.CatalogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !withSet {
			return cs, cat.Fingerprint(), nil
		}
		set, diags := compiler.Load([]string{filepath.Join(root, "p")}, compiler.Options{Catalog: cat})
		if diags.HasErrors() {
			t.Fatal(diags.Text())
		}
		ss, err := codegen.Generate(compiler.Build(set), codegen.Options{CatalogImport: catPath})
		if err != nil {
			t.Fatal(err)
		}
		return cs, cat.Fingerprint(), ss
	}
	catBool, fpBool, setBool := gen(write("bool.yaml", catalogText("bool")), true)
	// The same fact as a string: another fingerprint, and a catalog
	// package the set made for the bool fact would misread.
	catString, fpString, _ := gen(write("string.yaml", catalogText("string")), false)
	if fpBool == fpString {
		t.Fatalf("one fingerprint %s for two catalogs", fpBool)
	}
	check := func(catalogSrc, setSrc []byte) error {
		importerOnce.Do(func() { srcImporter = importer.ForCompiler(token.NewFileSet(), "source", nil) })
		importerMu.Lock()
		defer importerMu.Unlock()
		fset := token.NewFileSet()
		cf, err := parser.ParseFile(fset, "catalog_oarc.go", catalogSrc, 0)
		if err != nil {
			t.Fatal(err)
		}
		catPkg, err := (&types.Config{Importer: srcImporter}).Check(catPath, fset, []*ast.File{cf}, nil)
		if err != nil {
			t.Fatalf("the catalog package does not type-check: %v", err)
		}
		sf, err := parser.ParseFile(fset, "rules_oarc.go", setSrc, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = (&types.Config{Importer: catalogImporter{catPath, catPkg, srcImporter}}).Check("example.com/host/rules", fset, []*ast.File{sf}, nil)
		return err
	}
	if err := check(catBool, setBool); err != nil {
		t.Fatalf("the set does not build against its own catalog: %v", err)
	}
	err := check(catString, setBool)
	if err == nil {
		t.Fatal("a set built against catalog " + fpBool + " compiles against catalog " + fpString)
	}
	if !strings.Contains(err.Error(), "CatalogIs_"+fpBool) {
		t.Errorf("the build error does not name the catalog the set needs (CatalogIs_%s): %v", fpBool, err)
	}
}
