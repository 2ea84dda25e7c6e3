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

// In the guard every call's tool is mcp_S_T: a rule that selects a tool
// by its MCP name (tool: move_file) matches no call and blocks nothing,
// while its fixtures, which give tool as they like, pass. oarc guard
// names such rules before it builds; a rule that also lists an mcp_
// name, or selects on mcp_tool_name, is not named.
func TestGuardToolSelectorNeverMatches(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: project\n"), 0o644)
	rule := func(id, selector, profiles string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nselector: "+selector+"\nrequires: {profiles: ["+profiles+"]}\ncopy: {title: "+id+"}\n"), 0o644)
	}
	rule("BARE_TOOL", "{tool: [move_file, write_file]}", "tool")
	rule("BARE_QUALIFIED", "{mcp_qualified_tool: move_file}", "mcp")
	rule("MIXED", "{tool: [bash, mcp_fs_move_file]}", "tool")
	rule("BY_NAME", "{mcp_tool_name: move_file}", "mcp")
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	for _, want := range []string{
		"rule BARE_TOOL selects tool move_file, write_file, which no call through the guard has",
		"rule BARE_QUALIFIED selects mcp_qualified_tool move_file, which no call through the guard has",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "MIXED") || strings.Contains(stderr, "BY_NAME") {
		t.Errorf("a rule that can match is named:\n%s", stderr)
	}
}

// oarc gen -guard writes the set for the Go SDK middleware, where every
// call's tool is mcp_S_T as in the proxy: it names the same rules, as a
// warning (the file is written; the set may serve other hosts too).
func TestGenGuardToolSelectorNeverMatches(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: project\n"), 0o644)
	rule := func(id, selector, profiles string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nselector: "+selector+"\nrequires: {profiles: ["+profiles+"]}\ncopy: {title: "+id+"}\n"), 0o644)
	}
	rule("BARE_TOOL", "{tool: [move_file, write_file]}", "tool")
	rule("BY_NAME", "{mcp_tool_name: move_file}", "mcp")
	out := filepath.Join(dir, "out")
	code, _, stderr := run("gen", "-pack", pack, "-out", out, "-guard")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if want := "rule BARE_TOOL selects tool move_file, write_file, which no call through the guard has"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, "BY_NAME") {
		t.Errorf("a rule that can match is named:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "guard_oarc.go")); err != nil {
		t.Errorf("the guard file is not written: %v", err)
	}
	// Without -guard the set is not for the guard: nothing is said.
	if _, _, stderr := run("gen", "-pack", pack, "-out", filepath.Join(dir, "plain")); strings.Contains(stderr, "BARE_TOOL") {
		t.Errorf("gen without -guard names the rule:\n%s", stderr)
	}
}
