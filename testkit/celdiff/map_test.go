package celdiff

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/oarc/oarc/runtime"
	rt "github.com/oarc/oarc/runtime/impl"
)

// Maps with keys other than strings (issue 9.6), against cel-go.

func nm(kv ...any) *rt.AnyMap { return rt.NewAnyMap(kv...) }

func i(n int64) any { return n }

// TestMapLiterals runs the literals of issue 9.6 as generated code would:
// the literal is NewAnyMap of its pairs in source order.
func TestMapLiterals(t *testing.T) {
	e := evaluator(t)
	self := map[string]any{"k": int64(1)}
	tool := act{"m": map[string]any{}}
	for _, c := range []struct {
		expr string
		a    act
		run  func(a act) (any, rt.Err)
	}{
		{"{1: 2, 2.0: 3}", nil, func(act) (any, rt.Err) { return ok(nm(i(1), i(2), 2.0, i(3))) }},
		{"{1: 2, 1u: 3}", nil, func(act) (any, rt.Err) { return ok(nm(i(1), i(2), uint64(1), i(3))) }},
		{"size({1: 2, 1u: 3})", nil, func(act) (any, rt.Err) { return vi(rt.SizeDyn(nm(i(1), i(2), uint64(1), i(3)))) }},
		{`{"a": 1, "a": 2}`, nil, func(act) (any, rt.Err) { return ok(nm("a", i(1), "a", i(2))) }},
		{`{"a": 1, "a": 2}["a"]`, nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm("a", i(1), "a", i(2)), "a") }},
		{"{null: 1}", nil, func(act) (any, rt.Err) { return ok(nm(nil, i(1))) }},
		{"null in {null: 1}", nil, func(act) (any, rt.Err) { return vb(rt.InDyn(nil, nm(nil, i(1)))) }},
		{"{[1]: 2}", nil, func(act) (any, rt.Err) { return ok(nm([]any{i(1)}, i(2))) }},
		{"size({[1]: 2, [1]: 3})", nil, func(act) (any, rt.Err) { return vi(rt.SizeDyn(nm([]any{i(1)}, i(2), []any{i(1)}, i(3)))) }},
		{"[1] in {[1]: 2}", nil, func(act) (any, rt.Err) { return vb(rt.InDyn([]any{i(1)}, nm([]any{i(1)}, i(2)))) }},
		{"{} in {{}: 1}", nil, func(act) (any, rt.Err) { return vb(rt.InDyn(nm(), nm(nm(), i(1)))) }},
		{"{[1]: 2} == {[1]: 2}", nil, func(act) (any, rt.Err) { return vb(rt.EqualDyn(nm([]any{i(1)}, i(2)), nm([]any{i(1)}, i(2)))) }},
		{"true in {true: 1}", nil, func(act) (any, rt.Err) { return vb(rt.InDyn(true, nm(true, i(1)))) }},
		{"size({})", nil, func(act) (any, rt.Err) { return vi(rt.SizeDyn(nm())) }},
		{"{}", nil, func(act) (any, rt.Err) { return ok(nm()) }},
		{"{1: 'a'}[1]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(i(1), "a"), i(1)) }},
		{"dyn({1: 2}) == {1: 2}", nil, func(act) (any, rt.Err) { return vb(rt.EqualDyn(nm(i(1), i(2)), nm(i(1), i(2)))) }},
		{"dyn({1: 2})[1.0]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(i(1), i(2)), 1.0) }},
		{"dyn({1: 2})[1u]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(i(1), i(2)), uint64(1)) }},
		{"dyn({1.0: 2})[1]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(1.0, i(2)), i(1)) }},
		{"dyn({1: 2})[2.5]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(i(1), i(2)), 2.5) }},
		{"dyn({1: 2})[dyn([1])]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(i(1), i(2)), []any{i(1)}) }},
		{"dyn({null: 2})[dyn(null)]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(nil, i(2)), nil) }},
		{"dyn({1: 2, 1u: 3})[1.0]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(i(1), i(2), uint64(1), i(3)), 1.0) }},
		{"dyn({1u: 2, 1: 3})[1.0]", nil, func(act) (any, rt.Err) { return rt.IndexDyn(nm(uint64(1), i(2), i(1), i(3)), 1.0) }},
		{"dyn({1: 2}) == dyn({1.0: 2})", nil, func(act) (any, rt.Err) { return vb(rt.EqualDyn(nm(i(1), i(2)), nm(1.0, i(2)))) }},
		{"dyn({1.0: 2}) == dyn({1: 2})", nil, func(act) (any, rt.Err) { return vb(rt.EqualDyn(nm(1.0, i(2)), nm(i(1), i(2)))) }},
		{"{1: 'x', 1u: 'x'} == {1: 'x', 2: 'x'}", nil, func(act) (any, rt.Err) {
			return vb(rt.EqualDyn(nm(i(1), "x", uint64(1), "x"), nm(i(1), "x", i(2), "x")))
		}},
		{"{1: 'x', 2: 'x'} == {1: 'x', 1u: 'x'}", nil, func(act) (any, rt.Err) {
			return vb(rt.EqualDyn(nm(i(1), "x", i(2), "x"), nm(i(1), "x", uint64(1), "x")))
		}},
		{"has({}.a)", nil, func(act) (any, rt.Err) { return vb(rt.HasDyn(nm(), "a")) }},
		{"has({1: 2}.a)", nil, func(act) (any, rt.Err) { return vb(rt.HasDyn(nm(i(1), i(2)), "a")) }},
		{"has({'a': 1, 1: 2}.a)", nil, func(act) (any, rt.Err) { return vb(rt.HasDyn(nm("a", i(1), i(1), i(2)), "a")) }},
		{"{'a': 1, 1: 2}.a", nil, func(act) (any, rt.Err) { return rt.SelectDyn(nm("a", i(1), i(1), i(2)), "a") }},
		{"{1: 2}.a", nil, func(act) (any, rt.Err) { return rt.SelectDyn(nm(i(1), i(2)), "a") }},
		{"m != {}", tool, func(a act) (any, rt.Err) { eq, e := rt.EqualDyn(a["m"], nm()); return !eq, e }},
		{"{} == m", tool, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(nm(), a["m"])) }},
		{"m != {}", act{"m": self}, func(a act) (any, rt.Err) { eq, e := rt.EqualDyn(a["m"], nm()); return !eq, e }},
		{"type({1: 2}) == map", nil, func(act) (any, rt.Err) { return ok(rt.TypeOf(nm(i(1), i(2))) == "map") }},
		{"type({})", nil, func(act) (any, rt.Err) { return ok(rt.TypeOf(nm())) }},
		{"{int: 1, type(1u): 2}", nil, func(act) (any, rt.Err) { return ok(nm(rt.Type("int"), i(1), rt.TypeOf(uint64(1)), i(2))) }},
		{"int in {int: 1}", nil, func(act) (any, rt.Err) { return vb(rt.InDyn(rt.Type("int"), nm(rt.Type("int"), i(1)))) }},
		{"{double('NaN'): 1, double('NaN'): 2}", nil, func(act) (any, rt.Err) { return ok(nm(math.NaN(), i(1), math.NaN(), i(2))) }},
		{"{0.0: 1, -0.0: 2}", nil, func(act) (any, rt.Err) { return ok(nm(0.0, i(1), math.Copysign(0, -1), i(2))) }},
		{"{-0.0: 1, 0.0: 2}", nil, func(act) (any, rt.Err) { return ok(nm(math.Copysign(0, -1), i(1), 0.0, i(2))) }},
		{"{1: 2}.all(k, k in {1: 2})", nil, func(act) (any, rt.Err) {
			m := nm(i(1), i(2))
			return all(m, func(k any) (bool, rt.Err) { return rt.InDyn(k, m) })
		}},
		{"{1: 2, 'a': 3, 2.5: 4}.exists(k, k == 2.5)", nil, func(act) (any, rt.Err) {
			return exists(nm(i(1), i(2), "a", i(3), 2.5, i(4)), func(k any) (bool, rt.Err) { return rt.EqualDyn(k, 2.5) })
		}},
		{"{1: 2, 'a': 3}.exists_one(k, k == 'a')", nil, func(act) (any, rt.Err) {
			return existsOne(nm(i(1), i(2), "a", i(3)), func(k any) (bool, rt.Err) { return rt.EqualDyn(k, "a") })
		}},
		{"{double('NaN'): 1}.all(k, k in {double('NaN'): 1})", nil, func(act) (any, rt.Err) {
			return all(nm(math.NaN(), i(1)), func(k any) (bool, rt.Err) { return rt.InDyn(k, nm(math.NaN(), i(1))) })
		}},
		{"[dyn({1: 2})] == [dyn({1u: 2})]", nil, func(act) (any, rt.Err) { return vb(rt.EqualDyn([]any{nm(i(1), i(2))}, []any{nm(uint64(1), i(2))})) }},
		{"{1: 'x', 1u: 'x'} in [{1: 'x', 2: 'x'}]", nil, func(act) (any, rt.Err) {
			return vb(rt.InDyn(nm(i(1), "x", uint64(1), "x"), []any{nm(i(1), "x", i(2), "x")}))
		}},
		{"dyn({'a': {1: [2]}}) == {'a': dyn({1.0: [2.0]})}", nil, func(act) (any, rt.Err) {
			return vb(rt.EqualDyn(nm("a", nm(i(1), []any{i(2)})), nm("a", nm(1.0, []any{2.0}))))
		}},
	} {
		fails := 0
		a := c.a
		if a == nil {
			a = act{}
		}
		checkOne(t, e, c.expr, a, c.run, &fails)
	}
}

// all, exists and exists_one over RangeDyn, as generated code iterates:
// all and exists absorb errors the way && and || do.
func all(rng any, pred func(any) (bool, rt.Err)) (any, rt.Err) {
	l, e := rt.RangeDyn(rng)
	if !e.Ok() {
		return nil, e
	}
	var first rt.Err
	for n := 0; n < l.Len(); n++ {
		v, e := pred(l.At(n))
		switch {
		case !e.Ok():
			if first.Ok() {
				first = e
			}
		case !v:
			return false, rt.Err{}
		}
	}
	if !first.Ok() {
		return nil, first
	}
	return true, rt.Err{}
}

func exists(rng any, pred func(any) (bool, rt.Err)) (any, rt.Err) {
	r, e := all(rng, func(k any) (bool, rt.Err) { v, e := pred(k); return !v, e })
	if !e.Ok() {
		return nil, e
	}
	return !r.(bool), e
}

func existsOne(rng any, pred func(any) (bool, rt.Err)) (any, rt.Err) {
	l, e := rt.RangeDyn(rng)
	if !e.Ok() {
		return nil, e
	}
	n := 0
	for j := 0; j < l.Len(); j++ {
		v, e := pred(l.At(j))
		if !e.Ok() {
			return nil, e
		}
		if v {
			n++
		}
	}
	return n == 1, rt.Err{}
}

// gMap: x a map (mostly) of any representation, y a key or any dyn.
func gMap(r *rand.Rand) act {
	a := gDyn2(r)
	switch r.Intn(4) {
	case 0:
		a["x"] = genContainer(r, 1)
	case 1:
		a["x"] = genEmptyMap(r)
	default:
		a["x"] = genAnyMap(r, 1)
	}
	if r.Intn(4) > 0 {
		a["y"] = genKey(r)
	}
	return a
}

func TestMapOps(t *testing.T) {
	runCases(t, []dcase{
		{"x[y]", gMap, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["y"]) }},
		{"y in x", gMap, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["y"], a["x"])) }},
		{"x == y", gMap, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["y"])) }},
		{"x == x", gMap, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["x"])) }},
		{"x != {}", gMap, func(a act) (any, rt.Err) { eq, e := rt.EqualDyn(a["x"], nm()); return !eq, e }},
		{"{} == x", gMap, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(nm(), a["x"])) }},
		{"size(x)", gMap, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["x"])) }},
		{"x.a", gMap, func(a act) (any, rt.Err) { return rt.SelectDyn(a["x"], "a") }},
		{"has(x.a)", gMap, func(a act) (any, rt.Err) { return vb(rt.HasDyn(a["x"], "a")) }},
		{"type(x)", gMap, func(a act) (any, rt.Err) { return ok(rt.TypeOf(a["x"])) }},
		{"type(y)", gMap, func(a act) (any, rt.Err) { return ok(rt.TypeOf(a["y"])) }},
		{"{x: 1}[y]", gMap, func(a act) (any, rt.Err) { return rt.IndexDyn(nm(a["x"], i(1)), a["y"]) }},
		{"{y: 1}[y]", gMap, func(a act) (any, rt.Err) { return rt.IndexDyn(nm(a["y"], i(1)), a["y"]) }},
		{"{y: 1, 1: 2, 1u: 3, 1.0: 4}[y]", gMap, func(a act) (any, rt.Err) {
			return rt.IndexDyn(nm(a["y"], i(1), i(1), i(2), uint64(1), i(3), 1.0, i(4)), a["y"])
		}},
		{"y in {x: 1, 2: 2}", gMap, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["y"], nm(a["x"], i(1), i(2), i(2)))) }},
		{"{x: 1, y: 2}", gMap, func(a act) (any, rt.Err) { return ok(nm(a["x"], i(1), a["y"], i(2))) }},
		{"size({x: 1, y: 2, 'a': x})", gMap, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(nm(a["x"], i(1), a["y"], i(2), "a", a["x"]))) }},
		{"{x: 1, y: 2} == {y: 2, x: 1}", gMap, func(a act) (any, rt.Err) {
			return vb(rt.EqualDyn(nm(a["x"], i(1), a["y"], i(2)), nm(a["y"], i(2), a["x"], i(1))))
		}},
		{"{'a': x, 1: y} == {'a': y, 1u: x}", gMap, func(a act) (any, rt.Err) {
			return vb(rt.EqualDyn(nm("a", a["x"], i(1), a["y"]), nm("a", a["y"], uint64(1), a["x"])))
		}},
		{"{y: x}[y]", gMap, func(a act) (any, rt.Err) { return rt.IndexDyn(nm(a["y"], a["x"]), a["y"]) }},
		{"[x] == [y]", gMap, func(a act) (any, rt.Err) { return vb(rt.EqualDyn([]any{a["x"]}, []any{a["y"]})) }},
		{"x in [y, x]", gMap, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["x"], []any{a["y"], a["x"]})) }},
		{"x.all(k, k in x)", gMap, func(a act) (any, rt.Err) {
			return all(a["x"], func(k any) (bool, rt.Err) { return rt.InDyn(k, a["x"]) })
		}},
		{"x.exists(k, k == y)", gMap, func(a act) (any, rt.Err) {
			return exists(a["x"], func(k any) (bool, rt.Err) { return rt.EqualDyn(k, a["y"]) })
		}},
		{"x.exists_one(k, y == k)", gMap, func(a act) (any, rt.Err) {
			return existsOne(a["x"], func(k any) (bool, rt.Err) { return rt.EqualDyn(a["y"], k) })
		}},
		// Iteration order is Go map order in cel-go, so only expressions
		// whose outcome does not depend on it (at most one error) compare.
		{"size(x.filter(k, k == y))", gMap, func(a act) (any, rt.Err) {
			l, e := rt.RangeDyn(a["x"])
			if !e.Ok() {
				return nil, e
			}
			n := int64(0)
			for j := 0; j < l.Len(); j++ {
				eq, e := rt.EqualDyn(l.At(j), a["y"])
				if !e.Ok() {
					return nil, e
				}
				if eq {
					n++
				}
			}
			return n, rt.Err{}
		}},
		{"x.exists(k, has(x.a))", gMap, func(a act) (any, rt.Err) {
			return exists(a["x"], func(any) (bool, rt.Err) { return rt.HasDyn(a["x"], "a") })
		}},
	})
}

