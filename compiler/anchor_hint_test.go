package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownAnchorHint: an anchor named as in other agent frameworks
// ("model.output") is too far from every catalog id for a spelling
// suggestion, and the error said only `unknown anchor "model.output"`,
// with nothing to go on among the catalog's sixty anchors. It now
// suggests the anchors ending in the same segment, or else says where the
// list is; in a rule and in pack.yaml's deny_by_default alike.
func TestUnknownAnchorHint(t *testing.T) {
	for _, tc := range []struct{ anchor, want string }{
		{"tool.pre_invok", `unknown anchor "tool.pre_invok" (did you mean "tool.pre_invoke"?) [OAR_ANCHOR]`},
		{"model.output", `unknown anchor "model.output" (did you mean "content.output"?) [OAR_ANCHOR]`},
		{"model.input", `unknown anchor "model.input" (did you mean "content.input"?) [OAR_ANCHOR]`},
		{"bogus", `unknown anchor "bogus"; oarc schema rule lists the catalog's anchors [OAR_ANCHOR]`},
	} {
		dir := t.TempDir()
		pack := "oar: '1.0'\nname: p\norigin: stock\ndeny_by_default:\n  anchors: [" + tc.anchor + "]\n  code: NOT_LISTED\n"
		rule := "oar: '1.0'\nid: R\nkind: policy\nanchor: " + tc.anchor + "\neffect: block\nwhen: 'true'\n"
		if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(pack), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "policy", "R.yaml"), []byte(rule), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := Load([]string{dir}, Options{})
		got := diags.Text()
		for _, file := range []string{"pack.yaml:5:", "R.yaml:4:9:"} {
			found := false
			for _, line := range strings.Split(got, "\n") {
				found = found || strings.Contains(line, file) && strings.HasSuffix(line, tc.want)
			}
			if !found {
				t.Errorf("%s: no line of %s ending %s in:\n%s", tc.anchor, file, tc.want, got)
			}
		}
	}
}
