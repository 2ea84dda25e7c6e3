package rulestore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// TestReviewRvLEmptyWhenPlaced: a `when` that ends before its condition
// (empty, or only line breaks) is refused at a position inside it, its
// end (spec 12: every diagnostic with its position in the rule's
// `when`), not on a line after its last one.
func TestReviewRvLEmptyWhenPlaced(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, c := range []struct{ when, at string }{
		{`""`, "when:1:1"},
		{`"\n"`, "when:2:1"},
		{`"\n\n"`, "when:3:1"},
		{`"tool == \"a\" &&\n\n"`, "when:1:15"},
	} {
		_, err := s.Add(rulestore.Draft{Rule: []byte(`{"oar":"1.0","id":"F_W","kind":"policy","anchor":"tool.pre_invoke","effect":"warn","requires":{"profiles":["tool"]},"when":` + c.when + `,"copy":{"title":"W"}}`)})
		var rej *rulestore.RejectedError
		if !errors.As(err, &rej) || len(rej.Diagnostics) != 1 {
			t.Fatalf("when %s: %v", c.when, err)
		}
		if got := rej.Diagnostics[0].String(); !strings.HasPrefix(got, c.at+": error: ") || !strings.HasSuffix(got, "^") {
			t.Errorf("when %s: want it at %s, with its caret:\n%s", c.when, c.at, got)
		}
	}
}

// TestReviewRvLBrokenRulesRender: a live rule of the store that no longer
// loads is in force all the same (it fails as its on_error says at every
// occurrence of its anchor, docs/store.md), so the rendered context shows
// it as it shows the store's rules in force (spec 10, 12: the agent knows
// a rule before it trips it): an active one under "## Rules", a candidate
// as provisional with its trial. Its selector is not read, so it is
// global: a hint never leaves it out.
func TestReviewRvLBrokenRulesRender(t *testing.T) {
	gone := `fire_count_of("NOPE") > 0 || tool == "rm"`
	path := writeFile(t,
		record("H_A_CAND", "candidate", gone, `,"trial":{"sessions":3,"fired_sessions":2,"monitored":2,"errors":0,"threshold":5,"verdict":"pending"}`)+"\n",
		record("H_C_GONE", "active", gone, "")+"\n",
		record("H_D_RETIRED", "retired", gone, "")+"\n",
	)
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "## Rules\n\n" +
		"- **A_LONG**: Long command\n  - Instead: Split it.\n" +
		"- **A_RM_RF**: Deleting the root\n  - Fix: Delete inside the project only.\n" +
		"- **A_TALLY**: Many calls\n" +
		"- **H_C_GONE**: Rule H_C_GONE\n  - Fix: Do it otherwise.\n\n" +
		"### Provisional rules (under evaluation)\n\n" +
		"_These rules are on trial: they are not enforced yet. Follow them all the same, as if they were._\n\n" +
		"- **H_A_CAND**: Rule H_A_CAND (trial: 2/5 sessions)\n  - Fix: Do it otherwise.\n"
	if diff := cmp.Diff(want, s.Context("", 0)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := s.Context("deleting root", 1); !strings.Contains(got, "- **H_C_GONE**: Rule H_C_GONE\n") || !strings.Contains(got, "- **H_A_CAND**") {
		t.Errorf("with a hint:\n%s", got)
	}
}

// syncWriter is a host's writer that can be synced (as an *os.File).
type syncWriter struct {
	bytes.Buffer
	syncs int
	err   error
}

func (w *syncWriter) Sync() error { w.syncs++; return w.err }

// TestReviewRvLStatusChangesAreSynced: a rule added, promoted or retired
// is on stable storage when the call returns (a choice of ours,
// docs/store.md): a promotion lost to a crash after the person was told
// it was done would put an enforced rule back in monitor without a word
// (no torn line is left to report). A sync that fails is the call's
// error (the record was written: the rule is in force as written). Trial
// steps, a line per firing, are not synced.
func TestReviewRvLStatusChangesAreSynced(t *testing.T) {
	w := &syncWriter{}
	s, err := rulestore.New("rules.jsonl", nil, w, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(rulestore.Draft{Rule: doc("Y_ONE", `tool == "rm"`)}); err != nil || w.syncs != 1 {
		t.Fatalf("Add: %v, %d syncs", err, w.syncs)
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range []string{"a", "b", "c"} {
		var d runtime.Decision
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: "rm"}}
		if err := ev.Evaluate(context.Background(), occ, runtime.NewSession(sess), &d); err != nil || !slices.Contains(d.Monitored, "Y_ONE") {
			t.Fatalf("%v %v", err, d.Monitored)
		}
	}
	if in, _ := s.Status("Y_ONE"); in.Record.Trial.FiredSessions != 3 || w.syncs != 1 {
		t.Fatalf("trial %+v, %d syncs", in.Record.Trial, w.syncs)
	}
	if _, err := s.Promote("Y_ONE"); err != nil || w.syncs != 2 {
		t.Fatalf("Promote: %v, %d syncs", err, w.syncs)
	}
	if _, err := s.Retire("Y_ONE", "done"); err != nil || w.syncs != 3 {
		t.Fatalf("Retire: %v, %d syncs", err, w.syncs)
	}
	w.err = errors.New("disk gone")
	if _, err := s.Add(rulestore.Draft{Rule: doc("Y_TWO", `tool == "mv"`)}); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("Add with a failing sync: %v", err)
	}
	if in, _ := s.Status("Y_TWO"); !in.InForce {
		t.Errorf("Y_TWO was written, but is not in force: %+v", in)
	}
	// Opened by path, the file is synced.
	fs, path := openTemp(t, baseSet(t), rulestore.Options{})
	if _, err := fs.Add(rulestore.Draft{Rule: doc("Y_ONE", `tool == "rm"`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Promote("Y_ONE"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); bytes.Count(b, []byte("\n")) != 2 {
		t.Fatalf("%s", b)
	}
}

// TestReviewRvLUnsyncableWriter: a host's writer that cannot be synced at
// all (an *os.File that is a pipe: fsync says EINVAL) is not a failing
// sync: the record is where the host sent it, and Add succeeds.
func TestReviewRvLUnsyncableWriter(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	go func() { _, _ = io.Copy(io.Discard, r) }()
	s, err := rulestore.New("pipe", nil, w, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(rulestore.Draft{Rule: doc("Y_PIPE", `tool == "rm"`)}); err != nil {
		t.Fatalf("Add to a pipe: %v", err)
	}
}
