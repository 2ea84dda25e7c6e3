package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/internal/cli"
)

var update = flag.Bool("update", false, "rewrite testdata/transcript.txt")

// TestTranscript runs the whole script (the failure, the rule the agent
// adds through the tools, its trial, the promotion, oarc promote, the
// compiled run) and compares its transcript with testdata/transcript.txt.
func TestTranscript(t *testing.T) {
	var b bytes.Buffer
	if err := run(&b, "..", t.TempDir()); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	file := filepath.Join("testdata", "transcript.txt")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("the transcript changed (-want +got; go test -update rewrites it):\n%s", diff)
	}
}

// TestGeneratedIsFresh fails when rules/ or promoted/ is not what oarc
// generates now from ../pack and ../learned (run go generate
// ./examples/learn/host).
func TestGeneratedIsFresh(t *testing.T) {
	for _, args := range [][]string{
		{"gen", "-check", "-pack", "../pack", "-out", "rules", "-pkg", "rules"},
		{"gen", "-check", "-pack", "../pack", "-pack", "../learned", "-out", "promoted", "-pkg", "promoted"},
	} {
		var stdout, stderr bytes.Buffer
		if code := cli.Run(args, nil, &stdout, &stderr); code != 0 {
			t.Errorf("%v: exit code %d:\n%s%s", args, code, stdout.String(), stderr.String())
		}
	}
}
