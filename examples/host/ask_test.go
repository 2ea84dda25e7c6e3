package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/internal/cli"
)

// TestAskThroughPipe drives the terminal prompt through a pipe (spec
// 5.12): the deploy goes ahead only on an explicit yes; a no, the end of
// the input, a timeout and no way to ask block it with the rule's
// rejection; the test run is never asked about.
func TestAskThroughPipe(t *testing.T) {
	const rejection = "      A person approves every deploy\n      Why: A deploy changes what users run.\n" +
		"      Fix: Say what the deploy changes, so that the person can decide.\n      Code: DEPLOY_NEEDS_APPROVAL\n"
	for _, tc := range []struct {
		name   string
		answer func(w *io.PipeWriter) // what the person does
		noWay  bool                   // no person at all
		want   []string
		not    []string
	}{
		{name: "yes", answer: func(w *io.PipeWriter) { io.WriteString(w, " Yes \n") },
			want: []string{"Approve? [y/N] ", "approved: the call goes ahead\n"}, not: []string{"[rejection]"}},
		{name: "y", answer: func(w *io.PipeWriter) { io.WriteString(w, "y\n") },
			want: []string{"approved: the call goes ahead\n"}, not: []string{"blocked"}},
		{name: "no", answer: func(w *io.PipeWriter) { io.WriteString(w, "n\n") },
			want: []string{"not approved: blocked\n    [rejection]\n" + rejection}},
		{name: "enter", answer: func(w *io.PipeWriter) { io.WriteString(w, "\n") },
			want: []string{"not approved: blocked\n"}},
		{name: "anything else", answer: func(w *io.PipeWriter) { io.WriteString(w, "sure, go on\n") },
			want: []string{"not approved: blocked\n"}},
		{name: "end of input", answer: func(w *io.PipeWriter) { w.Close() },
			want: []string{"no answer: blocked\n    [rejection]\n" + rejection}},
		{name: "timeout", answer: func(w *io.PipeWriter) {},
			want: []string{"no answer in 50ms: blocked\n"}},
		{name: "no way to ask", noWay: true,
			want: []string{"no way to ask a person: blocked\n    [rejection]\n      This action needs a person's approval, and no person could be asked; it is blocked.\n" + rejection},
			not:  []string{"Approve?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p *person
			if !tc.noWay {
				r, w := io.Pipe()
				defer w.Close()
				p = newPerson(r)
				go tc.answer(w)
			}
			var b bytes.Buffer
			runApprovals(&b, p, 50*time.Millisecond)
			out := b.String()
			want := append([]string{fmt.Sprintf("%-44s -> allow\n%-44s -> ask\n", "bash: make test", "bash: make deploy")}, tc.want...)
			for _, s := range want {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(out, s) {
					t.Errorf("output has %q:\n%s", s, out)
				}
			}
			if !tc.noWay && !strings.Contains(out, "[question for a person]\n      This action needs a person's approval before it runs.\n      A person approves every deploy\n") {
				t.Errorf("no question:\n%s", out)
			}
		})
	}
}

// TestApprovalsIsFresh fails when approvals/ is not what oarc generates
// from the approvals pack now (run go generate ./examples/host).
func TestApprovalsIsFresh(t *testing.T) {
	p, diags := compiler.LoadPack(filepath.Join("..", "approvals"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	want, err := codegen.Generate(compiler.Build(p), codegen.Options{Package: "approvals", Version: cli.Version})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join("approvals", "rules_oarc.go")); !bytes.Equal(got, want) {
		t.Error("examples/host/approvals is stale: run go generate ./examples/host")
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
