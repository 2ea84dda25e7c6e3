package redisstore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
)

// TestCorruptTimes: the calls' times (ct) are read only in the form the
// scripts write them. The session holds three calls with times; each case
// replaces ct with another value: one the store would write is read as
// written, any other makes a read of the times an error (ErrCorrupt,
// never an empty record that counts 0 calls) and an update recording a
// call a day later (which walks every kept entry) refused, not applied,
// writing nothing; the session works again once reset.
func TestCorruptTimes(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	const sec = int64(1e9)
	t0 := 1_800_000_000*sec + 5
	calls := []runtime.Call{{Tool: "a", Time: t0}, {Tool: "a", Time: t0 + sec}, {Tool: "deploy", Time: t0 + 2*sec}}
	entries := "1800000000 5 1:a1800000001 5 1:a1800000002 5 6:deploy"
	valid := "3 1800000002 5 0 0 0;" + entries
	cases := []struct {
		name, value string
		ok          bool
	}{
		{"as written", valid, true},
		{"dropped before", "3 1800000002 5 1 1799999999 7;" + entries, true},
		{"negative seconds", "1 -2 999999999 0 0 0;-2 999999999 0:", true},
		{"garbage", "garbage", false},
		{"empty", "", false},
		{"no header end", "3 1800000002 5 0 0 0", false},
		{"a count too many", "4 1800000002 5 0 0 0;" + entries, false},
		{"a count too few", "2 1800000002 5 0 0 0;" + entries, false},
		{"a count past the limit", "4097 1800000002 5 0 0 0;" + entries, false},
		{"an empty ring with entries", "0 1800000002 5 0 0 0;" + entries, false},
		{"a leading zero", "03 1800000002 5 0 0 0;" + entries, false},
		{"minus zero", "1 -0 5 0 0 0;-0 5 0:", false},
		{"a billion nanoseconds", "3 1800000002 1000000000 0 0 0;" + entries, false},
		{"a drop time without a drop", "3 1800000002 5 0 1 0;" + entries, false},
		{"flag 2", "3 1800000002 5 2 0 0;" + entries, false},
		{"a sign on nanoseconds", "3 1800000002 -5 0 0 0;" + entries, false},
		{"an entry after the latest", "3 1800000001 5 0 0 0;" + entries, false},
		{"the oldest at the cut", "3 1800086400 5 0 0 0;1800000000 5 1:a1800000001 5 1:a1800086400 5 6:deploy", false},
		{"a byte after the last", valid + "x", false},
		{"a length past the end", strings.TrimSuffix(valid, "deploy") + "depl", false},
		{"a length too short", strings.Replace(valid, "6:deploy", "5:deploy", 1), false},
		{"a hexadecimal time", strings.Replace(valid, "1800000001 5", "0x6B49D201 5", 1), false},
		{"seconds past int64", "1 9223372037 0 0 0 0;9223372037 0 0:", false},
		{"13 digits", "1 1800000000000 0 0 0 0;1800000000000 0 0:", false},
		{"the int64 low end", "1 -9223372037 145224192 0 0 0;-9223372037 145224192 0:", true},
		{"a nanosecond below int64", "1 -9223372037 145224191 0 0 0;-9223372037 145224191 0:", false},
		{"an entry a nanosecond below int64", "1 -9223372037 145224192 0 0 0;-9223372037 145224191 0:", false},
		{"the int64 high end", "1 9223372036 854775807 0 0 0;9223372036 854775807 0:", true},
		{"a nanosecond past int64", "1 9223372036 854775808 0 0 0;9223372036 854775808 0:", false},
		{"a drop a nanosecond past int64", "1 9223372036 854775807 1 9223372036 854775808;9223372036 854775807 0:", false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("ct%d", i)
			h := prefix + "{" + id + "}"
			if err := s.Apply(ctx, id, &runtime.Update{Calls: calls}); err != nil {
				t.Fatal(err)
			}
			if v, _ := c.HGet(ctx, h, "ct").Result(); v != valid {
				t.Fatalf("the store wrote the times %q, the test's form is %q", v, valid)
			}
			c.HSet(ctx, h, "ct", tc.value)
			recount(c, h)
			before, _ := c.HGetAll(ctx, h).Result()
			var hist runtime.History
			rerr := s.Read(ctx, id, &runtime.Snapshot{History: &hist, Query: runtime.HistoryQuery{Times: true}})
			if tc.ok {
				if rerr != nil || !hist.Times.Kept || len(hist.Times.At) == 0 {
					t.Fatalf("a read: %v %+v; want it taken", rerr, hist.Times)
				}
				if err := s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "x", Time: t0 + 30*3600*sec}}}); err != nil {
					t.Fatalf("an update: %v", err)
				}
				return
			}
			if !errors.Is(rerr, redisstore.ErrCorrupt) || hist.Times.Kept {
				t.Fatalf("a read: %v (%+v), want ErrCorrupt", rerr, hist.Times)
			}
			if _, err := hist.Times.Within(t0+3*sec, 60, "", true); !errors.Is(err, runtime.ErrTimesNotKept) {
				t.Fatalf("the refused read's times count: %v", err)
			}
			aerr := s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "x", Time: t0 + 30*3600*sec}}, Counters: []runtime.CounterUpdate{{Key: fire("R")}}})
			if !errors.Is(aerr, redisstore.ErrCorrupt) || !errors.Is(aerr, runtime.ErrNotApplied) {
				t.Fatalf("an update: %v, want ErrCorrupt, not applied", aerr)
			}
			if after, _ := c.HGetAll(ctx, h).Result(); !maps(after, before) {
				t.Fatalf("a refused update wrote: %q, was %q", after, before)
			}
			if err := s.ResetSession(ctx, id); err != nil {
				t.Fatal(err)
			}
			if err := s.Read(ctx, id, &runtime.Snapshot{History: &hist, Query: runtime.HistoryQuery{Times: true}}); err != nil || !hist.Times.Kept || len(hist.Times.At) != 0 {
				t.Fatalf("after a reset: %v %+v", err, hist.Times)
			}
		})
	}
}
