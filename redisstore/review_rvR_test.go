package redisstore_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/storetest"
)

// TestEdgeTimesAgainstMemStore: the Redis store keeps the calls' times as
// runtime.MemStore does at the times the random differential test seldom
// or never draws: the ends of the int64 range (the times
// runtime.UnixNanos saturates to), a cut exactly at them, the Unix epoch
// (0: a call without a time, kept by neither), a nanosecond either side
// of it and of whole seconds below it (where seconds are floored), and
// times past 2^53 nanoseconds, which one Lua number does not hold
// exactly. After each update both stores' reads are equal and so is every
// window count (spec 5.13) at the edges and at each kept time.
func TestEdgeTimesAgainstMemStore(t *testing.T) {
	const sec = int64(1e9)
	span := int64(runtime.TimesSpan)
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	s, _, _ := newStoreAt(t, redisstore.Options{})
	for i, seq := range [][][]int64{
		{{lo}, {lo + 1}, {lo + span - 1}, {lo + span}, {lo + span + 1}, {lo}},
		{{hi - span}, {hi - span + 1}, {hi}, {hi}, {hi - 1, lo}, {lo + 1}},
		{{-sec}, {-1}, {0}, {1}, {-sec - 1, 0, sec - 1}, {sec}, {-span}, {span - sec}, {span}},
		{{lo, hi}, {0}, {hi - span, hi - span - 1}},
		{{1<<53 - 1}, {1 << 53}, {1<<53 + 1}, {-(1 << 53) - 1}, {hi - 1}, {hi - 2}, {lo + 2}},
		{{lo + span + sec/2}, {lo + sec/2}, {lo + 2*span + sec/2}, {lo + span + sec/2 + 1}},
	} {
		id := fmt.Sprintf("edge%d", i)
		ref := runtime.NewMemStore(0)
		for j, times := range seq {
			var u runtime.Update
			for k, at := range times {
				u.Calls = append(u.Calls, runtime.Call{Tool: []string{"a", "b"}[(j+k)%2], Time: at})
			}
			at := fmt.Sprintf("sequence %d, update %d %v", i, j, times)
			if err := s.Apply(ctx, id, &u); err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			if err := ref.Apply(ctx, id, &u); err != nil {
				t.Fatal(err)
			}
			var got, want runtime.History
			q := runtime.HistoryQuery{Times: true, Tool: "a"}
			if err := s.Read(ctx, id, &runtime.Snapshot{History: &got, Query: q}); err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			if err := ref.Read(ctx, id, &runtime.Snapshot{History: &want, Query: q}); err != nil {
				t.Fatal(err)
			}
			want.Last.Time = 0 // not a part of the Redis store's read
			if !storetest.Equal(&got, &want) {
				t.Fatalf("%s:%s", at, storetest.Diff(&got, &want))
			}
			nows := []int64{lo, lo + 1, hi, hi - 1, 0, -1, 1}
			for _, kt := range want.Times.At {
				for _, e := range []int64{-1, 0, 1} {
					nows = append(nows, kt+e)
					if kt <= hi-span-1 {
						nows = append(nows, kt+span+e)
					}
				}
			}
			for _, n := range []int64{1, runtime.MaxWindow} {
				for _, now := range nows {
					for _, tool := range []string{"", "a"} {
						gv, gerr := got.Times.Within(now, n, tool, tool == "")
						wv, werr := want.Times.Within(now, n, tool, tool == "")
						if gv != wv || fmt.Sprint(gerr) != fmt.Sprint(werr) {
							t.Fatalf("%s: calls of %q within %d s of %d: %d %v, MemStore %d %v", at, tool, n, now, gv, gerr, wv, werr)
						}
					}
				}
			}
		}
	}
}
