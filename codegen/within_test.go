package codegen_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
)

// TestWithinOn32Bit: a flow's within above 2^31 (it exceeds every history,
// but is valid) generates Go that type-checks where int is 32 bits.
func TestWithinOn32Bit(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	for id, within := range map[string]string{"W31": "2147483648", "W33": "5000000000", "WMAX": "9223372036854775807"} {
		doc := "oar: '1.0'\nid: " + id + "\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n" +
			"flow: {sequence: [read_file, [http_post, bash]], within: " + within + "}\n"
		if err := os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, diags := compiler.LoadPack(dir, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	if len(p.Rules) != 3 {
		t.Fatalf("%d rules", len(p.Rules))
	}
	src, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "w"})
	if err != nil {
		t.Fatal(err)
	}
	for _, goarch := range []string{"386", "arm", "amd64"} {
		typeCheckFor(t, src, goarch)
	}
}
