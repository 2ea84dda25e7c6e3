package cli

// Spec-first tests of spec sections 6 (errors at run time) and 8 (fixtures,
// `history` included), driven through `oarc test -json -engine both` on
// testdata/spec1to8/runtime, a pack written from the spec before the
// implementation ran it. The status each fixture must get is given by its
// file:
//
//   - pass.json, pass_rule.json: every fixture passes, in both engines;
//   - fail.json: every fixture's expectation is wrong, so it must fail
//     (spec 8: "exits non-zero on any failure");
//   - invalid.json: every fixture breaks a rule of spec 8 ("Unsupported
//     keys anywhere in a fixture make it invalid", "a value of the wrong
//     JSON type for the fact makes the fixture itself invalid", history or
//     counters "in a later step's input they make the fixture invalid");
//   - bad.json: fixtures that must not pass, whether they are reported
//     failed or invalid (the spec does not say which);
//   - empty.json, emptyobj.json, notjson.json, zero.json: files that hold
//     no fixture, which must not let a run pass.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

type s18Fixture struct {
	Type     string                     `json:"type"`
	Name     string                     `json:"name"`
	File     string                     `json:"file"`
	Status   string                     `json:"status"`
	Messages []string                   `json:"messages"`
	Got      map[string]json.RawMessage `json:"got"`
}

// s18Names reads the names of the fixtures of a fixture file.
func s18Names(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var fs []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(data, &fs); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	return names
}

// s18InvalidWhere: for some invalid fixtures, what the message must name
// (spec 8: "with a clear message"; docs/test.md: the position and the
// path of the offending value).
var s18InvalidWhere = map[string]string{
	"unknown-top-level-key":                 "expect",
	"unknown-input-key":                     "fact",
	"unknown-expected-key":                  "decisions",
	"fact-not-in-catalog":                   "toool",
	"string-fact-given-an-int":              "tool",
	"int-fact-given-a-fraction":             "repeat_count",
	"history-not-a-list":                    "history",
	"history-entry-not-an-object":           "history[0]",
	"history-entry-without-tool":            "history[0]",
	"history-entry-unknown-key":             "args",
	"history-entry-tool-not-a-string":       "history[0].tool",
	"history-entry-tool-args-not-an-object": "history[0].tool_args",
	"history-entry-code-not-a-rule-id":      "history[0].code",
	"history-entry-code-not-a-string":       "history[0].code",
	"history-in-a-later-step":               "steps[1]",
	"empty-history-in-a-later-step":         "steps[1]",
	"counters-in-a-later-step":              "steps[1]",
	"expected-error-unknown-code":           "OAR_VERSION",
	"rejection-with-an-invalid-input":       "nope",
	"provider-unknown-function":             "path_outside",
	"host-fact-bare":                        `did you mean "lycaon.tool_is_state"`,
	"provider-host-function-bare":           `did you mean "lycaon.source_includes"`,
	"namespaced-standard-fact":              `did you mean "tool"`,
	"counter-above-its-largest":             "counters.CNT.fire",
	"counter-key-not-a-rule-id":             `did you mean "CNT"`,
	"history-entry-time-zero-instant":       "history[0].time",
	"history-entry-args-duplicate-key":      "duplicate key",
	"namespaced-standard-fact-nested":       `did you mean "tool_args"`,
	"namespaced-standard-provider":          `did you mean "path_outside_scope"`,
}

func TestSpec8FixtureOutcomes(t *testing.T) {
	for _, pack := range []string{"runtime", "session"} {
		t.Run(pack, func(t *testing.T) { s18Outcomes(t, filepath.Join("testdata", "spec1to8", pack)) })
	}
}

