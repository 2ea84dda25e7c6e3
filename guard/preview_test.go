package guard_test

import (
	"context"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// A preview (Conn.Preview) decides a call as Begin would now and changes
// nothing: previewed any number of times, a call is still the session's
// first (REPEAT_NUDGE, lycaon.repeat_count >= 1, does not fire on the
// call made after them), in the process and in a store shared with other
// processes; a decision record is not written; a previewed call cannot be
// finished (what it would return is the guard's refusal, never a result).
func TestPreviewChangesNothing(t *testing.T) {
	var recs []runtime.Record
	g := newGuard(t, runtime.WithRecorder(recorderFunc(func(r *runtime.Record) { recs = append(recs, *r) })))
	for _, shared := range []bool{false, true} {
		recs = recs[:0]
		sess := runtime.NewSession("p")
		if shared {
			sess = runtime.NewStoreSession(runtime.NewMemStore(0), "p", runtime.WithTenant("acme"))
		}
		c := g.NewConn(sess, fs, guard.ConnOptions{AllInputs: true, Shared: shared, Profiles: runtime.ProfileSession | runtime.ProfileProvenance})
		a := args(t, map[string]any{"path": "/a"})
		for range 3 {
			k := c.Preview(context.Background(), nil, "read_text_file", a)
			if k.Blocked() != nil {
				t.Fatalf("preview: %s", k.Blocked())
			}
			if out := decode(t, k.Finish(context.Background(), []byte(`{"content":[{"type":"text","text":"x"}]}`), 0, guard.FinishOptions{})); !out.IsError || out.Meta["oarc/code"] != guard.CodeGuard {
				t.Errorf("a previewed call finished: %+v", out)
			}
		}
		if len(recs) != 0 {
			t.Errorf("shared=%v: a preview wrote decision records: %+v", shared, recs)
		}
		k := c.Begin(context.Background(), nil, "read_text_file", a)
		if n := k.Notes(); n != "" {
			t.Errorf("shared=%v: the call after three previews reads them as earlier calls: %q", shared, n)
		}
		out := decode(t, k.Finish(context.Background(), []byte(`{"content":[{"type":"text","text":"x"}]}`), 0, guard.FinishOptions{}))
		if out.IsError || out.Meta["oarc/node"] != "r1" {
			t.Errorf("shared=%v: the call: %+v", shared, out)
		}
		// The call was recorded: the next identical one is a repeat.
		if k := c.Begin(context.Background(), nil, "read_text_file", a); k.Notes() == "" {
			t.Errorf("shared=%v: the second call is not a repeat of the first", shared)
		}
		if len(recs) == 0 {
			t.Errorf("shared=%v: no decision records of the calls", shared)
		}
	}
}

type recorderFunc func(*runtime.Record)

func (f recorderFunc) Record(r *runtime.Record) { f(r) }
