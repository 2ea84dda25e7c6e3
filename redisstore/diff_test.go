package redisstore_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/storetest"
	"github.com/redis/go-redis/v9"
)

// TestDifferentialMemStore drives the Redis store and runtime.MemStore
// (one per session key: a MemStore keeps one session) with the same
// random sequences of checks, and compares every read, field for field,
// and what rules derive from it (the window counts of spec 5.13 and their
// errors, code_reject_total and its error). Its biases are those the
// conformance suite's differential tests do not have: sessions of one id
// in several tenants whose names hold the key's separators and braces;
// checks of several actions (spec 5.11) whose counter updates interleave
// increments and resets of one counter in index order; long runs of one
// call and of one code; calls with codes over many tools, past
// runtime.TotalsLimit pairs; times that go backwards, jump by a day, or
// sit at either end of the int64 range (spec 5.13); windows whose edge is
// a kept call's time, to the nanosecond, and calls exactly the times'
// span apart; and sessions corrupted by hand (a field deleted or added, a
// value not in the store's form, a key of another type): the Redis store
// then refuses every read and update (ErrCorrupt) until the session is
// reset, and after the reset both stores start over alike.
func TestDifferentialMemStore(t *testing.T) {
	const sec = int64(1e9)
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	tenants := []string{"", "t", "a}b", "{x}", "\x00", "t\x00\"t\"\x00"}
	ids := []string{"s", "}s{", "{s}"}
	rules := []string{"R", "Q", "R.fire", "c:R"}
	codes := []string{"R", "Q", "", "t:1:x", "\x00"}
	for _, tc := range []struct {
		seed  uint64
		steps int
		start int64
		pairs bool // spread codes over many tools: past TotalsLimit
	}{
		{1, 250, 1_800_000_000 * sec, false},
		{2, 250, math.MinInt64 + 3600*sec, false},
		{3, 250, math.MaxInt64 - 3600*sec, false},
		{4, 80, 1_800_000_000 * sec, true},
		{5, 250, -sec / 2, false},
	} {
		rng := rand.New(rand.NewPCG(tc.seed, 1013))
		// bias draws the new biases (edges, corruption), so that the
		// sequences of rng stay the ones the checks of what they reach
		// were written for.
		bias := rand.New(rand.NewPCG(tc.seed, 2027))
		corrupted := 0
		ref := map[string]*runtime.MemStore{}
		now := map[string]int64{}
		last := map[string]runtime.Call{}
		keys := []string{}
		for _, tn := range tenants {
			for _, id := range ids {
				k := runtime.SessionKey(tn, id+strconv.FormatUint(tc.seed, 10))
				ref[k], now[k] = runtime.NewMemStore(0), tc.start
				keys = append(keys, k)
			}
		}
		ckeys := []runtime.CounterKey{}
		for i, r := range rules {
			ckeys = append(ckeys, runtime.CounterKey{Slot: int32(i), Rule: r, Counter: runtime.Fire}, runtime.CounterKey{Slot: int32(i), Rule: r, Counter: runtime.Breaker})
		}
		next := 0
		call := func(k string) runtime.Call {
			c := last[k]
			repeat := 5
			if tc.pairs {
				repeat = 1
			}
			switch r := rng.IntN(10); {
			case r < repeat && c.Tool != "":
				// The same call again (a long run), maybe with another code.
			case tc.pairs:
				next++
				c = runtime.Call{Tool: "tool-" + strconv.Itoa(next), HasFingerprint: true}
			default:
				c = runtime.Call{Tool: []string{"bash", "read", "}", "{", "\x00", ""}[rng.IntN(6)], HasFingerprint: rng.IntN(6) > 0}
				c.Fingerprint[0] = byte(rng.IntN(2))
			}
			switch r := rng.IntN(10); {
			case tc.pairs:
				c.Code = codes[rng.IntN(2)]
			case r < 4:
				// A run of one code: keep it.
			default:
				c.Code = codes[rng.IntN(len(codes))]
			}
			var d int64
			switch r := rng.IntN(20); {
			case r < 10:
				d = rng.Int64N(10 * sec)
			case r < 13:
				d = -rng.Int64N(600 * sec) // backwards
			case r < 15:
				d = 24*3600*sec + rng.Int64N(3*sec) - sec // about the span
			case r < 16:
				d = -25 * 3600 * sec
			}
			if e := bias.IntN(12); e < 3 {
				// Exactly the times' span after the latest, or a
				// nanosecond either side: the oldest call is dropped, or
				// kept, at its edge.
				d = int64(runtime.TimesSpan) + int64(e) - 1
			}
			t := now[k]
			if (d > 0 && t > math.MaxInt64-d) || (d < 0 && t < math.MinInt64-d) {
				d = -d
			}
			now[k] = t + d
			c.Time = now[k]
			if c.Time == 0 {
				c.Time = 1
			}
			last[k] = c
			return c
		}
		// What the sequences reach (checked at the end): runs, code runs,
		// dropped times, a record full of pairs.
		var longRun, codeRun, dropped, full bool
		for step := range tc.steps {
			k := keys[rng.IntN(len(keys))]
			if tc.pairs {
				k = keys[step%2] // two sessions, each past the limit
			}
			var u runtime.Update
			// A check of several actions: each action's counter updates,
			// then the next's, in index order (spec 5.11).
			actions := 1 + rng.IntN(4)
			if rng.IntN(10) == 0 {
				actions = 0
			}
			if tc.pairs {
				actions = 20 + rng.IntN(40)
			}
			for range actions {
				u.Calls = append(u.Calls, call(k))
				for range rng.IntN(3) {
					u.Counters = append(u.Counters, runtime.CounterUpdate{Key: ckeys[rng.IntN(len(ckeys))], Reset: rng.IntN(3) == 0})
				}
			}
			if actions == 0 {
				u.Counters = append(u.Counters, runtime.CounterUpdate{Key: ckeys[rng.IntN(len(ckeys))]})
			}
			what := ""
			if !tc.pairs && bias.IntN(25) == 0 {
				what = corrupt(t, c, prefix+"{"+k+"}", bias)
			}
			if what != "" {
				// The store refuses the session until it is reset; then
				// both stores start it over.
				corrupted++
				readAll := func() error {
					var h runtime.History
					return s.Read(ctx, k, &runtime.Snapshot{Keys: ckeys, Counters: make([]int64, len(ckeys)), History: &h, Query: runtime.HistoryQuery{Times: true}})
				}
				if err := readAll(); !errors.Is(err, redisstore.ErrCorrupt) {
					t.Fatalf("seed %d step %d: a read of a corrupted session (%s): %v", tc.seed, step, what, err)
				}
				// An update that does not read the corrupt value (another
				// counter) may apply; none makes the session read whole.
				if err := s.Apply(ctx, k, &u); err != nil && (!errors.Is(err, redisstore.ErrCorrupt) || !errors.Is(err, runtime.ErrNotApplied)) {
					t.Fatalf("seed %d step %d: an update of a corrupted session (%s): %v", tc.seed, step, what, err)
				}
				if err := readAll(); !errors.Is(err, redisstore.ErrCorrupt) {
					t.Fatalf("seed %d step %d: a read of a corrupted session (%s) after an update: %v", tc.seed, step, what, err)
				}
				if err := s.ResetSession(ctx, k); err != nil {
					t.Fatal(err)
				}
				ref[k] = runtime.NewMemStore(0)
			}
			if err := s.Apply(ctx, k, &u); err != nil {
				t.Fatalf("seed %d step %d: %v", tc.seed, step, err)
			}
			if err := ref[k].Apply(ctx, k, &u); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				q := runtime.HistoryQuery{Names: rng.IntN(2) == 0, Times: rng.IntN(3) > 0, LastTool: rng.IntN(3) == 0, Tool: last[k].Tool}
				if rng.IntN(4) == 0 {
					q.Tool = "bash"
				}
				for range rng.IntN(4) {
					q.Codes = append(q.Codes, codes[rng.IntN(len(codes))])
				}
				var got, want runtime.History
				gs := runtime.Snapshot{Keys: ckeys, Counters: make([]int64, len(ckeys)), History: &got, Query: q}
				ws := runtime.Snapshot{Keys: ckeys, Counters: make([]int64, len(ckeys)), History: &want, Query: q}
				if err := s.Read(ctx, k, &gs); err != nil {
					t.Fatalf("seed %d step %d: %v", tc.seed, step, err)
				}
				if err := ref[k].Read(ctx, k, &ws); err != nil {
					t.Fatal(err)
				}
				if !q.Names {
					got.Tools, want.Tools = nil, nil
				}
				// The last call's time is not a part of the read (no fact
				// reads it: the times are in Times); MemStore keeps it.
				want.Last.Time = 0
				at := fmt.Sprintf("seed %d step %d, session %q, query %+v", tc.seed, step, k, q)
				longRun = longRun || want.Run >= 5
				codeRun = codeRun || want.CodeRun >= 3
				dropped = dropped || want.Times.Dropped
				full = full || slices.Contains(want.TotalsKnown, false)
				if !storetest.Equal(&got, &want) || !slices.Equal(gs.Counters, ws.Counters) {
					t.Fatalf("%s:%s\ncounters %v, MemStore %v", at, storetest.Diff(&got, &want), gs.Counters, ws.Counters)
				}
				for i, code := range q.Codes {
					for _, atCall := range []bool{true, false} {
						gk := runtime.KeptFacts{History: got}
						wk := runtime.KeptFacts{History: want}
						gv, gerr := gk.CodeRejectTotal(atCall, i, code)
						wv, werr := wk.CodeRejectTotal(atCall, i, code)
						if gv != wv || (gerr == nil) != (werr == nil) {
							t.Fatalf("%s: code_reject_total of %q: %d %v, MemStore %d %v", at, code, gv, gerr, wv, werr)
						}
					}
				}
				if q.Times {
					for _, n := range []int64{1, 30, 3600, runtime.MaxWindow} {
						t0s := []int64{now[k], math.MinInt64, math.MaxInt64}
						if len(want.Times.At) > 0 {
							// A window whose edge is a kept call's time.
							at := want.Times.At[bias.IntN(len(want.Times.At))]
							for _, e := range []int64{-1, 0, 1} {
								if at <= math.MaxInt64-n*sec-1 {
									t0s = append(t0s, at+n*sec+e)
								}
							}
						}
						for _, t0 := range t0s {
							for _, tool := range []string{"", "bash"} {
								gv, gerr := got.Times.Within(t0, n, tool, tool == "")
								wv, werr := want.Times.Within(t0, n, tool, tool == "")
								if gv != wv || (gerr == nil) != (werr == nil) {
									t.Fatalf("%s: calls of %q within %d s of %d: %d %v, MemStore %d %v", at, tool, n, t0, gv, gerr, wv, werr)
								}
							}
						}
					}
				}
			}
		}
		if (!longRun && !tc.pairs) || !codeRun || (!dropped && !tc.pairs) || full != tc.pairs || (corrupted < 3 && !tc.pairs) {
			t.Fatalf("seed %d: a run of 5 calls %v, of 3 blocks %v, times dropped %v, pairs past the limit %v, sessions corrupted %d", tc.seed, longRun, codeRun, dropped, full, corrupted)
		}
	}
}

