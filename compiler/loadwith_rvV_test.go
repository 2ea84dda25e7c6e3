package compiler

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadWith: files not written yet load as rule files of their pack,
// exactly as Load loads them once written (oarc promote checks with it):
// the same rules, the same diagnostics at their paths, the same digest.
func TestLoadWith(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "pack")
	if err := os.MkdirAll(pack, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: project\n"), 0o644)
	added := map[string][]byte{
		filepath.Join(pack, "policy", "NEW_ONE.yaml"): []byte("oar: '1.0'\nid: NEW_ONE\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: fire_count_of(\"NEW_TWO\") > 0\n"),
		filepath.Join(pack, "policy", "NEW_TWO.yml"):  []byte("oar: '1.0'\nid: NEW_TWO\nkind: policy\nanchor: tool.pre_invoke\neffect: allow\n"),
		filepath.Join(dir, "elsewhere", "X.yaml"):     []byte("not read"),
	}
	// No policy/ directory yet: the added files are its files.
	set, diags := LoadWith([]string{pack}, added, Options{})
	if set == nil || len(set.Rules) != 2 || len(diags) != 1 || diags[0].Code != CodeEffect || diags[0].Pos.File != filepath.Join(pack, "policy", "NEW_TWO.yml") {
		t.Fatalf("rules %d, diagnostics:\n%s", len(set.Rules), diags.Text())
	}
	// Written, they load the same.
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	for p, text := range added {
		if filepath.Dir(p) == filepath.Join(pack, "policy") {
			os.WriteFile(p, text, 0o644)
		}
	}
	written, wdiags := Load([]string{pack}, Options{})
	if wdiags.Text() != diags.Text() || written.Digest != set.Digest {
		t.Errorf("written: %s %s\nadded: %s %s", written.Digest, wdiags.Text(), set.Digest, diags.Text())
	}
	// An added file takes the place of the file at its path.
	fixed := map[string][]byte{filepath.Join(pack, "policy", "NEW_TWO.yml"): []byte("oar: '1.0'\nid: NEW_TWO\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n")}
	if _, diags := LoadWith([]string{pack}, fixed, Options{}); len(diags) != 0 {
		t.Errorf("replaced: %s", diags.Text())
	}
}
