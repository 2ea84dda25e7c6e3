package interp

import (
	"context"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/oarc/oarc/runtime"
)

// TestBoundedTimesMatchesMemStore replays random sequences of calls (times
// that jump forward by up to a day, sometimes back, past the 4,096-call
// bound) into the runtime's MemStore and into the oracle's bounded replay,
// and checks that both keep the same calls and drop up to the same time
// (spec 5.13), so that the two engines count windows alike.
func TestBoundedTimesMatchesMemStore(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for run := range 20 {
		m := runtime.NewMemStore(0)
		var calls []call
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
		n := 1 + r.Intn(6000)
		for i := range n {
			switch r.Intn(10) {
			case 0:
				at += int64(r.Intn(86401)) * int64(time.Second)
			case 1:
				at -= int64(r.Intn(600)) * int64(time.Second)
			default:
				at += int64(r.Intn(3)) * int64(time.Second)
			}
			tool := []string{"a", "b"}[r.Intn(2)]
			calls = append(calls, call{tool: tool, at: at})
			if err := m.Apply(context.Background(), "s", &runtime.Update{Calls: []runtime.Call{{Tool: tool, Time: at}}}); err != nil {
				t.Fatal(err)
			}
			if i != n-1 && r.Intn(500) != 0 {
				continue
			}
			var h runtime.History
			if err := m.Read(context.Background(), "s", &runtime.Snapshot{History: &h, Query: runtime.HistoryQuery{Times: true}}); err != nil {
				t.Fatal(err)
			}
			kept, dropped, droppedAt := boundedTimes(calls)
			var ats []int64
			var tools []string
			for _, k := range kept {
				ats, tools = append(ats, k.at), append(tools, k.tool)
			}
			got := h.Times
			if !slices.Equal(got.At, ats) || !slices.Equal(got.Tools, tools) || got.Dropped != dropped || got.DroppedAt != droppedAt {
				t.Fatalf("run %d after %d calls: MemStore keeps %d (dropped %v at %d), the oracle %d (dropped %v at %d)",
					run, i+1, len(got.At), got.Dropped, got.DroppedAt, len(ats), dropped, droppedAt)
			}
		}
	}
}
