package kept

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/oarc/oarc/bench/benchloop"
	"github.com/oarc/oarc/bench/kept/plain"
	"github.com/oarc/oarc/bench/kept/reads"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// args are arguments of 10 keys whose canonical JSON is 256 bytes.
func args() map[string]any {
	a := map[string]any{}
	for i, k := range []string{"command", "cwd", "timeout", "description", "background", "path", "mode", "user", "shell", "env"} {
		if i == 2 {
			a[k] = int64(3000)
			continue
		}
		a[k] = strings.Repeat(k[:1], 15)
	}
	return a
}

type evaluator interface {
	Evaluate(context.Context, *lycaon.Occurrence, *runtime.Session, *runtime.Decision) error
}

func occurrence() *lycaon.Occurrence {
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "bash"
	occ.Facts.ToolArgs = args()
	return occ
}

func TestCanonicalSize(t *testing.T) {
	b, err := runtime.AppendCanonical(nil, args())
	if err != nil || len(b) != 256 {
		t.Fatalf("canonical JSON of the benchmark's arguments: %d bytes, %v", len(b), err)
	}
}

// A set whose rules read no engine-kept fact records nothing: its session
// holds no call after many occurrences; one that reads repeat_count
// records each, and both allocate nothing per occurrence.
func TestRecordsOnlyWhenRead(t *testing.T) {
	ctx := context.Background()
	pe, _ := plain.New(lycaon.Env{})
	re, _ := reads.New(lycaon.Env{})
	for _, c := range []struct {
		name    string
		ev      evaluator
		records bool
	}{{"plain", pe, false}, {"reads", re, true}} {
		s := runtime.NewSession("s")
		occ := occurrence()
		var d runtime.Decision
		for range 5 {
			c.ev.Evaluate(ctx, occ, s, &d)
		}
		var h runtime.History
		if err := s.Store().Read(ctx, s.ID(), &runtime.Snapshot{History: &h}); err != nil {
			t.Fatal(err)
		}
		if (h.Calls > 0) != c.records {
			t.Errorf("%s: the session recorded %d calls", c.name, h.Calls)
		}
		if c.records && d.Code != "REPEAT" {
			t.Errorf("reads: the fifth identical call is %s %s, want the nudge", d.Effect, d.Code)
		}
		if racecheck.Enabled {
			continue
		}
		if n := testing.AllocsPerRun(500, func() { c.ev.Evaluate(ctx, occ, s, &d) }); n != 0 {
			t.Errorf("%s: %v allocations per occurrence", c.name, n)
		}
	}
}

// BenchmarkKept: the same occurrence (a bash call with 10 arguments, 256
// bytes of canonical JSON) in one session, repeated: after the third call
// the reads pack nudges on every one (its decision no longer changes),
// the plain pack allows every one. SHA256 is the hash of those 256 bytes
// alone, the floor of what reading a fingerprint costs.
func BenchmarkKept(b *testing.B) {
	ctx := context.Background()
	pe, _ := plain.New(lycaon.Env{})
	re, _ := reads.New(lycaon.Env{})
	for _, c := range []struct {
		name string
		ev   evaluator
	}{{"plain", pe}, {"reads", re}} {
		b.Run(c.name, func(b *testing.B) {
			s := runtime.NewSession("s")
			occ := occurrence()
			var d runtime.Decision
			for range 3 {
				c.ev.Evaluate(ctx, occ, s, &d)
			}
			benchloop.Loop(b, func() { c.ev.Evaluate(ctx, occ, s, &d) })
		})
	}
	b.Run("sha256", func(b *testing.B) {
		data, _ := runtime.AppendCanonical(nil, args())
		benchloop.Loop(b, func() { sha256.Sum256(data) })
	})
}

// unreadable is a store whose reads fail: the session's record is lost.
type unreadable struct{ runtime.Store }

func (unreadable) Read(context.Context, string, *runtime.Snapshot) error {
	return errors.New("the record is unreadable")
}

// A rule that reads an engine-kept fact the occurrence overrides reads the
// override without the session's record (as the reference interpreter
// does): a record that cannot be read is no error of that read. Without
// the override the same read fails closed with an error of kind store.
func TestOverrideReadsNoRecord(t *testing.T) {
	ctx := context.Background()
	ev, _ := reads.New(lycaon.Env{})
	s := runtime.NewStoreSession(unreadable{runtime.NewMemStore(0)}, "s")
	occ := occurrence()
	occ.Kept = &runtime.KeptOverride{Has: runtime.KeptRepeatCount, RepeatCount: 3}
	var d runtime.Decision
	ev.Evaluate(ctx, occ, s, &d)
	if d.Code != "REPEAT" || len(d.Errors) != 0 {
		t.Errorf("with the override: %s %s, errors %v; want the nudge and no error", d.Effect, d.Code, d.Errors)
	}
	occ.Kept.RepeatCount = 2
	ev.Evaluate(ctx, occ, s, &d)
	if d.Code != "" || len(d.Errors) != 0 {
		t.Errorf("with an override of 2: %s %s, errors %v; want allow", d.Effect, d.Code, d.Errors)
	}
	occ.Kept = nil
	ev.Evaluate(ctx, occ, s, &d)
	if len(d.Errors) != 1 || d.Errors[0].Err.Kind != runtime.ErrStore || d.Code != "REPEAT" {
		t.Errorf("without the override: %s %s, errors %v; want the store error, failing closed", d.Effect, d.Code, d.Errors)
	}
}
