package compiler

import (
	"strings"
	"testing"
)

// TestExtensionMacroExplained checks that cel-go extension macros OAR does
// not offer (cel.bind, math.greatest, sortBy, two-variable all, optMap) keep
// OAR_UNKNOWN_FACT but are reported once each, at the macro's name, saying
// the macro is not available in OAR and what to write instead, without the
// checker's follow-on "undeclared reference" errors for the macro's
// namespace and variables. Before, cel.bind gave "undeclared reference to
// 'cel'", then 'bind', then one per use of the variable.
func TestExtensionMacroExplained(t *testing.T) {
	cases := []struct {
		when, at, name, instead string
	}{
		{`cel.bind(x, tool, x == "bash")`, "cel.bind", "cel.bind", "write the bound expression out"},
		{`tool == "a" && cel.bind(x, cel.bind(y, tool, y), x == "bash")`, "cel.bind", "cel.bind", "write the bound expression out"},
		{`math.greatest(1, size(tool)) > 2`, "math.greatest", "math.greatest", "?:"},
		{`["a"].sortBy(e, e) == [tool]`, "sortBy", "sortBy", "all or exists"},
		{`tool_args.all(k, v, v == "x")`, "all", "all", "one-variable all"},
		{`tool_args.optMap(m, m) == tool_args`, "optMap", "optMap", "has()"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := "oar: '1.0'\nid: A_MACRO\nkind: policy\nanchor: tool.pre_invoke\nwhen: '" + tc.when + "'\neffect: block\n"
			_, diags := LoadRuleDoc("A_MACRO.yaml", []byte(doc), "", Options{})
			if len(diags) != 1 {
				t.Fatalf("want one diagnostic, got:\n%s", diags.Text())
			}
			d := diags[0]
			wantCol := len("when: '") + strings.Index(tc.when, tc.at) + 1
			if d.Code != CodeUnknownFact || d.Pos.Line != 5 || d.Pos.Col != wantCol {
				t.Errorf("want OAR_UNKNOWN_FACT at 5:%d, got %s", wantCol, diags.Text())
			}
			for _, s := range []string{tc.name + " is a macro of cel-go's", "not available in OAR", tc.instead} {
				if !strings.Contains(d.Message, s) {
					t.Errorf("message %q lacks %q", d.Message, s)
				}
			}
		})
	}
}

// TestUndeclaredStillReported checks that an undeclared name outside any
// extension macro is still reported as before, beside a macro.
func TestUndeclaredStillReported(t *testing.T) {
	doc := "oar: '1.0'\nid: A_MACRO\nkind: policy\nanchor: tool.pre_invoke\nwhen: 'cel.bind(x, tool, x == \"a\") || toool == \"b\"'\neffect: block\n"
	_, diags := LoadRuleDoc("A_MACRO.yaml", []byte(doc), "", Options{})
	if len(diags) != 2 || !strings.Contains(diags.Text(), "undeclared reference to 'toool'") {
		t.Fatalf("want the macro and 'toool', got:\n%s", diags.Text())
	}
}
