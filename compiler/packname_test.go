package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackName (issue 18, item 10): pack.yaml's name may hold no control
// character, invisible format character (Cf) or line separator, however
// it is written (an escape in a double-quoted scalar, the character
// itself); the problem is OAR_VALUE at the character. Every other string
// is a name.
func TestPackName(t *testing.T) {
	for _, tc := range []struct {
		yaml string // the name: line
		col  int    // of the refused character; 0: the name is valid
		want string // the name loaded
	}{
		{yaml: `name: "ab\x1b[2K"`, col: 10},
		{yaml: `name: "ab\nready"`, col: 10},
		{yaml: `name: "a\tb"`, col: 9},
		{yaml: `name: "zero\u200bwidth"`, col: 12},
		{yaml: "name: zero\u200bwidth", col: 11},
		{yaml: `name: 'bidi` + "\u202e" + `'`, col: 12},
		{yaml: `name: "tag\U000E0041"`, col: 11},
		{yaml: `name: "soft\u00adhyphen"`, col: 12},
		{yaml: `name: "\uFEFFbom"`, col: 8},
		{yaml: `name: "line\u2028sep"`, col: 12},
		{yaml: `name: "a\x7f"`, col: 9},
		{yaml: `name: "a\u0085b"`, col: 9},
		{yaml: `name: "blank\u3164"`, col: 13},
		{yaml: `name: "vs\uFE01"`, col: 10},
		{yaml: `name: "cgj\u034F"`, col: 11},
		{yaml: `name: "\uFE0Fx"`, col: 8},
		{yaml: `name: "warn \u26A0\uFE0F"`, want: "warn \u26A0\uFE0F"},
		{yaml: `name: my pack`, want: "my pack"},
		{yaml: `name: équipe-日本`, want: "équipe-日本"},
		{yaml: `name: "quote\"d"`, want: `quote"d`},
		// A name shows nothing to tell packs apart by: the scalar's column.
		{yaml: `name: ''`, col: 7},
		{yaml: `name: ""`, col: 7},
		{yaml: `name: '   '`, col: 7},
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "policy"), 0o755); err != nil {
			t.Fatal(err)
		}
		text := "oar: '1.0'\n" + tc.yaml + "\n"
		if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		set, diags := Load([]string{dir}, Options{})
		if tc.col == 0 {
			if len(diags) != 0 || set.Packs[0].Name != tc.want {
				t.Errorf("%s: name %q, diagnostics:\n%s", tc.yaml, set.Packs[0].Name, diags.Text())
			}
			continue
		}
		if len(diags) != 1 || diags[0].Code != CodeValue || diags[0].Pos.Line != 2 || diags[0].Pos.Col != tc.col ||
			!strings.Contains(diags[0].Message, "pack name") {
			t.Errorf("%s: want OAR_VALUE at 2:%d, got:\n%s", tc.yaml, tc.col, diags.Text())
		}
		// The message shows the name escaped: one line, no raw character.
		if text := diags.Text(); strings.Count(text, "\n") != 1 || strings.ContainsAny(diags[0].Message, "\x1b\n\t\u200b\u202e\u00ad\ufeff\u2028\x7f\u0085") {
			t.Errorf("%s: the message is not one escaped line:\n%s", tc.yaml, text)
		}
	}
}
