package oarc

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirections keeps the arrows of DESIGN.md: YAML -> compiler
// (lowering inside) -> ir -> codegen -> Go, with the runtime at the bottom
// and the test tooling beside the pipeline, never inside it. Every arrow
// that must not exist is a rule here.
func TestImportDirections(t *testing.T) {
	const mod = "github.com/oarc/oarc"
	ours := func(d string) bool { return d == mod || strings.HasPrefix(d, mod+"/") }
	under := func(d, p string) bool { return d == mod+"/"+p || strings.HasPrefix(d, mod+"/"+p+"/") }
	// isStd: a standard library package has no dot in its first element.
	isStd := func(d string) bool { return !strings.Contains(strings.SplitN(d, "/", 2)[0], ".") }
	rules := []struct {
		pkg       string
		why       string
		forbidden func(dep string) bool
	}{
		{"runtime", "the runtime is linked into hosts: it imports nothing else of ours",
			func(d string) bool { return ours(d) && !under(d, "runtime") }},
		{"ir", "the IR is plain data: it imports nothing of ours",
			func(d string) bool { return ours(d) }},
		{"codegen", "codegen reads the IR only",
			func(d string) bool { return ours(d) && !under(d, "ir") && !under(d, "codegen") }},
		{"compiler", "the front end produces IR; it does not generate, run or test",
			func(d string) bool { return ours(d) && !under(d, "ir") && !under(d, "compiler") }},
		{"compiler/internal/lower", "the lowering reads checked CEL and the catalog",
			func(d string) bool {
				return ours(d) && !under(d, "ir") && !under(d, "compiler/catalog") && !under(d, "compiler/internal/lower")
			}},
		{"runtime/impl", "what generated code links imports the runtime only: no interpreter, no store",
			func(d string) bool { return ours(d) && !under(d, "runtime") }},
		{"interp", "the interpreter ships (the rule store runs rules through it) and is the oracle of the generated code: it reads the front end's rules and the runtime's plain types, never runtime/impl, codegen or test tooling",
			func(d string) bool {
				return ours(d) && !under(d, "interp") && !under(d, "compiler") && !under(d, "ir") && d != mod+"/runtime"
			}},
		{"rulestore", "the rule store links the front end, the interpreter and the runtime; never codegen or test tooling",
			func(d string) bool { return under(d, "codegen") || under(d, "testkit") || d == "testing" }},
		{"testkit/wire", "the runner protocol links only the runtime, like generated code",
			func(d string) bool { return ours(d) && !under(d, "runtime") && !under(d, "testkit/wire") }},
		{"examples/host/rules", "generated packages link only the runtime and their catalog's package",
			func(d string) bool {
				return ours(d) && !under(d, "runtime") && !under(d, "lycaon") && !under(d, "examples/host/rules")
			}},
		{"lycaon", "a generated catalog package links only the runtime",
			func(d string) bool { return ours(d) && !under(d, "runtime") && !under(d, "lycaon") }},
		{"guard", "the MCP guard is built from embedded source, offline: it links only the runtime and the built-in validators",
			func(d string) bool {
				return !isStd(d) && !under(d, "runtime") && !under(d, "validators") && !under(d, "guard")
			}},
		{"guard/proxy", "the proxy is built from embedded source, offline: it links only the guard and the runtime",
			func(d string) bool {
				return !isStd(d) && !under(d, "runtime") && !under(d, "validators") && !under(d, "guard")
			}},
		{"guard", "the generic guard links no generated code and no schema library (guard/schema is linked only by sets with bindings)",
			func(d string) bool { return under(d, "guard/schema") || under(d, "runtime/impl") || under(d, "lycaon") }},
		{"validators", "the built-in validators ship in hosts and in the guard",
			func(d string) bool { return !isStd(d) && !under(d, "runtime") && !under(d, "validators") }},
		{"runtime", "the host's runtime links nothing of generated code's runtime/impl",
			func(d string) bool { return under(d, "runtime/impl") }},
		{"cmd/oarc", "the production CLI links no test-only helper",
			func(d string) bool {
				return under(d, "testkit/difftest") || under(d, "testkit/celdiff") || under(d, "testkit/racecheck") ||
					strings.HasSuffix(d, "/internal/edgecases") || d == "testing"
			}},
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", mod+"/"+r.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", r.pkg, err, out)
		}
		for _, d := range strings.Fields(string(out)) {
			if d != mod+"/"+r.pkg && r.forbidden(d) {
				t.Errorf("%s imports %s: %s", r.pkg, d, r.why)
			}
		}
	}
}
