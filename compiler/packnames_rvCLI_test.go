package compiler

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSamePackNameTwice: two packs of one compilation set with one name
// (two directories named rules/, no name in pack.yaml) made the set's
// digest depend on the order the packs were given (gen -pack x/rules
// -pack y/rules and the reverse generated two Digest constants for one
// set; oarc stats then splits its records), and the digest's framing,
// NAME/PATH, could not tell which pack a rule file belongs to (a rule
// moved from a stock pack to a project pack of the same name kept the
// digest). Decision records name packs by name too. A pack's name tells
// packs apart, so a name used twice in a set is OAR_VALUE at the later
// pack, in the order given.
func TestSamePackNameTwice(t *testing.T) {
	root := t.TempDir()
	x := writePack(t, filepath.Join(root, "x", "rules"), "oar: '1.0'\n", map[string]string{"A": "effect: block\n"})
	y := writePack(t, filepath.Join(root, "y", "rules"), "oar: '1.0'\n", map[string]string{"B": "effect: block\n"})
	for _, dirs := range [][]string{{x, y}, {y, x}} {
		_, diags := Load(dirs, Options{})
		if !diags.HasErrors() || len(diags) != 1 || diags[0].Code != CodeValue || diags[0].Pos.File != dirs[1] ||
			!strings.Contains(diags[0].Message, `"rules"`) || !strings.Contains(diags[0].Message, dirs[0]) {
			t.Errorf("%s: want one OAR_VALUE at the second pack naming the first:\n%s", dirs, diags.Text())
		}
	}
	// A name given in pack.yaml counts the same, at its position.
	z := writePack(t, filepath.Join(root, "z"), "oar: '1.0'\nname: rules\n", map[string]string{"C": "effect: block\n"})
	_, diags := Load([]string{x, z}, Options{})
	if len(diags) != 1 || diags[0].Code != CodeValue || diags[0].Pos != (Pos{File: filepath.Join(z, "pack.yaml"), Line: 2, Col: 7}) {
		t.Errorf("want one OAR_VALUE at z's name:\n%s", diags.Text())
	}
}
