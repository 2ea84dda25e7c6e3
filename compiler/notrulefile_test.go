package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotRuleFile: a pack's pack.yaml or a fixture file given where a rule
// file is expected (oarc check pack/pack.yaml) is one OAR_YAML error that
// says what the file is, not the missing and unknown fields of a rule
// read from it.
func TestNotRuleFile(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"policy/R.yaml":   "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n",
		"pack.yaml":       "oar: '1.0'\nname: p\n",
		"fixtures/f.json": `[{"name": "x", "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "allow"}}]`,
		"policy/R.JSON":   `{"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn"}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{"pack.yaml", "pack.yaml is the pack's own file, not a rule file: give the pack directory (" + dir + ")"},
		{"fixtures/f.json", "a .json file is not a rule file (a rule file is <ID>.yaml or <ID>.yml); fixture files are run by oarc test"},
		{"policy/R.JSON", "a .json file is not a rule file"},
	} {
		file := filepath.Join(dir, tc.file)
		for _, load := range []func(string, Options) (*Set, Diagnostics){LoadFile, LoadPack} {
			set, diags := load(file, Options{})
			if set == nil || len(diags) != 1 || diags[0].Code != CodeYAML || diags[0].Pos.File != file ||
				!strings.HasPrefix(diags[0].Message, tc.want) {
				t.Errorf("%s: want one OAR_YAML %q, got:\n%s", tc.file, tc.want, diags.Text())
			}
		}
	}
	// The rule file itself still loads.
	if _, diags := LoadFile(filepath.Join(dir, "policy/R.yaml"), Options{}); len(diags) != 0 {
		t.Errorf("policy/R.yaml: %s", diags.Text())
	}
}

// TestUppercaseExtension: a file in policy/ whose extension is .yaml or
// .yml in another case is not read (spec 1), and says so in a warning
// rather than leaving its rule out without a word; other files stay
// ignored.
func TestUppercaseExtension(t *testing.T) {
	dir := t.TempDir()
	rule := "oar: '1.0'\nid: %s\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n"
	for name, text := range map[string]string{
		"policy/R.yaml":   strings.Replace(rule, "%s", "R", 1),
		"policy/S.YAML":   strings.Replace(rule, "%s", "S", 1),
		"policy/T.Yml":    strings.Replace(rule, "%s", "T", 1),
		"policy/notes.md": "notes",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, diags := Load([]string{dir}, Options{})
	if set == nil || len(set.Rules) != 1 || set.Rules[0].ID != "R" {
		t.Fatalf("rules loaded: %+v", set)
	}
	var got []string
	for _, d := range diags {
		if d.Severity != Warning || d.Code != CodeYAML {
			t.Errorf("unexpected: %s", d)
		}
		got = append(got, filepath.Base(d.Pos.File)+": "+d.Message)
	}
	want := []string{
		"S.YAML: not read: rule files end in .yaml or .yml, lowercase; rename it S.yaml to load it",
		"T.Yml: not read: rule files end in .yaml or .yml, lowercase; rename it T.yml to load it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFixtureFileOtherCase: spec 1 runs fixtures/*.json only. A fixture
// file ending in .JSON, or .json files in a subdirectory of fixtures/,
// are not run: a warning each, so that a fixture whose expectation is
// wrong does not sit there unseen while oarc test passes. Other files
// (notes, a subdirectory without .json files) are ignored in silence.
func TestFixtureFileOtherCase(t *testing.T) {
	dir := t.TempDir()
	rule := "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n"
	for name, text := range map[string]string{
		"policy/R.yaml":              rule,
		"fixtures/R.json":            "[]",
		"fixtures/S.JSON":            "[]",
		"fixtures/T.Json":            "[]",
		"fixtures/notes.md":          "notes",
		"fixtures/data/readme.txt":   "data",
		"fixtures/old/deep/U.json":   "[]",
		"fixtures/old/deep/V.JSON":   "[]",
		"fixtures/upper/W.JSON":      "[]",
		"fixtures/empty/.keep":       "",
		"fixtures/nested/x/notes.md": "notes",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, diags := Load([]string{dir}, Options{})
	if set == nil || len(set.Rules) != 1 {
		t.Fatalf("rules loaded: %+v", set)
	}
	var got []string
	for _, d := range diags {
		if d.Severity != Warning || d.Code != CodeYAML {
			t.Errorf("unexpected: %s", d)
		}
		rel, _ := filepath.Rel(dir, d.Pos.File)
		got = append(got, filepath.ToSlash(rel)+": "+d.Message)
	}
	want := []string{
		"fixtures/S.JSON: not run: fixture files end in .json, lowercase; rename it S.json to run it",
		"fixtures/T.Json: not run: fixture files end in .json, lowercase; rename it T.json to run it",
		"fixtures/old: not run: this directory holds deep/U.json, but fixtures are read from fixtures/ itself only, not its subdirectories; move them to fixtures/ to run them",
		"fixtures/upper: not run: this directory holds W.JSON, but fixtures are read from fixtures/ itself only, not its subdirectories; move them to fixtures/ to run them",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
