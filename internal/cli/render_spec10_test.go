package cli

// Spec-first tests of spec 10, "Context" (oarc render), written from the
// spec text (and docs/context.md for the exact Markdown) before reading
// the implementation.
//
// testdata/spec10/rank holds, in evaluation order (kind rank, then id,
// across anchors):
//
//	Z_SCHEMA   schema, tool.post_invoke, selector zsh            copy: "Shell at the end", "Use bash."
//	A_TAG      policy, tool.pre_invoke,  selector deploy         copy: "Deployment gate", "Run the build first."
//	B_TEXT     policy, tool.pre_invoke,  selector curl           copy: what "Ärger kostet ٣٤ Punkte, λόγος.", why "A deploy script ..."
//	C_BOTH     policy, gate.blocked,     selector [git,push,bash] copy: "Git push", "Use git pull first."
//	G_GLOBAL   policy, no selector (global)                      copy: "Global guidance", "Say hello first."
//	M_TRIAL    policy, monitor, selector rsync                   copy: "Sync on trial", instead "Use cp."
//	U_UNTITLED policy, selector [deploy, ship], no title

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const spec10Rank = "testdata/spec10/rank"

// renderSpec10 runs oarc render and fails the test on a non-zero exit or
// any stderr.
func renderSpec10(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := run(append([]string{"render"}, args...)...)
	if code != 0 || errs != "" {
		t.Fatalf("render %q: exit %d, stderr %s", args, code, errs)
	}
	return out
}

var spec10Item = regexp.MustCompile(`(?m)^- \*\*([A-Z0-9_]+)\*\*: `)

