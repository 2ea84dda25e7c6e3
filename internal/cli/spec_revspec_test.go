package cli

// Tests written from spec sections 8 (oarc test's output) and 10 (oarc
// render), sentence by sentence, before reading the implementation.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func revspecPack(t *testing.T, packYAML string, rules map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(packYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	for id, body := range rules {
		if err := os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const revspecSel = "kind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\n"

// TestRevspecRender: spec 10, "Context".
func TestRevspecRender(t *testing.T) {
	pack := revspecPack(t, "oar: '1.0'\nname: r\norigin: stock\ndeny_by_default:\n  anchors: [tool.pre_invoke, tool.post_invoke]\n  code: NOT_LISTED\n  copy: {title: Only listed tools, fix: Ask for it}\n",
		map[string]string{
			// Global (no selector): always rendered, takes no top-k place.
			"Z_GLOBAL": "kind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: Global, instead: Be careful}\n",
			// Tag "git" (selector value), no text match.
			"B_TAG": revspecSel + "selector: {tool: git}\neffect: block\ncopy: {title: Tagged}\n",
			// Text "git" and "push" (copy), no tag match: the same score.
			"A_TEXT": revspecSel + "selector: {tool: curl}\neffect: block\ncopy: {title: Git push text}\n",
			// Tag "push" and text "git": 2 + 1.
			"C_BOTH": revspecSel + "selector: {tool: push}\neffect: block\ncopy: {title: About git, fix: Fix it}\n",
			// Matches nothing.
			"D_NONE": revspecSel + "selector: {tool: ls}\neffect: warn\ncopy: {title: Nothing}\n",
			// Schema rules come first in evaluation order (kind rank).
			"Y_SCHEMA": "kind: schema\nanchor: tool.post_invoke\nrequires: {profiles: [tool]}\nselector: {tool: zz}\neffect: warn\ncopy: {title: Schema}\n",
			// Never rendered: untitled, allow, transform.
			"E_UNTITLED":  revspecSel + "selector: {tool: git}\neffect: block\nwhen: tool_arg_string(\"x\") == \"y\"\ncopy: {fix: no title}\n",
			"F_ALLOW":     revspecSel + "selector: {tool: git}\neffect: allow\ncopy: {title: Allowed git}\n",
			"G_TRANSFORM": "kind: policy\nanchor: content.output\neffect: transform\nrequires: {profiles: [content-safety]}\ntransform: {redact: [secret_matches]}\ncopy: {title: Redact git}\n",
			// Monitored: under the provisional heading, always, no top-k place.
			"H_MON": revspecSel + "selector: {tool: rm}\neffect: block\nenforcement: monitor\ncopy: {title: Removing, fix: Move to trash}\n",
		})
	render := func(args ...string) string {
		t.Helper()
		code, out, errs := run(append(append([]string{"render"}, args...), pack)...)
		if code != 0 || strings.Contains(errs, "error") {
			t.Fatalf("render %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	const head = "## Rules\n\n- **NOT_LISTED**: Only listed tools\n  - Fix: Ask for it\n"
	const prov = "\n### Provisional rules (under evaluation)\n\n"
	all := render()
	want := head +
		"- **Y_SCHEMA**: Schema\n" +
		"- **A_TEXT**: Git push text\n" +
		"- **B_TAG**: Tagged\n" +
		"- **C_BOTH**: About git\n  - Fix: Fix it\n" +
		"- **D_NONE**: Nothing\n" +
		"- **Z_GLOBAL**: Global\n  - Instead: Be careful\n" + prov
	if !strings.HasPrefix(all, want) {
		t.Errorf("no hint:\n%s\nwant it to start with\n%s", all, want)
	}
	if !strings.HasSuffix(all, "- **H_MON**: Removing\n  - Fix: Move to trash\n") {
		t.Errorf("no hint: the monitored rule last:\n%s", all)
	}
	for _, id := range []string{"E_UNTITLED", "F_ALLOW", "G_TRANSFORM", "more rules"} {
		if strings.Contains(all, id) {
			t.Errorf("no hint: %s rendered:\n%s", id, all)
		}
	}
	// A hint that matches nothing renders every rule, like no hint.
	if got := render("-hint", "zebra", "-k", "1"); got != all {
		t.Errorf("a hint that matches nothing:\n%s", got)
	}
	// k = 1: C_BOTH (3) wins; the global, the deny code and the monitored
	// rule render anyway; 4 ranked rules left out (Y_SCHEMA, A_TEXT,
	// B_TAG, D_NONE). Casefolded.
	got := render("-hint", "GIT Push", "-k", "1")
	want = head + "- **C_BOTH**: About git\n  - Fix: Fix it\n- **Z_GLOBAL**: Global\n  - Instead: Be careful\n" + prov
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "- **H_MON**: Removing\n  - Fix: Move to trash\n\n(4 more rules not shown)\n") {
		t.Errorf("k=1:\n%s", got)
	}
	// k = 2: A_TEXT (2) and B_TAG (2) tie: evaluation order keeps A_TEXT.
	// The list stays in evaluation order.
	got = render("-hint", "git push", "-k", "2")
	if !strings.Contains(got, "- **A_TEXT**: Git push text\n- **C_BOTH**") || strings.Contains(got, "B_TAG") || !strings.HasSuffix(got, "(3 more rules not shown)\n") {
		t.Errorf("k=2:\n%s", got)
	}
	// k = 4 with 5 ranked rules: "(1 more rules not shown)". C_BOTH 3,
	// B_TAG 2, A_TEXT 1, then Y_SCHEMA and D_NONE tie at 0: evaluation
	// order keeps Y_SCHEMA (rules that match nothing still fill places).
	got = render("-hint", "git", "-k", "4")
	if !strings.HasSuffix(got, "\n\n(1 more rules not shown)\n") || strings.Contains(got, "D_NONE") || !strings.Contains(got, "Y_SCHEMA") {
		t.Errorf("k=4:\n%s", got)
	}
	// The default k is 8: five ranked rules all render.
	if got := render("-hint", "git"); strings.Contains(got, "more rules") {
		t.Errorf("default k:\n%s", got)
	}
	// Deterministic.
	for range 5 {
		if again := render("-hint", "git push", "-k", "2"); again != render("-hint", "git push", "-k", "2") {
			t.Fatal("render is not deterministic")
		}
	}
}

// TestRevspecTestOutput: spec 8, "oarc test PATH... runs every fixture ...,
// prints one line per failure with the fixture's file and name, a summary
// line N passed, N failed, and exits non-zero on any failure or invalid
// fixture."
func TestRevspecTestOutput(t *testing.T) {
	pack := revspecPack(t, "oar: '1.0'\nname: t\n", map[string]string{
		"NO_GIT": revspecSel + "selector: {tool: git}\neffect: block\n",
	})
	fx := filepath.Join(pack, "fixtures")
	if err := os.MkdirAll(fx, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(fx, "f.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`[{"name": "blocks", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "git"}}, "expected": {"decision": "block", "code": "NO_GIT"}},
 {"name": "passes", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "ls"}}, "expected": {"decision": "allow"}}]`)
	code, out, _ := run("test", "-engine", "reference", pack)
	if code != 0 || !strings.HasSuffix(out, "2 passed, 0 failed\n") {
		t.Errorf("green: exit %d\n%s", code, out)
	}
	write(`[{"name": "wrong", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "git"}}, "expected": {"decision": "warn"}},
 {"name": "bad", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "git"}}, "expected": {"decision": "block", "cod": "NO_GIT"}},
 {"name": "passes", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "ls"}}, "expected": {"decision": "allow"}}]`)
	code, out, _ = run("test", "-engine", "reference", pack)
	if code == 0 {
		t.Errorf("a failure and an invalid fixture: exit 0")
	}
	for _, re := range []string{
		`(?m)^FAIL: \S*f\.json:1:2: fixture "wrong": .*decision`,
		`(?m)^INVALID: \S*f\.json:2:\d+: fixture "bad": expected: unknown key "cod"`,
		`(?m)^1 passed, 2 failed$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	// -json: one record per fixture, machine-readable.
	_, out, _ = run("test", "-engine", "reference", "-json", pack)
	if n := len(jsonLines(t, out)); n < 3 {
		t.Errorf("-json: %d records\n%s", n, out)
	}
}

// TestRevspecInvalidFixturesAreFixtures: a pack whose fixtures are all
// invalid has fixtures: the run says they are invalid, not that the pack
// has none (which reads as if the files were not found).
func TestRevspecInvalidFixturesAreFixtures(t *testing.T) {
	pack := revspecPack(t, "oar: '1.0'\nname: t\n", map[string]string{
		"NO_GIT": revspecSel + "selector: {tool: git}\neffect: block\n",
	})
	fx := filepath.Join(pack, "fixtures")
	if err := os.MkdirAll(fx, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fx, "f.json"), []byte(`{"name": "bad", "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "block", "cod": "NO_GIT"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{pack}, {filepath.Join(fx, "f.json")}} {
		code, out, _ := run(append([]string{"test", "-engine", "reference"}, args...)...)
		if code != 1 || strings.Contains(out, "no fixtures") || !strings.Contains(out, "INVALID: ") || !strings.HasSuffix(out, "0 passed, 1 failed\n") {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
		_, out, _ = run(append([]string{"test", "-engine", "reference", "-json"}, args...)...)
		if !strings.Contains(out, `"no_fixtures":[]`) {
			t.Errorf("%v -json:\n%s", args, out)
		}
	}
}
