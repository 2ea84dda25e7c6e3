package impl

import (
	"context"
	"errors"
	"testing"

	"github.com/oarc/oarc/runtime"
)

// lostRecord is a store whose reads fail: the session's record is lost.
type lostRecord struct{ *runtime.MemStore }

func (lostRecord) Read(context.Context, string, *runtime.Snapshot) error {
	return errors.New("the record is unreadable")
}

// An override of code_reject_total wins without the session's record, as
// the reference interpreter's does (interp/kept.go setRule) and as the
// other engine-kept facts' do (KeptFact): a record that cannot be read is
// no error of that read. Without the override the read is a store error.
func TestCodeRejectTotalOverrideReadsNoRecord(t *testing.T) {
	s := runtime.NewStoreSession(lostRecord{runtime.NewMemStore(0)}, "s")
	eval := func(o *runtime.KeptOverride) (int64, Err) {
		x := new(Exec)
		Begin(x, context.Background(), nil, s, &runtime.Decision{}, "tool.pre_invoke", 0, "", nil)
		x.Call("bash", nil, true, true, o)
		x.History([]string{"R"}, false)
		return x.CodeRejectTotal(0, "R")
	}
	if n, e := eval(&runtime.KeptOverride{Has: runtime.KeptCodeRejectTotal, CodeRejectTotal: 4}); !e.Ok() || n != 4 {
		t.Errorf("with the override: %d, %v; want 4 and no error", n, e)
	}
	if _, e := eval(nil); e.Kind != runtime.ErrStore {
		t.Errorf("without the override: %v; want an error of kind store", e)
	}
}

// shortTotals is a store that answers fewer counts of blocks than the
// query has codes (a store out of step with the engine).
type shortTotals struct{ *runtime.MemStore }

func (s shortTotals) Read(ctx context.Context, session string, snap *runtime.Snapshot) error {
	err := s.MemStore.Read(ctx, session, snap)
	if h := snap.History; h != nil && len(h.Totals) > 0 {
		h.Totals, h.TotalsKnown = h.Totals[:len(h.Totals)-1], h.TotalsKnown[:len(h.TotalsKnown)-1]
	}
	return err
}

// code_reject_total is 0 without a session (no blocks yet), and an error,
// never 0, when the record read holds no count for the code.
func TestCodeRejectTotalMissingCount(t *testing.T) {
	eval := func(s *runtime.Session, codes []string, i int) (int64, Err) {
		x := new(Exec)
		Begin(x, context.Background(), nil, s, &runtime.Decision{}, "tool.pre_invoke", 0, "", nil)
		x.Call("bash", nil, true, true, nil)
		x.History(codes, false)
		return x.CodeRejectTotal(i, codes[min(i, len(codes)-1)])
	}
	for i := range 2 {
		if n, e := eval(nil, []string{"R", "S"}, i); !e.Ok() || n != 0 {
			t.Errorf("no session, code %d: %d, %v; want 0", i, n, e)
		}
	}
	s := runtime.NewStoreSession(runtime.NewMemStore(0), "s")
	if n, e := eval(s, []string{"R", "S"}, 1); !e.Ok() || n != 0 {
		t.Errorf("a new session: %d, %v; want 0", n, e)
	}
	short := runtime.NewStoreSession(shortTotals{runtime.NewMemStore(0)}, "s")
	if n, e := eval(short, []string{"R", "S"}, 1); e.Kind != runtime.ErrStore {
		t.Errorf("a count missing: %d, %v; want an error of kind store", n, e)
	}
	if n, e := eval(short, []string{"R", "S"}, 0); !e.Ok() || n != 0 {
		t.Errorf("the count present: %d, %v; want 0", n, e)
	}
}
