package compiler

import (
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/compiler/internal/lower"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/shared"
)

func TestScalarMap(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		tok  string // token of the value to locate
		want Pos    // its position in the file
	}{
		{"plain", "when: a && bcd\n", "bcd", Pos{Line: 1, Col: 12}},
		{"plain multi", "when: a &&\n   bcd\n", "bcd", Pos{Line: 2, Col: 4}},
		{"single", "when: 'it''s + bcd'\n", "bcd", Pos{Line: 1, Col: 16}},
		{"single multi", "when: 'a\n\n  bcd'\n", "bcd", Pos{Line: 3, Col: 3}},
		{"double escapes", "when: \"\\\"\\u00e9\\x41\\n + bcd\"\n", "bcd", Pos{Line: 1, Col: 25}},
		{"double escaped break", "when: \"a \\\n  bcd\"\n", "bcd", Pos{Line: 2, Col: 3}},
		{"literal", "when: |\n  a\n\n   bcd\n", "bcd", Pos{Line: 4, Col: 4}},
		{"literal keep", "when: |+\n  a bcd\n\n", "bcd", Pos{Line: 2, Col: 5}},
		{"folded", "when: >\n  a\n  bcd\n", "bcd", Pos{Line: 3, Col: 3}},
		{"folded more indented", "when: >-\n  a\n    x\n  bcd\n", "bcd", Pos{Line: 4, Col: 3}},
		{"unicode columns", "when: 'é→ + bcd'\n", "bcd", Pos{Line: 1, Col: 13}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.yaml), &doc); err != nil {
				t.Fatal(err)
			}
			n := doc.Content[0].Content[1]
			src := newSource("f", []byte(tc.yaml))
			m := src.mapScalar(n)
			if len(m.at) == 0 {
				t.Fatalf("no exact map for %q (value %q)", tc.yaml, n.Value)
			}
			off := strings.Index(n.Value, tc.tok)
			got := m.position(off)
			tc.want.File = "f"
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("position of %q in %q (-want +got):\n%s", tc.tok, n.Value, diff)
			}
		})
	}
}

func TestLoadRuleDocJSON(t *testing.T) {
	doc := `{ "oar": "1.0", "id": "TRIAGE_LITE_WRITE_FORBIDDEN", "kind": "policy",
            "anchor": "tool.pre_invoke", "selector": { "tool": ["write", "edit"] },
            "requires": { "profiles": ["session", "tool"] },
            "when": "session_posture == \"spec\" && lycaon.tool_is_state",
            "effect": "block" }`
	pk, diags := LoadRuleDoc("fixture.json", []byte(doc), "", Options{})
	if len(diags) != 0 {
		t.Fatalf("unexpected diagnostics:\n%s", diags.Text())
	}
	if len(pk.Rules) != 1 {
		t.Fatalf("got %d rules", len(pk.Rules))
	}
	r := pk.Rules[0]
	want := []SelectorClause{{Fact: "tool", Type: catalog.String, Values: []any{"write", "edit"}, Pos: Pos{File: "fixture.json", Line: 2, Col: 56}}}
	if diff := cmp.Diff(want, r.Selector); diff != "" {
		t.Errorf("selector (-want +got):\n%s", diff)
	}
	if r.WhenAST == nil || r.Enforcement != "enforce" || r.OnError != "fail_closed" || pk.Packs[0].Origin != "stock" {
		t.Errorf("rule = %+v", r)
	}
	if diff := cmp.Diff([]string{"session", "tool"}, r.ReadsProfiles); diff != "" {
		t.Errorf("ReadsProfiles (-want +got):\n%s", diff)
	}
}

func TestLoadRuleDocErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"float version", `{"oar": 1.0, "id": "A", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block"}`, []string{CodeVersion}},
		{"allow in project", "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: allow\n", []string{CodeEffect}},
		{"not a mapping", "[1]", []string{CodeYAML}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := LoadRuleDoc("x.json", []byte(tc.doc), "project", Options{})
			if diff := cmp.Diff(tc.want, diags.Codes()); diff != "" {
				t.Errorf("codes (-want +got):\n%s\n%s", diff, diags.Text())
			}
		})
	}
}

