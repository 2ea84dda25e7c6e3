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
