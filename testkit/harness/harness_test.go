package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/fixture"
	"github.com/oarc/oarc/testkit/wire"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func byName(t *testing.T, results []Result) map[string]Result {
	t.Helper()
	out := map[string]Result{}
	for _, r := range results {
		out[r.Name] = r
	}
	return out
}

// at returns the 1-based line and character column of sub in s.
func at(t *testing.T, s, sub string) (int, int) {
	t.Helper()
	i := strings.Index(s, sub)
	if i < 0 {
		t.Fatalf("%q not in the file", sub)
	}
	return strings.Count(s[:i], "\n") + 1, len([]rune(s[strings.LastIndex(s[:i], "\n")+1:i])) + 1
}

// TestLoadRuleFromJSON (issue 10, item 14): a rule object is loaded as the
// JSON value it is. A raw DEL was a YAML error at 1:1 and a raw NEL a line
// break inside the when; diagnostics point into the fixture file.
func TestLoadRuleFromJSON(t *testing.T) {
	rule := func(id, when string) string {
		return `{"oar": "1.0", "id": "` + id + `", "kind": "policy", "anchor": "tool.pre_invoke",` + "\n" +
			`   "requires": {"profiles": ["tool"]}, "effect": "block",` + "\n" +
			`   "when": "` + when + `"}`
	}
	text := "[\n" +
		` {"name": "del", "rule": ` + rule("DEL", `tool == \"a`+"\x7f"+`b\"`) + `, "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "a\u007fb"}}, "expected": {"decision": "block"}},` + "\n" +
		` {"name": "nel", "rule": ` + rule("NEL", `tool == \"a`+"\u0085"+`b\"`) + `, "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "a\u0085b"}}, "expected": {"decision": "block"}},` + "\n" +
		` {"name": "bad-when", "rule": ` + rule("BAD", `tool == \"`+"\u0085é"+`\" && \u0074ool @ 1`) + `, "expected": {"error": "OAR_CEL_SYNTAX"}},` + "\n" +
		` {"name": "bad-field", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn",` + "\n" +
		`   "copy": {"title": "t` + "\x7f" + `", "body": "b"}}, "expected": {"error": "OAR_UNKNOWN_FIELD"}}` + "\n]\n"
	path := writeFile(t, "rules.json", text)
	fxs, err := fixture.ParseFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fxs[:2] {
		p, diags := LoadRule(f, compiler.Options{})
		if len(diags) > 0 {
			t.Errorf("%s: %s", f.Name, diags.Text())
			continue
		}
		want := map[string]string{"del": "tool == \"a\x7fb\"", "nel": "tool == \"a\u0085b\""}[f.Name]
		if p.Rules[0].When != want {
			t.Errorf("%s: when = %q, want %q", f.Name, p.Rules[0].When, want)
		}
	}
	check := func(f *fixture.Fixture, code, sub string) {
		t.Helper()
		_, diags := LoadRule(f, compiler.Options{})
		line, col := at(t, text, sub)
		for _, d := range diags {
			if d.Code != code {
				continue
			}
			want := compiler.Pos{File: path, Line: line, Col: col}
			if d.Pos != want {
				t.Errorf("%s: %s at %s, want %s", f.Name, code, d.Pos, want)
			}
			if wantSrc := strings.Split(text, "\n")[line-1]; d.Source != wantSrc {
				t.Errorf("%s: source line %q, want %q", f.Name, d.Source, wantSrc)
			}
			return
		}
		t.Errorf("%s: no %s in %s", f.Name, code, diags.Text())
	}
	// The CEL error is at the '@', past a raw NEL, a raw é and an escape.
	check(fxs[2], compiler.CodeCELSyntax, "@ 1")
	check(fxs[3], compiler.CodeUnknownField, `"body"`)

	res := byName(t, Run([]string{path}, Options{Engines: Both}))
	for _, name := range []string{"del", "nel", "bad-when", "bad-field"} {
		if r := res[name]; r.Status != Pass {
			t.Errorf("%s: %s: %s", name, r.Status, strings.Join(r.Messages, "\n"))
		}
	}
}

// TestRejectionInputAndBOM (issue 10, item 15): a load-rejection fixture
// may carry an input (validated, not run), and a fixture file may start
// with a byte order mark.
func TestRejectionInputAndBOM(t *testing.T) {
	text := "\ufeff" + `[
 {"name": "rejected-with-input",
  "rule": {"oar": "2.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn"},
  "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}},
  "expected": {"error": "OAR_VERSION"}},
 {"name": "rejected-with-bad-input",
  "rule": {"oar": "2.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn"},
  "input": {"anchor": "tool.nope"},
  "expected": {"error": "OAR_VERSION"}},
 {"name": "runs",
  "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn"},
  "input": {"anchor": "tool.pre_invoke"},
  "expected": {"decision": "warn", "codes": ["R"]}}
]`
	res := byName(t, Run([]string{writeFile(t, "bom.json", text)}, Options{Engines: Reference}))
	if len(res) != 3 {
		t.Fatalf("results: %+v", res)
	}
	for name, want := range map[string]Status{"rejected-with-input": Pass, "rejected-with-bad-input": Invalid, "runs": Pass} {
		if r := res[name]; r.Status != want {
			t.Errorf("%s: %s, want %s: %s", name, r.Status, want, strings.Join(r.Messages, "\n"))
		}
	}
	if m := strings.Join(res["rejected-with-bad-input"].Messages, ""); !strings.Contains(m, `"tool.nope" is not an anchor`) {
		t.Errorf("bad input: %s", m)
	}
}