func s18Outcomes(t *testing.T, dir string) {
	code, out, errs := run("test", "-json", "-engine", "both", dir)
	if strings.Contains(errs, "panic:") || strings.Contains(errs, "goroutine ") || strings.Contains(errs, "internal error") {
		t.Fatalf("panic:\n%s", errs)
	}
	// Spec 8: "exits non-zero on any failure or invalid fixture".
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	byKey := map[string]s18Fixture{}
	byFile := map[string][]s18Fixture{}
	var summary map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var head struct{ Type string }
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatalf("not JSON Lines: %q: %v\nstderr: %s", line, err, errs)
		}
		switch head.Type {
		case "fixture":
			var f s18Fixture
			if err := json.Unmarshal([]byte(line), &f); err != nil {
				t.Fatal(err)
			}
			base := filepath.Base(f.File)
			if _, dup := byKey[base+"/"+f.Name]; dup && f.Name != "" {
				t.Errorf("fixture %s %q reported twice", base, f.Name)
			}
			byKey[base+"/"+f.Name] = f
			byFile[base] = append(byFile[base], f)
		case "summary":
			if err := json.Unmarshal([]byte(line), &summary); err != nil {
				t.Fatal(err)
			}
		}
	}
	if summary == nil {
		t.Fatalf("no summary:\n%s\n%s", out, errs)
	}
	pos := regexp.MustCompile(`^\S+\.json:\d+:\d+: `)
	for file, want := range map[string]string{"pass.json": "pass", "pass_rule.json": "pass", "pass_profiles.json": "pass", "fail.json": "fail", "invalid.json": "invalid", "bad.json": "!pass"} {
		if _, err := os.Stat(filepath.Join(dir, "fixtures", file)); err != nil {
			continue
		}
		names := s18Names(t, filepath.Join(dir, "fixtures", file))
		if len(names) == 0 {
			t.Fatalf("%s: no fixtures", file)
		}
		for _, name := range names {
			f, ok := byKey[file+"/"+name]
			if !ok {
				t.Errorf("%s: fixture %q: not reported (each fixture is run or reported)", file, name)
				continue
			}
			switch {
			case want == "!pass" && f.Status == "pass":
				t.Errorf("%s: fixture %q passed, it must fail or be invalid: %s", file, name, f.Got)
			case want != "!pass" && f.Status != want:
				t.Errorf("%s: fixture %q: status %s, spec: %s\n  messages: %q\n  got: %s", file, name, f.Status, want, f.Messages, f.Got)
			}
			if f.Status == "fail" && len(f.Messages) == 0 {
				t.Errorf("%s: fixture %q failed without saying what differs", file, name)
			}
			if f.Status == "invalid" {
				msg := strings.Join(f.Messages, "\n")
				if !pos.MatchString(msg) {
					t.Errorf("%s: fixture %q: an invalid fixture's message starts with file:line:col: %q", file, name, msg)
				}
				if w := s18InvalidWhere[name]; w != "" && !strings.Contains(msg, w) {
					t.Errorf("%s: fixture %q: message does not name %q: %q", file, name, w, msg)
				}
			}
			if want == "pass" && f.Status == "pass" {
				// Both engines answered (spec 8: "against the generated Go
				// code"; docs/test.md: both engines by default).
				if _, rejection := f.Got["diagnostics"]; !rejection {
					if _, ok := f.Got["generated"]; !ok {
						t.Errorf("%s: fixture %q: no answer of the generated code: %s", file, name, f.Got)
					}
				}
			}
		}
	}
	// Files that hold no fixture fail the run with a line of their own.
	for _, file := range []string{"empty.json", "emptyobj.json", "notjson.json", "zero.json"} {
		if _, err := os.Stat(filepath.Join(dir, "fixtures", file)); err != nil {
			continue
		}
		fs := byFile[file]
		if len(fs) == 0 {
			t.Errorf("%s: not reported", file)
			continue
		}
		for _, f := range fs {
			if f.Status != "invalid" {
				t.Errorf("%s: %q status %s, want invalid", file, f.Name, f.Status)
			}
		}
	}
	// The summary counts them all: "N passed, N failed".
	passed, failed := 0, 0
	for _, fs := range byFile {
		for _, f := range fs {
			if f.Status == "pass" {
				passed++
			} else {
				failed++
			}
		}
	}
	if int(summary["passed"].(float64)) != passed || int(summary["failed"].(float64)) != failed {
		t.Errorf("summary %v, records: %d passed, %d failed", summary, passed, failed)
	}
}

