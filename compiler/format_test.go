package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repoYAML lists the rule files and pack.yaml files of the repository.
func repoYAML(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		ext := filepath.Ext(p)
		if !d.Type().IsRegular() || ext != ".yaml" && ext != ".yml" {
			return nil
		}
		if IsPackFile(p) || filepath.Base(filepath.Dir(p)) == "policy" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFormatRepo formats every rule file and pack.yaml of the repository
// twice: the second pass changes nothing, and what the loader reads of a
// formatted file is what it read of the original.
func TestFormatRepo(t *testing.T) {
	files := repoYAML(t)
	if len(files) < 100 {
		t.Fatalf("only %d files", len(files))
	}
	formatted := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		once, err := Format(file, src)
		if err != nil {
			// Only files that are not YAML documents with a mapping at
			// their root (the loader's OAR_YAML cases) may fail.
			if _, _, perr := parseOne(src); perr == nil {
				t.Errorf("%s: %v", file, err)
			}
			continue
		}
		formatted++
		twice, err := Format(file, once)
		if err != nil {
			t.Errorf("%s: second pass: %v\n%s", file, err, once)
			continue
		}
		if diff := cmp.Diff(string(once), string(twice)); diff != "" {
			t.Errorf("%s: not idempotent (-once +twice):\n%s", file, diff)
		}
	}
	t.Logf("%d of %d files formatted", formatted, len(files))
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		name, file, in, want string
	}{
		{
			name: "order, indentation and quoting",
			file: "policy/R.yaml",
			in: `copy:
    fix: Do it.
    title: T   # the title
effect: block
id: R
oar: "1.0"
kind: policy
anchor: tool.pre_invoke
selector:
    tool: [a,   b]
requires: {profiles: [tool]}
`,
			want: `oar: '1.0'
id: R
kind: policy
anchor: tool.pre_invoke
effect: block
selector:
  tool: [a, b]
requires: {profiles: [tool]}
copy:
  title: T # the title
  fix: Do it.
`,
		},
		{
			name: "when kept as written, comments travel",
			file: "policy/R.yaml",
			in: `# The rule.
oar: '1.0'
id: R
# Why this condition.
when: tool_arg_string("a")  ==  "b"
  &&   tool == "x"   # trailing
kind: policy
anchor: tool.pre_invoke
effect: warn
`,
			want: `# The rule.
oar: '1.0'
id: R
kind: policy
anchor: tool.pre_invoke
effect: warn
# Why this condition.
when: tool_arg_string("a")  ==  "b"
  &&   tool == "x" # trailing
`,
		},
		{
			name: "a comment at the top stays there",
			file: "policy/R.yaml",
			in:   "# About the file.\nid: R\noar: '1.0'\n",
			want: "# About the file.\noar: '1.0'\nid: R\n",
		},
		{
			name: "quoted when across lines",
			file: "policy/R.yaml",
			in:   "oar: '1.0'\nid: R\nwhen: \"tool == \\\"a\\\"\n    || tool == 'b'\"\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n",
			want: "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: \"tool == \\\"a\\\"\n    || tool == 'b'\"\n",
		},
		{
			name: "block scalars keep their text and move with their field",
			file: "policy/R.yaml",
			in: `oar: '1.0'
id: R
when: >-   # folded
  a == "x" &&
     b
  # not a comment: text
effect: warn
copy:
      why: |+
        two
          lines

      title: T
kind: policy
anchor: tool.pre_invoke
`,
			want: `oar: '1.0'
id: R
kind: policy
anchor: tool.pre_invoke
effect: warn
when: >- # folded
  a == "x" &&
     b
  # not a comment: text
copy:
  title: T
  why: |+
    two
      lines

`,
		},
		{
			name: "flow root becomes block",
			file: "policy/R.yaml",
			in:   "{effect: warn, oar: '1.0', id: R, kind: policy, anchor: tool.pre_invoke, copy: {title: T}}\n",
			want: "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: T}\n",
		},
		{
			name: "unknown fields last, in their order",
			file: "policy/R.yaml",
			in:   "zeta: 1\noar: '1.0'\nalpha: 2\nid: R\n",
			want: "oar: '1.0'\nid: R\nzeta: 1\nalpha: 2\n",
		},
		{
			name: "pack.yaml",
			file: "pk/pack.yaml",
			in: `deny_by_default:
  copy: {fix: F, title: T}
  code: NOT_LISTED
  anchors: [tool.pre_invoke]
origin: stock
name: pk
oar: '1.0'
`,
			want: `oar: '1.0'
name: pk
origin: stock
deny_by_default:
  anchors: [tool.pre_invoke]
  code: NOT_LISTED
  copy: {title: T, fix: F}
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Format(tc.file, []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			again, err := Format(tc.file, got)
			if err != nil || string(again) != string(got) {
				t.Errorf("second pass: %v\n%s", err, again)
			}
		})
	}
}

func TestFormatRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"syntax", "oar: '1.0\n", "YAML syntax"},
		{"not a mapping", "- a\n", "not a mapping"},
		{"two documents", "oar: '1.0'\n---\nid: X\n", "several YAML documents"},
		{"duplicate key", "oar: '1.0'\noar: '1.0'\n", "duplicate key"},
		{"alias", "a: &x 1\nb: *x\n", "aliases"},
		{"anchor alone, at its position", "oar: '1.0'\nsel: &x [a]\n", "2:6: YAML anchors"},
		{"catalog", "oar_catalog: '1.0'\nhost: acme\n", "leaves catalogs alone"},
		{"block scalar in a list", "oar: '1.0'\nx:\n  - |\n    a\n", "as a list entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Format("policy/X.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// A file with bare CR line breaks is laid out with LF breaks and means the
// same; an explicitly tagged value is refused at its position, the file
// left alone.
func TestFormatBareCRAndTags(t *testing.T) {
	cr := "id: CR\roar: '1.0'\rkind: policy\ranchor: tool.pre_invoke\reffect: warn\rwhen: tool == 'x'\rcopy:\r  title: t\r"
	out, err := Format("CR.yaml", []byte(cr))
	if err != nil {
		t.Fatal(err)
	}
	want := "oar: '1.0'\nid: CR\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: tool == 'x'\ncopy:\n  title: t\n"
	if string(out) != want {
		t.Errorf("bare CR: got %q, want %q", out, want)
	}
	for _, c := range []struct {
		src       string
		line, col int
	}{
		{"oar: '1.0'\nid: T\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: !!str \"true\"\n", 6, 7},
		{"oar: '1.0'\nid: T\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy:\n  title: !!str 123\n", 7, 10},
	} {
		_, err := Format("T.yaml", []byte(c.src))
		fe, ok := errors.AsType[*FormatError](err)
		if !ok || fe.Line != c.line || fe.Col != c.col || !strings.Contains(fe.Msg, "explicit YAML tag") {
			t.Errorf("%q: %v; want a tag error at %d:%d", c.src, err, c.line, c.col)
		}
	}
}

// Comments stay with what they are about when fields move: the comment
// above a first field that the file's own header comment is separated
// from by a blank line, a comment between `when:` and its value, and a
// comment after the last field (the file's last word, which stays last).
func TestFormatCommentsMoveWithFields(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"first field's own comment",
			"# file header\n\n# about copy\ncopy:\n  title: T\noar: '1.0'\nid: C\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n",
			"# file header\n\noar: '1.0'\nid: C\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n# about copy\ncopy:\n  title: T\n"},
		{"between when and its value",
			"oar: '1.0'\nid: W\nwhen:\n  # about the condition\n  tool == 'x'\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n",
			"oar: '1.0'\nid: W\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n# about the condition\nwhen: tool == 'x'\n"},
		{"after the last field",
			"oar: '1.0'\nid: L\ncopy:\n  title: T\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: |\n  true\n# the end\n",
			"oar: '1.0'\nid: L\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: |\n  true\ncopy:\n  title: T\n\n# the end\n"},
	} {
		out, err := Format(c.name+".yaml", []byte(c.src))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, string(out)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		again, err := Format(c.name+".yaml", out)
		if err != nil || string(again) != string(out) {
			t.Errorf("%s: not idempotent: %q, %v", c.name, again, err)
		}
	}
}

// loadedRule loads a formatted or unformatted rule document as the
// loader reads it.
func loadedRule(t *testing.T, src []byte) *Rule {
	t.Helper()
	set, diags := LoadRuleDoc("R.yaml", src, "", Options{})
	if diags.HasErrors() || len(set.Rules) != 1 {
		t.Fatalf("does not load:\n%s\n%s", diags.Text(), src)
	}
	return set.Rules[0]
}

// TestFormatKeepBlockThenComment (issue 18, item 14): a block scalar with
// keep chomping (|+, >+) followed by a comment is laid out, idempotently,
// and its value is kept byte for byte: the blank lines yaml.v3 writes
// before the comment are not added to it. Checked by loading the rule
// before and after.
func TestFormatKeepBlockThenComment(t *testing.T) {
	const head = "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n"
	for _, c := range []struct{ name, src, want string }{
		{"blank line, comment at the end",
			head + "copy:\n  title: T\n  why: |+\n    line one\n\n# a comment\n",
			head + "copy:\n  title: T\n  why: |+\n    line one\n\n# a comment\n"},
		{"no blank line, comment at the end",
			head + "copy:\n  title: T\n  why: |+\n    line one\n# a comment\n",
			head + "copy:\n  title: T\n  why: |+\n    line one\n# a comment\n"},
		{"two blank lines, folded",
			head + "copy:\n  title: T\n  why: >+\n    line\n    one\n\n\n# a comment\n",
			head + "copy:\n  title: T\n  why: >+\n    line\n    one\n\n\n# a comment\n"},
		{"when, a comment, then fields that move",
			"oar: '1.0'\nid: R\nwhen: |+\n  lycaon.repeat_count > 1\n\n# about kind\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n",
			"oar: '1.0'\nid: R\n# about kind\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: |+\n  lycaon.repeat_count > 1\n\n"},
		{"comment inside the mapping",
			head + "copy:\n  why: |+\n    line one\n\n  # about the title\n  title: T\n",
			head + "copy:\n  # about the title\n  title: T\n  why: |+\n    line one\n\n"},
	} {
		out, err := Format("policy/R.yaml", []byte(c.src))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, string(out)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		again, err := Format("policy/R.yaml", out)
		if err != nil || string(again) != string(out) {
			t.Errorf("%s: not idempotent: %q, %v", c.name, again, err)
		}
		before, after := loadedRule(t, []byte(c.src)), loadedRule(t, out)
		if before.When != after.When || before.Copy != after.Copy {
			t.Errorf("%s: the rule changed: when %q -> %q, copy %+v -> %+v", c.name, before.When, after.When, before.Copy, after.Copy)
		}
	}
}

// TestFormatLineBreaks (issue 18, item 14): a file keeps its line breaks.
// A canonical CRLF file is left as it is (so fmt -l does not list it); a
// CRLF file that is not canonical comes out canonical with CRLF breaks
// only, kept block scalars and multi-line when included; a file with
// mixed breaks takes the more frequent (LF on a tie), and a bare CR
// counts as LF.
func TestFormatLineBreaks(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	canonical := "# header\noar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n# the condition\nwhen: tool == 'x'\n  && tool != 'y'\ncopy:\n  title: T # the title\n  why: |+\n    one\n\n# end\n"
	messy := "# header\nid: R\noar: \"1.0\"\n# the condition\nwhen: tool == 'x'\n  && tool != 'y'\neffect: warn\nkind: policy\nanchor: tool.pre_invoke\ncopy:\n    title: T   # the title\n    why: |+\n      one\n\n# end\n"
	for name, src := range map[string]string{"canonical": canonical, "messy": messy} {
		if out, err := Format("policy/R.yaml", []byte(src)); err != nil || string(out) != canonical {
			t.Fatalf("the %s LF file is not laid out as the canonical one: %v\n%s", name, err, out)
		}
	}
	// The first three line breaks, and all but the last three.
	first3 := len(strings.Join(strings.SplitAfter(messy, "\n")[:3], ""))
	last3 := len(strings.Join(strings.SplitAfter(messy, "\n")[:strings.Count(messy, "\n")-3], ""))
	for _, c := range []struct {
		name, src, want string
	}{
		{"canonical CRLF", crlf(canonical), crlf(canonical)},
		{"CRLF", crlf(messy), crlf(canonical)},
		{"mostly CRLF", crlf(messy[:last3]) + messy[last3:], crlf(canonical)},
		{"mostly LF", crlf(messy[:first3]) + messy[first3:], canonical},
		{"as many of each", "oar: '1.0'\r\nid: R\n", "oar: '1.0'\nid: R\n"},
		{"bare CR counts as LF", "oar: '1.0'\r\nid: R\r\nkind: policy\ranchor: tool.pre_invoke\r", "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\n"},
	} {
		out, err := Format("policy/R.yaml", []byte(c.src))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, string(out)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		if again, err := Format("policy/R.yaml", out); err != nil || string(again) != string(out) {
			t.Errorf("%s: not idempotent: %q, %v", c.name, again, err)
		}
	}
}
