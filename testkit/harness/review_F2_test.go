package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSilentPassReviewF2: fixtures whose expectation is wrong, or that
// give something the runner would drop, must not come out green. Each
// passed before: a check beside steps was never run, "code": null
// expected the empty code, a second fixture of one name was reported
// like the first, and an empty list tested nothing.
func TestNoSilentPassReviewF2(t *testing.T) {
	const rule = `"rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke",
  "selector": {"tool": "bash"}, "requires": {"profiles": ["tool"]}, "effect": "block"}`
	const allowLs = `{"input": {"anchor": "tool.pre_invoke", "facts": {"tool": "ls"}}, "expected": {"decision": "allow"}}`
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := []string{
		write("a.json", `[
{"name": "check beside steps", `+rule+`, "steps": [`+allowLs+`],
 "check": [{"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}}], "expected": [{"decision": "allow"}]},
{"name": "code null", `+rule+`, "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}},
 "expected": {"decision": "block", "code": null}},
{"name": "twice", `+rule+`, "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "ls"}}, "expected": {"decision": "allow"}},
{"name": "twice", `+rule+`, "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}}, "expected": {"decision": "allow"}}
]`),
		write("empty.json", "[]"),
	}
	rep := RunReport(files, Options{Engines: Reference})
	got := map[string]Status{}
	for _, r := range rep.Results {
		got[r.Name+"@"+filepath.Base(r.File)] += Status(string(r.Status) + " ")
	}
	want := map[string]Status{
		"check beside steps@a.json": "invalid ",
		"code null@a.json":          "invalid ",
		"twice@a.json":              "pass invalid ",
		"@empty.json":               "invalid ",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	for _, r := range rep.Results {
		if r.Status == Invalid && len(r.Messages) == 1 && !strings.Contains(r.Messages[0], filepath.Base(r.File)) {
			t.Errorf("%s: message does not name the file: %s", r.Name, r.Messages[0])
		}
	}
}
