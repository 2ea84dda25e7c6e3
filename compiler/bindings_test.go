package compiler

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/ir"
)

// A pack's valid bindings reach the IR in order, with the schema's text,
// for the MCP guard (spec 11); the invalid ones are in testdata/bindings.
func TestBindingsInIR(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema := `{"type":"object","required":["ok"]}`
	write("pack.yaml", "oar: '1.0'\nname: b\nbindings:\n  - {server: files, tool: read, schema: s/a.json}\n  - {schema: s/b.json}\n")
	write("s/a.json", schema)
	write("s/b.json", `true`)
	write("policy/W.yaml", "oar: '1.0'\nid: W\nkind: policy\nanchor: tool.post_invoke\neffect: warn\nrequires: {profiles: [mcp]}\nwhen: mcp_schema_matched\n")
	set, diags := LoadPack(dir, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	got := Build(set).Bindings
	want := []ir.Binding{{Pack: "b", Server: "files", Tool: "read", Path: "s/a.json", Schema: schema}, {Pack: "b", Path: "s/b.json", Schema: "true"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
}
