package harness

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/testkit/fixture"
	"github.com/oarc/oarc/testkit/wire"
)

// tree writes files (path -> content) under a temporary directory and
// returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// outcomes names each result "file: name status", files relative to dir.
func outcomes(t *testing.T, dir string, rep *Report) []string {
	t.Helper()
	var out []string
	for _, r := range rep.Results {
		rel, err := filepath.Rel(dir, r.File)
		if err != nil {
			rel = r.File
		}
		out = append(out, filepath.ToSlash(rel)+": "+r.Name+" "+string(r.Status))
	}
	slices.Sort(out)
	return out
}

const (
	nudgeRule    = "oar: '1.0'\nid: AFTER_RUN\nkind: policy\nanchor: tool.post_invoke\neffect: nudge\n"
	nudgeFixture = `{"name": "nudges", "input": {"anchor": "tool.post_invoke"}, "expected": {"decision": "nudge"}}`
)

// copyDeviceSet copies the conformance corpus's set of two packs (a
// project rule reads a stock rule's counter; the fixtures need both) to
// dir/sub.
func copyDeviceSet(t *testing.T, dir, sub string) string {
	t.Helper()
	dst := filepath.Join(dir, sub)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS("../../conformance/sets/device")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPackRunsItsFixturesOnly (issue 18, item 17): a pack directory's
// fixtures are its fixtures/*.json; other JSON files under the pack (data
// of the pack, a fixture in a subdirectory of fixtures) are not read. A
// directory with pack.yaml and no policy directory is a pack too.
func TestPackRunsItsFixturesOnly(t *testing.T) {
	dir := tree(t, map[string]string{
		"pack/policy/AFTER_RUN.yaml":      nudgeRule,
		"pack/fixtures/a.json":            nudgeFixture,
		"pack/fixtures/old/b.json":        `{"name": "in a subdirectory", "input": {"anchor": "x"}}`,
		"pack/notes/data.json":            `{"not": "a fixture"}`,
		"pack/policy/README.json":         `[1, 2]`,
		"onlymeta/pack.yaml":              "oar: '1.0'\nname: onlymeta\n",
		"onlymeta/fixtures/a.json":        nudgeFixture,
		"onlymeta/fixtures/notfixtures.x": "",
	})
	pack := filepath.Join(dir, "pack")
	rep := RunReport([]string{pack}, Options{Engines: Reference})
	if diff := cmp.Diff([]string{"pack/fixtures/a.json: nudges pass"}, outcomes(t, dir, rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The same pack found in a directory searched.
	rep = RunReport([]string{dir}, Options{Engines: Reference})
	want := []string{"onlymeta/fixtures/a.json: nudges fail", "pack/fixtures/a.json: nudges pass"}
	if diff := cmp.Diff(want, outcomes(t, dir, rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// onlymeta is a pack (pack.yaml) of no rules: it loads, and its
	// fixture, which expects a nudge, fails on its decision.
	if len(rep.NotLoaded) != 0 {
		t.Errorf("not loaded: %+v", rep.NotLoaded)
	}
}

// TestDeclaredSet (issue 18, item 17): in a directory searched, a
// directory with a set.yaml runs the packs it lists as one compilation
// set, and those packs are not run alone; the set's directory named
// itself is the same set; other packs and loose fixture files run as
// before. Without the set.yaml, the packs run alone and their fixtures
// fail.
func TestDeclaredSet(t *testing.T) {
	dir := tree(t, map[string]string{
		"solo/policy/AFTER_RUN.yaml": nudgeRule,
		"solo/fixtures/a.json":       nudgeFixture,
		"loose.json": `{"name": "own rule", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn"},
			"input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "warn"}}`,
	})
	set := copyDeviceSet(t, dir, "sets/device")
	want := []string{
		"loose.json: own rule pass",
		"sets/device/stock/fixtures/set.json: one-order-across-packs pass",
		"sets/device/stock/fixtures/set.json: project-rule-reads-a-stock-counter pass",
		"sets/device/stock/fixtures/set.json: stock-transform-in-the-set pass",
		"solo/fixtures/a.json: nudges pass",
	}
	rep := RunReport([]string{dir}, Options{Engines: Reference})
	if diff := cmp.Diff(want, outcomes(t, dir, rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var sets []string
	for _, c := range rep.Coverage {
		var rel []string
		for _, p := range c.Paths {
			r, _ := filepath.Rel(dir, p)
			rel = append(rel, filepath.ToSlash(r))
		}
		sets = append(sets, strings.Join(rel, " + "))
	}
	if diff := cmp.Diff([]string{"sets/device/project + sets/device/stock", "solo"}, sets); diff != "" {
		t.Errorf("sets (-want +got):\n%s", diff)
	}
	if len(rep.NotLoaded) != 0 {
		t.Errorf("not loaded: %+v", rep.NotLoaded)
	}
	rep = RunReport([]string{set}, Options{Engines: Reference})
	if diff := cmp.Diff(want[1:4], outcomes(t, dir, rep)); diff != "" {
		t.Errorf("the set's directory (-want +got):\n%s", diff)
	}
	// Without the declaration, each pack runs alone: the project pack
	// does not load (it names a rule of the stock pack), the stock pack's
	// fixtures fail.
	if err := os.Remove(filepath.Join(set, SetFile)); err != nil {
		t.Fatal(err)
	}
	rep = RunReport([]string{dir}, Options{Engines: Reference})
	failed := 0
	for _, r := range rep.Results {
		if r.Status != Pass {
			failed++
		}
	}
	if failed != 2 || len(rep.NotLoaded) != 1 {
		t.Errorf("without set.yaml: %d failed, not loaded %+v", failed, rep.NotLoaded)
	}
}

// TestReadSetFile: what a set.yaml may hold, and where its problems are.
func TestReadSetFile(t *testing.T) {
	dir := tree(t, map[string]string{
		"a/policy/AFTER_RUN.yaml": nudgeRule,
		"b/pack.yaml":             "oar: '1.0'\n",
		"notpack/x.txt":           "",
	})
	for _, tc := range []struct{ text, want string }{
		{"packs: [a, b]\n", "a b"},
		{"# the set\npacks:\n  - b\n  - ./a\n", "b a"},
		{"packs: [../" + filepath.Base(dir) + "/a]\n", "a"},
		{"", "set.yaml:1:1: a set.yaml is a mapping with one field, packs"},
		{"- a\n", "set.yaml:1:1: a set.yaml is a mapping"},
		{"packs: [a\n", "set.yaml: "},
		{"name: x\npacks: [a]\n", `set.yaml:1:1: unknown field "name"`},
		{"packs: [a]\npacks: [b]\n", "set.yaml:2:1: packs is given twice"},
		{"other: 1\n", `set.yaml:1:1: unknown field "other"`},
		{"packs: []\n", "set.yaml:1:8: packs must be a non-empty list"},
		{"packs: a\n", "set.yaml:1:8: packs must be a non-empty list"},
		{"packs: [a, [b]]\n", "set.yaml:1:12: packs: not a directory name"},
		{"packs: [a, 1]\n", "set.yaml:1:12: packs: not a directory name"},
		{"packs: [a, '']\n", "set.yaml:1:12: packs: not a directory name"},
		{"packs: [a, ./a]\n", `set.yaml:1:12: packs: "./a" is listed twice`},
		{"packs: [/etc]\n", `set.yaml:1:9: packs: "/etc" is absolute`},
		{"packs: [a, notpack]\n", "set.yaml:1:12: packs: " + filepath.Join(dir, "notpack") + " is not a pack directory"},
		{"packs: [a, nothere]\n", "set.yaml:1:12: packs: " + filepath.Join(dir, "nothere") + " is not a pack directory"},
	} {
		file := filepath.Join(dir, SetFile)
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		packs, err := ReadSetFile(file)
		got := ""
		if err != nil {
			got = strings.TrimPrefix(err.Error(), dir+string(filepath.Separator))
		} else {
			for _, p := range packs {
				r, _ := filepath.Rel(dir, p)
				got = strings.TrimSpace(got + " " + r)
			}
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: got %q, want %q...", tc.text, got, tc.want)
		}
	}
	// A set.yaml in a pack directory is reported, not ignored.
	pack := tree(t, map[string]string{"policy/AFTER_RUN.yaml": nudgeRule, SetFile: "packs: [x]\n"})
	rep := RunReport([]string{pack}, Options{Engines: Reference})
	if len(rep.Results) != 1 || rep.Results[0].Status != Invalid || !strings.Contains(rep.Results[0].Messages[0], "this one is a pack") {
		t.Errorf("set.yaml in a pack: %+v", rep.Results)
	}
}

// TestNotLoaded (issue 18, item 17): a pack, set or rule file that does
// not load is in Report.NotLoaded with all its diagnostics, fixtures or
// not; its fixtures fail naming the first problem; a fixture's own rule
// is not a set of the run.
func TestNotLoaded(t *testing.T) {
	gate := "oar: 1.0\nid: GATE\nkind: policy\nanchor: gate.blocked\neffect: block\n"
	dir := tree(t, map[string]string{
		"bare/policy/GATE.yaml":      gate,
		"withfx/policy/GATE.yaml":    gate,
		"withfx/fixtures/f.json":     `[{"name": "one", "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "allow"}}]`,
		"rules/GATE.yaml":            gate,
		"good/policy/AFTER_RUN.yaml": nudgeRule,
		"own.json": `{"name": "own bad rule", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "nope", "effect": "warn"},
			"expected": {"error": "OAR_ANCHOR"}}`,
	})
	for _, tc := range []struct {
		paths   []string
		sets    []string // not loaded, relative to dir
		results []string
	}{
		{[]string{"bare"}, []string{"bare"}, nil},
		{[]string{"rules/GATE.yaml"}, []string{"rules/GATE.yaml"}, nil},
		{[]string{"good", "bare"}, []string{"good + bare"}, nil},
		{[]string{"withfx"}, []string{"withfx"}, []string{"withfx/fixtures/f.json: one fail"}},
		{[]string{"good", "own.json"}, nil, []string{"own.json: own bad rule pass"}},
		{[]string{"."}, []string{"bare", "withfx"}, []string{"own.json: own bad rule pass", "withfx/fixtures/f.json: one fail"}},
	} {
		t.Run(strings.Join(tc.paths, ","), func(t *testing.T) {
			t.Chdir(dir)
			rep := RunReport(tc.paths, Options{Engines: Reference})
			var sets []string
			for _, nl := range rep.NotLoaded {
				sets = append(sets, strings.Join(nl.Paths, " + "))
				codes := nl.Diagnostics.Codes()
				if !slices.Contains(codes, "OAR_VERSION") || !slices.Contains(codes, "OAR_PLANE") {
					t.Errorf("%v: diagnostics %v", nl.Paths, codes)
				}
			}
			if diff := cmp.Diff(tc.sets, sets); diff != "" {
				t.Errorf("not loaded (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.results, outcomes(t, ".", rep)); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			for _, r := range rep.Results {
				if r.Status == Fail && (len(r.Messages) != 1 || !strings.Contains(r.Messages[0], "withfx does not load: withfx/policy/GATE.yaml:1:6: error: ") ||
					!strings.HasSuffix(r.Messages[0], "[OAR_VERSION] (and 1 more)")) {
					t.Errorf("%s: %q", r.Name, r.Messages)
				}
			}
		})
	}
}

// TestOutcome: a host goes ahead with an ask only on an explicit yes
// (spec 5.12); no way to ask (nil) and a no block, a block always blocks,
// and every other decision goes ahead.
func TestOutcome(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		decision string
		approve  *bool
		want     string
	}{
		{"ask", &yes, "proceed"}, {"ask", &no, "block"}, {"ask", nil, "block"},
		{"block", &yes, "block"}, {"allow", nil, "proceed"}, {"warn", &no, "proceed"},
		{"transform", nil, "proceed"}, {"nudge", nil, "proceed"},
	} {
		if got := Outcome(c.decision, c.approve); got != c.want {
			t.Errorf("Outcome(%s, %v) = %s, want %s", c.decision, c.approve, got, c.want)
		}
	}
}

// TestCompareShowsErrors: when a fixture fails on a key other than
// decision and errors, and the decision had evaluation errors the fixture
// does not count, the failure names them (a validator the fixture does
// not register leaves a transform's content as it was: the cause must be
// on the line, not only in -json).
func TestCompareShowsErrors(t *testing.T) {
	content := "key [SECRET]"
	errs := []wire.Error{{Rule: "REDACT", Kind: "not_registered", Message: "validator oarc.secrets is not registered"}}
	r := wire.Response{Effect: "transform", Code: "REDACT", Codes: []string{"REDACT"}, FailedClosed: []string{"REDACT"},
		Errors: errs, Content: "key AKIAABCDEFGHIJKLMNOP"}
	got := compare(fixture.Expected{Decision: "transform", Content: &content}, nil, r)
	want := []string{
		`content: expected "key [SECRET]", got "key AKIAABCDEFGHIJKLMNOP"`,
		`errors: not in expected; the decision had 1 [REDACT: validator oarc.secrets is not registered (not_registered)]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("compare:\n got %q\nwant %q", got, want)
	}
	// Nothing to add when the fixture passes, when expected counts the
	// errors, or when the decision line shows them already.
	if got := compare(fixture.Expected{Decision: "transform"}, nil, r); len(got) != 0 {
		t.Errorf("a passing fixture: %q", got)
	}
	one := 1
	if got := compare(fixture.Expected{Decision: "transform", Content: &content, Errors: &one}, nil, r); len(got) != 1 {
		t.Errorf("errors given: %q", got)
	}
	if got := compare(fixture.Expected{Decision: "block"}, nil, r); len(got) != 1 || !strings.Contains(got[0], "errors=[REDACT") {
		t.Errorf("decision differs: %q", got)
	}
}

// TestDirectoryWithNothingToRun: a directory named to oarc test in which
// no pack, set or fixture file is found (rule files put beside each other
// instead of in policy/, an empty directory) is an invalid result, not a
// green run of nothing; a pack without fixtures found in it is not.
func TestDirectoryWithNothingToRun(t *testing.T) {
	dir := tree(t, map[string]string{
		"flat/AFTER_RUN.yaml":                   nudgeRule,
		"flat/notes.txt":                        "",
		"nofixtures/pack/policy/AFTER_RUN.yaml": nudgeRule,
	})
	flat := filepath.Join(dir, "flat")
	rep := RunReport([]string{flat}, Options{Engines: Reference})
	if len(rep.Results) != 1 || rep.Results[0].Status != Invalid || rep.Results[0].File != flat ||
		!strings.Contains(rep.Results[0].Messages[0], "no pack, set.yaml or fixture file in it") {
		t.Errorf("flat: %+v", rep.Results)
	}
	rep = RunReport([]string{filepath.Join(dir, "nofixtures")}, Options{Engines: Reference})
	if len(rep.Results) != 0 || len(rep.Coverage) != 1 {
		t.Errorf("a directory holding a pack without fixtures: %+v", rep.Results)
	}
}
