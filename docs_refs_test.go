package oarc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestDocsNameExistingIdentifiers keeps the prose true to the API: every
// `pkg.Name` (or `pkg.Type.Member`) the README, DESIGN.md and docs/ give
// for one of oarc's packages names something that package declares. A
// newcomer copies these names into code; one that was renamed or moved
// (runtime.EqualDyn went to runtime/impl) sends them to a package that
// does not have it.
func TestDocsNameExistingIdentifiers(t *testing.T) {
	pkgs := map[string]string{
		"runtime":    "runtime",
		"impl":       "runtime/impl",
		"rulestore":  "rulestore",
		"compiler":   "compiler",
		"catalog":    "compiler/catalog",
		"guard":      "guard",
		"mcpguard":   "mcpguard",
		"lycaon":     "lycaon",
		"interp":     "interp",
		"validators": "validators",
		"redisstore": "redisstore",
		"codegen":    "codegen",
	}
	// Go's own runtime package, which the docs cite beside oarc's.
	stdRuntime := map[string]bool{"Goexit": true, "Gosched": true, "GOMAXPROCS": true, "NumGoroutine": true, "GC": true, "KeepAlive": true}
	declared := map[string]map[string]bool{}
	for short, dir := range pkgs {
		declared[short] = exportedNames(t, dir)
	}
	docs, _ := filepath.Glob("docs/*.md")
	docs = append(docs, "README.md", "DESIGN.md")
	sort.Strings(docs)
	ref := regexp.MustCompile(`\b([a-z]+)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?`)
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range ref.FindAllStringSubmatch(line, -1) {
				names, ok := declared[m[1]]
				if !ok || (m[1] == "runtime" && stdRuntime[m[2]]) {
					continue
				}
				if !names[m[2]] {
					t.Errorf("%s:%d: %s.%s: package %s declares no %s", doc, i+1, m[1], m[2], pkgs[m[1]], m[2])
					continue
				}
				if m[3] != "" && !names[m[2]+"."+m[3]] {
					t.Errorf("%s:%d: %s.%s.%s: %s has no member %s", doc, i+1, m[1], m[2], m[3], m[2], m[3])
				}
			}
		}
	}
}

// exportedNames are the exported top-level names of the package in dir
// (tests included: docs cite tests by name only, never as pkg.Name), and
// Type.Member for the methods, struct fields and interface methods of its
// types.
func exportedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if g, ok := typ.(*ast.IndexExpr); ok {
					typ = g.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					names[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						var members []*ast.Field
						switch ty := s.Type.(type) {
						case *ast.StructType:
							members = ty.Fields.List
						case *ast.InterfaceType:
							members = ty.Methods.List
						}
						for _, fld := range members {
							for _, n := range fld.Names {
								names[s.Name.Name+"."+n.Name] = true
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}
