package impl

import (
	"testing"
	"time"
)

// Issue 10.1: walkers over host data are depth-bounded; a cyclic value is
// an error, not a fatal stack overflow.

func selfMap(k int64) map[string]any {
	m := map[string]any{"k": k}
	m["self"] = m
	return m
}

func nestList(n int, leaf any) any {
	v := leaf
	for i := 0; i < n; i++ {
		v = []any{v}
	}
	return v
}

func nestMap(n int, leaf any) any {
	v := leaf
	for i := 0; i < n; i++ {
		v = map[string]any{"a": v}
	}
	return v
}

func isTooDeep(e Err) bool { return e.Kind == ErrInvalidArgument && e.S == msgTooDeep }

func TestEqualCyclic(t *testing.T) {
	a, b := selfMap(1), selfMap(1)
	eq, e := EqualDyn(a, b)
	if eq || !isTooDeep(e) {
		t.Fatalf("EqualDyn(cyclic, cyclic) = %v, %v; want TooDeep", eq, e)
	}
	if Equal(a, b) {
		t.Fatal("Equal(cyclic, cyclic) = true")
	}
	if got := e.Error(); got != "value too deeply nested or cyclic (more than 1000 levels of lists and maps)" {
		t.Fatalf("message %q", got)
	}
	// The same value on both sides is no shortcut: cel-go has none either.
	if _, e := EqualDyn(a, a); !isTooDeep(e) {
		t.Fatalf("EqualDyn(a, a) = %v", e)
	}
	// A cyclic list, a cycle through []map[string]any, and one through an
	// *AnyMap.
	l1, l2 := []any{nil}, []any{nil}
	l1[0], l2[0] = l1, l2
	if _, e := EqualDyn(l1, l2); !isTooDeep(e) {
		t.Fatalf("cyclic lists: %v", e)
	}
	m1, m2 := map[string]any{}, map[string]any{}
	m1["l"], m2["l"] = []map[string]any{m1}, []map[string]any{m2}
	if _, e := EqualDyn(m1, m2); !isTooDeep(e) {
		t.Fatalf("cycle through []map[string]any: %v", e)
	}
	x1, x2 := []any{nil}, []any{nil}
	x1[0], x2[0] = NewAnyMap(int64(1), x1), NewAnyMap(int64(1), x2)
	if _, e := EqualDyn(x1, x2); !isTooDeep(e) {
		t.Fatalf("cycle through *AnyMap: %v", e)
	}
	// in walks with EqualDyn.
	if ok, e := InDyn(a, []any{int64(1), b}); ok || !isTooDeep(e) {
		t.Fatalf("InDyn(cyclic) = %v, %v", ok, e)
	}
	if ok, e := InDyn(l1, []string{"x"}); ok || !e.Ok() {
		t.Fatalf("InDyn(cyclic, []string) = %v, %v", ok, e)
	}
	// Differences found before any deep walk still answer false.
	if eq, e := EqualDyn(a, selfMap(1)["k"]); eq || !e.Ok() {
		t.Fatalf("map vs int = %v, %v", eq, e)
	}
	if eq, e := EqualDyn([]any{int64(1), l1}, []any{int64(2), l2}); eq || !e.Ok() {
		t.Fatalf("lists differing before the cycle = %v, %v", eq, e)
	}
	if ok, e := InDyn(a, []any{a["k"], "x", true}); ok || !e.Ok() {
		t.Fatalf("InDyn without a deep element = %v, %v", ok, e)
	}
}

// A map with a difference and a cyclic entry gives the same answer in
// every Go map order.
func TestEqualCyclicDeterministic(t *testing.T) {
	for i := 0; i < 200; i++ {
		a, b := selfMap(1), selfMap(2)
		a["x"], b["x"], a["y"], b["y"] = "p", "q", int64(3), int64(4)
		if _, e := EqualDyn(a, b); !isTooDeep(e) {
			t.Fatalf("run %d: %v, want TooDeep whatever the order", i, e)
		}
		// Mixed representations take the general path; a missing key is
		// a difference like any other.
		c := map[string]any{"k": int64(1), "x": "p", "self": selfMap(1)}
		d := NewAnyMap("k", int64(2), "y", "p", "self", selfMap(1))
		if _, e := EqualDyn(c, d); !isTooDeep(e) {
			t.Fatalf("run %d: host vs AnyMap: %v, want TooDeep whatever the order", i, e)
		}
	}
}

// Many self references per level cost linear time, not exponential.
func TestEqualCyclicWide(t *testing.T) {
	a, b := map[string]any{}, map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		a[k], b[k] = a, b
	}
	l1, l2 := make([]any, 8), make([]any, 8)
	for i := range l1 {
		l1[i], l2[i] = l1, l2
	}
	start := time.Now()
	for i := 0; i < 100; i++ {
		if _, e := EqualDyn(a, b); !isTooDeep(e) {
			t.Fatal(e)
		}
		if _, e := EqualDyn(l1, l2); !isTooDeep(e) {
			t.Fatal(e)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("200 cyclic comparisons took %v", d)
	}
}

func TestEqualDepthLimit(t *testing.T) {
	for _, nest := range []func(int, any) any{nestList, nestMap} {
		for _, c := range []struct {
			n    int
			leaf any
			deep bool // TooDeep, else equal
		}{
			{MaxDepth, int64(1), false},
			{MaxDepth + 1, int64(1), true},
			{MaxDepth, []any{}, false}, // an empty innermost container is not walked into
			{MaxDepth, map[string]any{}, false},
			{MaxDepth + 1, []any{}, true},
		} {
			eq, e := EqualDyn(nest(c.n, c.leaf), nest(c.n, c.leaf))
			if c.deep && (eq || !isTooDeep(e)) || !c.deep && (!eq || !e.Ok()) {
				t.Errorf("depth %d, leaf %#v: %v, %v; want TooDeep %v", c.n, c.leaf, eq, e, c.deep)
			}
		}
	}
	// A difference at the bottom of a legal depth is found.
	if eq, e := EqualDyn(nestList(MaxDepth, int64(1)), nestList(MaxDepth, int64(2))); eq || !e.Ok() {
		t.Fatalf("deep difference: %v, %v", eq, e)
	}
	// in compares elem with each element: the element's own depth counts.
	if ok, e := InDyn(nestList(MaxDepth, int64(1)), []any{nestList(MaxDepth, int64(1))}); !ok || !e.Ok() {
		t.Fatalf("in at depth: %v, %v", ok, e)
	}
}
