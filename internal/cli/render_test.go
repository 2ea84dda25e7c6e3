package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	hostrules "github.com/oarc/oarc/examples/host/rules"
)

var update = flag.Bool("update", false, "rewrite the golden files of internal/cli/testdata")

// renderPack is a pack made for the rendering cases: a global rule, an
// enforced rule matched by its tags, one only by its copy text, three that
// tie, a monitored rule and a rule without a title.
const renderPack = "testdata/render/pack"

// TestRenderGolden renders testdata/render/pack for each case and compares
// the Markdown with testdata/render/<case>.md (go test ./internal/cli
// -run TestRenderGolden -update rewrites them).
func TestRenderGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
		// want and not are substrings the golden file must and must not
		// hold: they pin what the case is about.
		want, not []string
	}{
		{"no_hint", nil,
			[]string{"- **DEPLOY_GATE**", "- **LARGE_WRITES**", "### Provisional rules (under evaluation)\n\n_These rules are on trial", "- **TRIAL_PUSH**: Force push\n  - Instead: Use git push --force-with-lease.\n"},
			[]string{"UNTITLED_DEPLOY", "more rules not shown"}},
		{"hint_tags", []string{"-hint", "Deploy to production", "-k", "1"},
			[]string{"- **DEPLOY_GATE**", "- **ASK_FIRST**", "- **TRIAL_PUSH**", "(4 more rules not shown)\n"},
			[]string{"UNTITLED_DEPLOY", "CLEAN_TMP", "CUSTOMER_DATA"}},
		{"hint_tag_over_text", []string{"-hint", "write files", "-k", "1"},
			[]string{"- **LARGE_WRITES**", "(4 more rules not shown)\n"},
			[]string{"CLEAN_TMP", "KEEP_LOGS"}},
		{"hint_text_only", []string{"-hint", "invoice", "-k", "1"},
			[]string{"- **CUSTOMER_DATA**: Customer data stays internal\n  - Instead: Send a summary without the invoice numbers.\n", "(4 more rules not shown)\n"},
			[]string{"DEPLOY_GATE", "CLEAN_TMP"}},
		{"hint_nothing", []string{"-hint", "zebra crossing", "-k", "1"},
			[]string{"- **DEPLOY_GATE**", "- **CLEAN_TMP**", "- **CUSTOMER_DATA**", "- **LARGE_WRITES**", "- **TRIAL_PUSH**"},
			[]string{"more rules not shown", "UNTITLED_DEPLOY"}},
		{"hint_no_tokens", []string{"-hint", "?! -- ...", "-k", "1"},
			[]string{"- **DEPLOY_GATE**", "- **LARGE_WRITES**"},
			[]string{"more rules not shown"}},
		{"ties", []string{"-hint", "FILES", "-k", "2"},
			[]string{"- **CLEAN_TMP**", "- **KEEP_LOGS**", "(3 more rules not shown)\n"},
			[]string{"LARGE_WRITES", "DEPLOY_GATE"}},
		{"hint_default_k", []string{"-hint", "files"},
			[]string{"- **DEPLOY_GATE**", "- **LARGE_WRITES**"},
			[]string{"more rules not shown"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(append(append([]string{"render"}, tc.args...), renderPack)...)
			if code != 0 || errs != "" {
				t.Fatalf("render: exit %d, stderr %s", code, errs)
			}
			golden := filepath.Join("testdata", "render", tc.name+".md")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if diff := cmp.Diff(string(want), out); diff != "" {
				t.Errorf("render %q (-want +got):\n%s", tc.args, diff)
			}
			for _, s := range tc.want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q", s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(out, s) {
					t.Errorf("output has %q", s)
				}
			}
			if !strings.HasPrefix(out, "## Rules\n\n") || !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
				t.Errorf("output is not one block under ## Rules ending in one newline:\n%s", out)
			}
		})
	}
}

// TestRenderAgreesWithGenerated checks that oarc render and the generated
// Context of examples/host (compiled from examples/starter) print the same
// Markdown.
func TestRenderAgreesWithGenerated(t *testing.T) {
	for _, tc := range []struct {
		hint string
		k    int
	}{
		{"", 8}, {"delete the build directory", 8}, {"delete the build directory", 2},
		{"push to the remote with git", 3}, {"send an email with the report", 1},
		{"refund a payment", 8}, {"quantum chromodynamics", 1}, {"WRITE /etc/hosts", 4},
	} {
		args := []string{"render", "-k", strconv.Itoa(tc.k)}
		if tc.hint != "" {
			args = append(args, "-hint", tc.hint)
		}
		code, out, errs := run(append(args, "../../examples/starter")...)
		if code != 0 || errs != "" {
			t.Fatalf("%q: exit %d, stderr %s", args, code, errs)
		}
		if want := hostrules.Context(tc.hint, tc.k); out != want {
			t.Errorf("hint %q, k %d: oarc render and the generated Context differ (-generated +render):\n%s", tc.hint, tc.k, cmp.Diff(want, out))
		}
	}
}

func TestRenderUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"render"}, 2, "give pack directories"},
		{[]string{"render", "-k", "0", renderPack}, 2, "-k must be at least 1"},
		{[]string{"render", "testdata/render/nope"}, 2, "no such file or directory"},
		{[]string{"render", "-catalog", "testdata/render/nope.yaml", renderPack}, 1, "no such file or directory"},
	} {
		code, out, errs := run(tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errs, tc.code, tc.stderr)
		}
	}
	// A set with errors prints its diagnostics, and no context.
	dir := t.TempDir()
	bad := filepath.Join(dir, "BAD.yaml")
	os.WriteFile(bad, []byte("oar: '1.0'\nid: BAD\nkind: policy\nanchor: tool.pre_invoke\neffect: blok\ncopy: {title: T}\n"), 0o644)
	if code, out, errs := run("render", bad); code != 1 || out != "" || !strings.Contains(errs, "OAR_EFFECT") {
		t.Errorf("bad rule: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// Spec 10 as revised: allow and transform rules are not rendered (they
// tell the agent nothing it must do); an enforced deny-by-default with a
// title renders its code once, as a rule with the pack's copy, first under
// ## Rules, and takes no place in the top k.
func TestRenderDenyByDefaultAndAllow(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "## Rules\n\n- **NOT_ALLOWED**: What is not allowed is blocked\n  - Fix: Ask the user to allow it.\n" +
			"- **NO_SUDO**: No sudo\n  - Fix: Run without sudo.\n- **WRITES**: Writes are logged\n"},
		{[]string{"-hint", "write", "-k", "1"}, "## Rules\n\n- **NOT_ALLOWED**: What is not allowed is blocked\n  - Fix: Ask the user to allow it.\n" +
			"- **WRITES**: Writes are logged\n\n(1 more rules not shown)\n"},
	} {
		code, out, errs := run(append(append([]string{"render"}, tc.args...), "testdata/render/stock")...)
		if code != 0 || errs != "" {
			t.Fatalf("render: exit %d, stderr %s", code, errs)
		}
		if out != tc.want {
			t.Errorf("render %q:\n%s\nwant:\n%s", tc.args, out, tc.want)
		}
	}
}

// TestRenderAsk: an ask rule (spec 5.12) renders like a block, enforced
// under "## Rules" and monitored among the provisional rules, so that the
// agent knows a person will be asked.
func TestRenderAsk(t *testing.T) {
	code, out, errs := run("render", "testdata/render/ask")
	if code != 0 || errs != "" {
		t.Fatalf("render: exit %d, stderr %s", code, errs)
	}
	for _, want := range []string{
		"## Rules\n\n- **ASK_DEPLOY**: A person approves every deploy\n  - Fix: Say what the deploy changes so that the person can decide.\n- **NO_SUDO**: No sudo\n",
		"### Provisional rules (under evaluation)\n",
		"- **ASK_MIGRATE**: A person will approve migrations\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
}

// TestRenderStore: oarc render -store renders the rules of a rule store
// in force with the compiled ones (spec 12: "Rendering (section 10)
// includes the store's rules"), as a host with the store open renders
// them; the store is read, never written, and its bad lines are reported
// while the rest renders.
func TestRenderStore(t *testing.T) {
	rec := func(id, status, title, extra string) string {
		return `{"id":"` + id + `","created_at":"2026-01-02T03:04:05Z","status":"` + status + `","rule":{"oar":"1.0","id":"` + id +
			`","kind":"policy","anchor":"tool.pre_invoke","effect":"block","requires":{"profiles":["tool"]},"selector":{"tool":"rm"},"when":"true","copy":{"title":"` +
			title + `","fix":"Fix of ` + id + `."}}` + extra + "}\n"
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	_, without, _ := run("render", renderPack)
	if code, out, errs := run("render", "-store", empty, renderPack); code != 0 || out != without || errs != "" {
		t.Errorf("an empty store: exit %d, stderr %q, output differs from render without a store:\n%s", code, errs, cmp.Diff(without, out))
	}

	store := filepath.Join(dir, "rules.jsonl")
	content := rec("S_ACTIVE", "active", "Store active rule", "") +
		rec("S_CAND", "candidate", "Store candidate rule", `,"trial":{"sessions":3,"fired_sessions":2,"monitored":2,"errors":0,"threshold":5,"verdict":"pending"}`) +
		rec("S_RETIRED", "retired", "Store retired rule", `,"reason":"gone"`) +
		"not a record\n"
	os.WriteFile(store, []byte(content), 0o644)
	code, out, errs := run("render", "-store", store, "-sessions", "4", renderPack)
	if code != 0 || !strings.Contains(errs, "rules.jsonl:4: error:") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	active := strings.Index(out, "- **S_ACTIVE**: Store active rule")
	prov := strings.Index(out, "### Provisional rules")
	cand := strings.Index(out, "- **S_CAND**: Store candidate rule (trial: 2/4 sessions)")
	if active < 0 || prov < 0 || cand < prov || active > prov || strings.Contains(out, "S_RETIRED") {
		t.Errorf("render -store:\n%s", out)
	}
	for _, id := range []string{"ASK_FIRST", "DEPLOY_GATE"} {
		if !strings.Contains(out, "**"+id+"**") {
			t.Errorf("the compiled rule %s is not rendered:\n%s", id, out)
		}
	}
	if b, _ := os.ReadFile(store); string(b) != content {
		t.Errorf("render wrote the store:\n%s", b)
	}

	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"render", "-store", filepath.Join(dir, "nope.jsonl"), renderPack}, 1, "no such file or directory"},
		{[]string{"render", "-store", store, "-sessions", "0", renderPack}, 2, "-sessions must be between 1 and"},
	} {
		code, out, errs := run(tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out, errs, tc.code, tc.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.jsonl")); err == nil {
		t.Error("render created a store that did not exist")
	}
}