// uint, completing issue 9.7.
func TestUint(t *testing.T) {
	gU := func(r *rand.Rand) act {
		a := gDyn2(r)
		if r.Intn(2) == 0 {
			a["x"] = genUint(r)
		}
		if r.Intn(3) == 0 {
			a["y"] = genUint(r)
		}
		return a
	}
	runCases(t, []dcase{
		{"uint(x)", gU, func(a act) (any, rt.Err) { return vu(rt.UintFromDyn(a["x"])) }},
		{"uint(i)", gU, func(a act) (any, rt.Err) { return vu(rt.UintFromInt(i64(a, "i"))) }},
		{"uint(d)", gU, func(a act) (any, rt.Err) { return vu(rt.UintFromDouble(f64(a, "d"))) }},
		{"uint(s)", gU, func(a act) (any, rt.Err) { return vu(rt.UintFromString(str(a, "s"))) }},
		{"uint(string(u)) == u", gU, func(a act) (any, rt.Err) {
			v, e := rt.UintFromString(rt.StringFromUint(u64(a, "u")))
			return v == u64(a, "u"), e
		}},
		{"int(u)", gU, func(a act) (any, rt.Err) { return vi(rt.IntFromUint(u64(a, "u"))) }},
		{"double(u)", gU, func(a act) (any, rt.Err) { return ok(rt.DoubleFromUint(u64(a, "u"))) }},
		{"string(u)", gU, func(a act) (any, rt.Err) { return ok(rt.StringFromUint(u64(a, "u"))) }},
		{"type(u)", gU, func(a act) (any, rt.Err) { return ok(rt.TypeOf(u64(a, "u"))) }},
		{"type(x)", gU, func(a act) (any, rt.Err) { return ok(rt.TypeOf(a["x"])) }},
		{"-x", gU, func(a act) (any, rt.Err) { return rt.NegDyn(a["x"]) }},
		{"x + y", gU, func(a act) (any, rt.Err) { return rt.AddDyn(a["x"], a["y"]) }},
		{"x - y", gU, func(a act) (any, rt.Err) { return rt.SubDyn(a["x"], a["y"]) }},
		{"x * y", gU, func(a act) (any, rt.Err) { return rt.MulDyn(a["x"], a["y"]) }},
		{"x / y", gU, func(a act) (any, rt.Err) { return rt.DivDyn(a["x"], a["y"]) }},
		{"x % y", gU, func(a act) (any, rt.Err) { return rt.ModDyn(a["x"], a["y"]) }},
		{"x == u", gU, func(a act) (any, rt.Err) { return ok(rt.EqualDynUint(a["x"], u64(a, "u"))) }},
		{"u == x", gU, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(u64(a, "u"), a["x"])) }},
		{"x == y", gU, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["y"])) }},
		{"dyn(u) == d", gU, func(a act) (any, rt.Err) { return ok(rt.EqualUintDouble(u64(a, "u"), f64(a, "d"))) }},
		{"dyn(u) == i", gU, func(a act) (any, rt.Err) { return ok(rt.EqualIntUint(i64(a, "i"), u64(a, "u"))) }},
		{"dyn(u) < d", gU, func(a act) (any, rt.Err) { return ok(rt.LessUintDouble(u64(a, "u"), f64(a, "d"))) }},
		{"dyn(d) < u", gU, func(a act) (any, rt.Err) { return ok(rt.LessDoubleUint(f64(a, "d"), u64(a, "u"))) }},
		{"u < x", gU, func(a act) (any, rt.Err) { return ord(rt.Lt)(rt.CompareUintDyn(u64(a, "u"), a["x"])) }},
		{"x >= u", gU, func(a act) (any, rt.Err) { return ord(rt.Ge)(rt.CompareDynUint(a["x"], u64(a, "u"))) }},
		{"u <= u", gU, func(a act) (any, rt.Err) { return ok(rt.Le(rt.CompareUint(u64(a, "u"), u64(a, "u")))) }},
		{"x in [1u, 2u]", gU, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["x"], []any{uint64(1), uint64(2)})) }},
		{"x in {1u: 2}", gU, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["x"], nm(uint64(1), i(2)))) }},
		{"[1.0, 2.0, 3] == [1u, 2, 3u]", gU, func(a act) (any, rt.Err) {
			return vb(rt.EqualDyn([]any{1.0, 2.0, i(3)}, []any{uint64(1), i(2), uint64(3)}))
		}},
	})
}

