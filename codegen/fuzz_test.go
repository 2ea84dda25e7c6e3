package codegen_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

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
