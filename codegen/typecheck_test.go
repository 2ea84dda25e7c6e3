package codegen_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"sync"
	"testing"
)

// The importer type-checks imported packages from source once and keeps
// them, so that checking a generated file costs little after the first.
var (
	importerOnce sync.Once
	srcImporter  types.Importer
	importerMu   sync.Mutex
)

// typeCheck parses and type-checks one generated file against the real
// runtime package, as the Go compiler would.
func typeCheck(t testing.TB, src []byte) { typeCheckFor(t, src, "amd64") }

// typeCheckFor type-checks one generated file with the sizes of goarch
// (a constant that overflows its int is an error on 386).
func typeCheckFor(t testing.TB, src []byte, goarch string) {
	t.Helper()
	importerOnce.Do(func() { srcImporter = importer.ForCompiler(token.NewFileSet(), "source", nil) })
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "rules_oarc.go", src, parser.ParseComments)
	if err != nil {
		t.Fatalf("generated code does not parse: %v\n%s", err, src)
	}
	importerMu.Lock()
	defer importerMu.Unlock()
	conf := types.Config{Importer: srcImporter, Sizes: types.SizesFor("gc", goarch)}
	if _, err := conf.Check("f", fset, []*ast.File{f}, nil); err != nil {
		t.Fatalf("generated code does not type-check: %v", err)
	}
}