// json.Number in tool arguments (issue 10.8): cel-go's adapter reads it as
// the int or double it spells, so must the impl.
func TestJSONNumbers(t *testing.T) {
	gJ := func(r *rand.Rand) act {
		a := gDyn2(r)
		a["x"] = genNumber(r)
		if r.Intn(2) == 0 {
			a["y"] = genNumber(r)
		}
		a["m"] = map[string]any{"count": genNumber(r), "l": []any{genNumber(r)}}
		return a
	}
	runCases(t, []dcase{
		{"x", gJ, func(a act) (any, rt.Err) { return ok(a["x"]) }},
		{"x == y", gJ, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["y"])) }},
		{"x < y", gJ, func(a act) (any, rt.Err) { return vb(rt.LessDyn(a["x"], a["y"])) }},
		{"x + y", gJ, func(a act) (any, rt.Err) { return rt.AddDyn(a["x"], a["y"]) }},
		{"x == i", gJ, func(a act) (any, rt.Err) { return ok(rt.EqualDynInt(a["x"], i64(a, "i"))) }},
		{"x > 5", gJ, func(a act) (any, rt.Err) { return ord(rt.Gt)(rt.CompareDynInt(a["x"], 5)) }},
		{"m.count > 5", gJ, func(a act) (any, rt.Err) {
			v, e := rt.SelectDyn(a["m"], "count")
			if !e.Ok() {
				return nil, e
			}
			return ord(rt.Gt)(rt.CompareDynInt(v, 5))
		}},
		{"int(x)", gJ, func(a act) (any, rt.Err) { return vi(rt.IntFromDyn(a["x"])) }},
		{"double(x)", gJ, func(a act) (any, rt.Err) { return vf(rt.DoubleFromDyn(a["x"])) }},
		{"string(x)", gJ, func(a act) (any, rt.Err) { return vs(rt.StringFromDyn(a["x"])) }},
		{"uint(x)", gJ, func(a act) (any, rt.Err) { return vu(rt.UintFromDyn(a["x"])) }},
		{"type(x)", gJ, func(a act) (any, rt.Err) { return ok(rt.TypeOf(a["x"])) }},
		{"x + 1", gJ, func(a act) (any, rt.Err) {
			x, e := rt.AsInt(a["x"])
			if !e.Ok() {
				return nil, e
			}
			return vi(rt.AddInt(x, 1))
		}},
		{"x + 0.5", gJ, func(a act) (any, rt.Err) {
			x, e := rt.AsDouble(a["x"])
			return x + 0.5, e
		}},
		{"x + ''", gJ, func(a act) (any, rt.Err) {
			x, e := rt.AsString(a["x"])
			return x, e
		}},
		{"size(x)", gJ, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["x"])) }},
		{"x in m.l", gJ, func(a act) (any, rt.Err) {
			l, _ := rt.SelectDyn(a["m"], "l")
			return vb(rt.InDyn(a["x"], l))
		}},
		{"[1, 2, 3][y]", gJ, func(a act) (any, rt.Err) { return rt.IndexDyn([]any{i(1), i(2), i(3)}, a["y"]) }},
		{"{1: 'a', 2.5: 'b'}[x]", gJ, func(a act) (any, rt.Err) { return rt.IndexDyn(nm(i(1), "a", 2.5, "b"), a["x"]) }},
	})
	// tool_arg_int and tool_arg_string on JSON-decoded arguments.
	args, err := runtime.DecodeToolArgs([]byte(`{"count": 7, "ratio": 2.0, "name": "x", "big": 1e30}`))
	if err != nil {
		t.Fatal(err)
	}
	argInt := func(m map[string]any, k string) int64 { n, _ := rt.ToolArgInt(m, k); return n }
	argStr := func(m map[string]any, k string) string { s, _ := rt.ToolArgString(m, k); return s }
	if argInt(args, "count") != 7 || argInt(args, "ratio") != 2 || argInt(args, "big") != 0 ||
		argStr(args, "name") != "x" || argStr(args, "count") != "" {
		t.Errorf("tool_arg_* on %v", args)
	}
	if argInt(map[string]any{"n": json.Number("7")}, "n") != 7 {
		t.Error("tool_arg_int(json.Number)")
	}
}
