// Package storetest is the conformance suite of [runtime.Store]: what
// every store of sessions must do, written once, so that runtime's
// MemStore and a store of its own module (redisstore) are held to the same
// behaviour. A store's tests run it:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) runtime.Store { return newStore(t) })
//	}
//
// It checks what can be checked in the process, through the Store
// interface only: counters (spec 5.3), the record of tool calls (spec
// 5.10) against the table of the spec and, call for call, against
// runtime.MemStore, with the calls' times (spec 5.13), the provenance graph's basics and limits (spec 5.7),
// the nodes a scope lists (provenance_nodes, spec 5.11) call for call
// against runtime.MemStore, tenants that share nothing (spec 5.11),
// and atomicity (spec 5.9: one consistent snapshot, all-or-nothing
// updates, no lost update under concurrency). What only a store's own
// tests can check (a server that goes down, state lost or corrupted
// behind the store's back) is theirs.
//
// The package imports only the standard library, testing and runtime.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/oarc/oarc/runtime"
)

// Run runs the suite. newStore returns an empty store with runtime's
// default [runtime.Limits], which the test may clean up with t.Cleanup.
// The suite asks for a store for each session it uses (a MemStore keeps
// one session, whatever its id), and keeps one session in each.
func Run(t *testing.T, newStore func(t *testing.T) runtime.Store) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, func(*testing.T) runtime.Store)
	}{
		{"Counters", counters},
		{"RecordEmpty", recordEmpty},
		{"RecordTable", recordTable},
		{"RecordMatchesMemStore", recordMatchesMemStore},
		{"RecordTotalsBound", recordTotalsBound},
		{"RecordStrings", recordStrings},
		{"RecordLastToolQuery", recordLastToolQuery},
		{"TimesMatchMemStore", timesMatchMemStore},
		{"ApplyAtomic", applyAtomic},
		{"ConcurrentCalls", concurrentCalls},
		{"Provenance", provenance},
		{"ProvenanceLimits", provenanceLimits},
		{"ProvenanceNodes", provenanceNodes},
		{"Tenants", tenants},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore) })
	}
}

var ctx = context.Background()

func fire(slot int32, rule string) runtime.CounterKey {
	return runtime.CounterKey{Slot: slot, Rule: rule, Counter: runtime.Fire}
}

func breaker(slot int32, rule string) runtime.CounterKey {
	return runtime.CounterKey{Slot: slot, Rule: rule, Counter: runtime.Breaker}
}

