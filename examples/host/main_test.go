package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
)

// TestOutput runs the demo and compares it with testdata/output.txt.
func TestOutput(t *testing.T) {
	var b bytes.Buffer
	run(&b)
	want, err := os.ReadFile(filepath.Join("testdata", "output.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("output changed:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestGeneratedIsFresh fails when rules/ is not what oarc generates from
// the starter pack now (run go generate ./examples/host).
func TestGeneratedIsFresh(t *testing.T) {
	p, diags := compiler.LoadPack(filepath.Join("..", "starter"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	want, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "rules"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("rules", "rules_oarc.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("examples/host/rules is stale: run go generate ./examples/host")
	}
}
