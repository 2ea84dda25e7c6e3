package main

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/examples/host/rules"
	"github.com/oarc/oarc/lycaon"
	oarc "github.com/oarc/oarc/runtime"
)

// repeatCall is the grep that the starter's escalation rules count.
func repeatCall(n int64) *lycaon.Occurrence {
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "grep"
	occ.Facts.ToolArgs = map[string]any{"pattern": "TODO"}
	occ.Kept = &oarc.KeptOverride{Has: oarc.KeptRepeatCount, RepeatCount: n}
	return occ
}

// A session made without a store (the zero value, a nil store, a nil
// *MemStore) is a host's mistake: the counter rules fail closed at their
// read and the updates are reported, never counters read as zero in
// silence; Record and MarkIncomplete return an error instead of
// panicking.
func TestSessionWithoutStore(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, s := range map[string]*oarc.Session{
		"zero value":    {},
		"nil store":     oarc.NewStoreSession(nil, "s"),
		"nil *MemStore": oarc.NewStoreSession((*oarc.MemStore)(nil), "s"),
	} {
		if err := s.Record(ctx, oarc.Node{ID: "a", Kind: oarc.Message}); err == nil || !strings.Contains(err.Error(), "no store") {
			t.Errorf("%s: Record: %v, want the no-store error", name, err)
		}
		if err := s.MarkIncomplete(ctx); err == nil {
			t.Errorf("%s: MarkIncomplete: no error", name)
		}
		var d oarc.Decision
		ev.Evaluate(ctx, repeatCall(5), s, &d)
		if d.Effect != oarc.Block || len(d.FailedClosed) == 0 {
			t.Errorf("%s: %v %q failed closed %q errors %v; want the counter rules to fail closed", name, d.Effect, d.Code, d.FailedClosed, d.Errors)
		}
		store := false
		for _, e := range d.Errors {
			store = store || e.Err.Kind == oarc.ErrStore
		}
		if !store {
			t.Errorf("%s: errors %v, want a store error", name, d.Errors)
		}
	}
}

// A validator or provider that leaves by runtime.Goexit (t.FailNow in a
// test double) while bound to a deadline gave no answer: the rule fails
// closed, it is not an allow.
func TestGoexitIsNoAnswer(t *testing.T) {
	env := demoEnv()
	env.Providers.PathOutsideScope = func(context.Context, *lycaon.Occurrence, string) (bool, error) {
		runtime.Goexit()
		return false, nil
	}
	env.Validators["secrets.v2"] = func(context.Context, *lycaon.Occurrence) (oarc.Detection, error) {
		runtime.Goexit()
		return oarc.Detection{}, nil
	}
	ev, err := rules.New(env)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		tool string
		args map[string]any
		kind oarc.ErrKind
	}{
		{"write", map[string]any{"path": "/home/agent/project/x"}, oarc.ErrProvider},
		{"http_post", map[string]any{"url": "https://example.com", "body": "x"}, oarc.ErrDetector},
	} {
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
		occ.Facts.Tool, occ.Facts.ToolArgs = c.tool, c.args
		var d oarc.Decision
		ev.Evaluate(ctx, occ, oarc.NewSession("s"), &d)
		found := false
		for _, e := range d.Errors {
			found = found || e.Err.Kind == c.kind
		}
		if d.Effect != oarc.Block || !found {
			t.Errorf("%s: %v %q errors %v; want a block failing closed on a %v error", c.tool, d.Effect, d.Code, d.Errors, c.kind)
		}
	}
}

// lateStore answers a read once the context's deadline has passed,
// ignoring that the context ended.
type lateStore struct {
	*oarc.MemStore
}

func (s lateStore) Read(ctx context.Context, id string, snap *oarc.Snapshot) error {
	<-ctx.Done()
	return s.MemStore.Read(context.Background(), id, snap)
}

// A store's answer that comes after the deadline is not used: the counter
// read is a store error and the rule fails closed (docs/choices-runtime.md).
func TestLateStoreAnswer(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	s := oarc.NewStoreSession(lateStore{oarc.NewMemStore(0)}, "s")
	// A deadline long enough for the read to begin before it on a loaded
	// machine: with 5ms the evaluation began after it now and then (1 run
	// in 1000 under load), and the store was rightly never called.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var d oarc.Decision
	ev.Evaluate(ctx, repeatCall(5), s, &d)
	late := false
	for _, e := range d.Errors {
		late = late || e.Err.Kind == oarc.ErrStore && strings.Contains(e.Err.S, "after the deadline")
	}
	if !late || d.Effect != oarc.Block {
		t.Errorf("%v %q errors %v; want the late snapshot refused and the rule failing closed", d.Effect, d.Code, d.Errors)
	}
	// The deadline's time, not ctx.Err(): the timer that cancels ctx runs
	// on a goroutine of its own, late on a loaded machine.
	if dl, _ := ctx.Deadline(); time.Now().Before(dl) {
		t.Fatal("the test's deadline did not pass")
	}
}