func readCounters(t *testing.T, st runtime.Store, session string, keys ...runtime.CounterKey) []int64 {
	t.Helper()
	dst := make([]int64, len(keys))
	for i := range dst {
		dst[i] = -1 // the store must write every one
	}
	if err := runtime.ReadCounters(ctx, st, session, keys, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// counters: absent counters read 0; updates apply in order (increments, a
// reset, more increments); a reset of an absent counter is 0; an empty
// update and an empty read do nothing.
func counters(t *testing.T, newStore func(*testing.T) runtime.Store) {
	st := newStore(t)
	if got := readCounters(t, st, "c", fire(0, "R"), breaker(0, "R")); !slices.Equal(got, []int64{0, 0}) {
		t.Fatalf("a new session: %v", got)
	}
	ups := []runtime.CounterUpdate{
		{Key: fire(0, "R")}, {Key: fire(0, "R")}, {Key: breaker(0, "R")},
		{Key: fire(0, "R"), Reset: true}, {Key: fire(0, "R")},
		{Key: fire(1, "Q")}, {Key: breaker(1, "Q"), Reset: true},
	}
	if err := runtime.ApplyCounters(ctx, st, "c", ups); err != nil {
		t.Fatal(err)
	}
	if got := readCounters(t, st, "c", fire(0, "R"), breaker(0, "R"), fire(1, "Q"), breaker(1, "Q")); !slices.Equal(got, []int64{1, 1, 1, 0}) {
		t.Fatalf("after the updates: %v, want [1 1 1 0]", got)
	}
	if err := st.Apply(ctx, "c", &runtime.Update{}); err != nil {
		t.Fatalf("an empty update: %v", err)
	}
	if err := st.Read(ctx, "c", &runtime.Snapshot{}); err != nil {
		t.Fatalf("an empty read: %v", err)
	}
	// Many increments in one update, all counted.
	var many []runtime.CounterUpdate
	for range 200 {
		many = append(many, runtime.CounterUpdate{Key: breaker(1, "Q")})
	}
	if err := runtime.ApplyCounters(ctx, st, "c", many); err != nil {
		t.Fatal(err)
	}
	if got := readCounters(t, st, "c", breaker(1, "Q")); got[0] != 200 {
		t.Fatalf("200 increments in one update: %d", got[0])
	}
}

// readHistory reads the record of session for q (and no counter), with
// the names (a store may leave them out when q.Names is false).
func readHistory(t *testing.T, st runtime.Store, session string, q runtime.HistoryQuery) *runtime.History {
	t.Helper()
	q.Names = true
	h := &runtime.History{Tools: []string{"stale"}, Totals: []int64{-1}, TotalsKnown: []bool{false}, Calls: -1}
	if err := st.Read(ctx, session, &runtime.Snapshot{History: h, Query: q}); err != nil {
		t.Fatal(err)
	}
	return h
}

func apply(t *testing.T, st runtime.Store, session string, calls ...runtime.Call) {
	t.Helper()
	if err := st.Apply(ctx, session, &runtime.Update{Calls: calls}); err != nil {
		t.Fatal(err)
	}
}

// recordEmpty: a session that recorded nothing has an empty record: no
// calls, no names, a zero last call, every total 0 and exact, for any
// query.
func recordEmpty(t *testing.T, newStore func(*testing.T) runtime.Store) {
	st := newStore(t)
	for _, q := range []runtime.HistoryQuery{
		{}, {Codes: []string{"A", "B"}, Tool: "bash"}, {Codes: []string{"A"}, LastTool: true},
	} {
		h := readHistory(t, st, "e", q)
		want := runtime.History{Totals: make([]int64, len(q.Codes)), TotalsKnown: slices.Repeat([]bool{true}, len(q.Codes))}
		if !Equal(h, &want) {
			t.Fatalf("%+v: the record of a new session: %s", q, Diff(h, &want))
		}
	}
	// Counters only: the record is not touched.
	if err := runtime.ApplyCounters(ctx, st, "e", []runtime.CounterUpdate{{Key: fire(0, "R")}}); err != nil {
		t.Fatal(err)
	}
	if h := readHistory(t, st, "e", runtime.HistoryQuery{}); h.Calls != 0 || len(h.Tools) != 0 {
		t.Fatalf("counter updates recorded calls: %+v", h)
	}
}

// model is spec 5.10's table over the whole list of calls.
type model struct{ calls []runtime.Call }

func same(a, b *runtime.Call) bool {
	return a.HasFingerprint && b.HasFingerprint && a.Tool == b.Tool && a.Fingerprint == b.Fingerprint
}

func (m *model) repeat(prev []runtime.Call, cur runtime.Call) int64 {
	n := int64(0)
	for i := len(prev) - 1; i >= 0 && same(&cur, &prev[i]); i-- {
		n++
	}
	return n
}

func (m *model) codeRun(prev []runtime.Call) int64 {
	if len(prev) == 0 || prev[len(prev)-1].Code == "" {
		return 0
	}
	code, n := prev[len(prev)-1].Code, int64(0)
	for i := len(prev) - 1; i >= 0 && prev[i].Code == code; i-- {
		n++
	}
	return n
}

func (m *model) total(prev []runtime.Call, code, tool string) int64 {
	n := int64(0)
	for _, c := range prev {
		if c.Code == code && c.Tool == tool {
			n++
		}
	}
	return n
}

func (m *model) names(prev []runtime.Call, cur *runtime.Call) []string {
	var names []string
	for _, p := range prev {
		names = append(names, p.Tool)
	}
	if cur != nil {
		names = append(names, cur.Tool)
	}
	if len(names) > runtime.RecentLimit {
		names = names[len(names)-runtime.RecentLimit:]
	}
	return names
}

// recordTable: the facts derived from what the store reads are the values
// the table of spec 5.10 defines over every call of the session, at
// tool.pre_invoke and at another anchor, for random sequences biased to
// repeats and runs of one code, longer than RecentLimit.
func recordTable(t *testing.T, newStore func(*testing.T) runtime.Store) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 11))
		st := newStore(t)
		session := "table" + strconv.FormatUint(seed, 10)
		var m model
		codes := []string{"A", "B"}
		for step := range 90 {
			tool := []string{"bash", "read", "grep"}[rng.IntN(3)]
			c := runtime.Call{Tool: tool, HasFingerprint: rng.IntN(10) > 0}
			c.Fingerprint[0] = byte(rng.IntN(2))
			var k runtime.KeptFacts
			if err := st.Read(ctx, session, &runtime.Snapshot{History: &k.History, Query: runtime.HistoryQuery{Codes: codes, Tool: tool, Names: true}}); err != nil {
				t.Fatal(err)
			}
			k.Derive(true, &c)
			at := fmt.Sprintf("seed %d step %d", seed, step)
			if want := m.repeat(m.calls, c); k.RepeatCount != want {
				t.Fatalf("%s: repeat_count %d, want %d", at, k.RepeatCount, want)
			}
			if want := m.codeRun(m.calls); k.SameCodeRun != want {
				t.Fatalf("%s: same_code_reject_run %d, want %d", at, k.SameCodeRun, want)
			}
			if want := m.names(m.calls, &c); !slices.Equal(k.RecentToolNames, want) {
				t.Fatalf("%s: recent_tool_names %q, want %q", at, k.RecentToolNames, want)
			}
			for i, code := range codes {
				if n, err := k.CodeRejectTotal(true, i, code); err != nil || n != m.total(m.calls, code, tool) {
					t.Fatalf("%s: code_reject_total(%s) %d %v, want %d", at, code, n, err, m.total(m.calls, code, tool))
				}
			}
			if rng.IntN(3) > 0 {
				c.Code = codes[rng.IntN(2)]
			}
			apply(t, st, session, c)
			m.calls = append(m.calls, c)
			// At another anchor: what the call just recorded read.
			var o runtime.KeptFacts
			if err := st.Read(ctx, session, &runtime.Snapshot{History: &o.History, Query: runtime.HistoryQuery{Codes: codes, LastTool: true, Names: true}}); err != nil {
				t.Fatal(err)
			}
			o.Derive(false, nil)
			prev, last := m.calls[:len(m.calls)-1], m.calls[len(m.calls)-1]
			if o.RepeatCount != m.repeat(prev, last) || o.SameCodeRun != m.codeRun(prev) || !slices.Equal(o.RecentToolNames, m.names(m.calls, nil)) {
				t.Fatalf("%s: at another anchor %d %d %q", at, o.RepeatCount, o.SameCodeRun, o.RecentToolNames)
			}
			for i, code := range codes {
				if n, err := o.CodeRejectTotal(false, i, code); err != nil || n != m.total(prev, code, last.Tool) {
					t.Fatalf("%s: code_reject_total(%s) at another anchor %d %v, want %d", at, code, n, err, m.total(prev, code, last.Tool))
				}
			}
		}
	}
}

// gen makes random checks for recordMatchesMemStore: calls biased to
// repeats of the one before, runs of one code, tools and codes that are
// arbitrary bytes, and, in many mode, a new tool for most calls, so that
// the record passes TotalsLimit pairs.
type gen struct {
	rng   *rand.Rand
	many  bool
	next  int
	last  runtime.Call
	tools []string
	codes []string
}

func newGen(seed uint64, many bool) *gen {
	return &gen{
		rng:   rand.New(rand.NewPCG(seed, 5)),
		many:  many,
		tools: []string{"bash", "read", "grep", "", "a:b", "t:1:x", "\x00", "é", "1:A"},
		codes: []string{"A", "B", "C:1", "1", "\x00"},
	}
}

func (g *gen) call() runtime.Call {
	r := g.rng
	var c runtime.Call
	switch {
	case g.next > 0 && r.IntN(2) == 0:
		c = g.last // a repeat, maybe with another code
		c.Code = ""
	case g.many && r.IntN(8) > 0:
		g.next++
		c = runtime.Call{Tool: "tool-" + strconv.Itoa(g.next), HasFingerprint: true}
	default:
		g.next++
		c = runtime.Call{Tool: g.tools[r.IntN(len(g.tools))], HasFingerprint: r.IntN(8) > 0}
		c.Fingerprint[r.IntN(8)] = byte(r.IntN(3))
	}
	switch n := r.IntN(10); {
	case n < 4 && g.last.Code != "":
		c.Code = g.last.Code // a run of one code
	case n < 7:
		c.Code = g.codes[r.IntN(len(g.codes))]
	}
	g.last = c
	return c
}

func (g *gen) query(lastTool string) runtime.HistoryQuery {
	r := g.rng
	q := runtime.HistoryQuery{Names: r.IntN(4) != 0}
	for range r.IntN(4) {
		q.Codes = append(q.Codes, append(g.codes, "never")[r.IntN(len(g.codes)+1)])
	}
	switch r.IntN(4) {
	case 0:
		q.LastTool = true
		q.Tool = "ignored"
	case 1:
		q.Tool = lastTool
	case 2:
		q.Tool = "tool-" + strconv.Itoa(r.IntN(g.next+1))
	default:
		q.Tool = g.tools[r.IntN(len(g.tools))]
	}
	return q
}

