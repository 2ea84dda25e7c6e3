package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A proxy has no host, so it fills only the facts of spec 11 (tool,
// tool_args, the mcp_ facts, content_length); every other fact a rule
// reads is absent and reads as its zero value. A rule of a host catalog,
// "block write_file when acme.readonly", then never fires through the
// proxy, and nothing said so: oarc guard names such rules, as it names
// those that call a host provider. Facts the guard fills, the engine's
// own (counters, the record, provenance), and a detector's facts that a
// built-in validator answers are not named.
func TestGuardNamesFactsAProxyNeverFills(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "acme.catalog.yaml"), []byte(`oar_catalog: '1.0'
host: acme
anchors:
  - {id: tool.pre_invoke, planes: [block]}
  - {id: content.tool_result, planes: [block, transform]}
facts:
  - {name: readonly, type: bool}
  - {name: repeat_count, type: int}
`), 0o644)
	pack := filepath.Join(dir, "p")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: stock\ncatalog: ../acme.catalog.yaml\n"), 0o644)
	rule := func(id, rest string) {
		os.WriteFile(filepath.Join(pack, "policy", id+".yaml"), []byte("oar: '1.0'\nid: "+id+"\nkind: policy\nanchor: tool.pre_invoke\neffect: block\ncopy: {title: "+id+"}\n"+rest), 0o644)
	}
	rule("READONLY", "selector: {mcp_tool_name: write_file, acme.readonly: true}\nrequires: {profiles: [mcp]}\n")
	rule("POSTURE", "requires: {profiles: [session]}\nwhen: 'session_posture == \"spec\"'\n")
	rule("MCP_ONLY", "selector: {mcp_tool_name: move_file}\nrequires: {profiles: [mcp, tool]}\nwhen: 'tool_args.x == 1 && mcp_server_id == \"fs\" && acme.repeat_count > 2 && fire_count > 0'\n")
	os.WriteFile(filepath.Join(pack, "policy", "SECRETS.yaml"), []byte("oar: '1.0'\nid: SECRETS\nkind: detector\ndetector: oarc.secrets\nanchor: content.tool_result\neffect: transform\nrequires: {profiles: [content-safety]}\ntransform: {redact: [secret_matches]}\n"), 0o644)
	// A transform's span facts, read when it fires whatever its when
	// reads: never filled, it redacts nothing through the proxy.
	os.WriteFile(filepath.Join(pack, "policy", "PII.yaml"), []byte("oar: '1.0'\nid: PII\nkind: policy\nanchor: content.tool_result\neffect: transform\nrequires: {profiles: [content-safety]}\nwhen: content.contains('ssn')\ntransform: {redact: [pii_entities]}\n"), 0o644)
	code, _, stderr := run("guard", "-pack", pack, "-o", filepath.Join(dir, "bin"), "-redisstore", filepath.Join(dir, "none"))
	if code == 0 {
		t.Fatalf("the build went on: %s", stderr)
	}
	for _, want := range []string{
		"rule READONLY reads acme.readonly, which a proxy never fills",
		"rule POSTURE reads session_posture, which a proxy never fills",
		"rule PII reads pii_entities, which a proxy never fills",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "MCP_ONLY") || strings.Contains(stderr, "SECRETS") {
		t.Errorf("a rule that reads only what the guard fills is named:\n%s", stderr)
	}
}
