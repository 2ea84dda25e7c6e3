package impl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/runtime"
)

// noTimes is a store that keeps the record of tool calls but not their
// times (as the Redis store does today): it answers the history without
// History.Times.
type noTimes struct{ *runtime.MemStore }

func (s noTimes) Read(ctx context.Context, session string, snap *runtime.Snapshot) error {
	h := snap.History
	snap.History = nil
	err := s.MemStore.Read(ctx, session, snap)
	snap.History = h
	if h != nil {
		h.Reset()
	}
	return err
}

func evalAt(t *testing.T, s *runtime.Session, anchor, tool string, at time.Time) *Exec {
	t.Helper()
	x := new(Exec)
	Begin(x, context.Background(), nil, s, &runtime.Decision{}, anchor, 0, "", nil)
	x.Call(tool, nil, anchor == "tool.pre_invoke", true, nil)
	x.When(at, true)
	x.Times()
	return x
}

// TestCallsWithinStores: with a MemStore the window counts the recorded
// calls and the current one; a store that keeps no times makes the read
// an error of kind store ("not kept by this store"), never a count; a
// computed window out of range is invalid_argument.
func TestCallsWithinStores(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, st := range []runtime.Store{runtime.NewMemStore(0), noTimes{runtime.NewMemStore(0)}} {
		s := runtime.NewStoreSession(st, "s")
		for i := range 3 {
			x := evalAt(t, s, "tool.pre_invoke", "a", t0.Add(time.Duration(i)*time.Second))
			x.Finish()
		}
		x := evalAt(t, s, "tool.pre_invoke", "a", t0.Add(3*time.Second))
		n, e := x.CallsWithin(3)
		if _, ok := st.(noTimes); ok {
			if e.Kind != runtime.ErrStore || !strings.Contains(e.Error(), "not kept by this store") {
				t.Errorf("a store without times: %d, %v; want a store error", n, e)
			}
			continue
		}
		if !e.Ok() || n != 3 {
			t.Errorf("calls_within(3) = %d, %v; want 3 (two recorded, the current one)", n, e)
		}
		if n, e := x.ToolCallsWithin("b", 60); !e.Ok() || n != 0 {
			t.Errorf("tool_calls_within(b) = %d, %v", n, e)
		}
		if _, e := x.CallsWithin(0); e.Kind != runtime.ErrInvalidArgument {
			t.Errorf("calls_within(0): %v, want invalid_argument", e)
		}
		y := evalAt(t, s, "tool.post_invoke", "a", t0.Add(3*time.Second))
		if n, e := y.CallsWithin(3); !e.Ok() || n != 2 {
			t.Errorf("calls_within(3) at tool.post_invoke = %d, %v; want 2", n, e)
		}
	}
}

// TestLocalTime: local_hour and local_weekday in zones with daylight
// saving, and an unknown zone an invalid_argument error.
func TestLocalTime(t *testing.T) {
	x := new(Exec)
	Begin(x, context.Background(), nil, nil, &runtime.Decision{}, "a", 0, "", nil)
	x.When(time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), false) // 03:00 in Paris, just after the change
	if h, e := x.LocalHour("Europe/Paris"); !e.Ok() || h != 3 {
		t.Errorf("local_hour(Europe/Paris) = %d, %v; want 3", h, e)
	}
	if d, e := x.LocalWeekday("America/Los_Angeles"); !e.Ok() || d != 6 {
		t.Errorf("local_weekday(America/Los_Angeles) = %d, %v; want 6 (Saturday evening)", d, e)
	}
	for _, z := range []string{"Europe/Nowhere", "", "Local"} {
		if _, e := x.LocalHour(z); e.Kind != runtime.ErrInvalidArgument {
			t.Errorf("local_hour(%q): %v, want invalid_argument", z, e)
		}
	}
}

// TestLocalTimeBeyondUnixNanos: local_hour and local_weekday read the
// occurrence's time itself, not its Unix nanoseconds, which int64 holds
// only from 1677 to 2262: a host time outside that range gives its own
// hour and day, as the oracle (interp) answers, not those of a wrapped
// count of nanoseconds.
func TestLocalTimeBeyondUnixNanos(t *testing.T) {
	for _, at := range []time.Time{
		time.Date(2300, 1, 1, 12, 0, 0, 0, time.UTC),     // a Monday
		time.Date(1600, 6, 1, 3, 0, 0, 0, time.UTC),      // a Thursday
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),         // a Monday
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), // a Friday
	} {
		x := new(Exec)
		Begin(x, context.Background(), nil, nil, &runtime.Decision{}, "a", 0, "", nil)
		x.When(at, false)
		if h, e := x.LocalHour("UTC"); !e.Ok() || h != int64(at.Hour()) {
			t.Errorf("%v: local_hour(UTC) = %d, %v; want %d", at, h, e, at.Hour())
		}
		if d, e := x.LocalWeekday("Etc/GMT+12"); !e.Ok() || d != int64(at.Add(-12*time.Hour).Weekday()) {
			t.Errorf("%v: local_weekday(Etc/GMT+12) = %d, %v; want %d", at, d, e, at.Add(-12*time.Hour).Weekday())
		}
	}
}
