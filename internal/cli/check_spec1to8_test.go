package cli

// Spec-first tests of spec sections 1 (packs and files), 2 (the rule
// document), 3 (facts, types and names) and 7 (diagnostics), driven through
// `oarc check -json`. Each case was written from the spec's sentences (and,
// where the spec is silent, from docs/choices-frontend.md) before the
// implementation was run: a pack, and every diagnostic the spec requires as
// `relpath:line:col severity CODE`.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// s18Rule is a valid rule of seven lines: oar 1, id 2, kind 3, anchor 4,
// requires 5, selector 6, effect 7.
func s18Rule(id string) string {
	return "oar: '1.0'\nid: " + id + "\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\nselector: {tool: bash}\neffect: block\n"
}

const s18Stock = "oar: '1.0'\nname: s\norigin: stock\n"

// s18Write writes files (relative path -> content) under a new directory.
func s18Write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// s18Check runs `oarc check -json ARGS... PATHS...` and returns the exit
// status and each diagnostic as `rel:line:col severity CODE`, sorted, rel
// relative to base. It fails the test on output that is not the JSON Lines
// of docs/json.md or that lacks its summary.
func s18Check(t *testing.T, base string, args []string, paths ...string) (int, []string, []map[string]any) {
	t.Helper()
	code, out, errs := run(append(append([]string{"check", "-json"}, args...), paths...)...)
	if strings.Contains(errs, "panic") || strings.Contains(errs, "internal error") {
		t.Fatalf("check: %s", errs)
	}
	var got []string
	var recs []map[string]any
	sawSummary := false
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("check -json line %q: %v (stderr %s)", line, err, errs)
		}
		switch rec["type"] {
		case "summary":
			sawSummary = true
			if int(rec["exit"].(float64)) != code {
				t.Errorf("summary exit %v, status %d", rec["exit"], code)
			}
		case "diagnostic":
			recs = append(recs, rec)
			pos := rec["pos"].(map[string]any)
			rel, err := filepath.Rel(base, pos["file"].(string))
			if err != nil {
				rel = pos["file"].(string)
			}
			got = append(got, filepath.ToSlash(rel)+":"+itoa(pos["line"])+":"+itoa(pos["col"])+" "+rec["severity"].(string)+" "+rec["code"].(string))
		}
	}
	if !sawSummary {
		t.Fatalf("check -json: no summary record (exit %d, stderr %s):\n%s", code, errs, out)
	}
	sort.Strings(got)
	return code, got, recs
}

func itoa(v any) string {
	f, _ := v.(float64)
	return strconv.Itoa(int(f))
}

type s18Case struct {
	name  string
	files map[string]string
	args  []string
	want  []string // rel:line:col severity CODE
	// msg, when set, must be in the message of the first diagnostic.
	msg string
}

func s18Run(t *testing.T, cases []s18Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := s18Write(t, c.files)
			code, got, recs := s18Check(t, dir, c.args, dir)
			want := append([]string(nil), c.want...)
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostics (-spec +got):\n%s\n%v", diff, recs)
			}
			wantCode := 0
			for _, w := range c.want {
				if strings.Contains(w, " error ") {
					wantCode = 1
				}
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
			if c.msg != "" && (len(recs) == 0 || !strings.Contains(recs[0]["message"].(string), c.msg)) {
				t.Errorf("message does not contain %q: %v", c.msg, recs)
			}
		})
	}
}

// TestSpec1PacksAndFiles: spec section 1.
func TestSpec1PacksAndFiles(t *testing.T) {
	s18Run(t, []s18Case{
		// "one rule per file, <ID>.yaml or <ID>.yml"
		{name: "yml extension", files: map[string]string{"policy/A.yml": s18Rule("A")}},
		{name: "yaml and yml together", files: map[string]string{"policy/A.yaml": s18Rule("A"), "policy/B.yml": s18Rule("B") + "when: tool_args.size() > 1\n"}},
		// "Every other file is ignored."
		{name: "other files ignored", files: map[string]string{
			"policy/A.yaml":    s18Rule("A"),
			"policy/README.md": "not: [yaml",
			"policy/A.txt":     "::",
			"policy/A.json":    "{",
			"notes.yaml":       "::: not a rule",
			"Makefile":         "all:",
		}},
		// pack.yaml: "Unknown fields are rejected like in rules."
		{name: "pack.yaml unknown field", files: map[string]string{
			"pack.yaml": "oar: '1.0'\nname: p\nnmae: q\n", "policy/A.yaml": s18Rule("A"),
		}, want: []string{"pack.yaml:3:1 error OAR_UNKNOWN_FIELD"}},
		{name: "pack.yaml oar float", files: map[string]string{
			"pack.yaml": "oar: 1.0\nname: p\n", "policy/A.yaml": s18Rule("A"),
		}, want: []string{"pack.yaml:1:6 error OAR_VERSION"}, msg: "quote"},
		{name: "pack.yaml name not a string", files: map[string]string{
			"pack.yaml": "oar: '1.0'\nname: [p]\n", "policy/A.yaml": s18Rule("A"),
		}, want: []string{"pack.yaml:2:7 error OAR_FIELD_TYPE"}},
		{name: "pack.yaml origin unknown", files: map[string]string{
			"pack.yaml": "oar: '1.0'\norigin: vendor\n", "policy/A.yaml": s18Rule("A"),
		}, want: []string{"pack.yaml:2:9 error OAR_VALUE"}},
		{name: "pack.yaml duplicate key", files: map[string]string{
			"pack.yaml": "oar: '1.0'\nname: p\nname: q\n", "policy/A.yaml": s18Rule("A"),
		}, want: []string{"pack.yaml:3:1 error OAR_YAML"}},
		// origin: project is the default
		{name: "origin defaults to project: allow rejected", files: map[string]string{
			"policy/A.yaml": strings.Replace(s18Rule("A"), "effect: block", "effect: allow", 1),
		}, want: []string{"policy/A.yaml:7:9 error OAR_EFFECT"}},
		{name: "explicit project: transform rejected", files: map[string]string{
			"pack.yaml":     "oar: '1.0'\norigin: project\n",
			"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\neffect: transform\ntransform: {redact: [secret_matches]}\n",
		}, want: []string{"policy/A.yaml:6:9 error OAR_EFFECT"}},
		{name: "stock: allow and transform", files: map[string]string{
			"pack.yaml":     s18Stock,
			"policy/A.yaml": strings.Replace(s18Rule("A"), "effect: block", "effect: allow", 1),
			"policy/T.yaml": "oar: '1.0'\nid: T\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\neffect: transform\ntransform: {redact: [secret_matches]}\n",
		}},
		{name: "project: block warn nudge ask", files: map[string]string{
			"policy/A.yaml": s18Rule("A"),
			"policy/B.yaml": strings.Replace(s18Rule("B"), "effect: block", "effect: warn", 1) + "when: tool_args.size() > 1\n",
			"policy/C.yaml": strings.Replace(s18Rule("C"), "effect: block", "effect: nudge", 1) + "when: tool_args.size() > 2\n",
			"policy/D.yaml": strings.Replace(s18Rule("D"), "effect: block", "effect: ask", 1) + "when: tool_args.size() > 3\n",
		}},
		// "A rule file holds exactly one YAML document whose root is a mapping."
		// Spec 7 says only "pointing into the YAML file": the
		// implementation points at the second document's root (line 9),
		// not at its `---` (line 8).
		{name: "two documents", files: map[string]string{
			"policy/A.yaml": s18Rule("A") + "---\n" + s18Rule("A"),
		}, want: []string{"policy/A.yaml:9:1 error OAR_YAML"}},
		{name: "document end marker then nothing", files: map[string]string{
			"policy/A.yaml": s18Rule("A") + "...\n",
		}},
		{name: "root is a list", files: map[string]string{"policy/A.yaml": "- oar: '1.0'\n"},
			want: []string{"policy/A.yaml:1:1 error OAR_YAML"}},
		{name: "root is a scalar", files: map[string]string{"policy/A.yaml": "A\n"},
			want: []string{"policy/A.yaml:1:1 error OAR_YAML"}},
		{name: "empty file", files: map[string]string{"policy/A.yaml": ""},
			want: []string{"policy/A.yaml:1:1 error OAR_YAML"}},
		{name: "comment only", files: map[string]string{"policy/A.yaml": "# nothing here\n"},
			want: []string{"policy/A.yaml:1:1 error OAR_YAML"}},
		{name: "explicit null document", files: map[string]string{"policy/A.yaml": "~\n"},
			want: []string{"policy/A.yaml:1:1 error OAR_YAML"}},
		// ids unique: A.yaml and A.yml are one id twice
		{name: "same id yaml and yml", files: map[string]string{
			"policy/A.yaml": s18Rule("A"), "policy/A.yml": s18Rule("A"),
		}, want: []string{"policy/A.yml:2:5 error OAR_ID"}},
	})
}

