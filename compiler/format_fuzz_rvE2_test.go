package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var posRE = regexp.MustCompile(`\b\d+:\d+\b|\bline \d+\b`)

// loadedView is what the loader reads of a rule document, positions
// aside: the rule's fields and the codes and messages of its
// diagnostics. A formatted file must load to the same view as its
// original.
func loadedView(doc []byte) string {
	set, diags := LoadRuleDoc("fuzz.yaml", doc, "stock", Options{})
	var b strings.Builder
	var ds []string
	for _, d := range diags {
		// A message may name a position in the file, which moves.
		ds = append(ds, fmt.Sprintf("%s %s %s", d.Severity, d.Code, posRE.ReplaceAllString(d.Message, "L:C")))
	}
	sort.Strings(ds)
	for _, d := range ds {
		fmt.Fprintln(&b, d)
	}
	if set != nil {
		for _, r := range set.Rules {
			fmt.Fprintf(&b, "rule %q %q %q %q %q %q\n", r.ID, r.Kind, r.Anchor, r.Effect, r.Enforcement, r.OnError)
			for _, c := range r.Selector {
				fmt.Fprintf(&b, "selector %q %v %#v\n", c.Fact, c.Type, c.Values)
			}
			fmt.Fprintf(&b, "profiles %q\nwhen %q\ndetector %q\ncopy %#v\non_fire %#v\n", r.Profiles, r.When, r.Detector, r.Copy, r.OnFire)
			if r.Flow != nil {
				fmt.Fprintf(&b, "flow %q %d %v\n", r.Flow.Steps, r.Flow.Within, r.Flow.Contiguous)
			}
			if r.Transform != nil {
				fmt.Fprintf(&b, "transform %#v\n", *r.Transform)
			}
		}
	}
	return b.String()
}

// checkFormatted is the property of oarc fmt on one input: formatting
// never panics; when it lays a file out, formatting the result changes
// nothing, and the loader reads the result as it reads the original.
func checkFormatted(t *testing.T, name string, src []byte) {
	t.Helper()
	var out []byte
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s: panic: %v\n%s", name, p, src)
			}
		}()
		out, err = Format(name, src)
	}()
	if err != nil {
		return
	}
	twice, err := Format(name, out)
	if err != nil {
		t.Fatalf("%s: second pass: %v\ninput:\n%s\nonce:\n%s", name, err, src, out)
	}
	if string(twice) != string(out) {
		t.Fatalf("%s: not idempotent\ninput:\n%q\nonce:\n%q\ntwice:\n%q", name, src, out, twice)
	}
	if IsPackFile(name) {
		return
	}
	if a, b := loadedView(src), loadedView(out); a != b {
		t.Fatalf("%s: the loader reads the formatted file differently\ninput:\n%s\nformatted:\n%s\nbefore:\n%s\nafter:\n%s", name, src, out, a, b)
	}
}

// formatSeeds are the rule files of the repository, and texts that
// exercise scalars the layout keeps as written.
func formatSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, g := range []string{"../examples/*/policy/*.y*ml", "testdata/*/policy/*.y*ml", "../conformance/*/policy/*.y*ml"} {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				seeds = append(seeds, b)
			}
		}
	}
	head := "oar: '1.0'\nid: A_B\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, s := range []string{
		"when: tool == \"bash\"\ncopy:\n  title: \"a\\u200Bb\"\n",
		"copy:\n  title: \"x\\u202Ey\"\n  fix: |+\n    keep\n\n# c\nwhen: 'true'\n",
		"copy:\n  why: >-\n    folded\n    text\n\n    more\n  title: t # c\nwhen: \"a\n  b\"\n",
		"selector: {tool: [bash, sh]}\nwhen: tool == 'x' # end\n",
		"copy: {title: 'it''s', fix: \"tab\\there\"}\n",
		"copy:\n  title: " + strings.Repeat("long words ", 200) + "\n",
		"copy:\n  title: \"\\e[31mred\\e[0m\"\n",
		"copy:\n  title: \"\\U000E0041tag\"\n",
		"copy:\n  title: \ufeffbom\n",
	} {
		seeds = append(seeds, []byte(head+s))
	}
	// A rule written as one flow mapping, its plain when inside.
	seeds = append(seeds, []byte("{oar: '1.0', id: A_B, kind: policy, anchor: tool.pre_invoke, effect: block,\n when: tool == \"x\" &&\n  true, copy: {title: t}}\n"))
	return seeds
}