// fourRules is a fixture file of four fixtures, each with its own rule
// (so each its own pack), all passing.
func fourRules(t *testing.T) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i, id := range []string{"OK_A", "GEN_FAIL", "TYPE_ERR", "OK_B"} {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, ` {"name": %q, "rule": {"oar": "1.0", "id": %q, "kind": "policy", "anchor": "tool.pre_invoke",
   "requires": {"profiles": ["tool"]}, "when": "tool == \"x\"", "effect": "block"},
  "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "x"}}, "expected": {"decision": "block", "code": %q}}`, id, id, id)
	}
	b.WriteString("\n]\n")
	return writeFile(t, "four.json", b.String())
}

func hasRule(p *ir.Set, id string) bool {
	for _, r := range p.Rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

// breakGenerate replaces the generator for the test: corrupt is called
// with each pack's source and returns what is written.
func breakGenerate(t *testing.T, corrupt func(p *ir.Set, opts codegen.Options, src []byte) ([]byte, error)) {
	saved := generate
	t.Cleanup(func() { generate = saved })
	generate = func(p *ir.Set, opts codegen.Options) ([]byte, error) {
		src, err := saved(p, opts)
		if err != nil {
			return src, err
		}
		return corrupt(p, opts, src)
	}
}

// TestOneBrokenPackFailsAlone (issue 10, item 16): a pack whose code does
// not generate or does not compile fails its own fixtures, with the real
// error, and the other fixtures of the file run.
func TestOneBrokenPackFailsAlone(t *testing.T) {
	path := fourRules(t)
	run := func() (map[string]Result, int64) {
		n := builds.Load()
		res := byName(t, Run([]string{path}, Options{Engines: Generated}))
		return res, builds.Load() - n
	}
	expect := func(res map[string]Result, failing map[string]string) {
		t.Helper()
		for _, name := range []string{"OK_A", "GEN_FAIL", "TYPE_ERR", "OK_B"} {
			r := res[name]
			msg := strings.Join(r.Messages, "\n")
			if want, ok := failing[name]; ok {
				if r.Status != Fail || !strings.Contains(msg, want) {
					t.Errorf("%s: %s, want a failure saying %q: %s", name, r.Status, want, msg)
				}
				for other := range failing {
					if other != name && strings.Contains(msg, other) {
						t.Errorf("%s: the message names %s: %s", name, other, msg)
					}
				}
			} else if r.Status != Pass {
				t.Errorf("%s: %s: %s", name, r.Status, msg)
			}
		}
	}

	t.Run("all good: one build", func(t *testing.T) {
		res, n := run()
		expect(res, nil)
		if n != 1 {
			t.Errorf("%d builds, want 1", n)
		}
	})

	t.Run("generation and compile errors", func(t *testing.T) {
		breakGenerate(t, func(p *ir.Set, _ codegen.Options, src []byte) ([]byte, error) {
			switch {
			case hasRule(p, "GEN_FAIL"):
				return nil, errors.New("codegen: generated code does not parse (a bug in oarc): GEN_FAIL is broken")
			case hasRule(p, "TYPE_ERR"):
				return append(src, "\nvar _ int = \"TYPE_ERR is broken\"\n"...), nil
			}
			return src, nil
		})
		res, n := run()
		expect(res, map[string]string{
			"GEN_FAIL": "GEN_FAIL is broken",
			"TYPE_ERR": `cannot use "TYPE_ERR is broken"`,
		})
		// One build that fails, one without the pack the compiler named.
		if n != 2 {
			t.Errorf("%d builds, want 2", n)
		}
	})

	t.Run("an error the compiler does not attribute", func(t *testing.T) {
		// A package that imports the program is an error the go command
		// reports for the program, not under the package: the harness
		// has to bisect.
		breakGenerate(t, func(p *ir.Set, opts codegen.Options, src []byte) ([]byte, error) {
			if hasRule(p, "TYPE_ERR") {
				clause := []byte("package " + opts.Package + "\n")
				if !bytes.Contains(src, clause) {
					t.Fatalf("no %q in the generated code", clause)
				}
				return bytes.Replace(src, clause, append(clause, "\nimport _ \"oarcrunner\"\n"...), 1), nil
			}
			return src, nil
		})
		res, n := run()
		expect(res, map[string]string{"TYPE_ERR": `imports oarcrunner`})
		t.Logf("%d builds", n)
	})
}

// TestRunnerRestarts: a runner that dies is restarted for the next
// request.
func TestRunnerRestarts(t *testing.T) {
	path := fourRules(t)
	fxs, err := fixture.ParseFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, diags := LoadRule(fxs[0], compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	r, err := Build([]*ir.Set{compiler.Build(p)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	do := func() (wire.Response, error) { return r.Do(Request(&fxs[0].Steps[0].Input, 0, "s", catalog.Default())) }
	if resp, err := do(); err != nil || resp.Effect != "block" {
		t.Fatalf("%v %v", Show(resp), err)
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	if _, err := do(); err == nil {
		t.Fatal("a request to a dead runner succeeded")
	}
	if resp, err := do(); err != nil || resp.Effect != "block" {
		t.Fatalf("after a restart: %v %v", Show(resp), err)
	}
}
