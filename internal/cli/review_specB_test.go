package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Spec 11: "oarc guard lists at build time the rules that call host
// providers, which a proxy cannot answer"; the MCP functions the guard
// answers itself (mcp_field_*, mcp_server_*_for) are not listed. The
// listing comes before the build: a -redisstore directory that does not
// hold the module stops the command right after it.
func TestReviewSpecBGuardListsHostProviders(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: project\n"), 0o644)
	rule := func(id, profiles, when string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: ["+profiles+"]}\nwhen: '"+when+"'\ncopy: {title: "+id+"}\n"), 0o644)
	}
	rule("HOST_CALL", "tool, filesystem", `path_outside_scope(tool)`)
	rule("GUARD_CALL", "mcp", `mcp_field_string("x") == "y" || mcp_server_enabled_for("fs")`)
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	if !strings.Contains(stderr, "rule HOST_CALL calls a host provider (path_outside_scope)") {
		t.Errorf("HOST_CALL is not listed:\n%s", stderr)
	}
	if strings.Contains(stderr, "GUARD_CALL") {
		t.Errorf("a rule calling only the guard's functions is listed:\n%s", stderr)
	}
}
