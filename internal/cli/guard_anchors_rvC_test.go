package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The guard evaluates three anchors (spec 11): tool.pre_invoke,
// tool.post_invoke and content.tool_result. A set whose rules, or whose
// deny-by-default, are at other anchors built a proxy that evaluated none
// of them and let every call through, without a word (a host catalog
// that names its anchor tool.before, a default-catalog rule at
// content.output). oarc guard names each such rule and deny-by-default.
func TestGuardNamesAnchorsItNeverEvaluates(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "h.catalog.yaml"), []byte("oar_catalog: '1.0'\nhost: h\nanchors:\n  - {id: tool.before, planes: [block]}\n  - {id: tool.pre_invoke, planes: [block]}\n"), 0o644)
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: stock\ncatalog: ../h.catalog.yaml\ndeny_by_default: {anchors: [tool.before], code: NOT_LISTED}\n"), 0o644)
	rule := func(id, anchor string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: "+anchor+"\neffect: block\nrequires: {profiles: [mcp]}\nselector: {mcp_tool_name: move_file}\ncopy: {title: "+id+"}\n"), 0o644)
	}
	rule("BEFORE", "tool.before")
	rule("PRE", "tool.pre_invoke")
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	for _, want := range []string{
		"rule BEFORE is at tool.before, which the guard never evaluates",
		"deny_by_default NOT_LISTED is at tool.before, which the guard never evaluates",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "rule PRE") {
		t.Errorf("a rule at tool.pre_invoke is named:\n%s", stderr)
	}
}