// renderedIDs lists the rule ids of the list items, in output order.
func renderedIDs(out string) []string {
	var ids []string
	for _, m := range spec10Item.FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestSpec10RenderWithoutHint(t *testing.T) {
	out := renderSpec10(t, spec10Rank)
	// Enforced rules under ## Rules in evaluation order, each as
	// "- **ID**: title" and its fix/instead; monitored ones under the
	// provisional heading; the untitled rule nowhere.
	want := "## Rules\n\n" +
		"- **Z_SCHEMA**: Shell at the end\n  - Fix: Use bash.\n" +
		"- **A_TAG**: Deployment gate\n  - Fix: Run the build first.\n" +
		"- **B_TEXT**: Downloads\n" +
		"- **C_BOTH**: Git push\n  - Fix: Use git pull first.\n" +
		"- **G_GLOBAL**: Global guidance\n  - Fix: Say hello first.\n" +
		"\n### Provisional rules (under evaluation)\n\n" +
		"_These rules are on trial: they are not enforced yet. Follow them all the same, as if they were._\n\n" +
		"- **M_TRIAL**: Sync on trial\n  - Instead: Use cp.\n"
	if out != want {
		t.Errorf("render without hint:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(out, "U_UNTITLED") || strings.Contains(out, "somewhere else") {
		t.Errorf("an untitled rule was rendered:\n%s", out)
	}
}

func TestSpec10RenderRanking(t *testing.T) {
	for _, tc := range []struct {
		name, hint, k string
		ids           []string // rendered, in output order
		more          int      // the "(N more rules not shown)" count, 0: no such line
	}{
		// A tag match (selector value) counts 2, a text match 1.
		{"tag beats text", "deploy", "1", []string{"A_TAG", "G_GLOBAL", "M_TRIAL"}, 3},
		{"k 2 shows both, in evaluation order", "deploy", "2", []string{"A_TAG", "B_TEXT", "G_GLOBAL", "M_TRIAL"}, 2},
		// A text match earlier in evaluation order loses to a tag match later.
		{"later tag beats earlier text", "bash", "1", []string{"C_BOTH", "G_GLOBAL", "M_TRIAL"}, 3},
		// tag and text both: 3 (C_BOTH: git tag+text) beats tag only.
		{"tag and text", "git", "1", []string{"C_BOTH", "G_GLOBAL", "M_TRIAL"}, 3},
		// The id's tokens are tags: A_TAG gives "a" and "tag".
		{"id is a tag", "tag", "1", []string{"A_TAG", "G_GLOBAL", "M_TRIAL"}, 3},
		// Every copy field is text, also what/why, which are not shown.
		{"why counts", "script", "1", []string{"B_TEXT", "G_GLOBAL", "M_TRIAL"}, 3},
		// Casefolded.
		{"casefold ascii", "DEPLOYMENT", "1", []string{"A_TAG", "G_GLOBAL", "M_TRIAL"}, 3},
		{"casefold latin", "ÄRGER", "1", []string{"B_TEXT", "G_GLOBAL", "M_TRIAL"}, 3},
		{"casefold greek final sigma", "ΛΌΓΟΣ", "1", []string{"B_TEXT", "G_GLOBAL", "M_TRIAL"}, 3},
		// Unicode digits belong to the run: "٣٤" is one token.
		{"unicode digits", "٣٤", "1", []string{"B_TEXT", "G_GLOBAL", "M_TRIAL"}, 3},
		{"a part of a run is not a token", "٣", "1", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		// Punctuation and underscores split words.
		{"punctuation splits", "rm-rf;deploy!", "1", []string{"A_TAG", "G_GLOBAL", "M_TRIAL"}, 3},
		{"underscore splits the id", "a_tag", "1", []string{"A_TAG", "G_GLOBAL", "M_TRIAL"}, 3},
		// Ties keep evaluation order: kind rank first, whatever the id or
		// the anchor (Z_SCHEMA is a schema rule at tool.post_invoke).
		{"tie: kind rank before id", "use", "1", []string{"Z_SCHEMA", "G_GLOBAL", "M_TRIAL"}, 3},
		// Ties across anchors of one kind: id order (A_TAG at
		// tool.pre_invoke before C_BOTH at gate.blocked).
		{"tie: id across anchors", "first", "1", []string{"A_TAG", "G_GLOBAL", "M_TRIAL"}, 3},
		// A distinct hint token counts once, however often the hint says it.
		{"hint tokens are distinct", "use use use git", "1", []string{"C_BOTH", "G_GLOBAL", "M_TRIAL"}, 3},
		// Only selector values and the id are tags: not the selector's
		// keys, the anchor, the kind or the profiles.
		{"selector keys are not tags", "tool", "1", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		{"the anchor is not a tag", "pre invoke post blocked", "1", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		{"the kind is not a tag", "policy", "1", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		// A hint matching nothing: every rule renders, no trimmed line.
		{"nothing matches", "zebra crossing", "1", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		{"no tokens", "?! -- ...", "1", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		// The untitled rule's selector matches, but it never renders and
		// is not counted.
		{"untitled never renders", "ship", "1", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		// k larger than the ranked rules: all of them, no trimmed line.
		{"k beyond the count", "deploy", "100", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		{"k equal to the count", "deploy", "4", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		// The default k is 8, more than the four ranked rules.
		{"default k", "deploy", "", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "C_BOTH", "G_GLOBAL", "M_TRIAL"}, 0},
		// Rules that match nothing fill the places left, in evaluation order.
		{"non-matching fill", "deploy", "3", []string{"Z_SCHEMA", "A_TAG", "B_TEXT", "G_GLOBAL", "M_TRIAL"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-hint", tc.hint}
			if tc.k != "" {
				args = append(args, "-k", tc.k)
			}
			out := renderSpec10(t, append(args, spec10Rank)...)
			if got := renderedIDs(out); strings.Join(got, " ") != strings.Join(tc.ids, " ") {
				t.Errorf("hint %q, k %s: rendered %v, want %v\n%s", tc.hint, tc.k, got, tc.ids, out)
			}
			// The monitored rule is always under the provisional heading.
			if !strings.Contains(out, "### Provisional rules (under evaluation)\n") ||
				strings.Index(out, "- **M_TRIAL**") < strings.Index(out, "### Provisional rules") {
				t.Errorf("M_TRIAL is not under the provisional heading:\n%s", out)
			}
			if !strings.HasPrefix(out, "## Rules\n\n") {
				t.Errorf("output does not start with ## Rules:\n%s", out)
			}
			if tc.more == 0 {
				if strings.Contains(out, "more rules not shown") {
					t.Errorf("a trimmed-rules line, none expected:\n%s", out)
				}
				return
			}
			last := "\n\n(" + strconv.Itoa(tc.more) + " more rules not shown)\n"
			if !strings.HasSuffix(out, last) {
				t.Errorf("output does not end with %q:\n%s", last, out)
			}
		})
	}
}

// The k given must be a count: 0 and negative values are usage errors.
func TestSpec10RenderKEdges(t *testing.T) {
	for _, k := range []string{"0", "-1", "two"} {
		code, out, errs := run("render", "-hint", "deploy", "-k", k, spec10Rank)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("-k %s: exit %d, stdout %q, stderr %q; want a usage error", k, code, out, errs)
		}
	}
	// k 1 without a hint: no ranking, every rule renders.
	out := renderSpec10(t, "-k", "1", spec10Rank)
	if got := renderedIDs(out); len(got) != 6 || strings.Contains(out, "more rules") {
		t.Errorf("-k 1 without a hint rendered %v:\n%s", got, out)
	}
}

// Output is deterministic, and the packs of a set render as one set
// whatever their order on the command line.
func TestSpec10RenderDeterministic(t *testing.T) {
	dir := t.TempDir()
	// Split the rank pack in two packs of one set.
	for _, p := range []string{"one", "two"} {
		if err := os.MkdirAll(filepath.Join(dir, p, "policy"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, p, "pack.yaml"), []byte("oar: '1.0'\nname: "+p+"\n"), 0o644)
	}
	ents, err := os.ReadDir(filepath.Join(spec10Rank, "policy"))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ents {
		b, err := os.ReadFile(filepath.Join(spec10Rank, "policy", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		p := []string{"one", "two"}[i%2]
		os.WriteFile(filepath.Join(dir, p, "policy", e.Name()), b, 0o644)
	}
	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	for _, hint := range []string{"", "deploy", "use", "zebra"} {
		args := []string{"-k", "2"}
		if hint != "" {
			args = append(args, "-hint", hint)
		}
		whole := renderSpec10(t, append(args, spec10Rank)...)
		for i := 0; i < 3; i++ {
			if again := renderSpec10(t, append(args, spec10Rank)...); again != whole {
				t.Fatalf("hint %q: two renders differ:\n%s\n---\n%s", hint, whole, again)
			}
		}
		ab := renderSpec10(t, append(args, one, two)...)
		ba := renderSpec10(t, append(args, two, one)...)
		if ab != whole || ba != whole {
			t.Errorf("hint %q: the set split in two packs renders otherwise:\nwhole:\n%s\none two:\n%s\ntwo one:\n%s", hint, whole, ab, ba)
		}
	}
}

// allow and transform rules never render; an enforced, titled
// deny_by_default renders its code once (it lists two anchors), first,
// with the pack's copy, and takes no place in the top k.
func TestSpec10RenderStock(t *testing.T) {
	out := renderSpec10(t, "testdata/spec10/stock")
	want := "## Rules\n\n" +
		"- **NOT_LISTED**: Only listed actions run\n  - Fix: Ask the user to list it.\n" +
		"- **BLOCK_X**: No x\n  - Fix: Avoid x.\n" +
		"- **BLOCK_Y**: No y\n  - Fix: Avoid y.\n"
	if out != want {
		t.Errorf("stock pack:\n%s\nwant:\n%s", out, want)
	}
	out = renderSpec10(t, "-hint", "y", "-k", "1", "testdata/spec10/stock")
	want = "## Rules\n\n" +
		"- **NOT_LISTED**: Only listed actions run\n  - Fix: Ask the user to list it.\n" +
		"- **BLOCK_Y**: No y\n  - Fix: Avoid y.\n" +
		"\n(1 more rules not shown)\n"
	if out != want {
		t.Errorf("stock pack, hint y, k 1:\n%s\nwant:\n%s", out, want)
	}
	// A hint naming the allow and transform rules' words selects nothing
	// among the rendered rules: everything renders.
	out = renderSpec10(t, "-hint", "read secrets rewritten", "-k", "1", "testdata/spec10/stock")
	if got := renderedIDs(out); strings.Join(got, " ") != "NOT_LISTED BLOCK_X BLOCK_Y" {
		t.Errorf("hint on unrendered rules: %v\n%s", got, out)
	}
	// A monitored deny_by_default blocks nothing and is not rendered
	// (docs/context.md).
	out = renderSpec10(t, "testdata/spec10/stockmon")
	if strings.Contains(out, "NOT_LISTED_MON") {
		t.Errorf("a monitored deny_by_default rendered:\n%s", out)
	}
	// With the project pack in the set: deny_by_default first, then the
	// rules of both packs in evaluation order.
	out = renderSpec10(t, spec10Rank, "testdata/spec10/stock")
	if got := renderedIDs(out); strings.Join(got, " ") != "NOT_LISTED Z_SCHEMA A_TAG BLOCK_X BLOCK_Y B_TEXT C_BOTH G_GLOBAL M_TRIAL" {
		t.Errorf("two packs: %v\n%s", got, out)
	}
	if strings.Count(out, "NOT_LISTED") != 1 {
		t.Errorf("deny_by_default rendered more than once:\n%s", out)
	}
}

// Copy text reaching the prompt is sanitised: control and invisible format
// characters become U+FFFD (spec 5.1).
func TestSpec10RenderSanitised(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.WriteFile(filepath.Join(dir, "policy", "ZW.yaml"), []byte("oar: '1.0'\nid: ZW\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n"+
		"copy: {title: \"a\\u200bb\\x1bc\\u202ed\", fix: \"x\\ufeffy\"}\n"), 0o644)
	code, out, _ := run("render", dir)
	if code != 0 {
		t.Fatalf("render: exit %d", code)
	}
	want := "## Rules\n\n- **ZW**: a\ufffdb\ufffdc\ufffdd\n  - Fix: x\ufffdy\n"
	if out != want {
		t.Errorf("sanitised:\n%q\nwant\n%q", out, want)
	}
}

// A hint token among a rule's tags and in its text adds 3, so such a rule
// beats an earlier one with the token only among its tags; the values of
// an int selector are tags too; a monitored global rule renders among the
// provisional rules.
func TestSpec10RenderTagAndText(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	rule := func(id, rest string) {
		os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n"+rest), 0o644)
	}
	rule("A_ONLY", "selector: {tool: bash}\nrequires: {profiles: [tool]}\ncopy: {title: First}\n")
	rule("B_BOTH", "selector: {tool: bash, fire_count: 3}\nrequires: {profiles: [tool]}\ncopy: {title: Second bash}\n")
	rule("C_NUM", "selector: {fire_count: [7, 42]}\ncopy: {title: Third}\n")
	rule("D_MONGLOBAL", "enforcement: monitor\ncopy: {title: Global on trial}\n")
	for hint, want := range map[string]string{
		"bash": "B_BOTH D_MONGLOBAL",
		"42":   "C_NUM D_MONGLOBAL",
		"3":    "B_BOTH D_MONGLOBAL",
		"":     "A_ONLY B_BOTH C_NUM D_MONGLOBAL",
	} {
		out := renderSpec10(t, "-hint", hint, "-k", "1", dir)
		if got := strings.Join(renderedIDs(out), " "); got != want {
			t.Errorf("hint %q: rendered %s, want %s\n%s", hint, got, want, out)
		}
		if i := strings.Index(out, "### Provisional"); i < 0 || !strings.Contains(out[i:], "- **D_MONGLOBAL**: Global on trial\n") {
			t.Errorf("hint %q: the monitored global rule is not among the provisional ones:\n%s", hint, out)
		}
	}
}

// An empty or blank title is no title (docs/texts.md): such a rule is not
// rendered and not counted among the rules left out.
func TestSpec10RenderBlankTitle(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	rule := func(id, title string) {
		os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n"+
			"selector: {tool: "+strings.ToLower(id)+"}\nrequires: {profiles: [tool]}\ncopy: {title: "+title+", fix: Do it.}\n"), 0o644)
	}
	rule("EMPTY", "''")
	rule("BLANK", `" \t\n "`)
	rule("SHOWN", "Shown")
	rule("OTHER", "Other")
	for _, args := range [][]string{nil, {"-hint", "empty blank shown", "-k", "1"}} {
		out := renderSpec10(t, append(args, dir)...)
		want := "OTHER SHOWN"
		if args != nil {
			want = "SHOWN"
		}
		if got := strings.Join(renderedIDs(out), " "); got != want || strings.Contains(out, "EMPTY") || strings.Contains(out, "BLANK") {
			t.Errorf("%q: rendered %s, want %s\n%s", args, got, want, out)
		}
		if args != nil && !strings.HasSuffix(out, "\n(1 more rules not shown)\n") {
			t.Errorf("%q: the untitled rules are counted:\n%s", args, out)
		}
	}
}

// Two deny_by_default codes of two stock packs: each renders once, before
// the rules, in one order whatever the order the packs are given (the
// output is deterministic for a set, as its digest is): the order of the
// smallest anchor id each lists, in byte order (docs/context.md), so
// stock2's code (content.tool_result) before stock's (tool.post_invoke),
// although its code sorts after.
func TestSpec10RenderTwoDenyByDefault(t *testing.T) {
	want := "## Rules\n\n" +
		"- **ZZ_UNLISTED_RESULT**: Unlisted results are blocked\n" +
		"- **NOT_LISTED**: Only listed actions run\n  - Fix: Ask the user to list it.\n" +
		"- **BLOCK_X**: No x\n  - Fix: Avoid x.\n" +
		"- **BLOCK_Y**: No y\n  - Fix: Avoid y.\n" +
		"- **RESULT_NOTE**: Results are checked\n"
	for _, packs := range [][]string{
		{"testdata/spec10/stock", "testdata/spec10/stock2"},
		{"testdata/spec10/stock2", "testdata/spec10/stock"},
	} {
		if out := renderSpec10(t, packs...); out != want {
			t.Errorf("render %v:\n%s\nwant:\n%s", packs, out, want)
		}
		if out := renderSpec10(t, append([]string{"-hint", "y", "-k", "1"}, packs...)...); !strings.HasPrefix(out, "## Rules\n\n- **ZZ_UNLISTED_RESULT**") ||
			!strings.Contains(out, "- **BLOCK_Y**") || strings.Contains(out, "- **BLOCK_X**") {
			t.Errorf("render -hint y -k 1 %v:\n%s", packs, out)
		}
	}
}