// recordMatchesMemStore: the same random checks (one call, several, none
// but counter updates) applied to the store and to a runtime.MemStore
// give the same History, field for field, for random queries, and the
// same counters.
func recordMatchesMemStore(t *testing.T, newStore func(*testing.T) runtime.Store) {
	for _, tc := range []struct {
		seed  uint64
		many  bool
		steps int
	}{{1, false, 160}, {2, false, 160}, {3, false, 160}, {4, true, 120}} {
		g := newGen(tc.seed, tc.many)
		st := newStore(t)
		ref := runtime.NewMemStore(0)
		session := fmt.Sprintf("diff%d", tc.seed)
		keys := []runtime.CounterKey{fire(0, "R"), breaker(0, "R")}
		for step := range tc.steps {
			var u runtime.Update
			n := 1
			switch r := g.rng.IntN(10); {
			case r == 0:
				n = 0
			case r < 3:
				n = 2 + g.rng.IntN(4)
			}
			if tc.many && g.rng.IntN(2) == 0 {
				n = 40 + g.rng.IntN(60)
			}
			for range n {
				u.Calls = append(u.Calls, g.call())
			}
			for range g.rng.IntN(3) {
				u.Counters = append(u.Counters, runtime.CounterUpdate{Key: keys[g.rng.IntN(2)], Reset: g.rng.IntN(4) == 0})
			}
			if err := st.Apply(ctx, session, &u); err != nil {
				t.Fatal(err)
			}
			if err := ref.Apply(ctx, session, &u); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				q := g.query(g.last.Tool)
				var got, want runtime.History
				gs := runtime.Snapshot{Keys: keys, Counters: make([]int64, 2), History: &got, Query: q}
				ws := runtime.Snapshot{Keys: keys, Counters: make([]int64, 2), History: &want, Query: q}
				if err := st.Read(ctx, session, &gs); err != nil {
					t.Fatal(err)
				}
				ref.Read(ctx, session, &ws)
				if !q.Names {
					// Without Names a store may leave the names out
					// (MemStore does), but not the last call's tool.
					got.Tools, want.Tools = nil, nil
				}
				if !Equal(&got, &want) || !slices.Equal(gs.Counters, ws.Counters) {
					t.Fatalf("seed %d step %d, query %+v:\n%s\ncounters %v, MemStore %v", tc.seed, step, q, Diff(&got, &want), gs.Counters, ws.Counters)
				}
			}
		}
		// The sequences reach what they are for: more than RecentLimit
		// calls; in many mode, a record full of pairs.
		h := readHistory(t, st, session, runtime.HistoryQuery{Codes: []string{"A"}, Tool: "never"})
		if h.Calls <= runtime.RecentLimit || tc.many && h.TotalsKnown[0] {
			t.Fatalf("seed %d: %d calls, the pairs full: %v", tc.seed, h.Calls, !h.TotalsKnown[0])
		}
	}
}

// recordTotalsBound: past TotalsLimit (code, tool) pairs, a pair the
// record holds still counts and reads exactly; a pair it could not count
// reads as unknown (an error for the rule), never as 0, at tool.pre_invoke
// and at another anchor.
func recordTotalsBound(t *testing.T, newStore func(*testing.T) runtime.Store) {
	st := newStore(t)
	var calls []runtime.Call
	for i := range runtime.TotalsLimit + 1 {
		calls = append(calls, runtime.Call{Tool: "t" + strconv.Itoa(i), Code: "R"})
	}
	apply(t, st, "bound", calls...)
	apply(t, st, "bound", runtime.Call{Tool: "t5", Code: "R"}, runtime.Call{Tool: "other"})
	read := func(q runtime.HistoryQuery) (int64, error) {
		var k runtime.KeptFacts
		if err := st.Read(ctx, "bound", &runtime.Snapshot{History: &k.History, Query: q}); err != nil {
			t.Fatal(err)
		}
		k.Derive(!q.LastTool, &runtime.Call{Tool: q.Tool})
		return k.CodeRejectTotal(!q.LastTool, 0, "R")
	}
	if n, err := read(runtime.HistoryQuery{Codes: []string{"R"}, Tool: "t5"}); n != 2 || err != nil {
		t.Errorf("a counted pair: %d %v, want 2", n, err)
	}
	if n, err := read(runtime.HistoryQuery{Codes: []string{"R"}, Tool: "t0"}); n != 1 || err != nil {
		t.Errorf("the first pair: %d %v, want 1", n, err)
	}
	for _, tool := range []string{"t" + strconv.Itoa(runtime.TotalsLimit), "never", "other"} {
		if _, err := read(runtime.HistoryQuery{Codes: []string{"R"}, Tool: tool}); err != runtime.ErrTotalsUnknown {
			t.Errorf("%s, a pair not counted once the record is full: %v", tool, err)
		}
	}
	if _, err := read(runtime.HistoryQuery{Codes: []string{"R"}, LastTool: true}); err != runtime.ErrTotalsUnknown {
		t.Errorf("the last call's tool, not counted: %v", err)
	}
	h := readHistory(t, st, "bound", runtime.HistoryQuery{Codes: []string{"R", "Q"}, Tool: "t7"})
	if h.Calls != runtime.TotalsLimit+3 || !slices.Equal(h.Totals, []int64{1, 0}) || !slices.Equal(h.TotalsKnown, []bool{true, false}) {
		t.Errorf("the record past the bound: %d calls, totals %v %v", h.Calls, h.Totals, h.TotalsKnown)
	}
}

