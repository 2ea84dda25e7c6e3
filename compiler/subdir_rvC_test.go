package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesInSubdirectory: spec 1 reads rules from <pack>/policy/ itself;
// a rule a person filed under policy/net/ would be left out without a
// word (a pack that blocks nothing, even with -strict). It is still not
// read, but with an OAR_YAML warning at the directory, as for X.YAML.
func TestRulesInSubdirectory(t *testing.T) {
	dir := writePack(t, t.TempDir(), "oar: '1.0'\n", map[string]string{"A": "effect: block\n"})
	os.MkdirAll(filepath.Join(dir, "policy", "net", "deep"), 0o755)
	os.MkdirAll(filepath.Join(dir, "policy", "notes"), 0o755)
	os.WriteFile(filepath.Join(dir, "policy", "net", "deep", "B.yml"), []byte("oar: '1.0'\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "policy", "notes", "README.md"), []byte("x"), 0o644)
	set, diags := LoadPack(dir, Options{})
	if set == nil || len(set.Rules) != 1 || diags.HasErrors() {
		t.Fatalf("want the pack's one rule, no errors\n%s", diags.Text())
	}
	if len(diags) != 1 || diags[0].Severity != Warning || diags[0].Code != CodeYAML ||
		diags[0].Pos.File != filepath.Join(dir, "policy", "net") || !strings.Contains(diags[0].Message, "deep/B.yml") {
		t.Fatalf("want one OAR_YAML warning at policy/net naming deep/B.yml\n%s", diags.Text())
	}
}

// TestPolicyDirGivenAsPack: the policy directory given where a pack is
// expected is not a pack; the error says to give its parent.
func TestPolicyDirGivenAsPack(t *testing.T) {
	dir := writePack(t, t.TempDir(), "", map[string]string{"A": "effect: block\n"})
	_, diags := LoadPack(filepath.Join(dir, "policy"), Options{})
	if len(diags) != 1 || diags[0].Code != CodeYAML || !strings.Contains(diags[0].Message, "give the pack directory "+dir) {
		t.Fatalf("want one OAR_YAML naming the pack directory\n%s", diags.Text())
	}
}

// TestPackGivenTwice: one pack directory given twice to a command (a
// shell glob, pack and pack/) is one error saying so, not a duplicate id
// per rule naming the same file twice.
func TestPackGivenTwice(t *testing.T) {
	dir := writePack(t, t.TempDir(), "", map[string]string{"A": "effect: block\n", "B": "effect: warn\n"})
	_, diags := Load([]string{dir, dir + string(filepath.Separator)}, Options{})
	if len(diags) != 1 || diags[0].Code != CodeYAML || !strings.Contains(diags[0].Message, "given twice") {
		t.Fatalf("want one error saying the pack is given twice\n%s", diags.Text())
	}
}