// TestSpec8FixtureTextReport: the text form prints one line per failure
// with the fixture's file and name, and the summary `N passed, N failed`.
func TestSpec8FixtureTextReport(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	body := `[
 {"name": "right", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block"},
  "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "block", "code": "R"}},
 {"name": "wrong expectation", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block"},
  "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "block", "code": "S"}},
 {"name": "bad history", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block"},
  "input": {"anchor": "tool.pre_invoke", "history": [{"tool": "bash", "when": 1}]}, "expected": {"decision": "block"}}
]`
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"reference", "generated"} {
		code, out, errs := run("test", "-engine", engine, file)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1: %s", engine, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if last := lines[len(lines)-1]; last != "1 passed, 2 failed" {
			t.Errorf("%s: summary %q:\n%s", engine, last, out)
		}
		var fails []string
		for _, l := range lines {
			if strings.HasPrefix(l, "FAIL: ") || strings.HasPrefix(l, "INVALID: ") {
				fails = append(fails, l)
			}
		}
		sort.Strings(fails)
		if len(fails) != 2 || !strings.HasPrefix(fails[0], "FAIL: "+file+":4:2: fixture \"wrong expectation\"") ||
			!strings.HasPrefix(fails[1], "INVALID: "+file+":7:") || !strings.Contains(fails[1], `fixture "bad history"`) || !strings.Contains(fails[1], "when") {
			t.Errorf("%s: failure lines:\n%s", engine, strings.Join(fails, "\n"))
		}
	}
}

// s18TestRun runs `oarc test -json ARGS...` and returns the exit status and
// the fixture records by name.
func s18TestRun(t *testing.T, args ...string) (int, map[string]s18Fixture, string) {
	t.Helper()
	code, out, errs := run(append([]string{"test", "-json"}, args...)...)
	if strings.Contains(errs, "panic:") || strings.Contains(errs, "internal error") {
		t.Fatalf("panic: %s", errs)
	}
	got := map[string]s18Fixture{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var f s18Fixture
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%q: %v (stderr %s)", line, err, errs)
		}
		if f.Type == "fixture" {
			got[f.Name] = f
		}
	}
	return code, got, out
}