// recordStrings: tool names and codes are arbitrary strings: a pair is
// never taken for another whatever bytes they hold (no separator to
// inject), names keep every byte, fingerprints every byte.
func recordStrings(t *testing.T, newStore func(*testing.T) runtime.Store) {
	st := newStore(t)
	long := strings.Repeat("λ", 5000)
	var fp runtime.Fingerprint
	copy(fp[:], "\x00\xff:\x00a\r\n\x00")
	calls := []runtime.Call{
		{Tool: "bc", Code: "a"}, {Tool: "c", Code: "ab"}, {Tool: "c", Code: "ab"},
		{Tool: "", Code: "x"}, {Tool: "x", Code: ""},
		{Tool: "t:1:a", Code: "1"}, {Tool: "a", Code: "1:t"},
		{Tool: "\x00", Code: "\x00\x00"}, {Tool: long, Code: long},
		{Tool: "nul\x00", Fingerprint: fp, HasFingerprint: true, Code: "R\r\n"},
	}
	apply(t, st, "bytes", calls...)
	for _, tc := range []struct {
		code, tool string
		want       int64
	}{
		{"a", "bc", 1}, {"ab", "c", 2}, {"a", "b", 0}, {"ab", "bc", 0}, {"abc", "", 0},
		{"x", "", 1}, {"", "x", 0}, {"1", "t:1:a", 1}, {"1:t", "a", 1}, {"1", "t:a", 0},
		{"\x00\x00", "\x00", 1}, {"\x00", "\x00\x00", 0}, {long, long, 1}, {"R\r\n", "nul\x00", 1}, {"R", "nul\x00", 0},
	} {
		h := readHistory(t, st, "bytes", runtime.HistoryQuery{Codes: []string{tc.code}, Tool: tc.tool})
		if h.Totals[0] != tc.want || !h.TotalsKnown[0] {
			t.Errorf("blocks of %q with %q: %d (%v), want %d", tc.tool, tc.code, h.Totals[0], h.TotalsKnown[0], tc.want)
		}
	}
	h := readHistory(t, st, "bytes", runtime.HistoryQuery{})
	var names []string
	for _, c := range calls {
		names = append(names, c.Tool)
	}
	if !slices.Equal(h.Tools, names) || h.Last != calls[len(calls)-1] {
		t.Errorf("names %q, last %+v", h.Tools, h.Last)
	}
}

// recordLastToolQuery: at another anchor the query's tool is the last
// call's, whatever Tool says.
func recordLastToolQuery(t *testing.T, newStore func(*testing.T) runtime.Store) {
	st := newStore(t)
	apply(t, st, "lt", runtime.Call{Tool: "rm", Code: "R"}, runtime.Call{Tool: "rm", Code: "R"}, runtime.Call{Tool: "ls", Code: "R"}, runtime.Call{Tool: "rm"})
	h := readHistory(t, st, "lt", runtime.HistoryQuery{Codes: []string{"R"}, Tool: "ls", LastTool: true})
	if !slices.Equal(h.Totals, []int64{2}) || h.Last.Tool != "rm" || h.CodeRun != 0 || h.LastCodeRun != 3 {
		t.Fatalf("the last call's tool: %+v", h)
	}
	h = readHistory(t, st, "lt", runtime.HistoryQuery{Codes: []string{"R"}, Tool: "ls"})
	if !slices.Equal(h.Totals, []int64{1}) {
		t.Fatalf("the query's tool: %v", h.Totals)
	}
}