// TestSpec1CompilationSet: several packs given together are one set.
func TestSpec1CompilationSet(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, files map[string]string) string {
		d := s18Write(t, files)
		p := filepath.Join(base, name)
		if err := os.Rename(d, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stock := mk("stock", map[string]string{
		"pack.yaml":         s18Stock,
		"policy/BREAK.yaml": s18Rule("BREAK") + "on_fire: {increment: [breaker]}\n",
	})
	proj := mk("proj", map[string]string{
		// reads another pack's counter: fine in the set
		"policy/READS.yaml": s18Rule("READS") + "when: breaker_count_of(\"BREAK\") > 2\n",
	})
	dup := mk("dup", map[string]string{"policy/BREAK.yaml": s18Rule("BREAK")})
	resetter := mk("resetter", map[string]string{"policy/RESETS.yaml": strings.Replace(s18Rule("RESETS"), "bash", "sh", 1) + "on_fire: {reset: [BREAK.breaker]}\n"})
	projAllow := mk("projallow", map[string]string{"policy/ALLOWS.yaml": strings.Replace(s18Rule("ALLOWS"), "effect: block", "effect: allow", 1)})
	selfReset := mk("selfreset", map[string]string{"policy/SELF.yaml": s18Rule("SELF") + "on_fire: {reset: [SELF, SELF.breaker]}\n"})

	cases := []struct {
		name  string
		paths []string
		want  []string
	}{
		{"stock and project", []string{stock, proj}, nil},
		{"project alone: unknown rule", []string{proj}, []string{"proj/policy/READS.yaml:8:24 error OAR_REF"}},
		// "rule ids are unique across the set (OAR_ID)"
		{"duplicate id across packs", []string{stock, dup}, []string{"dup/policy/BREAK.yaml:2:5 error OAR_ID"}},
		// 5.3: "a rule of a project pack may not reset a rule of a stock pack"
		{"project resets stock", []string{stock, resetter}, []string{"resetter/policy/RESETS.yaml:8:19 error OAR_REF"}},
		{"reset self", []string{selfReset}, nil},
		// "each pack's origin limits the effects of its own rules"
		{"project allow beside a stock pack", []string{stock, projAllow}, []string{"projallow/policy/ALLOWS.yaml:7:9 error OAR_EFFECT"}},
		{"same pack twice", []string{stock, stock}, []string{"stock:0:0 error OAR_YAML"}},
		// "rule files ... named beside them are checked ... on their own"
		{"rule file beside a pack", []string{stock, filepath.Join(proj, "policy", "READS.yaml")}, []string{"proj/policy/READS.yaml:8:24 error OAR_REF"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, got, recs := s18Check(t, base, nil, c.paths...)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-spec +got):\n%s\n%v", diff, recs)
			}
			if (code != 0) != (len(c.want) > 0) {
				t.Errorf("exit %d", code)
			}
		})
	}
	// `oarc gen -pack A -pack B` is the same set: a duplicate id is no code.
	out := t.TempDir()
	if code, stdout, errs := run("gen", "-pack", stock, "-pack", dup, "-out", out); code != 1 || !strings.Contains(stdout+errs, "[OAR_ID]") {
		t.Errorf("gen of a set with a duplicate id: exit %d\n%s%s", code, stdout, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "rules_oarc.go")); err == nil {
		t.Error("gen wrote code for a set that does not load")
	}
	if code, stdout, errs := run("gen", "-pack", stock, "-pack", proj, "-out", out); code != 0 {
		t.Errorf("gen of stock and project: exit %d\n%s%s", code, stdout, errs)
	}
}

