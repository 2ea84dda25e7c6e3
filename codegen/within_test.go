package codegen_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
)

// TestWithinOn32Bit: a flow's within is at most 64 (spec 5.4: the engine
// keeps 64 tool names), so values above 2^31, which once reached the
// generated code, are OAR_FLOW at load; the largest valid window
// generates Go that type-checks where int is 32 bits.
func TestWithinOn32Bit(t *testing.T) {
	write := func(dir, id, within string) {
		t.Helper()
		doc := "oar: '1.0'\nid: " + id + "\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n" +
			"flow: {sequence: [read_file, [http_post, bash]], within: " + within + "}\n"
		if err := os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := t.TempDir()
	os.MkdirAll(filepath.Join(big, "policy"), 0o755)
	for id, within := range map[string]string{"W31": "2147483648", "W33": "5000000000", "WMAX": "9223372036854775807"} {
		write(big, id, within)
	}
	_, diags := compiler.LoadPack(big, compiler.Options{})
	if codes := diags.Codes(); len(codes) != 3 || slices.IndexFunc(codes, func(c string) bool { return c != compiler.CodeFlow }) >= 0 {
		t.Fatalf("windows above 64: codes %v, want 3 x OAR_FLOW\n%s", codes, diags.Text())
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	write(dir, "W64", "64")
	p, diags := compiler.LoadPack(dir, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	src, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "w"})
	if err != nil {
		t.Fatal(err)
	}
	for _, goarch := range []string{"386", "arm", "amd64"} {
		typeCheckFor(t, src, goarch)
	}
}
