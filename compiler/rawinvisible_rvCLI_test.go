package compiler

import (
	"strings"
	"testing"
)

// TestRawInvisibleWarning: a rule file that holds an invisible character
// written raw outside copy (a zero-width space inside a when's string, a
// bidirectional override in a selector value or a comment) loaded
// without a word: a reviewer reads `contains("rm")` where the rule
// matches "rm" followed by U+200B, which no command has (the Trojan
// Source pattern). Copy texts had a warning; the rest of the file now
// has one per line, at the first such character. Written as an escape
// ("\u200b", visible in the file) it is no warning.
func TestRawInvisibleWarning(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [tool]}\n"
	for _, c := range []struct {
		body string
		want string // "line:col U+XXXX", "" for no warning
	}{
		{"when: tool_arg_string(\"cmd\").contains(\"rm\u200b\")\n", "7:42 U+200B"},
		{"selector: {tool: \"ba\u202esh\"}\n", "7:21 U+202E"},
		{"# run \u2066this\u2069\nwhen: tool == \"x\"\n", "7:7 U+2066"},
		{"when: |\n  tool == \"a\u200db\" && tool != \"\u200b\"\n", "8:13 U+200D"},
		{"when: \"tool == \\\"rm\\u200b\\\"\"\n", ""},
		{"when: tool == \"rm\\u200b\"\n", ""},
		{"copy: {title: \"a\u200bb\"}\nwhen: tool == \"x\"\n", ""},
		{"copy:\n  title: t\n  fix: \"a\u200bb\"\nwhen: tool == \"x\"\n", ""},
		{"when: tool == \"\u26a0\ufe0f\"\n", ""},
	} {
		_, diags := LoadRuleDoc("A.yaml", []byte(head+c.body), "stock", Options{})
		var got []string
		for _, d := range diags {
			if strings.Contains(d.Message, "written raw") {
				if d.Severity != Warning || d.Code != CodeValue {
					t.Errorf("%q: %s", c.body, d)
				}
				got = append(got, d.String())
			}
		}
		if c.want == "" {
			if len(got) > 0 {
				t.Errorf("%q: unexpected warning %s", c.body, got)
			}
			continue
		}
		pos, r, _ := strings.Cut(c.want, " ")
		if len(got) != 1 || !strings.Contains(got[0], "A.yaml:"+pos+": ") || !strings.Contains(got[0], r) {
			t.Errorf("%q: want one warning at %s naming %s, got %q\n%s", c.body, pos, r, got, diags.Text())
		}
	}
}
