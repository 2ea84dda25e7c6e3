package codegen_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
)

// TestCatalogPackageSize: the Go compiler builds a catalog package in
// memory and time linear in the catalog only if no function of it grows
// with the catalog (its SSA passes are superlinear in a function's size;
// a switch with a case per fact took 7.6 GB for 15,000 facts) and the
// number of functions stays small (each costs it some 20 KB). So: for
// catalogs of 1,000 and 5,000 facts, functions and anchors (typed code
// below 2,048 facts, reflect above), every function of the package is
// bounded, and there are few of them.
func TestCatalogPackageSize(t *testing.T) {
	types := []string{"string", "int", "bool", "double", "list(string)", "map(string, dyn)", "list(map(string, dyn))"}
	for _, n := range []int{1000, 5000} {
		var b strings.Builder
		b.WriteString("oar_catalog: '1.0'\nhost: acme\nanchors:\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  - {id: a.x%d, planes: [block]}\n", i)
		}
		b.WriteString("facts:\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  - {name: f%d, type: '%s'}\n", i, types[i%7])
		}
		b.WriteString("functions:\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  - {name: g%d, signature: '(%s, int) -> %s'}\n", i, types[i%7], types[(i+3)%7])
		}
		cat, diags := compiler.ParseCatalog("big.catalog.yaml", []byte(b.String()))
		if diags.HasErrors() {
			t.Fatal(diags.Text())
		}
		src, err := codegen.GenerateCatalog(compiler.CatalogIR(cat), codegen.CatalogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), "catalog_oarc.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		funcs, biggest, where := 0, 0, ""
		ast.Inspect(f, func(node ast.Node) bool {
			var body *ast.BlockStmt
			switch fn := node.(type) {
			case *ast.FuncDecl:
				body = fn.Body
				where = fn.Name.Name
			case *ast.FuncLit:
				body = fn.Body
			default:
				return true
			}
			funcs++
			size := 0
			ast.Inspect(body, func(ast.Node) bool { size++; return true })
			if size > biggest {
				biggest = size
			}
			return true
		})
		// A chunk of 256 cases of a few nodes each; the functions: a dozen
		// fixed ones and a chunk per 256 facts.
		if biggest > 5000 || funcs > 20+n/256+1 {
			t.Errorf("%d entries of each kind: %d functions (want at most %d), the largest (near %s) of %d nodes (want at most 5000)",
				n, funcs, 20+n/256+1, where, biggest)
		}
	}
}