// TestSpec1SetOrder: spec 1, "evaluation orders the union of their rules
// by kind, then id, as if they were one pack", whatever order the packs
// are given in; spec 8, a fixture without `rule` runs "against the whole
// compilation set" when its pack was given with others, and against its
// pack alone otherwise.
func TestSpec1SetOrder(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, files map[string]string) string {
		d := s18Write(t, files)
		p := filepath.Join(base, name)
		if err := os.Rename(d, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	blk := func(id, kind string) string {
		return "oar: '1.0'\nid: " + id + "\nkind: " + kind + "\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\nselector: {tool: x}\neffect: block\n"
	}
	p1 := mk("p1", map[string]string{
		"pack.yaml":            "oar: '1.0'\nname: one\n",
		"policy/Z_BLOCK.yaml":  blk("Z_BLOCK", "policy"),
		"policy/Y_SCHEMA.yaml": strings.Replace(blk("Y_SCHEMA", "schema"), "tool: x", "tool: y", 1),
		"fixtures/set.json": `[
 {"name": "alone-or-in-the-set", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "x"}}, "expected": {"decision": "block", "code": "A_BLOCK", "codes": ["A_BLOCK"]}},
 {"name": "schema-before-policy", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "y"}}, "expected": {"decision": "block", "code": "Y_SCHEMA", "codes": ["Y_SCHEMA"]}}
]`,
	})
	p2 := mk("p2", map[string]string{
		"pack.yaml":           "oar: '1.0'\nname: two\n",
		"policy/A_BLOCK.yaml": blk("A_BLOCK", "policy"),
		"policy/B_POL.yaml":   strings.Replace(blk("B_POL", "policy"), "tool: x", "tool: y", 1),
	})
	for _, order := range [][]string{{p1, p2}, {p2, p1}} {
		code, got, out := s18TestRun(t, order...)
		for _, name := range []string{"alone-or-in-the-set", "schema-before-policy"} {
			if got[name].Status != "pass" {
				t.Errorf("order %v: %s: %s\n%s", order, name, got[name].Status, out)
			}
		}
		if code != 0 {
			t.Errorf("order %v: exit %d", order, code)
		}
	}
	// Alone, p1's fixture sees only Z_BLOCK: it must fail.
	code, got, out := s18TestRun(t, p1)
	if got["alone-or-in-the-set"].Status != "fail" || code != 1 {
		t.Errorf("p1 alone: %v exit %d\n%s", got["alone-or-in-the-set"].Status, code, out)
	}
}

// TestSpec8FixtureWithoutAPack: a fixture without `rule` in a file that
// belongs to no pack has nothing to run against; it must not pass.
func TestSpec8FixtureWithoutAPack(t *testing.T) {
	dir := s18Write(t, map[string]string{"loose/f.json": `{"name": "nothing", "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "allow"}}`})
	code, got, out := s18TestRun(t, filepath.Join(dir, "loose", "f.json"))
	if code == 0 || got["nothing"].Status == "pass" {
		t.Errorf("a fixture of no pack passed: exit %d\n%s", code, out)
	}
}

// TestSpec1RuleFileCommands: spec 1, "Every command that takes a pack also
// takes a single rule file."; spec 8, `oarc test` of a rule file runs the
// fixtures of its pack named after it.
func TestSpec1RuleFileCommands(t *testing.T) {
	dir := s18Write(t, map[string]string{
		"policy/A.yaml": s18Rule("A"),
		"policy/B.yaml": strings.Replace(s18Rule("B"), "bash", "sh", 1),
		"fixtures/A.json": `[{"name": "a-blocks", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}}, "expected": {"decision": "block", "code": "A"}},
 {"name": "b-is-not-in-the-set", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "sh"}}, "expected": {"decision": "allow"}}]`,
		"fixtures/B.json": `[{"name": "b-blocks", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "sh"}}, "expected": {"decision": "block", "code": "B"}}]`,
	})
	rule := filepath.Join(dir, "policy", "A.yaml")
	code, got, out := s18TestRun(t, rule)
	if code != 0 || got["a-blocks"].Status != "pass" || got["b-is-not-in-the-set"].Status != "pass" {
		t.Errorf("test of a rule file: exit %d\n%s", code, out)
	}
	if _, ran := got["b-blocks"]; ran {
		t.Errorf("test of A.yaml ran B's fixtures:\n%s", out)
	}
	for _, args := range [][]string{{"check", rule}, {"vet", rule}, {"ir", rule}, {"gen", "-pack", rule, "-out", t.TempDir()}, {"fmt", rule}, {"render", rule}} {
		if code, out, errs := run(args...); code != 0 {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
}

// TestSpec8PackThatDoesNotLoad: a green `oarc test` means the rules load
// (docs/test.md), with fixtures or without; an expected.error fixture
// passes only on a load error with its code.
func TestSpec8PackThatDoesNotLoad(t *testing.T) {
	broken := s18Write(t, map[string]string{"policy/A.yaml": s18Rule("A") + "when: nope\n"})
	if code, _, out := s18TestRun(t, broken); code != 1 {
		t.Errorf("a pack that does not load, no fixtures: exit %d\n%s", code, out)
	}
	withFixture := s18Write(t, map[string]string{
		"policy/A.yaml":   s18Rule("A") + "when: nope\n",
		"fixtures/f.json": `{"name": "allow", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "ls"}}, "expected": {"decision": "allow"}}`,
	})
	code, got, out := s18TestRun(t, withFixture)
	if code != 1 || got["allow"].Status != "fail" {
		t.Errorf("a fixture of a pack that does not load: exit %d, %s\n%s", code, got["allow"].Status, out)
	}
	empty := s18Write(t, map[string]string{"pack.yaml": "oar: '1.0'\n", "policy/README": "x"})
	if code, _, out := s18TestRun(t, empty); code != 0 {
		t.Errorf("a pack without rules or fixtures: exit %d\n%s", code, out)
	}
}

// TestSpec8ReportShownNeverActedOn: oarc test prints what a fixture file
// holds (a key, a value) in its INVALID and FAIL lines; as for oarc check
// (docs/choices-frontend.md, "Diagnostics are shown, never acted on"), a
// control or invisible character is written as an escape, so that a
// fixture file from elsewhere cannot drive the terminal of the person
// running it.
func TestSpec8ReportShownNeverActedOn(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	rule := `{"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block"}`
	body := `[{"name": "key", "rule": ` + rule + `, "input": {"anchor": "tool.pre_invoke", "facts": {"\u001b[2J\u202e": 1}}, "expected": {"decision": "block"}},
 {"name": "nested key", "rule": ` + rule + `, "input": {"anchor": "tool.pre_invoke", "history": [{"tool": "a", "\u001b]0;x\u0007": 1}]}, "expected": {"decision": "block"}},
 {"name": "expected key", "rule": ` + rule + `, "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "block", "\u009b31m": 1}},
 {"name": "code", "rule": ` + rule + `, "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "block", "code": "\u001b[31m"}}]`
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("test", "-engine", "reference", file)
	if code != 1 || !strings.HasSuffix(out, "0 passed, 4 failed\n") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b"} {
		if strings.Contains(out, bad) {
			t.Errorf("the report holds %q raw:\n%q", bad, out)
		}
	}
	if !strings.Contains(out, `\x1b[2J`) {
		t.Errorf("the key is not shown escaped:\n%s", out)
	}
	// A pack found by a search, named with an escape, is shown escaped
	// in "no fixtures" and "does not load" lines, and in PASS lines.
	tree := t.TempDir()
	odd := filepath.Join(tree, "p\x1b[2J")
	for name, body := range map[string]string{
		"policy/A.yaml":   s18Rule("A"),
		"fixtures/f.json": `{"name": "n", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}}, "expected": {"decision": "block"}}`,
	} {
		p := filepath.Join(odd, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(tree, "q\x1b[2J", "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "q\x1b[2J", "policy", "B.yaml"), []byte(s18Rule("B")+"when: nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ = run("test", "-v", "-engine", "reference", tree)
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "PASS: ") || !strings.Contains(out, "does not load") {
		t.Errorf("paths:\n%q", out)
	}
}

// TestSpec8RuleFileFixtures: a rule file runs the fixture files of its
// pack named after it (docs/test.md: fixtures/<ID>.json,
// fixtures/<ID>.*.json), not those of a rule whose id starts like it.
func TestSpec8RuleFileFixtures(t *testing.T) {
	fx := func(name, decision string) string {
		return `{"name": "` + name + `", "input": {"anchor": "tool.pre_invoke", "facts": {"tool": "bash"}}, "expected": {"decision": "` + decision + `"}}`
	}
	dir := s18Write(t, map[string]string{
		"policy/A.yaml":        s18Rule("A"),
		"policy/A_B.yaml":      strings.Replace(s18Rule("A_B"), "effect: block", "effect: warn", 1),
		"fixtures/A.json":      fx("a", "block"),
		"fixtures/A.more.json": fx("a-more", "block"),
		"fixtures/A_B.json":    fx("a-b", "warn"),
		"fixtures/AB.json":     fx("ab", "warn"),
		"fixtures/A.json.bak":  fx("bak", "warn"),
	})
	code, got, out := s18TestRun(t, filepath.Join(dir, "policy", "A.yaml"))
	if code != 0 || got["a"].Status != "pass" || got["a-more"].Status != "pass" {
		t.Errorf("A.yaml: exit %d\n%s", code, out)
	}
	for _, other := range []string{"a-b", "ab", "bak"} {
		if _, ran := got[other]; ran {
			t.Errorf("A.yaml ran fixture %q:\n%s", other, out)
		}
	}
	code, got, out = s18TestRun(t, filepath.Join(dir, "policy", "A_B.yaml"))
	if code != 0 || got["a-b"].Status != "pass" || len(got) != 1 {
		t.Errorf("A_B.yaml: exit %d\n%s", code, out)
	}
}
