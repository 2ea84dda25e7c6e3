package compiler

import (
	"path/filepath"
	"testing"
)

// TestSamePackNameTwice: two packs of one compilation set may have one
// name (two directories named rules/, no name in pack.yaml: spec 1 asks
// for neither a pack.yaml nor distinct names). The digest framed each
// file as NAME/PATH and sorted by that alone, so the two rules/pack.yaml
// came in the order the packs were given: gen -pack x/rules -pack y/rules
// and the reverse generated two Digest constants for one set, and oarc
// stats split its records. Equal frames are now ordered by content.
func TestSamePackNameTwice(t *testing.T) {
	root := t.TempDir()
	x := writePack(t, filepath.Join(root, "x", "rules"), "oar: '1.0'\norigin: stock\n", map[string]string{"A": "effect: block\n"})
	y := writePack(t, filepath.Join(root, "y", "rules"), "oar: '1.0'\n", map[string]string{"B": "effect: block\n"})
	var digests []string
	for _, dirs := range [][]string{{x, y}, {y, x}} {
		s, diags := Load(dirs, Options{})
		if diags.HasErrors() {
			t.Fatalf("%s: %s", dirs, diags.Text())
		}
		digests = append(digests, s.Digest)
	}
	if digests[0] != digests[1] {
		t.Errorf("the digest depends on the order of the packs: %s, %s", digests[0], digests[1])
	}
	// A name given in pack.yaml counts the same.
	z := writePack(t, filepath.Join(root, "z"), "oar: '1.0'\nname: rules\n", map[string]string{"C": "effect: block\n"})
	a, diags := Load([]string{x, z}, Options{})
	b, diags2 := Load([]string{z, x}, Options{})
	if diags.HasErrors() || diags2.HasErrors() {
		t.Fatalf("%s%s", diags.Text(), diags2.Text())
	}
	if a.Digest != b.Digest {
		t.Errorf("the digest depends on the order of the packs: %s, %s", a.Digest, b.Digest)
	}
}