func FuzzFormat(f *testing.F) {
	for _, s := range formatSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkFormatted(t, "fuzz.yaml", src)
	})
}

// TestFormatMutations runs the property of FuzzFormat over the seeds and
// simple mutations of them: every line re-indented, every line with a
// comment, lines swapped, CRLF breaks, a field dropped.
func TestFormatMutations(t *testing.T) {
	seeds := formatSeeds(t)
	rules := len(seeds)
	packs, _ := filepath.Glob("../examples/*/pack.yaml")
	more, _ := filepath.Glob("testdata/*/pack.yaml")
	for _, f := range append(packs, more...) {
		if b, err := os.ReadFile(f); err == nil {
			seeds = append(seeds, b)
		}
	}
	for i, s := range seeds {
		file := "seed%d-%s.yaml"
		if i >= rules {
			file = "pack%d-%s/pack.yaml"
		}
		lines := strings.Split(strings.TrimSuffix(string(s), "\n"), "\n")
		muts := map[string]string{"orig": string(s)}
		muts["crlf"] = strings.ReplaceAll(string(s), "\n", "\r\n")
		muts["reversed"] = strings.Join(reverseTop(lines), "\n") + "\n"
		muts["comments"] = strings.Join(mapLines(lines, func(l string) string {
			if strings.TrimSpace(l) == "" || strings.HasSuffix(l, "|") || strings.HasSuffix(l, ">") || strings.Contains(l, "#") || strings.Contains(l, "'") || strings.Contains(l, "\"") {
				return l
			}
			return l + " # note"
		}), "\n") + "\n"
		for j := range lines {
			muts[fmt.Sprintf("drop%d", j)] = strings.Join(append(append([]string{}, lines[:j]...), lines[j+1:]...), "\n") + "\n"
		}
		for name, m := range muts {
			checkFormatted(t, fmt.Sprintf(file, i, name), []byte(m))
		}
	}
}

func mapLines(lines []string, f func(string) string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = f(l)
	}
	return out
}

// reverseTop reverses the order of the top-level fields of a document
// (each with its indented lines and the comments above it).
func reverseTop(lines []string) []string {
	var groups [][]string
	var cur []string
	for _, l := range lines {
		if l != "" && l[0] != ' ' && l[0] != '#' && l[0] != '\t' && len(cur) > 0 && !strings.HasPrefix(cur[len(cur)-1], "#") {
			groups = append(groups, cur)
			cur = nil
		}
		cur = append(cur, l)
	}
	groups = append(groups, cur)
	var out []string
	for i := len(groups) - 1; i >= 0; i-- {
		out = append(out, groups[i]...)
	}
	return out
}

// TestFormatOrderCanonical: the layout does not depend on the order the
// fields were written in: every rule file of the examples and test packs
// without comments (a comment moves with its field) formats, fields
// reversed, to what it formats to as written.
func TestFormatOrderCanonical(t *testing.T) {
	files, _ := filepath.Glob("../examples/*/policy/*.y*ml")
	more, _ := filepath.Glob("testdata/*/policy/*.y*ml")
	n := 0
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // testdata/notfile: a directory named like a rule file
		}
		once, err := Format(f, b)
		if err != nil || strings.Contains(string(b), "#") {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		rev, err := Format(f, []byte(strings.Join(reverseTop(lines), "\n")+"\n"))
		if err != nil || string(rev) != string(once) {
			t.Errorf("%s: fields reversed: %v\n%s\nwant:\n%s", f, err, rev, once)
		}
		n++
	}
	if n < 50 {
		t.Errorf("only %d files compared", n)
	}
}