// applyAtomic: counters and calls of one update are one step: a reader
// sees all of an update or none of it, at every point; several calls in
// one update are recorded as the same calls one at a time.
func applyAtomic(t *testing.T, newStore func(*testing.T) runtime.Store) {
	calls := []runtime.Call{{Tool: "a", Code: "X"}, {Tool: "a", Code: "X", HasFingerprint: true}, {Tool: "a", HasFingerprint: true}, {Tool: "b", Code: "X"}}
	st, single, st2 := newStore(t), newStore(t), newStore(t)
	if err := st.Apply(ctx, "batch", &runtime.Update{Calls: calls, Counters: []runtime.CounterUpdate{{Key: fire(0, "R")}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		apply(t, single, "single", c)
	}
	q := runtime.HistoryQuery{Codes: []string{"X"}, Tool: "a"}
	if b, s := readHistory(t, st, "batch", q), readHistory(t, single, "single", q); !Equal(b, s) {
		t.Fatalf("one update of four calls, and four updates: %s", Diff(b, s))
	}
	// Readers never see half of an update: the counter and the calls move
	// together.
	const writers, each = 4, 15
	stop := make(chan struct{})
	torn := make(chan string, 1)
	var rw sync.WaitGroup
	rw.Add(1)
	go func() {
		defer rw.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			var h runtime.History
			sn := runtime.Snapshot{Keys: []runtime.CounterKey{fire(0, "T")}, Counters: make([]int64, 1), History: &h}
			if err := st2.Read(ctx, "torn", &sn); err != nil {
				select {
				case torn <- err.Error():
				default:
				}
				return
			}
			if 2*sn.Counters[0] != h.Calls {
				select {
				case torn <- fmt.Sprintf("counter %d with %d calls", sn.Counters[0], h.Calls):
				default:
				}
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				u := runtime.Update{Counters: []runtime.CounterUpdate{{Key: fire(0, "T")}}, Calls: []runtime.Call{{Tool: "w"}, {Tool: "w"}}}
				if err := st2.Apply(ctx, "torn", &u); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rw.Wait()
	select {
	case msg := <-torn:
		t.Fatalf("a reader saw part of an update: %s", msg)
	default:
	}
	if got := readCounters(t, st2, "torn", fire(0, "T")); got[0] != writers*each {
		t.Fatalf("counter %d, want %d", got[0], writers*each)
	}
}

// concurrentCalls: identical calls applied concurrently lose none: the
// run of identical calls is all of them, and so are the calls and the
// blocks of their code.
func concurrentCalls(t *testing.T, newStore func(*testing.T) runtime.Store) {
	st := newStore(t)
	const writers, each = 6, 20
	var fp runtime.Fingerprint
	copy(fp[:], "samefp!!")
	c := runtime.Call{Tool: "grep", Fingerprint: fp, HasFingerprint: true, Code: "B"}
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := st.Apply(ctx, "conc", &runtime.Update{Calls: []runtime.Call{c}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	h := readHistory(t, st, "conc", runtime.HistoryQuery{Codes: []string{"B"}, Tool: "grep"})
	const n = writers * each
	if h.Calls != n || h.Run != n || h.LastRepeat != n-1 || h.CodeRun != n || h.LastCodeRun != n-1 || h.Totals[0] != n || !h.TotalsKnown[0] {
		t.Fatalf("%d identical calls: %+v", n, h)
	}
}

// provenance: the graph's basics (spec 5.7): a scope is the facts of the
// inputs and their ancestors; refusals (no id, an unknown kind, a
// duplicate id, an unknown parent) record nothing and are known not
// applied; an unknown input, or an incomplete session, with inputs or
// without, is an unknown scope, never an empty one.
func provenance(t *testing.T, newStore func(*testing.T) runtime.Store) {
	st := newStore(t)
	rec := func(n runtime.Node) error { return st.RecordNode(ctx, "p", n) }
	for _, n := range []runtime.Node{
		{ID: "doc", Kind: runtime.ToolResult, Tool: "read_document", Origin: "drive", TrustTier: "trusted", Labels: []string{"confidential"}},
		{ID: "web", Kind: runtime.ToolResult, Tool: "http_fetch", Origin: "web", TrustTier: "untrusted", Labels: []string{""}},
		{ID: "m1", Kind: runtime.Message, Tool: "not-a-result", Origin: "agent", Parents: []string{"doc"}},
		{ID: "m2", Kind: runtime.Message, Origin: "agent", Parents: []string{"m1", "web", "m1"}},
	} {
		if err := rec(n); err != nil {
			t.Fatal(err)
		}
	}
	var sc runtime.Scope
	if err := st.Scope(ctx, "p", []string{"m2"}, &sc); err != nil {
		t.Fatal(err)
	}
	want := runtime.Scope{Tools: []string{"http_fetch", "read_document"}, Origins: []string{"agent", "drive", "web"}, TrustTiers: []string{"trusted", "untrusted"}, Labels: []string{"", "confidential"}}
	if !scopeEqual(sc, want) {
		t.Fatalf("scope %+v, want %+v", sc, want)
	}
	if err := st.Scope(ctx, "p", []string{"m1", "doc"}, &sc); err != nil || !slices.Equal(sc.TrustTiers, []string{"trusted"}) || !slices.Equal(sc.Tools, []string{"read_document"}) {
		t.Fatalf("scope of m1: %v %+v", err, sc)
	}
	if err := st.Scope(ctx, "p", nil, &sc); err != nil || !scopeEqual(sc, runtime.Scope{}) {
		t.Fatalf("no inputs: %v %+v", err, sc)
	}
	for _, tc := range []struct {
		n    runtime.Node
		want string
	}{
		{runtime.Node{Kind: runtime.Message}, "needs an id"},
		{runtime.Node{ID: "doc", Kind: runtime.Message}, "already recorded"},
		{runtime.Node{ID: "k"}, "unknown node kind"},
		{runtime.Node{ID: "c", Kind: runtime.ToolResult, Parents: []string{"doc", "zz"}}, `parent "zz" is not recorded`},
	} {
		err := rec(tc.n)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("%+v: %v, want %q, not applied", tc.n, err, tc.want)
		}
	}
	if err := st.Scope(ctx, "p", []string{"doc", "c"}, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) {
		t.Fatalf("a refused node in scope: %v", err)
	}
	if err := st.MarkIncomplete(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	for _, inputs := range [][]string{{"m2"}, nil} {
		if err := st.Scope(ctx, "p", inputs, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) {
			t.Fatalf("an incomplete session, inputs %q: %v", inputs, err)
		}
	}
}

func scopeEqual(a, b runtime.Scope) bool {
	return slices.Equal(a.Tools, b.Tools) && slices.Equal(a.Origins, b.Origins) && slices.Equal(a.TrustTiers, b.TrustTiers) && slices.Equal(a.Labels, b.Labels)
}

// provenanceLimits: the default runtime.Limits bound a graph as MemStore
// bounds it: a node over a per-node limit, one that would take the
// session past its bytes or its distinct strings, is refused (known not
// applied), nothing is evicted, and what fits still records.
func provenanceLimits(t *testing.T, newStore func(*testing.T) runtime.Store) {
	stores := map[string]runtime.Store{"l": newStore(t), "b": newStore(t)}
	rec := func(session string, n runtime.Node) error { return stores[session].RecordNode(ctx, session, n) }
	st := stores["l"]
	if err := rec("l", runtime.Node{ID: "p", Kind: runtime.Message}); err != nil {
		t.Fatal(err)
	}
	labels := make([]string, runtime.DefaultLabelLimit+1)
	for i := range labels {
		labels[i] = "l" + strconv.Itoa(i)
	}
	parents := slices.Repeat([]string{"p"}, runtime.DefaultParentLimit+1)
	for _, tc := range []struct {
		n    runtime.Node
		want string
	}{
		{runtime.Node{ID: "labels", Kind: runtime.Message, Labels: labels}, fmt.Sprintf("%d labels, more than the limit of %d per node", len(labels), runtime.DefaultLabelLimit)},
		{runtime.Node{ID: "parents", Kind: runtime.Message, Parents: parents}, fmt.Sprintf("%d parents, more than the limit of %d per node", len(parents), runtime.DefaultParentLimit)},
	} {
		if err := rec("l", tc.n); err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("%s: %v, want %q", tc.n.ID, err, tc.want)
		}
	}
	if err := rec("l", runtime.Node{ID: "most", Kind: runtime.Message, Labels: labels[:runtime.DefaultLabelLimit], Parents: parents[:runtime.DefaultParentLimit]}); err != nil {
		t.Fatalf("a node at the per-node limits: %v", err)
	}
	// Distinct strings: 16 nodes of 256 new labels hold the limit; one
	// more new string is refused, one held already is not.
	for i := range runtime.DefaultStringLimit/runtime.DefaultLabelLimit - 1 {
		ls := make([]string, runtime.DefaultLabelLimit)
		for j := range ls {
			ls[j] = fmt.Sprintf("s%d-%d", i, j)
		}
		if err := rec("l", runtime.Node{ID: "s" + strconv.Itoa(i), Kind: runtime.Message, Labels: ls}); err != nil {
			t.Fatalf("distinct strings, node %d: %v", i, err)
		}
	}
	// The session holds 256 (labels of "most") + 15 × 256 = 4,096.
	strs := "the session's provenance would hold more than its limit of " + strconv.Itoa(runtime.DefaultStringLimit) + " distinct"
	if err := rec("l", runtime.Node{ID: "fresh", Kind: runtime.ToolResult, Tool: "new-tool"}); err == nil || !strings.Contains(err.Error(), strs) || !errors.Is(err, runtime.ErrNotApplied) {
		t.Errorf("one distinct string too many: %v", err)
	}
	if err := rec("l", runtime.Node{ID: "held", Kind: runtime.ToolResult, Tool: "l3", Origin: "s0-1", Labels: []string{"s1-1", "s1-1"}}); err != nil {
		t.Errorf("strings the session holds: %v", err)
	}
	if err := rec("l", runtime.Node{ID: "msg-tool", Kind: runtime.Message, Tool: "a message's tool is no string of the graph"}); err != nil {
		t.Errorf("a message's tool: %v", err)
	}
	// Bytes: nodes of one big label (one distinct string) until the next
	// would pass the limit, as runtime.NodeSize counts them.
	big := strings.Repeat("b", 1<<20)
	used := 0
	for i := 0; ; i++ {
		n := runtime.Node{ID: "b" + strconv.Itoa(i), Kind: runtime.Message, Labels: []string{big}}
		if used+runtime.NodeSize(n) > runtime.DefaultByteLimit {
			err := rec("b", n)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("would exceed its limit of %d bytes", runtime.DefaultByteLimit)) || !errors.Is(err, runtime.ErrNotApplied) {
				t.Fatalf("node %d past the byte limit: %v", i, err)
			}
			small := runtime.Node{ID: "small", Kind: runtime.Message}
			if used+runtime.NodeSize(small) <= runtime.DefaultByteLimit {
				if err := rec("b", small); err != nil {
					t.Fatalf("a node that fits after a refusal: %v", err)
				}
			}
			break
		}
		if err := rec("b", n); err != nil {
			t.Fatalf("node %d within the byte limit (%d bytes used): %v", i, used, err)
		}
		used += runtime.NodeSize(n)
	}
	var sc runtime.Scope
	if err := st.Scope(ctx, "l", []string{"p", "most", "s0", "held"}, &sc); err != nil {
		t.Fatalf("nothing evicted: %v", err)
	}
	if err := st.Scope(ctx, "l", []string{"fresh"}, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) {
		t.Fatalf("a refused node: %v", err)
	}
}

// Equal reports whether two records read the same, a nil slice and an
// empty one alike.
func Equal(a, b *runtime.History) bool {
	return a.Calls == b.Calls && slices.Equal(a.Tools, b.Tools) && a.Last == b.Last && a.Run == b.Run && a.CodeRun == b.CodeRun &&
		a.LastRepeat == b.LastRepeat && a.LastCodeRun == b.LastCodeRun && slices.Equal(a.Totals, b.Totals) && slices.Equal(a.TotalsKnown, b.TotalsKnown) &&
		TimesEqual(&a.Times, &b.Times)
}

// TimesEqual reports whether two reads of the calls' times are the same,
// a nil slice and an empty one alike.
func TimesEqual(a, b *runtime.CallTimes) bool {
	return a.Kept == b.Kept && slices.Equal(a.At, b.At) && slices.Equal(a.Tools, b.Tools) && a.Dropped == b.Dropped && a.DroppedAt == b.DroppedAt
}

// Diff describes how got differs from want, for a failure message.
func Diff(got, want *runtime.History) string {
	var b strings.Builder
	f := func(name string, g, w any) {
		if gs, ws := fmt.Sprintf("%#v", g), fmt.Sprintf("%#v", w); gs != ws {
			fmt.Fprintf(&b, "\n\t%s: got %s, want %s", name, gs, ws)
		}
	}
	f("Calls", got.Calls, want.Calls)
	f("Tools", got.Tools, want.Tools)
	f("Last", got.Last, want.Last)
	f("Run", got.Run, want.Run)
	f("CodeRun", got.CodeRun, want.CodeRun)
	f("LastRepeat", got.LastRepeat, want.LastRepeat)
	f("LastCodeRun", got.LastCodeRun, want.LastCodeRun)
	f("Totals", got.Totals, want.Totals)
	f("TotalsKnown", got.TotalsKnown, want.TotalsKnown)
	if !TimesEqual(&got.Times, &want.Times) {
		f("Times.Kept", got.Times.Kept, want.Times.Kept)
		f("Times.Dropped", got.Times.Dropped, want.Times.Dropped)
		f("Times.DroppedAt", got.Times.DroppedAt, want.Times.DroppedAt)
		f("len(Times.At)", len(got.Times.At), len(want.Times.At))
		for i := range min(len(got.Times.At), len(want.Times.At)) {
			if got.Times.At[i] != want.Times.At[i] || got.Times.Tools[i] != want.Times.Tools[i] {
				f(fmt.Sprintf("Times[%d]", i), fmt.Sprint(got.Times.At[i], " ", got.Times.Tools[i]), fmt.Sprint(want.Times.At[i], " ", want.Times.Tools[i]))
				break
			}
		}
	}
	if b.Len() == 0 {
		return "the same"
	}
	return b.String()
}

// tenants: two tenants using one session id in one store share nothing
// (spec 5.11), whatever bytes the tenant and the id hold ("a:b" with "c"
// and "a" with "b:c" are different sessions). A MemStore keeps one
// session: it must refuse the second tenant at every call (an error, and
// not applied for a mutation), never serve it the first's state. Any
// other store must keep both: the second starts empty (counters 0, no
// record of calls, no node: naming the first's as an input or a parent
// is unknown), and what it does changes nothing of the first.
func tenants(t *testing.T, newStore func(*testing.T) runtime.Store) {
	for _, pair := range [][2][2]string{
		{{"a:b", "c"}, {"a", "b:c"}},
		{{"", "s"}, {"t", "s"}},
		{{"t", "s"}, {"t\x00", "s"}},
		{{"", "\x00\"t\"\x00s"}, {"t", "s"}},
		{{"x}y", "{s}"}, {"x", "}y{s}"}},
	} {
		st := newStore(t)
		a := runtime.SessionKey(pair[0][0], pair[0][1])
		b := runtime.SessionKey(pair[1][0], pair[1][1])
		at := fmt.Sprintf("tenant %q session %q, and tenant %q session %q", pair[0][0], pair[0][1], pair[1][0], pair[1][1])
		if a == b {
			t.Fatalf("%s: one key %q", at, a)
		}
		keys := []runtime.CounterKey{fire(0, "R"), breaker(0, "R")}
		if err := st.Apply(ctx, a, &runtime.Update{Counters: []runtime.CounterUpdate{{Key: fire(0, "R")}, {Key: fire(0, "R")}}, Calls: []runtime.Call{{Tool: "bash", Code: "X", HasFingerprint: true}}}); err != nil {
			t.Fatal(err)
		}
		for _, n := range []runtime.Node{
			{ID: "doc", Kind: runtime.ToolResult, Tool: "read_document", Labels: []string{"confidential"}, Args: map[string]any{"path": "/a"}},
			{ID: "m", Kind: runtime.Message, Origin: "user", Parents: []string{"doc"}},
		} {
			if err := st.RecordNode(ctx, a, n); err != nil {
				t.Fatal(err)
			}
		}
		bCalls := []func() error{
			func() error { return runtime.ReadCounters(ctx, st, b, keys, make([]int64, 2)) },
			func() error {
				return st.Read(ctx, b, &runtime.Snapshot{History: &runtime.History{}, Query: runtime.HistoryQuery{Codes: []string{"X"}, Tool: "bash", Names: true}})
			},
			func() error { return st.Scope(ctx, b, nil, &runtime.Scope{WantNodes: true}) },
		}
		bMutations := []func() error{
			func() error {
				return st.Apply(ctx, b, &runtime.Update{Counters: []runtime.CounterUpdate{{Key: fire(0, "R")}}, Calls: []runtime.Call{{Tool: "rm", Code: "Y"}}})
			},
			func() error {
				return st.RecordNode(ctx, b, runtime.Node{ID: "doc", Kind: runtime.Message, Origin: "other"})
			},
			func() error { return st.MarkIncomplete(ctx, b) },
		}
		if _, one := st.(*runtime.MemStore); one {
			for i, f := range bCalls {
				if err := f(); err == nil {
					t.Errorf("%s: read %d of the other tenant in a MemStore: no error", at, i)
				}
			}
			for i, f := range bMutations {
				if err := f(); err == nil || !errors.Is(err, runtime.ErrNotApplied) {
					t.Errorf("%s: mutation %d of the other tenant in a MemStore: %v, want not applied", at, i, err)
				}
			}
		} else {
			if got := readCounters(t, st, b, keys...); !slices.Equal(got, []int64{0, 0}) {
				t.Errorf("%s: the other tenant reads counters %v", at, got)
			}
			h := readHistory(t, st, b, runtime.HistoryQuery{Codes: []string{"X"}, Tool: "bash"})
			if want := (runtime.History{Totals: []int64{0}, TotalsKnown: []bool{true}}); !Equal(h, &want) {
				t.Errorf("%s: the other tenant reads the record %s", at, Diff(h, &want))
			}
			for _, inputs := range [][]string{{"doc"}, {"m"}} {
				if err := st.Scope(ctx, b, inputs, &runtime.Scope{WantNodes: true}); !errors.Is(err, runtime.ErrUnknownProvenance) {
					t.Errorf("%s: the other tenant names %q as an input: %v, want unknown provenance", at, inputs, err)
				}
			}
			if err := st.RecordNode(ctx, b, runtime.Node{ID: "c", Kind: runtime.Message, Parents: []string{"doc"}}); err == nil || !errors.Is(err, runtime.ErrNotApplied) || !strings.Contains(err.Error(), `parent "doc" is not recorded`) {
				t.Errorf("%s: the other tenant names a parent of the first: %v", at, err)
			}
			for i, f := range append(bCalls, bMutations...) {
				if err := f(); err != nil {
					t.Errorf("%s: call %d of the other tenant: %v", at, i, err)
				}
			}
			var sc runtime.Scope
			if err := st.Scope(ctx, b, []string{"doc"}, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) {
				t.Errorf("%s: the other tenant, marked incomplete: %v", at, err)
			}
		}
		// The first tenant's session is as it left it.
		if got := readCounters(t, st, a, keys...); !slices.Equal(got, []int64{2, 0}) {
			t.Errorf("%s: the first tenant's counters %v, want [2 0]", at, got)
		}
		h := readHistory(t, st, a, runtime.HistoryQuery{Codes: []string{"X", "Y"}, Tool: "bash"})
		if h.Calls != 1 || !slices.Equal(h.Tools, []string{"bash"}) || !slices.Equal(h.Totals, []int64{1, 0}) {
			t.Errorf("%s: the first tenant's record %+v", at, h)
		}
		sc := runtime.Scope{WantNodes: true}
		if err := st.Scope(ctx, a, []string{"m"}, &sc); err != nil {
			t.Fatalf("%s: the first tenant's scope: %v", at, err)
		}
		if !slices.Equal(sc.Origins, []string{"user"}) || len(sc.Nodes) != 2 || sc.Nodes[1].ID != "doc" || sc.Nodes[1].Kind != runtime.ToolResult || sc.Nodes[1].ArgsJSON != `{"path":"/a"}` {
			t.Errorf("%s: the first tenant's scope %+v", at, sc)
		}
	}
}

// provenanceNodes: random graphs recorded in the store and in a
// runtime.MemStore, call for call, give the same answers: the same
// refusals (a duplicate id, an unknown parent, arguments that cannot be
// kept), and for random inputs (repeated, unknown, none) the same facts
// and, when asked (Scope.WantNodes), the same nodes in the same order
// (spec 5.11: the inputs first in the order given, then the ancestors in
// recording order), with their fields, labels as recorded and arguments;
// a message lists no tool and no arguments. A session marked incomplete
// lists nothing.
func provenanceNodes(t *testing.T, newStore func(*testing.T) runtime.Store) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 23))
		st, ref := newStore(t), runtime.NewMemStore(0)
		session := "nodes" + strconv.FormatUint(seed, 10)
		pool := func(l ...string) string { return l[rng.IntN(len(l))] }
		var ids []string
		for i := range 70 {
			n := runtime.Node{ID: "n" + strconv.Itoa(i), Kind: runtime.Message}
			if rng.IntN(2) == 0 {
				n.Kind = runtime.ToolResult
			}
			switch rng.IntN(12) {
			case 0:
				if len(ids) > 0 {
					n.ID = ids[rng.IntN(len(ids))] // a duplicate
				}
			case 1:
				n.Kind = runtime.NodeKind(3)
			}
			n.Tool = pool("", "read", "fetch", "a:b", "\x00", "é")
			n.Origin = pool("", "user", "web", "drive")
			n.TrustTier = pool("", "trusted", "untrusted")
			for range rng.IntN(4) {
				n.Labels = append(n.Labels, pool("", "pii", "confidential", "pii", "l:1"))
			}
			for range rng.IntN(4) {
				if len(ids) > 0 && rng.IntN(8) > 0 {
					n.Parents = append(n.Parents, ids[len(ids)-1-rng.IntN(min(len(ids), 8))])
				} else {
					n.Parents = append(n.Parents, pool("zz", "n999"))
				}
			}
			switch rng.IntN(8) {
			case 0:
			case 1:
				n.Args = map[string]any{}
			case 2:
				n.Args = map[string]any{"big": strings.Repeat("x", runtime.MaxNodeArgs)}
			case 3:
				n.Args = map[string]any{"bad": "\xff"}
			default:
				n.Args = map[string]any{"path": pool("/a", "/b", "é\x00"), "n": rng.IntN(3), "f": 1.5, "deep": map[string]any{"l": []any{1.0, "x", nil, true}}}
			}
			err, werr := st.RecordNode(ctx, session, n), ref.RecordNode(ctx, session, n)
			if (err == nil) != (werr == nil) || err != nil && (err.Error() != werr.Error() || !errors.Is(err, runtime.ErrNotApplied)) {
				t.Fatalf("seed %d, recording %+v: %v, MemStore %v", seed, n, err, werr)
			}
			if err == nil {
				ids = append(ids, n.ID)
			}
		}
		if len(ids) < 20 {
			t.Fatalf("seed %d: only %d nodes recorded", seed, len(ids))
		}
		for q := range 60 {
			var inputs []string
			for range rng.IntN(5) {
				if rng.IntN(12) == 0 {
					inputs = append(inputs, "unknown")
				} else {
					inputs = append(inputs, ids[rng.IntN(len(ids))])
				}
			}
			want := rng.IntN(4) > 0
			got, exp := runtime.Scope{WantNodes: want, Nodes: []runtime.ScopeNode{{ID: "stale"}}}, runtime.Scope{WantNodes: want}
			err, werr := st.Scope(ctx, session, inputs, &got), ref.Scope(ctx, session, inputs, &exp)
			at := fmt.Sprintf("seed %d scope %d, inputs %q, nodes %v", seed, q, inputs, want)
			if (err == nil) != (werr == nil) || err != nil && !errors.Is(err, runtime.ErrUnknownProvenance) {
				t.Fatalf("%s: %v, MemStore %v", at, err, werr)
			}
			if err != nil {
				continue
			}
			if !scopeEqual(got, exp) || len(got.Nodes) != len(exp.Nodes) {
				t.Fatalf("%s: %+v, MemStore %+v", at, got, exp)
			}
			for i := range got.Nodes {
				g, w := got.Nodes[i], exp.Nodes[i]
				if g.ID != w.ID || g.Kind != w.Kind || g.Tool != w.Tool || g.Origin != w.Origin || g.TrustTier != w.TrustTier ||
					!slices.Equal(g.Labels, w.Labels) || g.ArgsJSON != w.ArgsJSON || g.Input != w.Input {
					t.Fatalf("%s: node %d %+v, MemStore %+v", at, i, g, w)
				}
			}
		}
		if seed == 0 {
			if err := st.MarkIncomplete(ctx, session); err != nil {
				t.Fatal(err)
			}
			sc := runtime.Scope{WantNodes: true}
			if err := st.Scope(ctx, session, ids[:1], &sc); !errors.Is(err, runtime.ErrUnknownProvenance) || len(sc.Nodes) != 0 {
				t.Fatalf("an incomplete session lists %d nodes: %v", len(sc.Nodes), err)
			}
		}
	}
}

