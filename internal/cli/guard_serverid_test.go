package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A pack whose rules name the server (mcp_server_id: fs) does nothing in
// a proxy run without -server-id in front of a server that calls itself
// otherwise: every call has another mcp_server_id, and a block on fs lets
// it through. oarc guard says at build time which -server-id the rules
// need, and the proxy says at run time that its id is not one of them.
func TestGuardServerIDNamedByRules(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: project\n"), 0o644)
	os.WriteFile(filepath.Join(pack, "policy", "NO_ECHO.yaml"), []byte("oar: '1.0'\nid: NO_ECHO\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nselector: {mcp_server_id: fs, mcp_tool_name: echo}\nrequires: {profiles: [mcp]}\ncopy: {title: no echo}\n"), 0o644)
	bin := filepath.Join(dir, "guard-bin")
	code, _, errs := run("guard", "-pack", pack, "-o", bin)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errs)
	}
	if !strings.Contains(errs, "the rules name the server id fs") || !strings.Contains(errs, "-server-id fs") {
		t.Errorf("the build does not say which -server-id the rules need:\n%s", errs)
	}
	cmd := exec.Command(bin, "--", os.Args[0])
	cmd.Env = append(os.Environ(), "OARC_CLI_FAKE_MCP=1")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if _, err := cmd.Output(); err != nil {
		t.Fatalf("%v:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "the rules name the server id fs, not everything") {
		t.Errorf("the proxy does not say that the rules name another server:\n%s", stderr.String())
	}
}
