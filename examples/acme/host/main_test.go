package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/examples/acme/host/rules"
	"github.com/oarc/oarc/internal/cli"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
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

// TestGeneratedIsFresh fails when rules/ or rules/acme/ is not what oarc
// generates from ../rules and its catalog now (run go generate
// ./examples/acme/host). It runs the go:generate command with -check.
func TestGeneratedIsFresh(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"gen", "-check", "-pack", "../rules", "-out", "rules"}, nil, &stdout, &stderr); code != 0 {
		t.Errorf("exit code %d:\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestZeroAllocs evaluates the demo's occurrences (providers included) and
// wants no allocation once the decision has grown.
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
	for _, st := range steps() {
		if st.what == "answer with a token" {
			continue // the toy validator itself allocates its answer
		}
		occ := st.occ
		ev.Evaluate(context.Background(), &occ, s, &d)
		if n := testing.AllocsPerRun(100, func() { ev.Evaluate(context.Background(), &occ, s, &d) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation", st.what, n)
		}
	}
}
