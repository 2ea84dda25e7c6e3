package main

import (
	"bytes"
	"context"
	"github.com/oarc/oarc/testkit/racecheck"
	"os"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/examples/host/rules"
	"github.com/oarc/oarc/internal/cli"
	"github.com/oarc/oarc/runtime"
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
	want, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "rules", Version: cli.Version})
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

// TestZeroAllocs evaluates the demo's calls (providers and validators
// included) and wants no allocation once the decision has grown.
func TestZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	s := runtime.NewSession("t")
	var d runtime.Decision
	for _, c := range calls() {
		if c.what == "http_post with an access key" {
			continue // the toy validator itself allocates its answer
		}
		occ := c.occ
		ev.Evaluate(context.Background(), &occ, s, &d)
		if n := testing.AllocsPerRun(100, func() { ev.Evaluate(context.Background(), &occ, s, &d) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation", c.what, n)
		}
	}
}
