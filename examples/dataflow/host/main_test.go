package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/internal/cli"
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

// TestGeneratedIsFresh fails when rules/ or rules/finbot/ is not what oarc
// generates from the two packs and their catalog now (run go generate
// ./examples/dataflow/host). It runs the go:generate command with -check.
func TestGeneratedIsFresh(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"gen", "-check", "-pack", "../payments", "-pack", "../project", "-out", "rules"}
	if code := cli.Run(args, nil, &stdout, &stderr); code != 0 {
		t.Errorf("exit code %d:\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestZeroAllocs evaluates every occurrence of the demo again, in its
// session with the whole graph recorded, and wants no allocation once the
// decision's and the session's buffers have grown.
func TestZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	l := runLoop(io.Discard)
	ctx := context.Background()
	for i := range l.checked {
		occ := l.checked[i]
		l.ev.Evaluate(ctx, &occ, l.session, &l.d)
		if n := testing.AllocsPerRun(100, func() { l.ev.Evaluate(ctx, &occ, l.session, &l.d) }); n != 0 {
			t.Errorf("occurrence %d (%s at %s): %v allocations per evaluation", i, occ.Facts.Tool, occ.Anchor, n)
		}
	}
}
