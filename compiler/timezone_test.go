package compiler

import (
	"strings"
	"testing"
)

// TestTimeConstantsChecked checks spec 5.13 at load: a constant window
// outside 1..86400 seconds and a constant zone name that names no IANA
// zone are OAR_VALUE at the argument; computed ones, and good constants,
// load (a computed one is checked at run time).
func TestTimeConstantsChecked(t *testing.T) {
	for _, tc := range []struct {
		when, at string // at: the argument reported ("" : loads)
		msg      string
	}{
		{`calls_within(0) > 1`, `0`, "between 1 and 86400"},
		{`calls_within(86401) > 1`, `86401`, "between 1 and 86400"},
		{`tool_calls_within("bash", -3) > 1`, `-3`, "between 1 and 86400"},
		{`local_hour("Europe/Pariss") == 1`, `"Europe/Pariss"`, `unknown time zone "Europe/Pariss"`},
		{`local_weekday("Local") == 1`, `"Local"`, "not an IANA time zone name"},
		{`local_weekday("") == 1`, `""`, "not an IANA time zone name"},
		{`calls_within(1) > 0 && calls_within(86400) > 0 && tool_calls_within(tool, size(tool)) > 0`, "", ""},
		{`local_hour("UTC") == 1 && local_weekday("America/Argentina/Buenos_Aires") == 2 && local_hour(tool) == 3`, "", ""},
	} {
		t.Run(tc.when, func(t *testing.T) {
			doc := "oar: '1.0'\nid: A_TIME\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool]}\nwhen: '" + strings.ReplaceAll(tc.when, "'", "''") + "'\neffect: block\n"
			_, diags := LoadRuleDoc("A_TIME.yaml", []byte(doc), "", Options{})
			if tc.at == "" {
				if diags.HasErrors() {
					t.Fatalf("want it to load, got:\n%s", diags.Text())
				}
				return
			}
			col := len("when: '") + strings.Index(tc.when, "("+tc.at) + 2
			if strings.Contains(tc.when, ", "+tc.at) {
				col = len("when: '") + strings.Index(tc.when, ", "+tc.at) + 3
			}
			var errs Diagnostics
			for _, d := range diags {
				if d.Severity == Error {
					errs = append(errs, d)
				}
			}
			diags = errs
			if len(diags) != 1 || diags[0].Code != CodeValue || diags[0].Pos.Line != 6 || diags[0].Pos.Col != col || !strings.Contains(diags[0].Message, tc.msg) {
				t.Fatalf("want one OAR_VALUE at 6:%d saying %q, got:\n%s", col, tc.msg, diags.Text())
			}
		})
	}
}
