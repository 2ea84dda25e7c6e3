package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/examples/dataflow/host/rules/finbot"
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
// decision's and the session's buffers have grown. Occurrences that reach
// CONFIDENTIAL_DOC_OUT are left out: reading provenance_nodes builds a map
// per node in scope and may allocate (spec 5.11); BenchmarkProvenance
// measures them.
func TestZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	l := runLoop(io.Discard)
	ctx := context.Background()
	for i := range l.checked {
		occ := l.checked[i]
		if readsNodes(&occ) {
			continue
		}
		l.ev.Evaluate(ctx, &occ, l.session, &l.d)
		if n := testing.AllocsPerRun(100, func() { l.ev.Evaluate(ctx, &occ, l.session, &l.d) }); n != 0 {
			t.Errorf("occurrence %d (%s at %s): %v allocations per evaluation", i, occ.Facts.Tool, occ.Anchor, n)
		}
	}
}

// TestTurnZeroAllocs: a turn's check (EvaluateCheck, batch_tools read by
// NO_READ_WITH_EGRESS) allocates nothing once the decisions' buffers have
// grown, for the turns none of whose calls reaches CONFIDENTIAL_DOC_OUT.
func TestTurnZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	l := runLoop(io.Discard)
	ctx := context.Background()
	tested := 0
turns:
	for i, occs := range l.turns {
		for j := range occs {
			if readsNodes(&occs[j]) {
				continue turns
			}
		}
		tested++
		ds := make([]runtime.Decision, len(occs))
		l.ev.EvaluateCheck(ctx, occs, l.session, ds)
		if n := testing.AllocsPerRun(100, func() { l.ev.EvaluateCheck(ctx, occs, l.session, ds) }); n != 0 {
			t.Errorf("turn %d (%d calls): %v allocations per check", i, len(occs), n)
		}
	}
	if tested == 0 {
		t.Error("no turn of the demo was measured")
	}
}

// readsNodes reports whether an occurrence at tool.pre_invoke gets as far
// as CONFIDENTIAL_DOC_OUT's provenance_nodes: its selector and the first
// half of its when.
func readsNodes(occ *finbot.Occurrence) bool {
	switch occ.Facts.Tool {
	case "http_post":
		return true
	case "send_email":
		to, _ := occ.Facts.ToolArgs["to"].(string)
		return !strings.HasSuffix(to, "@finbot.example")
	}
	return false
}
