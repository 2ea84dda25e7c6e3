package check

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/oarc/oarc/bench/check/rules"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// turn is a model turn of n tool calls at tool.pre_invoke.
func turn(tools ...string) []lycaon.Occurrence {
	occs := make([]lycaon.Occurrence, len(tools))
	for i, t := range tools {
		occs[i].Anchor = lycaon.ToolPreInvoke
		occs[i].Facts.Tool = t
		occs[i].Facts.ToolArgs = map[string]any{"i": int64(i)}
	}
	return occs
}

func newEvaluator(t testing.TB, opts ...runtime.Option) *rules.Evaluator {
	ev, err := rules.New(lycaon.Env{}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func breaker(t *testing.T, ev *rules.Evaluator, s *runtime.Session) int64 {
	k, _ := ev.CounterKey("TALLY", runtime.Breaker)
	var v [1]int64
	if err := runtime.ReadCounters(context.Background(), s.Store(), s.Key(), []runtime.CounterKey{k}, v[:]); err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// countingStore counts the store's Apply calls and can fail them.
type countingStore struct {
	*runtime.MemStore
	applies int
	fail    error
	last    runtime.Update
}

func (c *countingStore) Apply(ctx context.Context, session string, u *runtime.Update) error {
	c.applies++
	c.last = *u
	if c.fail != nil {
		return c.fail
	}
	return c.MemStore.Apply(ctx, session, u)
}

// TestCheckSemantics: every action reads the session as before the check
// (counters; recent_tool_names with its own tool last), sees batch_tools
// in order, and the check's updates go to the store in one Apply, in
// index order (the calls of the record in the actions' order); a blocked
// action does not block its siblings.
func TestCheckSemantics(t *testing.T) {
	ctx := context.Background()
	st := &countingStore{MemStore: runtime.NewMemStore(0)}
	s := runtime.NewStoreSession(st, "s")
	ev := newEvaluator(t)
	occs := turn("bash", "read_secret", "send_email", "bash")
	ds := make([]runtime.Decision, len(occs))
	if err := ev.EvaluateCheck(ctx, occs, s, ds); err != nil {
		t.Fatal(err)
	}
	want := []string{"warn TALLY", "block NO_SECRET_WITH_EMAIL", "allow ", "warn TALLY"}
	for i, d := range ds {
		if got := d.Effect.String() + " " + d.Code; got != want[i] {
			t.Errorf("action %d: %s, want %s", i, got, want[i])
		}
	}
	if got := strings.Join(ds[1].BatchTools, ","); got != "bash,read_secret,send_email,bash" {
		t.Errorf("batch_tools at read_secret: %s", got)
	}
	if st.applies != 1 {
		t.Errorf("%d store updates for the check, want 1", st.applies)
	}
	var tools []string
	for _, c := range st.last.Calls {
		tools = append(tools, c.Tool+":"+c.Code)
	}
	if got := strings.Join(tools, ","); got != "bash:,read_secret:NO_SECRET_WITH_EMAIL,send_email:,bash:" {
		t.Errorf("the record's calls: %s", got)
	}
	if n := breaker(t, ev, s); n != 2 {
		t.Errorf("TALLY.breaker after the check: %d, want 2 (two actions counted)", n)
	}
	// The next check reads what the first applied: recent_tool_names is
	// the record before it with its own tool last.
	occs = turn("ls", "cat")
	ds = ds[:2]
	if err := ev.EvaluateCheck(ctx, occs, s, ds); err != nil {
		t.Fatal(err)
	}
	for i, own := range []string{"ls", "cat"} {
		got := strings.Join(ds[i].Kept.RecentToolNames, ",")
		if want := "bash,read_secret,send_email,bash," + own; got != want {
			t.Errorf("action %d: recent_tool_names %s, want %s", i, got, want)
		}
	}
}

// TestCheckErrors: occurrences at different anchors, and a decision per
// occurrence missing, are errors of the call that block every decision
// and apply nothing; an empty check does nothing.
func TestCheckErrors(t *testing.T) {
	ctx := context.Background()
	st := &countingStore{MemStore: runtime.NewMemStore(0)}
	s := runtime.NewStoreSession(st, "s")
	ev := newEvaluator(t)
	occs := turn("bash", "bash")
	occs[1].Anchor = lycaon.ToolPostInvoke
	ds := make([]runtime.Decision, 2)
	err := ev.EvaluateCheck(ctx, occs, s, ds)
	if !errors.Is(err, runtime.ErrCheckAnchors) {
		t.Errorf("mixed anchors: %v", err)
	}
	for i, d := range ds {
		if d.Effect != runtime.Block || len(d.Errors) != 1 || d.Errors[0].Err.Kind != runtime.ErrInvalidArgument {
			t.Errorf("mixed anchors, decision %d: %s %v", i, d.Effect, d.Errors)
		}
	}
	if err := ev.EvaluateCheck(ctx, turn("bash", "bash"), s, ds[:1]); !errors.Is(err, runtime.ErrBadCall) || ds[0].Effect != runtime.Block {
		t.Errorf("one decision for two occurrences: %v, %s", err, ds[0].Effect)
	}
	var nilEv *rules.Evaluator
	if err := nilEv.EvaluateCheck(ctx, turn("bash"), s, ds[:1]); !errors.Is(err, runtime.ErrBadCall) || ds[0].Effect != runtime.Block {
		t.Errorf("nil evaluator: %v, %s", err, ds[0].Effect)
	}
	if err := ev.EvaluateCheck(ctx, nil, s, nil); err != nil {
		t.Errorf("empty check: %v", err)
	}
	if st.applies != 0 {
		t.Errorf("%d store updates, want none", st.applies)
	}
}

// TestCheckFailedApply: the check's updates that the store refuses are
// reported in every decision, as a single evaluation reports its own.
func TestCheckFailedApply(t *testing.T) {
	st := &countingStore{MemStore: runtime.NewMemStore(0), fail: runtime.NotApplied(errors.New("store down"))}
	s := runtime.NewStoreSession(st, "s")
	ev := newEvaluator(t)
	ds := make([]runtime.Decision, 3)
	if err := ev.EvaluateCheck(context.Background(), turn("bash", "ls", "cat"), s, ds); err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		if len(d.Errors) != 1 || d.Errors[0].Err.Kind != runtime.ErrStore || !strings.Contains(d.Errors[0].Err.Error(), "not applied") {
			t.Errorf("decision %d: errors %v", i, d.Errors)
		}
	}
	if st.applies != 1 {
		t.Errorf("%d store updates, want 1", st.applies)
	}
}

// recorder keeps the records it is given.
type recorder struct{ recs []runtime.Record }

func (r *recorder) Record(rec *runtime.Record) { r.recs = append(r.recs, *rec) }

// TestCheckRecords: with a recorder, every action's decision is recorded
// after the check's updates were applied, with the session's tenant.
func TestCheckRecords(t *testing.T) {
	rec := &recorder{}
	st := &countingStore{MemStore: runtime.NewMemStore(0), fail: errors.New("store down")}
	s := runtime.NewStoreSession(st, "s", runtime.WithTenant("acme"))
	ev := newEvaluator(t, runtime.WithRecorder(rec))
	ds := make([]runtime.Decision, 2)
	ev.EvaluateCheck(context.Background(), turn("read_secret", "send_email"), s, ds)
	if len(rec.recs) != 2 {
		t.Fatalf("%d records, want 2", len(rec.recs))
	}
	for i, r := range rec.recs {
		if r.Tenant != "acme" || r.Session != "s" || len(r.Errors) != 1 {
			t.Errorf("record %d: tenant %q session %q errors %v", i, r.Tenant, r.Session, r.Errors)
		}
	}
	if rec.recs[0].Code != "NO_SECRET_WITH_EMAIL" || rec.recs[1].Tool != "send_email" {
		t.Errorf("records: %+v", rec.recs)
	}
}

// TestCheckZeroAllocs: a check of 1 to 8 actions allocates nothing without
// a recorder, once the decisions' and the session's buffers have grown.
func TestCheckZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	ctx := context.Background()
	ev := newEvaluator(t)
	all := turn("bash", "read_secret", "send_email", "ls", "bash", "cat", "grep", "bash")
	for n := 1; n <= 8; n++ {
		s := runtime.NewSession(fmt.Sprint("s", n))
		occs := all[:n]
		ds := make([]runtime.Decision, n)
		for range 100 {
			ev.EvaluateCheck(ctx, occs, s, ds)
		}
		if a := testing.AllocsPerRun(200, func() { ev.EvaluateCheck(ctx, occs, s, ds) }); a != 0 {
			t.Errorf("a check of %d actions: %v allocations", n, a)
		}
	}
}

// BenchmarkCheck4 evaluates a model turn of 4 calls as one check;
// BenchmarkSingle4 evaluates the same calls one by one (run them
// interleaved, BENCHMARKS.md).
func BenchmarkCheck4(b *testing.B) {
	ctx := context.Background()
	ev := newEvaluator(b)
	occs := turn("bash", "read_secret", "ls", "bash")
	s := runtime.NewSession("s")
	ds := make([]runtime.Decision, len(occs))
	b.ReportAllocs()
	for b.Loop() {
		ev.EvaluateCheck(ctx, occs, s, ds)
	}
}

func BenchmarkSingle4(b *testing.B) {
	ctx := context.Background()
	ev := newEvaluator(b)
	occs := turn("bash", "read_secret", "ls", "bash")
	s := runtime.NewSession("s")
	var d runtime.Decision
	b.ReportAllocs()
	for b.Loop() {
		for i := range occs {
			ev.Evaluate(ctx, &occs[i], s, &d)
		}
	}
}