// timesMatchMemStore: random sequences of calls with times (steps of a
// few milliseconds, jumps of hours, a clock that goes back, calls without
// a time, several calls in one update, more than runtime.TimesLimit calls
// and more than runtime.TimesSpan) give the same calls' times read from
// the store as from a runtime.MemStore, after every update: the same
// kept times and tools in the same order, the same drops and latest time
// dropped, and so the same calls_within counts and errors, for windows
// of every size. Times near the largest int64 are kept exactly (MemStore
// wraps the cut of times within TimesSpan of the smallest: not tried).
func timesMatchMemStore(t *testing.T, newStore func(*testing.T) runtime.Store) {
	const sec = int64(1e9)
	for _, tc := range []struct {
		seed  uint64
		start int64
		steps int
		burst int // most calls in one update
	}{
		{1, 1_800_000_000 * sec, 300, 4},
		{2, 1_800_000_000*sec + 123456789, 120, 90},
		{3, -5 * sec, 200, 3},
		{4, math.MaxInt64 - 30*3600*sec, 200, 3},
		{5, -1_000_000_000 * sec, 150, 3},
	} {
		rng := rand.New(rand.NewPCG(tc.seed, 77))
		st := newStore(t)
		ref := runtime.NewMemStore(0)
		session := fmt.Sprintf("times%d", tc.seed)
		tools := []string{"read", "write", "", "a:b", "\x00\xff ;9 9:", strings.Repeat("t", 300)}
		now := tc.start
		var dropped, total int
		for step := range tc.steps {
			var u runtime.Update
			for range 1 + rng.IntN(tc.burst) {
				var d int64
				switch r := rng.IntN(100); {
				case r < 60:
					d = rng.Int64N(5 * sec)
				case r < 75:
					d = rng.Int64N(3600 * sec)
				case r < 82:
					d = 20*3600*sec + rng.Int64N(8*3600*sec) // about the span
				case r < 90:
					d = -rng.Int64N(3 * 3600 * sec) // the clock goes back
				case r < 93:
					d = -30 * 3600 * sec // far back: before the span
				default:
					d = 0 // the same time again
				}
				if (d > 0 && now > math.MaxInt64-d) || (d < 0 && now < math.MinInt64-d) {
					d = -d
				}
				now += d
				c := runtime.Call{Tool: tools[rng.IntN(len(tools))], Code: "", Time: now}
				if now == 0 || rng.IntN(20) == 0 {
					c.Time = 0 // a call without a time is not kept
				}
				u.Calls = append(u.Calls, c)
				total++
			}
			if err := st.Apply(ctx, session, &u); err != nil {
				t.Fatal(err)
			}
			if err := ref.Apply(ctx, session, &u); err != nil {
				t.Fatal(err)
			}
			q := runtime.HistoryQuery{Times: true, Names: rng.IntN(2) == 0}
			var got, want runtime.History
			if err := st.Read(ctx, session, &runtime.Snapshot{History: &got, Query: q}); err != nil {
				t.Fatal(err)
			}
			if err := ref.Read(ctx, session, &runtime.Snapshot{History: &want, Query: q}); err != nil {
				t.Fatal(err)
			}
			if !want.Times.Kept || !TimesEqual(&got.Times, &want.Times) {
				t.Fatalf("seed %d step %d:%s", tc.seed, step, Diff(&got, &want))
			}
			if want.Times.Dropped {
				dropped++
			}
			for _, n := range []int64{1, 60, 3600, 86399, runtime.MaxWindow} {
				for _, tool := range []string{"", "read"} {
					gk, gerr := got.Times.Within(now, n, tool, tool == "")
					wk, werr := want.Times.Within(now, n, tool, tool == "")
					if gk != wk || !errors.Is(gerr, werr) {
						t.Fatalf("seed %d step %d: calls within %d s of %q: %d %v, MemStore %d %v", tc.seed, step, n, tool, gk, gerr, wk, werr)
					}
				}
			}
		}
		if dropped == 0 {
			t.Fatalf("seed %d: no call was dropped in %d calls", tc.seed, total)
		}
	}
	// Past TimesLimit: calls close together, more than the limit kept.
	st, ref := newStore(t), runtime.NewMemStore(0)
	now := int64(1_900_000_000) * sec
	for range 5 {
		var u runtime.Update
		for range 1000 {
			now += 1e6
			u.Calls = append(u.Calls, runtime.Call{Tool: "x", Time: now})
		}
		if err := st.Apply(ctx, "limit", &u); err != nil {
			t.Fatal(err)
		}
		if err := ref.Apply(ctx, "limit", &u); err != nil {
			t.Fatal(err)
		}
	}
	var got, want runtime.History
	q := runtime.HistoryQuery{Times: true}
	if err := st.Read(ctx, "limit", &runtime.Snapshot{History: &got, Query: q}); err != nil {
		t.Fatal(err)
	}
	ref.Read(ctx, "limit", &runtime.Snapshot{History: &want, Query: q})
	if len(want.Times.At) != runtime.TimesLimit || !want.Times.Dropped || !TimesEqual(&got.Times, &want.Times) {
		t.Fatalf("past the limit (MemStore keeps %d):%s", len(want.Times.At), Diff(&got, &want))
	}
}
