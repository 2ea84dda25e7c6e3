package compiler

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestConstantArguments: spec 5.13's "a constant outside is OAR_VALUE"
// and section 4's "a bad constant pattern is a load error" hold for
// arguments written as literals and arithmetic or concatenation of
// literals (60 * 60 * 25, "(" + "a"), at the start of the argument; an
// expression cel-go would fail (overflow) or one that reads a fact is
// not a constant and loads (an error at run time, if any).
func TestConstantArguments(t *testing.T) {
	pack := "oar: '1.0'\nname: p\n"
	for _, tc := range []struct{ when, want string }{
		{`calls_within(60 * 60 * 25) > 3`, "R.yaml:7:21: error: the window of calls_within must be between 1 and 86400 seconds (24 hours), got 90000 [OAR_VALUE]"},
		{`tool_calls_within("bash", 1 - 1) > 3`, "R.yaml:7:34: error: the window of tool_calls_within must be between 1 and 86400 seconds (24 hours), got 0 [OAR_VALUE]"},
		{`calls_within(-(86400 + 1) * -1) > 3`, "got 86401 [OAR_VALUE]"},
		{`calls_within(86400 / 2 % 7 - 5) > 3`, "got -2 [OAR_VALUE]"},
		{`tool.matches("(" + "a")`, "R.yaml:7:21: error: invalid regular expression: error parsing regexp: missing closing ): `(a` [OAR_CEL_TYPE]"},
		{`local_hour("Europe/" + "Pariss") == 3`, "R.yaml:7:19: error: local_hour: unknown time zone \"Europe/Pariss\""},
		{`calls_within(60 * 60 * 24) > 3`, ""},
		{`calls_within(9223372036854775807 * 2) > 3`, ""},
		{`calls_within(86400 / 0) > 3`, ""},
		{`calls_within(size(tool) * 100000) > 3`, ""},
		{`tool.matches("^b" + "ash$")`, ""},
	} {
		dir := writePack(t, filepath.Join(t.TempDir(), "p"), pack, map[string]string{
			"R": "effect: block\nrequires: {profiles: [tool]}\nwhen: '" + tc.when + "'\n",
		})
		_, diags := Load([]string{dir}, Options{})
		got := diags.Text()
		if tc.want == "" {
			if strings.Contains(got, "error:") {
				t.Errorf("%s: should load:\n%s", tc.when, got)
			}
			continue
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s:\n%s\nwant %q", tc.when, got, tc.want)
		}
	}
}
