package codegen_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/codegen/internal/edgecases"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/testkit/long"
)

// FuzzGenerate: for any `when` the compiler accepts, code generation must
// succeed (no panic) with Go that type-checks against the runtime.
func FuzzGenerate(f *testing.F) {
	// Every edge case is compiled into one package and run against cel-go
	// in codegen/internal/edge; here each is generated and type-checked
	// alone (about a second each), so plain go test takes every tenth and
	// .ci/run (OARC_LONG=1) all of them.
	step := long.N(10, 1)
	for i, e := range edgecases.Exprs {
		if i%step == 0 {
			f.Add(e)
		}
	}
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	file := filepath.Join(dir, "policy", "F.yaml")
	gen := func(t testing.TB, when string) []byte {
		doc := "oar: '1.0'\nid: F\nkind: detector\ndetector: d.v1\nanchor: tool.pre_invoke\n" +
			"requires: {profiles: [tool, session, content-safety, content-provenance, filesystem, mcp]}\n" +
			"when: " + strconv.Quote(when) + "\neffect: warn\n"
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		p, diags := compiler.LoadPack(dir, compiler.Options{})
		if diags.HasErrors() {
			return nil
		}
		src, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "f"})
		if err != nil {
			t.Fatalf("when %q: %v", when, err)
		}
		return src
	}
	// The first type check loads the runtime's packages from source
	// (seconds, more under the fuzzer's instrumentation): done here, once
	// per process, it does not count against the fuzzer's 10 seconds for
	// one input, past which it takes the worker for hung.
	typeCheck(f, gen(f, "true"))
	f.Fuzz(func(t *testing.T, when string) {
		if src := gen(t, when); src != nil {
			typeCheck(t, src)
		}
	})
}

// FuzzLoadPack mutates a pack.yaml and one rule file of the example and
// conformance packs and loads them as a pack: the loader must never panic,
// every diagnostic must carry a position, oarc vet must not panic on a
// pack it accepts, and that pack must generate Go that parses (type
// checking is FuzzGenerate's).
func FuzzLoadPack(f *testing.F) {
	packs, _ := filepath.Glob("../examples/*/pack.yaml")
	more, _ := filepath.Glob("../examples/*/*/pack.yaml")
	packs = append(packs, more...)
	more, _ = filepath.Glob("../conformance/*/packs/*/pack.yaml")
	packs = append(packs, more...)
	for _, pf := range packs {
		meta, err := os.ReadFile(pf)
		if err != nil {
			continue
		}
		rules, _ := filepath.Glob(filepath.Join(filepath.Dir(pf), "policy", "*.y*ml"))
		for i, r := range rules {
			if i%4 != 0 && !long.Enabled() {
				continue
			}
			if text, err := os.ReadFile(r); err == nil {
				f.Add(meta, text)
			}
		}
	}
	root := f.TempDir()
	// The catalogs the example packs name, where the packs name them.
	for _, c := range []string{"../examples/acme/acme.catalog.yaml", "../examples/dataflow/finbot.catalog.yaml", "../examples/policies/write-roots/coder.catalog.yaml"} {
		if b, err := os.ReadFile(c); err == nil {
			os.WriteFile(filepath.Join(root, filepath.Base(c)), b, 0o644)
		}
	}
	dir := filepath.Join(root, "pack")
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	if b, err := os.ReadFile("../examples/policies/write-roots/coder.catalog.yaml"); err == nil {
		os.WriteFile(filepath.Join(dir, "coder.catalog.yaml"), b, 0o644)
	}
	idRE := regexp.MustCompile(`(?m)^id:\s*['"]?([A-Z][A-Z0-9_]*)`)
	f.Fuzz(func(t *testing.T, meta, rule []byte) {
		if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		id := "R"
		if m := idRE.FindSubmatch(rule); m != nil {
			id = string(m[1])
		}
		file := filepath.Join(dir, "policy", id+".yaml")
		set, diags := compiler.LoadWith([]string{dir}, map[string][]byte{file: rule}, compiler.Options{})
		for _, d := range diags {
			if d.Pos.File == "" || d.Code == "" {
				t.Fatalf("diagnostic without a place or code: %+v", d)
			}
			// The JSON schema is the loader's backstop: a problem only it
			// finds is one the loader's own checks miss or report twice.
			if strings.HasPrefix(d.Message, "schema: ") {
				t.Fatalf("problem found by the schema only: %s\n%s\n---\n%s", d, meta, rule)
			}
		}
		_ = diags.Text()
		if diags.HasErrors() {
			return
		}
		for _, d := range compiler.Vet(set) {
			if d.Pos.File == "" || d.Code == "" {
				t.Fatalf("vet diagnostic without a place or code: %+v", d)
			}
		}
		start := time.Now()
		src, err := codegen.Generate(compiler.Build(set), codegen.Options{Package: "f"})
		if err != nil {
			t.Fatalf("accepted pack does not generate: %v\n%s\n---\n%s", err, meta, rule)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("generation took %v\n%s\n---\n%s", d, meta, rule)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "rules_oarc.go", src, parser.AllErrors); err != nil {
			t.Fatalf("generated Go does not parse: %v\n%s\n---\n%s", err, meta, rule)
		}
	})
}
