package runtime

import (
	"context"
	"testing"
)

// Error texts that carry a number (they reach the rejection through the
// failed-closed preamble) spell it in decimal, zero and negatives included:
// kills gremlins' mutant of itoa's zero case (docs/mutation.md).
func TestMutantErrNumbers(t *testing.T) {
	for _, c := range []struct {
		e    Err
		want string
	}{
		{Err{Kind: ErrStringIndex, N: 0}, "index out of range: 0"},
		{Err{Kind: ErrStringIndex, N: 7}, "index out of range: 7"},
		{Err{Kind: ErrStringIndex, N: -12}, "index out of range: -12"},
		{Err{Kind: ErrIndexOutOfRange, N: 1234567890}, "index out of bounds: 1234567890"},
		{Err{Kind: ErrIndexOutOfRange, N: -9223372036854775808}, "index out of bounds: -9223372036854775808"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v.Error() = %q, want %q", c.e, got, c.want)
		}
	}
}

// NodeSize is the documented sum (64, the strings, 8 and the bytes of each
// label and parent, the JSON of a tool result's Args): the byte limit
// refuses a graph at the same node in every store, so each term counts.
// Kills gremlins' mutants of nodeSize's terms.
func TestMutantNodeSize(t *testing.T) {
	n := Node{ID: "ab", Kind: ToolResult, Tool: "cde", Origin: "f", TrustTier: "ghij",
		Labels: []string{"xy", "z"}, Parents: []string{"p"}, Args: map[string]any{"k": "v"}}
	args, err := NodeArgsJSON(n)
	if err != nil || args != `{"k":"v"}` {
		t.Fatalf("NodeArgsJSON = %q, %v", args, err)
	}
	want := 64 + 2 + 3 + 1 + 4 + len(args) + (8 + 2) + (8 + 1) + (8 + 1)
	if got := NodeSize(n); got != want {
		t.Fatalf("NodeSize = %d, want %d", got, want)
	}
	n.Kind = Message // Args ignored
	if got := NodeSize(n); got != want-len(args) {
		t.Fatalf("NodeSize of a message = %d, want %d", got, want-len(args))
	}
	if got := NodeSize(Node{}); got != 64 {
		t.Fatalf("NodeSize of an empty node = %d", got)
	}
}

// A counter key with a negative slot (no slot) is kept by name, not
// indexed: kills the negation of MemStore.slot's bound check (which would
// index ids[-1] and panic).
func TestMutantMemStoreNegativeSlot(t *testing.T) {
	m := NewMemStore(0)
	ctx := context.Background()
	k := CounterKey{Slot: -1, Rule: "R", Counter: Breaker}
	k0 := CounterKey{Slot: 0, Rule: "S", Counter: Fire}
	if err := ApplyCounters(ctx, m, "s", []CounterUpdate{{Key: k}, {Key: k}, {Key: k0}}); err != nil {
		t.Fatal(err)
	}
	got := make([]int64, 3)
	if err := ReadCounters(ctx, m, "s", []CounterKey{k, k0, {Slot: -1, Rule: "R", Counter: Fire}}, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 2 || got[1] != 1 || got[2] != 0 {
		t.Fatalf("counters %v, want [2 1 0]", got)
	}
	if err := ApplyCounters(ctx, m, "s", []CounterUpdate{{Key: k, Reset: true}}); err != nil {
		t.Fatal(err)
	}
	if err := ReadCounters(ctx, m, "s", []CounterKey{k}, got[:1]); err != nil || got[0] != 0 {
		t.Fatalf("after reset %v %v", got[0], err)
	}
}

// MemStore keeps each slot's fire and breaker counters apart as its slots
// grow one by one and several at a time: kills the arithmetic mutants of
// slot's growth and of Read's and Apply's indexing.
func TestMutantMemStoreSlots(t *testing.T) {
	m := NewMemStore(0)
	ctx := context.Background()
	var keys []CounterKey
	var ups []CounterUpdate
	want := map[CounterKey]int64{}
	// Slot 0 first, then 5 (a jump), then 2 (inside), each counter a
	// different number of times.
	for _, s := range []int32{0, 5, 2} {
		for _, c := range []Counter{Breaker, Fire} {
			n := int(s) + 1
			if c == Breaker {
				n += 3
			}
			k := CounterKey{Slot: s, Rule: "R" + string(rune('0'+s)), Counter: c}
			keys = append(keys, k)
			want[k] = int64(n)
			ups = ups[:0]
			for range n {
				ups = append(ups, CounterUpdate{Key: k})
			}
			if err := ApplyCounters(ctx, m, "s", ups); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := make([]int64, len(keys))
	if err := ReadCounters(ctx, m, "s", keys, got); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if got[i] != want[k] {
			t.Errorf("%+v = %d, want %d", k, got[i], want[k])
		}
	}
	// Resetting one counter (slot 5's breaker) leaves the others.
	if err := ApplyCounters(ctx, m, "s", []CounterUpdate{{Key: keys[2], Reset: true}}); err != nil {
		t.Fatal(err)
	}
	if err := ReadCounters(ctx, m, "s", keys, got); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		w := want[k]
		if i == 2 {
			w = 0
		}
		if got[i] != w {
			t.Errorf("after reset %+v = %d, want %d", k, got[i], w)
		}
	}
}

// The distinct-string budget counts exactly what a node interns: a tool
// result's tool (not a message's), non-empty origins and tiers, and every
// label. Kills the mutants of newStrings' conditions.
func TestMutantStringLimit(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n  Node
		ok bool
	}{
		{Node{ID: "a", Kind: Message, Tool: "t", Origin: "o"}, true},
		{Node{ID: "a", Kind: ToolResult, Origin: "o"}, true},
		{Node{ID: "a", Kind: ToolResult, Tool: "t", Origin: "o"}, false},
		{Node{ID: "a", Kind: Message, Origin: "o", TrustTier: "u"}, false},
		{Node{ID: "a", Kind: Message, Labels: []string{"x", "x"}}, true},
		{Node{ID: "a", Kind: Message, Labels: []string{"x", "y"}}, false},
	} {
		m := NewMemStoreLimits(Limits{Strings: 1})
		err := m.RecordNode(ctx, "s", c.n)
		if (err == nil) != c.ok {
			t.Errorf("%+v with one string: %v, want ok=%v", c.n, err, c.ok)
		}
	}
}

// A node with no origin or tier adds none to the scope (internSome's -1):
// kills the mutant that makes the empty string another string's id.
func TestMutantScopeEmptyOrigin(t *testing.T) {
	ctx := context.Background()
	m := NewMemStore(0)
	for _, n := range []Node{
		{ID: "a", Kind: Message, Origin: "o1", TrustTier: "t1"},
		{ID: "b", Kind: Message, Origin: "o2", TrustTier: "t2"},
		{ID: "c", Kind: ToolResult, Tool: "tool", Labels: []string{"l"}},
	} {
		if err := m.RecordNode(ctx, "s", n); err != nil {
			t.Fatal(err)
		}
	}
	var sc Scope
	if err := m.Scope(ctx, "s", []string{"c"}, &sc); err != nil {
		t.Fatal(err)
	}
	if len(sc.Origins) != 0 || len(sc.TrustTiers) != 0 || len(sc.Tools) != 1 || sc.Tools[0] != "tool" || len(sc.Labels) != 1 {
		t.Fatalf("scope of c = %+v", sc)
	}
}
