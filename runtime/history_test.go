package runtime

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/oarc/oarc/testkit/racecheck"
)

// model is spec 5.10's table over the whole list of calls, for comparing
// the bounded record with.
type model struct{ calls []Call }

func (m *model) repeat(prev []Call, cur Call) int64 {
	n := int64(0)
	for i := len(prev) - 1; i >= 0 && cur.same(&prev[i]); i-- {
		n++
	}
	return n
}

func (m *model) codeRun(prev []Call) int64 {
	if len(prev) == 0 || prev[len(prev)-1].Code == "" {
		return 0
	}
	code, n := prev[len(prev)-1].Code, int64(0)
	for i := len(prev) - 1; i >= 0 && prev[i].Code == code; i-- {
		n++
	}
	return n
}

func (m *model) total(prev []Call, code, tool string) int64 {
	n := int64(0)
	for _, c := range prev {
		if c.Code == code && c.Tool == tool {
			n++
		}
	}
	return n
}

// The record a MemStore keeps derives, at tool.pre_invoke and at other
// anchors, the values the table of spec 5.10 defines over every call, for
// random sequences biased to repeats, runs of one code, and more than 64
// calls; and reading and recording allocate nothing.
func TestRecordMatchesTheTable(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		st := NewMemStore(0)
		var m model
		codes := []string{"A", "B"}
		for step := range 150 {
			tool := []string{"bash", "read", "grep"}[rng.IntN(3)]
			c := Call{Tool: tool, HasFingerprint: rng.IntN(10) > 0}
			c.Fingerprint[0] = byte(rng.IntN(2))
			q := HistoryQuery{Codes: codes, Tool: tool, Names: true}
			var k KeptFacts
			if err := st.Read(ctx, "s", &Snapshot{History: &k.History, Query: q}); err != nil {
				t.Fatal(err)
			}
			k.Derive(true, &c)
			if want := m.repeat(m.calls, c); k.RepeatCount != want {
				t.Fatalf("seed %d step %d: repeat_count %d, want %d", seed, step, k.RepeatCount, want)
			}
			if want := m.codeRun(m.calls); k.SameCodeRun != want {
				t.Fatalf("seed %d step %d: same_code_reject_run %d, want %d", seed, step, k.SameCodeRun, want)
			}
			names := []string{}
			for _, p := range m.calls {
				names = append(names, p.Tool)
			}
			names = append(names, tool)
			if len(names) > RecentLimit {
				names = names[len(names)-RecentLimit:]
			}
			if !slices.Equal(k.RecentToolNames, names) {
				t.Fatalf("seed %d step %d: recent_tool_names %q, want %q", seed, step, k.RecentToolNames, names)
			}
			for i, code := range codes {
				if n, err := k.CodeRejectTotal(true, i, code); err != nil || n != m.total(m.calls, code, tool) {
					t.Fatalf("seed %d step %d: code_reject_total(%s) %d %v, want %d", seed, step, code, n, err, m.total(m.calls, code, tool))
				}
			}
			if rng.IntN(3) > 0 {
				c.Code = codes[rng.IntN(2)]
			}
			if err := st.Apply(ctx, "s", &Update{Calls: []Call{c}}); err != nil {
				t.Fatal(err)
			}
			m.calls = append(m.calls, c)
			// Another anchor now: the values the call just recorded read.
			var o KeptFacts
			st.Read(ctx, "s", &Snapshot{History: &o.History, Query: HistoryQuery{Codes: codes, LastTool: true, Names: true}})
			o.Derive(false, nil)
			prev, last := m.calls[:len(m.calls)-1], m.calls[len(m.calls)-1]
			if o.RepeatCount != m.repeat(prev, last) || o.SameCodeRun != m.codeRun(prev) || o.RecentToolNames[len(o.RecentToolNames)-1] != last.Tool {
				t.Fatalf("seed %d step %d: at another anchor %d %d %q", seed, step, o.RepeatCount, o.SameCodeRun, o.RecentToolNames)
			}
			for i, code := range codes {
				if n, _ := o.CodeRejectTotal(false, i, code); n != m.total(prev, code, last.Tool) {
					t.Fatalf("seed %d step %d: code_reject_total(%s) at another anchor %d, want %d", seed, step, code, n, m.total(prev, code, last.Tool))
				}
			}
		}
	}
	if racecheck.Enabled {
		return
	}
	st := NewMemStore(0)
	var k KeptFacts
	snap := Snapshot{History: &k.History, Query: HistoryQuery{Codes: []string{"A"}, Tool: "bash"}}
	u := Update{Calls: []Call{{Tool: "bash", Code: "A"}}}
	st.Apply(ctx, "s", &u)
	if n := testing.AllocsPerRun(200, func() {
		st.Read(ctx, "s", &snap)
		k.Derive(true, &u.Calls[0])
		st.Apply(ctx, "s", &u)
	}); n != 0 {
		t.Errorf("%v allocations per read and record", n)
	}
}

// Past TotalsLimit pairs, a pair the record holds still reads exactly; one
// it could not count is an error, never a zero.
func TestRecordTotalsBound(t *testing.T) {
	ctx := context.Background()
	st := NewMemStore(0)
	var u Update
	for i := range TotalsLimit + 1 {
		u.Calls = append(u.Calls, Call{Tool: "t" + strconv.Itoa(i), Code: "R"})
	}
	st.Apply(ctx, "s", &u)
	read := func(tool string) (int64, error) {
		var k KeptFacts
		st.Read(ctx, "s", &Snapshot{History: &k.History, Query: HistoryQuery{Codes: []string{"R"}, Tool: tool}})
		k.Derive(true, &Call{Tool: tool})
		return k.CodeRejectTotal(true, 0, "R")
	}
	if n, err := read("t5"); n != 1 || err != nil {
		t.Errorf("a counted pair: %d %v", n, err)
	}
	if _, err := read("t" + strconv.Itoa(TotalsLimit)); err != ErrTotalsUnknown {
		t.Errorf("the pair past the bound: %v", err)
	}
	if _, err := read("never"); err != ErrTotalsUnknown {
		t.Errorf("a pair never seen, once the record is full: %v", err)
	}
}
