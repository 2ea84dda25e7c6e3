package celdiff

import (
	"math/rand"
	"reflect"
	"testing"

	rt "github.com/oarc/oarc/runtime/impl"
)

// Deep and cyclic values (issue 10.1). Up to rt.MaxDepth nested lists and
// maps the runtime agrees with cel-go; past it, and on a cyclic value
// (which overflows cel-go's stack, so it cannot be asked), the walkers
// return rt.TooDeep.

func isTooDeep(e rt.Err) bool { return e.Kind == rt.ErrInvalidArgument && e == rt.TooDeep() }

// nesting is the number of nested lists and maps of v (0 for a scalar), up
// to limit.
func nesting(v any, limit int) int {
	if limit <= 0 {
		return 0
	}
	max := 0
	visit := func(e any) {
		if d := nesting(e, limit-1); d > max {
			max = d
		}
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			visit(e)
		}
	case []map[string]any:
		for _, e := range x {
			visit(e)
		}
	case map[string]any:
		for _, e := range x {
			visit(e)
		}
	case *rt.AnyMap:
		for j := 0; j < x.Len(); j++ {
			k, e := x.Entry(j)
			visit(k)
			visit(e)
		}
	case []string, []int64, []uint64, []float64, []bool, map[string]string:
		return 1
	default:
		return 0
	}
	return max + 1
}

// cyclic reports whether v contains itself.
func cyclic(v any) bool {
	onPath, done := map[uintptr]bool{}, map[uintptr]bool{}
	var visit func(v any) bool
	visit = func(v any) bool {
		var kids []any
		switch x := v.(type) {
		case []any:
			kids = x
		case []map[string]any:
			for _, e := range x {
				kids = append(kids, e)
			}
		case map[string]any:
			for _, e := range x {
				kids = append(kids, e)
			}
		case *rt.AnyMap:
			for j := 0; j < x.Len(); j++ {
				k, e := x.Entry(j)
				kids = append(kids, k, e)
			}
		default:
			return false
		}
		if len(kids) == 0 {
			return false
		}
		id := reflect.ValueOf(v).Pointer()
		if onPath[id] {
			return true
		}
		if done[id] {
			return false
		}
		onPath[id] = true
		for _, k := range kids {
			if visit(k) {
				return true
			}
		}
		delete(onPath, id)
		done[id] = true
		return false
	}
	return visit(v)
}

// deepCase is an expression over x and y whose runtime version walks
// values nested wrap levels deeper than x and y themselves.
type deepCase struct {
	expr string
	wrap int
	run  func(a act) (any, rt.Err)
}

var walkCases = []deepCase{
	{"x == y", 0, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["y"])) }},
	{"x != y", 0, func(a act) (any, rt.Err) { eq, e := rt.EqualDyn(a["x"], a["y"]); return !eq, e }},
	{"y == x", 0, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["y"], a["x"])) }},
	{"[x] == [y]", 1, func(a act) (any, rt.Err) { return vb(rt.EqualDyn([]any{a["x"]}, []any{a["y"]})) }},
	{"{'k': x} == {'k': y}", 1, func(a act) (any, rt.Err) {
		return vb(rt.EqualDyn(map[string]any{"k": a["x"]}, map[string]any{"k": a["y"]}))
	}},
	{"{1: x} == dyn({1u: y})", 1, func(a act) (any, rt.Err) {
		return vb(rt.EqualDyn(rt.NewAnyMap(int64(1), a["x"]), rt.NewAnyMap(uint64(1), a["y"])))
	}},
	{"x in [y]", 0, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["x"], []any{a["y"]})) }},
	{"x in [1, y]", 0, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["x"], []any{int64(1), a["y"]})) }},
}

// checkDeep compares with cel-go, except that the runtime may answer
// TooDeep when the walked values are deeper than rt.MaxDepth; with chains
// (x and y of one shape, the same but for the innermost leaf, so that the
// walk reaches it) it must.
func checkDeep(t *testing.T, e *Evaluator, c deepCase, a act, walkDepth int, chains bool) bool {
	t.Helper()
	v, re := c.run(a)
	if isTooDeep(re) {
		if walkDepth <= rt.MaxDepth {
			t.Errorf("%s: TooDeep at depth %d", c.expr, walkDepth)
			return false
		}
		return true
	}
	if chains && walkDepth > rt.MaxDepth+1 { // +1: an empty innermost container is not walked into
		t.Errorf("%s: %v, %v at depth %d, want TooDeep", c.expr, v, re, walkDepth)
		return false
	}
	cv, err := e.Eval(c.expr, a)
	if err != nil {
		t.Fatal(err)
	}
	if msg := Check(v, re, cv); msg != "" {
		t.Errorf("%s at depth %d: %s", c.expr, walkDepth, msg)
		return false
	}
	return true
}