// TestLowerProblems checks that problems of the lowering are reported at
// the mapped position, and that a problem the front end already reported
// at the same place is not repeated.
func TestLowerProblems(t *testing.T) {
	saved := lowerWhen
	defer func() { lowerWhen = saved }()
	lowerWhen = func(a *cel.Ast, _ lower.Options) (ir.Expr, []lower.Problem) {
		return nil, []lower.Problem{
			{Offset: strings.Index(a.Source().Content(), "exists"), Code: CodeUnsupported, Message: "exists is not supported"},
			{Offset: strings.Index(a.Source().Content(), `"NOPE"`), Code: CodeRef, Message: "dup"},
		}
	}
	doc := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [session]}\nwhen: >\n  fire_count_of(\"NOPE\") > 0 ||\n  principal_roles.exists(r, r == 'x')\n"
	_, diags := LoadRuleDoc("a.yaml", []byte(doc), "project", Options{})
	got := diags.Text()
	want := `a.yaml:8:17: error: fire_count_of names NOPE, which is not a rule of the pack [OAR_REF]
   |   fire_count_of("NOPE") > 0 ||
   |                 ^
a.yaml:9:19: error: exists is not supported [OAR_UNSUPPORTED]
   |   principal_roles.exists(r, r == 'x')
   |                   ^
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRuleOrderAndDefaults(t *testing.T) {
	pk, diags := LoadPack("testdata/clean", Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	var ids []string
	for _, r := range pk.Rules {
		ids = append(ids, r.Kind+":"+r.ID)
	}
	if diff := cmp.Diff([]string{"schema:OTHER", "invariant:EVERYTHING"}, ids); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	r := pk.Rules[1]
	wantFire := OnFire{Increment: []string{"breaker"}, Reset: []CounterRef{{"OTHER", "fire"}, {"OTHER", "breaker"}, {"EVERYTHING", "fire"}}}
	if diff := cmp.Diff(wantFire, r.OnFire); diff != "" {
		t.Errorf("on_fire (-want +got):\n%s", diff)
	}
	wantFlow := &Flow{Steps: [][]string{{"read"}, {"write", "edit"}}, Within: 10, Contiguous: true, Pos: Pos{File: r.File, Line: 19, Col: 3}}
	if diff := cmp.Diff(wantFlow, r.Flow); diff != "" {
		t.Errorf("flow (-want +got):\n%s", diff)
	}
	if pk.Rules[0].Transform == nil || pk.Rules[0].Transform.Replacement != defaultReplacement {
		t.Errorf("transform = %+v", pk.Rules[0].Transform)
	}
	if r.Enforcement != "monitor" || r.OnError != "fail_open" || r.Copy.Instead != "i" {
		t.Errorf("rule = %+v", r)
	}
}

// TestSharedPacks checks the packs that must load clean.
func TestSharedPacks(t *testing.T) {
	for _, dir := range []string{"../examples/starter", shared.Dir(t, "bench", "standard-pack")} {
		_, diags := LoadPack(dir, Options{})
		if len(diags) != 0 {
			t.Errorf("%s:\n%s", dir, diags.Text())
		}
	}
}

// TestSchemaAgrees checks that the JSON Schema accepts the clean golden
// rules and that its compiled form is valid.
func TestSchemaAgrees(t *testing.T) {
	if _, err := compiledSchema(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"testdata/clean/policy/EVERYTHING.yaml", "testdata/clean/policy/OTHER.yml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		s, _ := compiledSchema()
		if err := s.Validate(nodeValue(doc.Content[0])); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// The loader warns about exactly the characters the runtime replaces in
// copy text (spec 5.1), over every rune.
func TestHiddenRuneMatchesRuntime(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if HiddenRune(r) != runtime.HiddenRune(r) {
			t.Fatalf("%U: compiler says %v, runtime %v", r, HiddenRune(r), runtime.HiddenRune(r))
		}
	}
	// In context: every rune after each kind of rune before it, and the
	// presentation selectors after every rune.
	for _, prev := range []rune{-1, 'a', ' ', '\n', 0xA0, 0x200B, 0xFE0F, 0xFE0E, 0xFE00, utf8.RuneError, 0x26A0, 0x3164} {
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if hiddenAfter(prev, r) != runtime.HiddenAfter(prev, r) {
				t.Fatalf("%U after %U: compiler says %v, runtime %v", r, prev, hiddenAfter(prev, r), runtime.HiddenAfter(prev, r))
			}
		}
	}
	for prev := rune(-1); prev <= unicode.MaxRune; prev++ {
		for _, r := range []rune{0xFE0E, 0xFE0F} {
			if hiddenAfter(prev, r) != runtime.HiddenAfter(prev, r) {
				t.Fatalf("%U after %U: compiler says %v, runtime %v", r, prev, hiddenAfter(prev, r), runtime.HiddenAfter(prev, r))
			}
		}
	}
}
