package impl

import (
	"context"
	"slices"
	"testing"

	"github.com/oarc/oarc/runtime"
)

// An occurrence that overrides one engine-kept fact and not another, in a
// session whose record cannot be read: the overridden fact reads the
// host's value, before and after the other fact's read failed, and the
// other is an error of kind store (spec 5.10: "when the store cannot be
// read, reading one of these facts is a CEL error"), never a zero.
func TestKeptFactOverrideBesideUnreadableRecord(t *testing.T) {
	s := runtime.NewStoreSession(lostRecord{runtime.NewMemStore(0)}, "s")
	o := &runtime.KeptOverride{Has: runtime.KeptRepeatCount | runtime.KeptRecentToolNames, RepeatCount: 5, RecentToolNames: []string{"a", "b"}}
	x := new(Exec)
	Begin(x, context.Background(), nil, s, &runtime.Decision{}, "tool.pre_invoke", 0, "", nil)
	x.Call("bash", nil, true, true, o)
	x.History(nil, true)
	for round := 0; round < 2; round++ {
		if k, e := x.KeptFact(runtime.KeptRepeatCount); !e.Ok() || k.RepeatCount != 5 {
			t.Errorf("round %d: repeat_count %d, %v; want the override 5 and no error", round, k.RepeatCount, e)
		}
		if k, e := x.KeptFact(runtime.KeptRecentToolNames); !e.Ok() || !slices.Equal(k.RecentToolNames, []string{"a", "b"}) {
			t.Errorf("round %d: recent_tool_names %v, %v; want the override", round, k.RecentToolNames, e)
		}
		if _, e := x.KeptFact(runtime.KeptSameCodeRejectRun); e.Kind != runtime.ErrStore {
			t.Errorf("round %d: same_code_reject_run read %v; want an error of kind store", round, e)
		}
	}
}

// With a readable record, a fact read through its override keeps the
// override after another fact's read derived the record (Kept re-applies
// every override), and the facts not overridden are the record's.
func TestKeptFactOverrideThenRecord(t *testing.T) {
	st := runtime.NewMemStore(0)
	s := runtime.NewStoreSession(st, "s")
	ctx := context.Background()
	// Two identical calls blocked with R, recorded.
	for range 2 {
		x := new(Exec)
		d := &runtime.Decision{}
		Begin(x, ctx, nil, s, d, "tool.pre_invoke", 0, "", nil)
		x.Call("bash", map[string]any{"c": "x"}, true, true, nil)
		x.D.Effect, x.D.Code = runtime.Block, "R"
		x.apply()
		if len(d.Errors) != 0 {
			t.Fatal(d.Errors)
		}
	}
	o := &runtime.KeptOverride{Has: runtime.KeptRecentToolNames, RecentToolNames: []string{"z"}}
	x := new(Exec)
	Begin(x, ctx, nil, s, &runtime.Decision{}, "tool.pre_invoke", 0, "", nil)
	x.Call("bash", map[string]any{"c": "x"}, true, true, o)
	x.History(nil, true)
	if k, e := x.KeptFact(runtime.KeptRecentToolNames); !e.Ok() || !slices.Equal(k.RecentToolNames, []string{"z"}) {
		t.Fatalf("recent_tool_names %v, %v; want the override", k.RecentToolNames, e)
	}
	k, e := x.KeptFact(runtime.KeptRepeatCount)
	if !e.Ok() || k.RepeatCount != 2 || k.SameCodeRun != 2 {
		t.Errorf("repeat_count %d, same_code_reject_run %d, %v; want 2 and 2 from the record", k.RepeatCount, k.SameCodeRun, e)
	}
	if k, e := x.KeptFact(runtime.KeptRecentToolNames); !e.Ok() || !slices.Equal(k.RecentToolNames, []string{"z"}) {
		t.Errorf("after the record was read: recent_tool_names %v, %v; want the override still", k.RecentToolNames, e)
	}
}