func TestDeep(t *testing.T) {
	e := evaluator(t)
	r := rand.New(rand.NewSource(7))
	leaves := []any{int64(1), 1.0, uint64(1), "a", nil, []any{}, rt.NewAnyMap(), true, []string{"a"}}
	n := 0
	for depth := rt.MaxDepth - 2; depth <= rt.MaxDepth+2; depth++ {
		for shape := int64(0); shape < 6; shape++ {
			lx, ly := leaves[r.Intn(len(leaves))], leaves[r.Intn(len(leaves))]
			if shape%2 == 0 {
				ly = lx
			}
			a := act{"x": genDeep(shape, depth, lx), "y": genDeep(shape, depth, ly)}
			nd := nesting(a["x"], 2*rt.MaxDepth)
			for _, c := range walkCases {
				checkDeep(t, e, c, a, nd+c.wrap, true)
				n++
			}
		}
	}
	// Exactly at the limit the answer is cel-go's; one level more is an
	// error, whatever the shape.
	for shape := int64(0); shape < 20; shape++ {
		at := act{"x": genDeep(shape, rt.MaxDepth, int64(1)), "y": genDeep(shape, rt.MaxDepth, int64(1))}
		if v, e := rt.EqualDyn(at["x"], at["y"]); v != true || !e.Ok() {
			t.Errorf("shape %d at MaxDepth: %v %v", shape, v, e)
		}
		past := act{"x": genDeep(shape, rt.MaxDepth+1, int64(1)), "y": genDeep(shape, rt.MaxDepth+1, int64(1))}
		if _, e := rt.EqualDyn(past["x"], past["y"]); !isTooDeep(e) {
			t.Errorf("shape %d past MaxDepth: %v", shape, e)
		}
	}
	t.Logf("%d deep comparisons", n)
}

// Operations that do not walk a value agree with cel-go on cyclic values
// too (cel-go converts lazily); walking ones give TooDeep or a difference
// found on the way, never true, the same on every call.
func TestCyclic(t *testing.T) {
	e := evaluator(t)
	r := rand.New(rand.NewSource(11))
	for n := 0; n < 600; n++ {
		a := gDyn2(r)
		a["x"] = genCyclic(r)
		switch r.Intn(3) {
		case 0:
			a["y"] = genCyclic(r)
		case 1:
			a["y"] = a["x"]
		}
		checkCyclic(t, e, a)
		if t.Failed() {
			return
		}
	}
}

var shallowCases = []dcase{
	{"size(x)", nil, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["x"])) }},
	{"type(x)", nil, func(a act) (any, rt.Err) { return ok(rt.TypeOf(a["x"])) }},
	{"has(x.self)", nil, func(a act) (any, rt.Err) { return vb(rt.HasDyn(a["x"], "self")) }},
	{"'self' in x", nil, func(a act) (any, rt.Err) { return vb(rt.InDyn("self", a["x"])) }},
	{"1 in x", nil, func(a act) (any, rt.Err) { return vb(rt.InDyn(int64(1), a["x"])) }},
	{"x == 1", nil, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], int64(1))) }},
	{"x == null", nil, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], nil)) }},
	{"x == []", nil, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], []any{})) }},
	{"x == {}", nil, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], rt.NewAnyMap())) }},
	{"x == y", nil, nil}, // only when y is a scalar: see checkCyclic
	{"type(x[0])", nil, func(a act) (any, rt.Err) {
		v, e := rt.IndexDyn(a["x"], int64(0))
		if !e.Ok() {
			return nil, e
		}
		return ok(rt.TypeOf(v))
	}},
	{"size(x.self)", nil, func(a act) (any, rt.Err) {
		v, e := rt.SelectDyn(a["x"], "self")
		if !e.Ok() {
			return nil, e
		}
		return vi(rt.SizeDyn(v))
	}},
	{"x.k == x.k", nil, func(a act) (any, rt.Err) {
		v, e := rt.SelectDyn(a["x"], "k")
		if !e.Ok() {
			return nil, e
		}
		return vb(rt.EqualDyn(v, v))
	}},
	{"{x: 1}[1] == 1", nil, func(a act) (any, rt.Err) {
		v, e := rt.IndexDyn(rt.NewAnyMap(a["x"], int64(1)), int64(1))
		if !e.Ok() {
			return nil, e
		}
		return ok(rt.EqualDynInt(v, 1))
	}},
	{"size({x: 1, y: 2})", nil, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(rt.NewAnyMap(a["x"], int64(1), a["y"], int64(2)))) }},
}

func checkCyclic(t *testing.T, e *Evaluator, a act) {
	t.Helper()
	fails := 0
	yScalar := nesting(a["y"], 3) == 0
	for _, c := range shallowCases {
		run := c.run
		if run == nil {
			if !yScalar {
				continue
			}
			run = func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["y"])) }
		}
		if c.expr == "x.k == x.k" {
			if m, ok := a["x"].(map[string]any); !ok || nesting(m["k"], 3) != 0 {
				continue // only where x.k is a scalar, which cel-go can compare
			}
		}
		checkOne(t, e, c.expr, a, run, &fails)
	}
	for _, c := range walkCases {
		first, fe := c.run(a)
		for k := 0; k < 5; k++ {
			v, ve := c.run(a)
			if v != first || ve != fe {
				t.Errorf("%s on %s: %v %v, then %v %v", c.expr, Show(map[string]any(a)), first, fe, v, ve)
			}
		}
		switch {
		case isTooDeep(fe):
		case !fe.Ok():
			t.Errorf("%s on %s: error %v", c.expr, Show(map[string]any(a)), fe)
		case c.expr == "x in [1, y]": // true when x is 1
		case c.expr == "x != y":
			if first != true {
				t.Errorf("%s on %s: %v, a cyclic value cannot be equal", c.expr, Show(map[string]any(a)), first)
			}
		case first != false:
			t.Errorf("%s on %s: %v, a cyclic value cannot be equal", c.expr, Show(map[string]any(a)), first)
		}
	}
}