// corrupt edits the session whose hash is h by hand, as bias draws:
// a field deleted, a field added, a counter or the record not in the
// store's form, the calls' times cut short, the hash or the marker a key
// of another type. It reports whether it edited anything (a session that
// does not exist yet has nothing to corrupt).
func corrupt(t *testing.T, c *redis.Client, h string, bias *rand.Rand) (what string) {
	t.Helper()
	fields, err := c.HKeys(ctx, h).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) == 0 {
		return ""
	}
	slices.Sort(fields)
	f := fields[bias.IntN(len(fields))]
	switch bias.IntN(7) {
	case 0:
		c.HDel(ctx, h, f)
		return "deleted " + f
	case 1:
		c.HSet(ctx, h, "c:Z.fire", "1")
		return "added c:Z.fire"
	case 2:
		v := []string{"nan", "-1", "1.5", "0", "9223372036854775807", "1000000000000000"}[bias.IntN(6)]
		c.HSet(ctx, h, "c:R.fire", v)
		recount(c, h)
		return "c:R.fire " + v
	case 3:
		c.HSet(ctx, h, "r", "1,1,0,0,0,0,0,0,")
		recount(c, h)
		return "r without its fingerprint"
	case 4:
		if v, _ := c.HGet(ctx, h, "ct").Result(); len(v) > 1 {
			c.HSet(ctx, h, "ct", v[:len(v)-1])
			return fmt.Sprintf("ct %q cut to %q", v, v[:len(v)-1])
		}
		c.HSet(ctx, h, "seq", "-1")
		recount(c, h)
		return "seq -1"
	case 5:
		c.Del(ctx, h)
		c.RPush(ctx, h, "x")
		return "the hash a list"
	}
	c.Del(ctx, h+":m")
	c.SAdd(ctx, h+":m", "g")
	return "the marker a set"
}