// TestSpec2RuleDocument: spec section 2, field by field.
func TestSpec2RuleDocument(t *testing.T) {
	rep := func(id, old, new string) map[string]string {
		return map[string]string{"policy/" + id + ".yaml": strings.Replace(s18Rule(id), old, new, 1)}
	}
	add := func(id, extra string) map[string]string {
		return map[string]string{"policy/" + id + ".yaml": s18Rule(id) + extra}
	}
	stock := func(files map[string]string) map[string]string {
		files["pack.yaml"] = s18Stock
		return files
	}
	cases := []s18Case{
		// oar
		// A missing field is at the root mapping (docs/choices-frontend.md), here on line 2.
		{name: "oar missing", files: rep("A", "oar: '1.0'\n", "# no oar\n"), want: []string{"policy/A.yaml:2:1 error OAR_VERSION"}},
		{name: "oar unquoted float", files: rep("A", "'1.0'", "1.0"), want: []string{"policy/A.yaml:1:6 error OAR_VERSION"}, msg: "quote"},
		{name: "oar int", files: rep("A", "'1.0'", "1"), want: []string{"policy/A.yaml:1:6 error OAR_VERSION"}},
		{name: "oar other version", files: rep("A", "'1.0'", "'1.1'"), want: []string{"policy/A.yaml:1:6 error OAR_VERSION"}},
		{name: "oar trailing space", files: rep("A", "'1.0'", "'1.0 '"), want: []string{"policy/A.yaml:1:6 error OAR_VERSION"}},
		{name: "oar 1.00", files: rep("A", "'1.0'", "'1.00'"), want: []string{"policy/A.yaml:1:6 error OAR_VERSION"}},
		{name: "oar double-quoted", files: rep("A", "'1.0'", "\"1.0\"")},
		{name: "oar plain string tag", files: rep("A", "'1.0'", "!!str 1.0")},
		// id: format, stem, duplicates
		{name: "id one letter", files: map[string]string{"policy/A.yaml": s18Rule("A")}},
		{name: "id digits and parts", files: map[string]string{"policy/A1_2B_C3.yaml": s18Rule("A1_2B_C3")}},
		{name: "id lower case", files: map[string]string{"policy/a_b.yaml": s18Rule("a_b")}, want: []string{"policy/a_b.yaml:2:5 error OAR_ID"}},
		{name: "id double underscore", files: map[string]string{"policy/A__B.yaml": s18Rule("A__B")}, want: []string{"policy/A__B.yaml:2:5 error OAR_ID"}},
		{name: "id trailing underscore", files: map[string]string{"policy/A_.yaml": s18Rule("A_")}, want: []string{"policy/A_.yaml:2:5 error OAR_ID"}},
		{name: "id leading underscore", files: map[string]string{"policy/_A.yaml": s18Rule("_A")}, want: []string{"policy/_A.yaml:2:5 error OAR_ID"}},
		{name: "id leading digit", files: map[string]string{"policy/1A.yaml": s18Rule("'1A'")}, want: []string{"policy/1A.yaml:2:5 error OAR_ID"}},
		{name: "id hyphen", files: map[string]string{"policy/A-B.yaml": s18Rule("A-B")}, want: []string{"policy/A-B.yaml:2:5 error OAR_ID"}},
		{name: "id unicode letter", files: map[string]string{"policy/AÉ.yaml": s18Rule("AÉ")}, want: []string{"policy/AÉ.yaml:2:5 error OAR_ID"}, msg: "U+00C9"},
		{name: "id stem differs", files: map[string]string{"policy/B.yaml": s18Rule("A")}, want: []string{"policy/B.yaml:2:5 error OAR_ID"}},
		{name: "id stem differs by case", files: map[string]string{"policy/a.yaml": s18Rule("A")}, want: []string{"policy/a.yaml:2:5 error OAR_ID"}},
		{name: "id int", files: map[string]string{"policy/123.yaml": s18Rule("123")}, want: []string{"policy/123.yaml:2:5 error OAR_FIELD_TYPE"}},
		{name: "id missing", files: rep("A", "id: A\n", "# no id\n"), want: []string{"policy/A.yaml:1:1 error OAR_MISSING_FIELD"}},
		{name: "id long", files: map[string]string{"policy/" + strings.Repeat("A", 200) + ".yaml": s18Rule(strings.Repeat("A", 200))}},
		// kind
		{name: "kind unknown", files: rep("A", "kind: policy", "kind: rule"), want: []string{"policy/A.yaml:3:7 error OAR_KIND"}},
		{name: "kind case", files: rep("A", "kind: policy", "kind: Policy"), want: []string{"policy/A.yaml:3:7 error OAR_KIND"}},
		{name: "kind missing", files: rep("A", "kind: policy\n", "\n"), want: []string{"policy/A.yaml:1:1 error OAR_MISSING_FIELD"}},
		{name: "kind schema", files: rep("A", "kind: policy", "kind: schema")},
		{name: "kind invariant", files: rep("A", "kind: policy", "kind: invariant")},
		{name: "kind list", files: rep("A", "kind: policy", "kind: [policy]"), want: []string{"policy/A.yaml:3:7 error OAR_FIELD_TYPE"}},
		// anchor
		{name: "anchor unknown", files: rep("A", "anchor: tool.pre_invoke", "anchor: tool.pre_invok"), want: []string{"policy/A.yaml:4:9 error OAR_ANCHOR"}},
		{name: "anchor missing", files: rep("A", "anchor: tool.pre_invoke\n", "\n"), want: []string{"policy/A.yaml:1:1 error OAR_MISSING_FIELD"}},
		// effect and planes
		{name: "effect unknown", files: rep("A", "effect: block", "effect: deny"), want: []string{"policy/A.yaml:7:9 error OAR_EFFECT"}},
		{name: "effect missing", files: rep("A", "effect: block\n", "\n"), want: []string{"policy/A.yaml:1:1 error OAR_MISSING_FIELD"}},
		{name: "block at inform-only anchor", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: gate.blocked\neffect: block\n"}, want: []string{"policy/A.yaml:5:9 error OAR_PLANE"}},
		{name: "ask at inform-only anchor", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: gate.blocked\neffect: ask\n"}, want: []string{"policy/A.yaml:5:9 error OAR_PLANE"}},
		{name: "warn and nudge at inform-only anchor", files: map[string]string{
			"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: gate.blocked\neffect: warn\n",
			"policy/B.yaml": "oar: '1.0'\nid: B\nkind: policy\nanchor: gate.blocked\neffect: nudge\n"}},
		{name: "allow at inform-only anchor", files: stock(map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: gate.blocked\neffect: allow\n"}), want: []string{"policy/A.yaml:5:9 error OAR_PLANE"}},
		{name: "transform at block-only anchor", files: stock(map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.post_invoke\nrequires: {profiles: [content-safety]}\neffect: transform\ntransform: {redact: [secret_matches]}\n"}), want: []string{"policy/A.yaml:6:9 error OAR_PLANE"}},
		{name: "warn at block-only anchor", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.post_invoke\neffect: warn\n"}},
		// selector
		{name: "selector not a mapping", files: rep("A", "selector: {tool: bash}", "selector: [tool]"), want: []string{"policy/A.yaml:6:11 error OAR_FIELD_TYPE"}},
		{name: "selector unknown fact", files: rep("A", "selector: {tool: bash}", "selector: {tol: bash}"), want: []string{"policy/A.yaml:6:12 error OAR_SELECTOR"}},
		{name: "selector empty list", files: rep("A", "selector: {tool: bash}", "selector: {tool: []}"), want: []string{"policy/A.yaml:6:18 error OAR_SELECTOR"}},
		{name: "selector int for string", files: rep("A", "selector: {tool: bash}", "selector: {tool: 3}"), want: []string{"policy/A.yaml:6:18 error OAR_SELECTOR"}},
		{name: "selector list with a wrong element", files: rep("A", "selector: {tool: bash}", "selector: {tool: [bash, 3]}"), want: []string{"policy/A.yaml:6:25 error OAR_SELECTOR"}},
		{name: "selector map value", files: rep("A", "selector: {tool: bash}", "selector: {tool: {a: b}}"), want: []string{"policy/A.yaml:6:18 error OAR_SELECTOR"}},
		{name: "selector nested list", files: rep("A", "selector: {tool: bash}", "selector: {tool: [[bash]]}"), want: []string{"policy/A.yaml:6:19 error OAR_SELECTOR"}},
		{name: "selector map fact", files: rep("A", "selector: {tool: bash}", "selector: {tool_args: x}"), want: []string{"policy/A.yaml:6:12 error OAR_SELECTOR"}},
		{name: "selector double fact", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\nselector: {prompt_injection_score: 0.5}\neffect: block\n"}, want: []string{"policy/A.yaml:6:12 error OAR_SELECTOR"}},
		{name: "selector bool host fact", files: rep("A", "selector: {tool: bash}", "selector: {tool: bash, lycaon.tool_is_state: true}")},
		{name: "selector yes is no bool", files: rep("A", "selector: {tool: bash}", "selector: {tool: bash, lycaon.tool_is_state: yes}"), want: []string{"policy/A.yaml:6:46 error OAR_SELECTOR"}},
		{name: "selector int fact", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\nselector: {content_length: [0, 9223372036854775807, -9223372036854775808]}\neffect: block\n"}},
		{name: "selector int fact overflow", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\nselector: {content_length: 9223372036854775808}\neffect: block\n"}, want: []string{"policy/A.yaml:6:28 error OAR_SELECTOR"}},
		{name: "selector int fact given a float", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\nselector: {content_length: 1.5}\neffect: block\n"}, want: []string{"policy/A.yaml:6:28 error OAR_SELECTOR"}},
		{name: "selector list(string) fact", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [session]}\nselector: {principal_roles: [admin, root]}\neffect: block\n"}},
		{name: "selector null value", files: rep("A", "selector: {tool: bash}", "selector: {tool: ~}"), want: []string{"policy/A.yaml:6:18 error OAR_SELECTOR"}},
		// requires
		{name: "requires unknown profile", files: rep("A", "[tool]", "[tool, tools]"), want: []string{"policy/A.yaml:5:29 error OAR_VALUE"}},
		{name: "requires duplicate profile", files: rep("A", "[tool]", "[tool, tool]"), want: []string{"policy/A.yaml:5:29 error OAR_VALUE"}},
		{name: "requires profiles scalar", files: rep("A", "[tool]", "tool"), want: []string{"policy/A.yaml:5:22 error OAR_FIELD_TYPE"}},
		{name: "requires unknown key", files: rep("A", "requires: {profiles: [tool]}", "requires: {profiles: [tool], extra: 1}"), want: []string{"policy/A.yaml:5:30 error OAR_UNKNOWN_FIELD"}},
		{name: "requires missing for a selector read", files: rep("A", "requires: {profiles: [tool]}\n", "\n"), want: []string{"policy/A.yaml:6:12 error OAR_REQUIRES"}},
		{name: "requires missing for a when read", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: session_posture == 'spec'\neffect: block\n"}, want: []string{"policy/A.yaml:5:7 error OAR_REQUIRES"}},
		{name: "requires missing for a function", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: tool_arg_string('p') == 'x'\neffect: block\n"}, want: []string{"policy/A.yaml:5:7 error OAR_REQUIRES"}},
		{name: "requires unused profile warns", files: rep("A", "[tool]", "[tool, session]"), want: []string{"policy/A.yaml:5:29 warning OAR_REQUIRES"}},
		// docs/choices-frontend.md: "Unused-profile warnings are not
		// issued for a rule that has other errors": an OAR_REF in when
		// or on_fire is one.
		{name: "requires unused with an OAR_REF in when", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\nwhen: fire_count_of('NOPE') > 1\neffect: block\n"},
			want: []string{"policy/A.yaml:6:21 error OAR_REF"}},
		{name: "requires unused with an OAR_REF in on_fire", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\non_fire: {reset: [NOPE]}\neffect: block\n"},
			want: []string{"policy/A.yaml:6:19 error OAR_REF"}},
		{name: "requires empty", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {}\neffect: block\n"}},
		// when
		{name: "when not bool", files: add("A", "when: tool\n"), want: []string{"policy/A.yaml:8:7 error OAR_CEL_TYPE"}},
		{name: "when int YAML", files: add("A", "when: 3\n"), want: []string{"policy/A.yaml:8:7 error OAR_FIELD_TYPE"}},
		{name: "when bool YAML", files: add("A", "when: true\n"), want: []string{"policy/A.yaml:8:7 error OAR_FIELD_TYPE"}},
		{name: "when quoted true", files: add("A", "when: 'true'\n")},
		// The missing operand is at the end of the condition.
		{name: "when syntax", files: add("A", "when: tool ==\n"), want: []string{"policy/A.yaml:8:14 error OAR_CEL_SYNTAX"}},
		{name: "when unknown fact column", files: add("A", "when: tool == 'x' && toll == 'y'\n"), want: []string{"policy/A.yaml:8:22 error OAR_UNKNOWN_FACT"}},
		// A misspelt fact as a method's receiver is that fact, not a
		// function of a namespace toool (cel-go reports 'toool.size').
		{name: "misspelt receiver of startsWith", files: add("A", "when: toool.startsWith('x')\n"), want: []string{"policy/A.yaml:8:7 error OAR_UNKNOWN_FACT"}, msg: "'toool' (did you mean 'tool'?)"},
		{name: "misspelt receiver of size", files: add("A", "when: toool.size() > 1\n"), want: []string{"policy/A.yaml:8:7 error OAR_UNKNOWN_FACT"}, msg: "'toool' (did you mean 'tool'?)"},
		{name: "misspelt receiver in a conjunction", files: add("A", "when: tool == 'x' && sesion_posture.contains('y')\n"), want: []string{"policy/A.yaml:8:22 error OAR_UNKNOWN_FACT"}, msg: "'sesion_posture' (did you mean 'session_posture'?)"},
		{name: "when host fact bare", files: add("A", "when: tool_is_state\n"), want: []string{"policy/A.yaml:8:7 error OAR_UNKNOWN_FACT"}, msg: "lycaon.tool_is_state"},
		{name: "when type error", files: add("A", "when: tool == 1\n"), want: []string{"policy/A.yaml:8:12 error OAR_CEL_TYPE"}},
		{name: "when bad constant regex", files: add("A", "when: tool.matches('(')\n"), want: []string{"policy/A.yaml:8:20 error OAR_CEL_TYPE"}},
		{name: "when block scalar column", files: add("A", "when: |\n  tool == 'x' &&\n    nope\n"), want: []string{"policy/A.yaml:10:5 error OAR_UNKNOWN_FACT"}},
		{name: "when double-quoted column", files: add("A", "when: \"tool == \\\"x\\\" && nope\"\n"), want: []string{"policy/A.yaml:8:25 error OAR_UNKNOWN_FACT"}},
		// enforcement, on_error
		{name: "enforcement unknown", files: add("A", "enforcement: audit\n"), want: []string{"policy/A.yaml:8:14 error OAR_VALUE"}},
		{name: "enforcement monitor", files: add("A", "enforcement: monitor\n")},
		{name: "on_error unknown", files: add("A", "on_error: ignore\n"), want: []string{"policy/A.yaml:8:11 error OAR_VALUE"}},
		{name: "on_error hyphen", files: add("A", "on_error: fail-open\n"), want: []string{"policy/A.yaml:8:11 error OAR_VALUE"}},
		{name: "on_error both values", files: map[string]string{"policy/A.yaml": s18Rule("A") + "on_error: fail_open\n", "policy/B.yaml": s18Rule("B") + "on_error: fail_closed\nenforcement: enforce\nwhen: tool_args.size() > 1\n"}},
		{name: "on_error bool", files: add("A", "on_error: true\n"), want: []string{"policy/A.yaml:8:11 error OAR_FIELD_TYPE"}},
		// copy
		{name: "copy every key", files: add("A", "copy: {title: T, what: W, cause: C, why: Y, fix: F, instead: I}\n")},
		{name: "copy unknown key", files: add("A", "copy: {title: T, hint: H}\n"), want: []string{"policy/A.yaml:8:18 error OAR_UNKNOWN_FIELD"}},
		{name: "copy int", files: add("A", "copy: {title: 3}\n"), want: []string{"policy/A.yaml:8:15 error OAR_FIELD_TYPE"}},
		{name: "copy string", files: add("A", "copy: hello\n"), want: []string{"policy/A.yaml:8:7 error OAR_FIELD_TYPE"}},
		{name: "copy unicode and long", files: add("A", "copy: {title: 'Ne pas écrire ✋ "+strings.Repeat("x", 300000)+"'}\n")},
		// detector
		{name: "detector rule", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: detector\nanchor: content.input\ndetector: injection.v1\neffect: block\n"}},
		{name: "detector on a policy", files: add("A", "detector: injection.v1\n"), want: []string{"policy/A.yaml:8:11 error OAR_DETECTOR"}},
		{name: "detector bad id", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: detector\nanchor: content.input\ndetector: Injection\neffect: block\n"}, want: []string{"policy/A.yaml:5:11 error OAR_DETECTOR"}},
		// transform
		{name: "transform without effect transform", files: stock(add("A", "transform: {redact: [secret_matches]}\n")), want: []string{"policy/A.yaml:8:12 error OAR_TRANSFORM"}},
		{name: "transform unknown key", files: stock(map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\neffect: transform\ntransform: {redact: [secret_matches], with: x}\n"}), want: []string{"policy/A.yaml:7:39 error OAR_UNKNOWN_FIELD"}},
		// on_fire
		{name: "on_fire unknown key", files: add("A", "on_fire: {incr: [breaker]}\n"), want: []string{"policy/A.yaml:8:11 error OAR_UNKNOWN_FIELD"}},
		{name: "on_fire increment fire", files: add("A", "on_fire: {increment: [fire]}\n"), want: []string{"policy/A.yaml:8:23 error OAR_VALUE"}},
		{name: "on_fire reset unknown", files: add("A", "on_fire: {reset: [NOPE]}\n"), want: []string{"policy/A.yaml:8:19 error OAR_REF"}},
		{name: "on_fire reset bad counter", files: add("A", "on_fire: {reset: [A.fires]}\n"), want: []string{"policy/A.yaml:8:19 error OAR_VALUE"}},
		// flow
		{name: "flow within 64", files: add("A", "flow: {sequence: [read_secret, [http_fetch, bash]], within: 64, contiguous: true}\n")},
		{name: "flow within 65", files: add("A", "flow: {sequence: [read_secret, bash], within: 65}\n"), want: []string{"policy/A.yaml:8:47 error OAR_FLOW"}},
		{name: "flow within 0", files: add("A", "flow: {sequence: [read_secret, bash], within: 0}\n"), want: []string{"policy/A.yaml:8:47 error OAR_FLOW"}},
		{name: "flow within -1", files: add("A", "flow: {sequence: [read_secret, bash], within: -1}\n"), want: []string{"policy/A.yaml:8:47 error OAR_FLOW"}},
		{name: "flow empty sequence", files: add("A", "flow: {sequence: []}\n"), want: []string{"policy/A.yaml:8:18 error OAR_FLOW"}},
		{name: "flow unknown key", files: add("A", "flow: {sequence: [bash], inside: 3}\n"), want: []string{"policy/A.yaml:8:26 error OAR_UNKNOWN_FIELD"}},
		// unknown fields and duplicate keys
		{name: "unknown top-level field", files: add("A", "whn: tool == 'x'\n"), want: []string{"policy/A.yaml:8:1 error OAR_UNKNOWN_FIELD"}, msg: "whn"},
		{name: "duplicate key", files: add("A", "effect: warn\n"), want: []string{"policy/A.yaml:8:1 error OAR_YAML"}},
		{name: "duplicate selector key", files: rep("A", "selector: {tool: bash}", "selector: {tool: bash, tool: sh}"), want: []string{"policy/A.yaml:6:24 error OAR_YAML"}},
		// Every problem is reported, not only the first.
		{name: "every problem", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: rule\nanchor: nowhere\neffect: deny\nenforcement: x\nbogus: 1\n"},
			want: []string{"policy/A.yaml:3:7 error OAR_KIND", "policy/A.yaml:4:9 error OAR_ANCHOR", "policy/A.yaml:5:9 error OAR_EFFECT", "policy/A.yaml:6:14 error OAR_VALUE", "policy/A.yaml:7:1 error OAR_UNKNOWN_FIELD"}},
		// Bytes: BOM, CRLF, tabs, long lines.
		{name: "BOM", files: map[string]string{"policy/A.yaml": "\ufeff" + s18Rule("A")}},
		{name: "BOM column", files: map[string]string{"policy/A.yaml": "\ufeff" + s18Rule("A") + "when: nope\n"}, want: []string{"policy/A.yaml:8:7 error OAR_UNKNOWN_FACT"}},
		{name: "BOM on the error line", files: map[string]string{"policy/A.yaml": "\ufeffoar: 1.0\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"}, want: []string{"policy/A.yaml:1:6 error OAR_VERSION"}},
		{name: "CRLF", files: map[string]string{"policy/A.yaml": strings.ReplaceAll(s18Rule("A"), "\n", "\r\n")}},
		{name: "CRLF column", files: map[string]string{"policy/A.yaml": strings.ReplaceAll(s18Rule("A")+"when: |\n  tool == 'x' &&\n    nope\n", "\n", "\r\n")}, want: []string{"policy/A.yaml:10:5 error OAR_UNKNOWN_FACT"}},
		{name: "tab indentation", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires:\n\tprofiles: [tool]\nselector: {tool: bash}\neffect: block\n"}, want: []string{"policy/A.yaml:6:1 error OAR_YAML"}},
		{name: "tab inside a when", files: add("A", "when: \"tool == 'x' &&\\tnope\"\n"), want: []string{"policy/A.yaml:8:24 error OAR_UNKNOWN_FACT"}},
		{name: "long when line", files: add("A", "when: "+strings.Repeat("tool == 'x' || ", 3000)+"nope\n"), want: []string{"policy/A.yaml:8:45007 error OAR_UNKNOWN_FACT"}},
	}
	s18Run(t, cases)
}

// TestSpec3FactsAndNames: spec section 3.
func TestSpec3FactsAndNames(t *testing.T) {
	hostRule := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: lycaon.tool_is_state && lycaon.active_worker_count > 0\neffect: block\n"
	s18Run(t, []s18Case{
		// "Core facts ... are bare identifiers"; "Core and host facts need no profile."
		{name: "core facts without profile", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: fire_count > 2 && breaker_count == 0 && anchor == 'tool.pre_invoke'\neffect: block\n"}},
		{name: "host facts without profile", files: map[string]string{"policy/A.yaml": hostRule}},
		{name: "host function without profile", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: lycaon.source_includes('web')\neffect: block\n"}},
		// "the bare name of a host fact is an unknown identifier, and the diagnostic suggests the namespaced one"
		{name: "bare host fact", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: active_worker_count > 0\neffect: block\n"},
			want: []string{"policy/A.yaml:5:7 error OAR_UNKNOWN_FACT"}, msg: "lycaon.active_worker_count"},
		{name: "bare host function", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: source_includes('web')\neffect: block\n"},
			want: []string{"policy/A.yaml:5:7 error OAR_UNKNOWN_FACT"}, msg: "lycaon.source_includes"},
		// The other way round: a standard fact or function written in the
		// host namespace is unknown, and the diagnostic suggests the bare
		// name (the nearest name by edit distance was none).
		{name: "namespaced standard fact", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\nwhen: lycaon.tool_args.size() > 0\neffect: block\n"},
			want: []string{"policy/A.yaml:6:7 error OAR_UNKNOWN_FACT"}, msg: "did you mean 'tool_args'"},
		{name: "namespaced standard function", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [filesystem]}\nwhen: lycaon.path_outside_scope('/x')\neffect: block\n"},
			want: []string{"policy/A.yaml:6:7 error OAR_UNKNOWN_FACT"}, msg: "did you mean 'path_outside_scope'"},
		{name: "namespaced standard selector key", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\nselector: {lycaon.tool: bash}\neffect: block\n"},
			want: []string{"policy/A.yaml:6:12 error OAR_SELECTOR"}, msg: `did you mean "tool"`},
		// "oarc check -portable turns every use of a host fact into an error."
		{name: "portable", files: map[string]string{"policy/A.yaml": hostRule}, args: []string{"-portable"},
			want: []string{"policy/A.yaml:5:7 error OAR_UNKNOWN_FACT", "policy/A.yaml:5:31 error OAR_UNKNOWN_FACT"}},
		{name: "portable selector", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nselector: {lycaon.tool_is_state: true}\neffect: block\n"}, args: []string{"-portable"},
			want: []string{"policy/A.yaml:5:12 error OAR_UNKNOWN_FACT"}},
		{name: "portable host function", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: lycaon.source_includes('web')\neffect: block\n"}, args: []string{"-portable"},
			want: []string{"policy/A.yaml:5:7 error OAR_UNKNOWN_FACT"}},
		{name: "portable engine-kept host fact", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nwhen: lycaon.repeat_count > 2\neffect: block\n"}, args: []string{"-portable"},
			want: []string{"policy/A.yaml:5:7 error OAR_UNKNOWN_FACT"}},
		{name: "portable standard facts", files: map[string]string{"policy/A.yaml": s18Rule("A")}, args: []string{"-portable"}},
		// Types of facts.
		{name: "list(string) in", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [session]}\nwhen: \"'admin' in principal_roles\"\neffect: block\n"}},
		{name: "double compared with string", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: content.input\nrequires: {profiles: [content-safety]}\nwhen: prompt_injection_score == 'x'\neffect: block\n"},
			want: []string{"policy/A.yaml:6:30 error OAR_CEL_TYPE"}},
		{name: "map field selection", files: add1("A", "when: tool_args.path == '/etc'\n")},
	})
}

func add1(id, extra string) map[string]string {
	return map[string]string{"policy/" + id + ".yaml": s18Rule(id) + extra}
}

// TestSpec7DiagnosticText: spec 7's text form, `path:line:col: error:
// message [CODE]` (warnings `warning:`), CEL problems followed by the source
// line and a caret under the offending token.
func TestSpec7DiagnosticText(t *testing.T) {
	dir := s18Write(t, map[string]string{
		"policy/A.yaml": s18Rule("A") + "when: tool == 'x' && toll == 'y'\n",
		"policy/B.yaml": strings.Replace(s18Rule("B"), "[tool]", "[tool, mcp]", 1),
	})
	code, out, _ := run("check", dir)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	a := filepath.Join(dir, "policy", "A.yaml")
	b := filepath.Join(dir, "policy", "B.yaml")
	lines := strings.Split(out, "\n")
	find := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		return -1
	}
	i := find(a + ":8:22: error: ")
	if i < 0 || !strings.HasSuffix(lines[i], " [OAR_UNKNOWN_FACT]") {
		t.Fatalf("no `%s:8:22: error: ... [OAR_UNKNOWN_FACT]` line:\n%s", a, out)
	}
	// The source line, then a caret under `toll`.
	src := -1
	for j := i + 1; j < len(lines) && j < i+4; j++ {
		if strings.Contains(lines[j], "when: tool == 'x' && toll == 'y'") {
			src = j
			break
		}
	}
	if src < 0 || src+1 >= len(lines) {
		t.Fatalf("no source line after the diagnostic:\n%s", out)
	}
	srcCol := strings.Index(lines[src], "when:")
	caret := strings.Index(lines[src+1], "^")
	if caret < 0 || caret-srcCol != 21 {
		t.Errorf("caret at %d (source starts at %d), want under `toll`:\n%s\n%s", caret, srcCol, lines[src], lines[src+1])
	}
	if j := find(b + ":5:29: warning: "); j < 0 || !strings.HasSuffix(lines[j], " [OAR_REQUIRES]") {
		t.Errorf("no warning line for B:\n%s", out)
	}
}

// TestSpec12Edges: boundary values and byte-level oddities a rule author
// hits, spec sections 1, 2 and 7.
func TestSpec12Edges(t *testing.T) {
	pk := func(packYAML string) map[string]string {
		return map[string]string{"pack.yaml": packYAML, "policy/A.yaml": s18Rule("A")}
	}
	rep := func(old, new string) map[string]string {
		return map[string]string{"policy/A.yaml": strings.Replace(s18Rule("A"), old, new, 1)}
	}
	s18Run(t, []s18Case{
		// pack.yaml fields at their boundaries (spec 1, 4).
		{name: "max_cost 1 rejects a rule", files: map[string]string{"pack.yaml": "oar: '1.0'\nmax_cost: 1\n", "policy/A.yaml": s18Rule("A") + "when: tool.matches('a+b')\n"}, want: []string{"policy/A.yaml:8:7 error OAR_COST"}},
		{name: "max_cost 1 takes a rule without when", files: pk("oar: '1.0'\nmax_cost: 1\n")},
		{name: "max_cost huge", files: pk("oar: '1.0'\nmax_cost: 9223372036854775807\n")},
		{name: "max_cost 0", files: pk("oar: '1.0'\nmax_cost: 0\n"), want: []string{"pack.yaml:2:11 error OAR_VALUE"}},
		{name: "max_cost negative", files: pk("oar: '1.0'\nmax_cost: -5\n"), want: []string{"pack.yaml:2:11 error OAR_VALUE"}},
		{name: "max_cost fraction", files: pk("oar: '1.0'\nmax_cost: 1.5\n"), want: []string{"pack.yaml:2:11 error OAR_FIELD_TYPE"}},
		{name: "max_cost string", files: pk("oar: '1.0'\nmax_cost: '100'\n"), want: []string{"pack.yaml:2:11 error OAR_FIELD_TYPE"}},
		// The limit is a uint64 (compiler.Pack.MaxCost): 2^63 is a limit, 2^64 none.
		{name: "max_cost 2^63", files: pk("oar: '1.0'\nmax_cost: 9223372036854775808\n")},
		{name: "max_cost overflow", files: pk("oar: '1.0'\nmax_cost: 18446744073709551616\n"), want: []string{"pack.yaml:2:11 error OAR_FIELD_TYPE"}}, // YAML reads it as a float
		{name: "pack.yaml oar missing", files: pk("name: p\n"), want: []string{"pack.yaml:1:1 error OAR_VERSION"}},
		{name: "pack.yaml empty", files: pk(""), want: []string{"pack.yaml:1:1 error OAR_YAML"}},
		{name: "pack.yaml a list", files: pk("- oar: '1.0'\n"), want: []string{"pack.yaml:1:1 error OAR_YAML"}},
		{name: "pack.yaml BOM and CRLF", files: pk("\ufeffoar: '1.0'\r\nname: p\r\norigin: project\r\n")},
		{name: "pack.yaml origin null", files: pk("oar: '1.0'\norigin: ~\n"), want: []string{"pack.yaml:2:9 error OAR_FIELD_TYPE"}},
		{name: "pack.yaml deny_by_default in a project pack", files: pk("oar: '1.0'\ndeny_by_default: {anchors: [tool.pre_invoke], code: NOT_LISTED}\n"), want: []string{"pack.yaml:2:1 error OAR_EFFECT"}},
		{name: "pack.yaml catalog missing file", files: pk("oar: '1.0'\ncatalog: nope.yaml\n"), want: []string{"pack.yaml:2:10 error OAR_CATALOG"}},
		// null and empty values of a rule's fields: a field given as null
		// is a wrong type, never the field's default (spec 2's types).
		{name: "when null", files: map[string]string{"policy/A.yaml": s18Rule("A") + "when: ~\n"}, want: []string{"policy/A.yaml:8:7 error OAR_FIELD_TYPE"}},
		{name: "when empty string", files: map[string]string{"policy/A.yaml": s18Rule("A") + "when: ''\n"}, want: []string{"policy/A.yaml:8:8 error OAR_CEL_SYNTAX"}},
		{name: "when blank", files: map[string]string{"policy/A.yaml": s18Rule("A") + "when: '   '\n"}, want: []string{"policy/A.yaml:8:11 error OAR_CEL_SYNTAX"}},
		{name: "selector null", files: rep("selector: {tool: bash}", "selector: ~"), want: []string{"policy/A.yaml:6:11 error OAR_FIELD_TYPE"}},
		// docs/choices-frontend.md, "One mistake, one error": a requires
		// with an error adds no "does not list" errors for the reads.
		{name: "requires null", files: rep("requires: {profiles: [tool]}", "requires: ~"), want: []string{"policy/A.yaml:5:11 error OAR_FIELD_TYPE"}},
		{name: "requires a list", files: rep("requires: {profiles: [tool]}", "requires: [tool]"), want: []string{"policy/A.yaml:5:11 error OAR_FIELD_TYPE"}},
		{name: "requires a string", files: rep("requires: {profiles: [tool]}", "requires: tool"), want: []string{"policy/A.yaml:5:11 error OAR_FIELD_TYPE"}},
		{name: "on_error null", files: map[string]string{"policy/A.yaml": s18Rule("A") + "on_error: ~\n"}, want: []string{"policy/A.yaml:8:11 error OAR_FIELD_TYPE"}},
		{name: "enforcement empty", files: map[string]string{"policy/A.yaml": s18Rule("A") + "enforcement: ''\n"}, want: []string{"policy/A.yaml:8:14 error OAR_VALUE"}},
		{name: "effect null", files: rep("effect: block", "effect:"), want: []string{"policy/A.yaml:7:8 error OAR_FIELD_TYPE"}},
		{name: "copy null", files: map[string]string{"policy/A.yaml": s18Rule("A") + "copy: ~\n"}, want: []string{"policy/A.yaml:8:7 error OAR_FIELD_TYPE"}},
		{name: "copy title null", files: map[string]string{"policy/A.yaml": s18Rule("A") + "copy: {title: ~}\n"}, want: []string{"policy/A.yaml:8:15 error OAR_FIELD_TYPE"}},
		{name: "requires profiles empty", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: []}\neffect: block\n"}},
		{name: "selector empty mapping", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\nselector: {}\neffect: block\n"}},
		{name: "selector empty string value", files: rep("selector: {tool: bash}", "selector: {tool: ''}")},
		// keys
		{name: "key in another case", files: rep("effect: block", "Effect: block"), want: []string{"policy/A.yaml:7:1 error OAR_UNKNOWN_FIELD"}},
		{name: "non-string key", files: map[string]string{"policy/A.yaml": s18Rule("A") + "1: x\n"}, want: []string{"policy/A.yaml:8:1 error OAR_UNKNOWN_FIELD"}},
		{name: "merge key", files: map[string]string{"policy/A.yaml": s18Rule("A") + "<<: {when: 'true'}\n"}, want: []string{"policy/A.yaml:8:1 error OAR_UNKNOWN_FIELD"}},
		{name: "flow-style document", files: map[string]string{"policy/A.yaml": "{oar: '1.0', id: A, kind: policy, anchor: tool.pre_invoke, effect: block}\n"}},
		{name: "id quoted with a space", files: map[string]string{"policy/A.yaml": strings.Replace(s18Rule("A"), "id: A", "id: 'A '", 1)}, want: []string{"policy/A.yaml:2:5 error OAR_ID"}},
		// bytes
		{name: "BOM only", files: map[string]string{"policy/A.yaml": "\ufeff"}, want: []string{"policy/A.yaml:1:1 error OAR_YAML"}},
		{name: "CR line ends", files: map[string]string{"policy/A.yaml": strings.ReplaceAll(s18Rule("A")+"when: nope\n", "\n", "\r")}, want: []string{"policy/A.yaml:8:7 error OAR_UNKNOWN_FACT"}},
		{name: "NUL byte", files: map[string]string{"policy/A.yaml": s18Rule("A") + "copy: {title: 'a\x00b'}\n"}, want: []string{"policy/A.yaml:8:17 error OAR_YAML"}},
		{name: "invalid UTF-8", files: map[string]string{"policy/A.yaml": s18Rule("A") + "copy: {title: 'a\xffb'}\n"}, want: []string{"policy/A.yaml:8:17 error OAR_YAML"}},
		{name: "tab after the colon", files: map[string]string{"policy/A.yaml": strings.Replace(s18Rule("A"), "effect: block", "effect:\tblock", 1)}},
		{name: "trailing spaces and comments", files: map[string]string{"policy/A.yaml": strings.ReplaceAll(s18Rule("A"), "\n", "   # note\n")}},
		{name: "file over 1 MiB", files: map[string]string{"policy/A.yaml": s18Rule("A") + "# " + strings.Repeat("x", 1<<20) + "\n"}, want: []string{"policy/A.yaml:0:0 error OAR_YAML"}}, // -json keeps 0:0 for a whole file (docs/json.md)
		{name: "file just under 1 MiB", files: map[string]string{"policy/A.yaml": s18Rule("A") + "# " + strings.Repeat("x", 1<<20-len(s18Rule("A"))-3) + "\n"}},
		{name: "unicode column in when", files: map[string]string{"policy/A.yaml": s18Rule("A") + "when: tool == 'é✋😀' && nope\n"}, want: []string{"policy/A.yaml:8:24 error OAR_UNKNOWN_FACT"}},
	})
}

// TestSpec27More: spec 2's "iff" fields, duplicate keys below the root,
// spec 3's -portable on flow, and spec 7's columns through every scalar
// style.
func TestSpec27More(t *testing.T) {
	stockPack := func(rule string) map[string]string {
		return map[string]string{"pack.yaml": s18Stock, "policy/A.yaml": rule}
	}
	add := func(extra string) map[string]string {
		return map[string]string{"policy/A.yaml": s18Rule("A") + extra}
	}
	tr := "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\nrequires: {profiles: [content-safety]}\neffect: transform\n"
	s18Run(t, []s18Case{
		// "detector: iff kind: detector"; "transform: iff effect: transform"
		{name: "detector kind without detector", files: map[string]string{"policy/A.yaml": "oar: '1.0'\nid: A\nkind: detector\nanchor: content.input\neffect: block\n"}, want: []string{"policy/A.yaml:3:7 error OAR_DETECTOR"}},
		{name: "transform effect without transform", files: stockPack(tr), want: []string{"policy/A.yaml:6:9 error OAR_TRANSFORM"}},
		{name: "transform redact empty", files: stockPack(tr + "transform: {redact: []}\n"), want: []string{"policy/A.yaml:7:21 error OAR_TRANSFORM"}},
		{name: "transform redact not a span fact", files: stockPack(tr + "transform: {redact: [tool]}\n"), want: []string{"policy/A.yaml:7:22 error OAR_TRANSFORM"}},
		{name: "transform replacement not a string", files: stockPack(tr + "transform: {redact: [secret_matches], replacement: 3}\n"), want: []string{"policy/A.yaml:7:52 error OAR_TRANSFORM"}},
		{name: "transform replacement empty", files: stockPack(tr + "transform: {redact: [secret_matches], replacement: ''}\n")},
		// "Duplicate keys are an error", at every level.
		{name: "duplicate key in copy", files: add("copy: {title: a, title: b}\n"), want: []string{"policy/A.yaml:8:18 error OAR_YAML"}},
		{name: "duplicate key in requires", files: map[string]string{"policy/A.yaml": strings.Replace(s18Rule("A"), "requires: {profiles: [tool]}", "requires: {profiles: [tool], profiles: [tool]}", 1)}, want: []string{"policy/A.yaml:5:30 error OAR_YAML"}},
		{name: "duplicate key in flow", files: add("flow: {sequence: [a], within: 3, within: 4}\n"), want: []string{"policy/A.yaml:8:34 error OAR_YAML"}},
		{name: "duplicate key in on_fire", files: add("on_fire: {increment: [breaker], increment: [breaker]}\n"), want: []string{"policy/A.yaml:8:33 error OAR_YAML"}},
		{name: "duplicate key in block style", files: add("copy:\n  title: a\n  fix: b\n  title: c\n"), want: []string{"policy/A.yaml:11:3 error OAR_YAML"}},
		// -portable: flow reads lycaon.recent_tool_names.
		{name: "portable flow", files: add("flow: {sequence: [a, b]}\n"), args: []string{"-portable"}, want: []string{"policy/A.yaml:8:7 error OAR_UNKNOWN_FACT"}},
		// Columns through each scalar style (spec 7).
		{name: "single-quoted with an escaped quote", files: add("when: 'tool == ''x'' && nope'\n"), want: []string{"policy/A.yaml:8:25 error OAR_UNKNOWN_FACT"}},
		{name: "plain over two lines", files: add("when: tool == 'x' &&\n  nope\n"), want: []string{"policy/A.yaml:9:3 error OAR_UNKNOWN_FACT"}},
		{name: "folded block", files: add("when: >\n  tool == 'x'\n  && nope\n"), want: []string{"policy/A.yaml:10:6 error OAR_UNKNOWN_FACT"}},
		{name: "literal block keep", files: add("when: |+\n  tool == 'x'\n  && nope\n\n"), want: []string{"policy/A.yaml:10:6 error OAR_UNKNOWN_FACT"}},
		{name: "double-quoted over two lines", files: add("when: \"tool == 'x' &&\n  nope\"\n"), want: []string{"policy/A.yaml:9:3 error OAR_UNKNOWN_FACT"}},
		{name: "double-quoted with an escaped line break", files: add("when: \"tool == 'x' && no\\\n  pe\"\n"), want: []string{"policy/A.yaml:8:23 error OAR_UNKNOWN_FACT"}},
		{name: "double-quoted unicode escape before", files: add("when: \"tool == '\\u00e9' && nope\"\n"), want: []string{"policy/A.yaml:8:28 error OAR_UNKNOWN_FACT"}},
	})
}
