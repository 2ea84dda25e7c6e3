package celdiff

import (
	"encoding/json"
	"testing"

	rt "github.com/oarc/oarc/runtime/impl"
)

// FuzzStrings compares the code-point string helpers with cel-go.
func FuzzStrings(f *testing.F) {
	f.Add("héllo wörld", "o", int64(3), int64(5))
	f.Add("\xff\xfe\uFFFD", "\uFFFD", int64(-1), int64(2))
	f.Add("", "", int64(0), int64(0))
	f.Add("Ab\xc3Cd", "b", int64(9), int64(1))
	f.Fuzz(func(t *testing.T, s, sub string, i, j int64) {
		e := evaluator(t)
		a := act{"s": s, "t": sub, "r": "x", "i": i, "j": j, "ls": []string{s, sub}}
		fails := 0
		for _, c := range []struct {
			expr string
			run  func(a act) (any, rt.Err)
		}{
			{"s.indexOf(t)", func(a act) (any, rt.Err) { return ok(rt.IndexOf(s, sub)) }},
			{"s.indexOf(t, i)", func(a act) (any, rt.Err) { return vi(rt.IndexOfFrom(s, sub, i)) }},
			{"s.lastIndexOf(t)", func(a act) (any, rt.Err) { return ok(rt.LastIndexOf(s, sub)) }},
			{"s.lastIndexOf(t, i)", func(a act) (any, rt.Err) { return vi(rt.LastIndexOfFrom(s, sub, i)) }},
			{"s.substring(i)", func(a act) (any, rt.Err) { return vs(rt.Substring(s, i)) }},
			{"s.substring(i, j)", func(a act) (any, rt.Err) { return vs(rt.SubstringRange(s, i, j)) }},
			{"s.charAt(i)", func(a act) (any, rt.Err) { return vs(rt.CharAt(s, i)) }},
			{"s.lowerAscii()", func(a act) (any, rt.Err) { return ok(rt.LowerASCII(s)) }},
			{"s.upperAscii()", func(a act) (any, rt.Err) { return ok(rt.UpperASCII(s)) }},
			{"s.trim()", func(a act) (any, rt.Err) { return ok(rt.Trim(s)) }},
			{"s.split(t, i)", func(a act) (any, rt.Err) { return ok(rt.SplitN(s, sub, i)) }},
			{"s.replace(t, r, i)", func(a act) (any, rt.Err) { return ok(rt.ReplaceN(s, sub, "x", i)) }},
			{"size(s)", func(a act) (any, rt.Err) { return ok(rt.SizeString(s)) }},
			{"int(s)", func(a act) (any, rt.Err) { return vi(rt.IntFromString(s)) }},
			{"double(s)", func(a act) (any, rt.Err) { return vf(rt.DoubleFromString(s)) }},
			{"bool(s)", func(a act) (any, rt.Err) { return vb(rt.BoolFromString(s)) }},
			{"s.matches(t)", func(a act) (any, rt.Err) { return vb(rt.MatchesDynamic(s, sub)) }},
		} {
			checkOne(t, e, c.expr, a, c.run, &fails)
		}
	})
}

// FuzzNumbers compares arithmetic, comparisons and conversions with cel-go.
func FuzzNumbers(f *testing.F) {
	f.Add(int64(1), int64(-1), 1.5, 0.0, uint64(3))
	f.Add(int64(-9223372036854775808), int64(-1), -9223372036854775808.0, 9223372036854775807.0, uint64(1<<63))
	f.Fuzz(func(t *testing.T, i, j int64, d, d2 float64, u uint64) {
		e := evaluator(t)
		a := act{"i": i, "j": j, "d": d, "e": d2, "u": u, "x": d, "y": i}
		fails := 0
		for _, c := range []struct {
			expr string
			run  func(a act) (any, rt.Err)
		}{
			{"i + j", func(a act) (any, rt.Err) { return vi(rt.AddInt(i, j)) }},
			{"i - j", func(a act) (any, rt.Err) { return vi(rt.SubInt(i, j)) }},
			{"i * j", func(a act) (any, rt.Err) { return vi(rt.MulInt(i, j)) }},
			{"i / j", func(a act) (any, rt.Err) { return vi(rt.DivInt(i, j)) }},
			{"i % j", func(a act) (any, rt.Err) { return vi(rt.ModInt(i, j)) }},
			{"x < y", func(a act) (any, rt.Err) { return vb(rt.LessDyn(d, i)) }},
			{"x >= y", func(a act) (any, rt.Err) { return vb(rt.GreaterEqDyn(d, i)) }},
			{"x == y", func(a act) (any, rt.Err) { return ok(rt.Equal(d, i)) }},
			{"dyn(u) <= d", func(a act) (any, rt.Err) { return ord(rt.Le)(rt.CompareUintDouble(u, d)) }},
			{"dyn(i) > u", func(a act) (any, rt.Err) { return ok(rt.Gt(rt.CompareIntUint(i, u))) }},
			{"int(d)", func(a act) (any, rt.Err) { return vi(rt.IntFromDouble(d)) }},
			{"uint(d)", func(a act) (any, rt.Err) { return vu(rt.UintFromDouble(d)) }},
			{"string(d)", func(a act) (any, rt.Err) { return ok(rt.StringFromDouble(d)) }},
			{"x / dyn(e)", func(a act) (any, rt.Err) { return rt.DivDyn(d, d2) }},
			{"uint(x)", func(a act) (any, rt.Err) { return vu(rt.UintFromDyn(d)) }},
			{"uint(y)", func(a act) (any, rt.Err) { return vu(rt.UintFromDyn(i)) }},
			{"int(u)", func(a act) (any, rt.Err) { return vi(rt.IntFromUint(u)) }},
			{"double(u)", func(a act) (any, rt.Err) { return ok(rt.DoubleFromUint(u)) }},
			{"dyn(u) == d", func(a act) (any, rt.Err) { return ok(rt.EqualUintDouble(u, d)) }},
			{"dyn(u) < d", func(a act) (any, rt.Err) { return ok(rt.LessUintDouble(u, d)) }},
			{"dyn(d) < u", func(a act) (any, rt.Err) { return ok(rt.LessDoubleUint(d, u)) }},
			{"dyn(u) == y", func(a act) (any, rt.Err) { return vb(rt.EqualDyn(u, i)) }},
			{"u * u", func(a act) (any, rt.Err) { return vu(rt.MulUint(u, u)) }},
			{"u - u / 2u", func(a act) (any, rt.Err) { h, _ := rt.DivUint(u, 2); return vu(rt.SubUint(u, h)) }},
			{"{u: 1, d: 2, y: 3}[x]", func(a act) (any, rt.Err) { return rt.IndexDyn(rt.NewAnyMap(u, int64(1), d, int64(2), i, int64(3)), d) }},
			{"size({u: 1, d: 2, y: 3, e: 4})", func(a act) (any, rt.Err) {
				return vi(rt.SizeDyn(rt.NewAnyMap(u, int64(1), d, int64(2), i, int64(3), d2, int64(4))))
			}},
		} {
			checkOne(t, e, c.expr, a, c.run, &fails)
		}
	})
}

// dynReader builds dyn values from fuzz bytes: scalars of every kind,
// lists and maps of every representation (maps keyed by anything),
// nesting past rt.MaxDepth, and cycles.
type dynReader struct{ b []byte }

func (d *dynReader) next() int {
	if len(d.b) == 0 {
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return int(c)
}

func (d *dynReader) pick(n int) int { return d.next() % n }

func (d *dynReader) value(depth int) any {
	op := d.pick(18)
	if depth > 4 && op >= 8 {
		op %= 8
	}
	switch op {
	case 0:
		return nil
	case 1:
		return d.next()%2 == 0
	case 2:
		return interestingInts[d.pick(len(interestingInts))]
	case 3:
		return interestingUints[d.pick(len(interestingUints))]
	case 4:
		return interestingDoubles[d.pick(len(interestingDoubles))]
	case 5:
		return strPieces[d.pick(len(strPieces))]
	case 6:
		return keyPool[d.pick(len(keyPool))]
	case 7:
		return json.Number([]string{"7", "-0", "2.5", "1e2", "12345678901234567890", "-9223372036854775808"}[d.pick(6)])
	case 8:
		l := make([]any, d.pick(4))
		for i := range l {
			l[i] = d.value(depth + 1)
		}
		return l
	case 9:
		m := map[string]any{}
		for i := d.pick(4); i > 0; i-- {
			m[fieldNames[d.pick(len(fieldNames))]] = d.value(depth + 1)
		}
		return m
	case 10, 11:
		var kv []any
		for i := d.pick(4); i > 0; i-- {
			kv = append(kv, d.value(depth+1), d.value(depth+1))
		}
		return rt.NewAnyMap(kv...)
	case 12:
		return []string{strPieces[d.pick(len(strPieces))]}
	case 13:
		return map[string]string{fieldNames[d.pick(len(fieldNames))]: strPieces[d.pick(len(strPieces))]}
	case 14:
		return []map[string]any{{"a": d.value(depth + 1)}}
	case 15:
		return []uint64{interestingUints[d.pick(len(interestingUints))]}
	case 16: // deep: up to 1,275 levels
		return genDeep(int64(d.next()), d.next()*5, d.value(depth+1))
	}
	// a cycle: a list or map that contains itself
	if d.next()%2 == 0 {
		l := []any{d.value(depth + 1), nil}
		l[1] = l
		return l
	}
	m := map[string]any{"k": d.value(depth + 1)}
	m["self"] = []any{m}
	return m
}

// FuzzDyn feeds random dyn values, deep and cyclic ones included, through
// the walking and the map operations: acyclic values must agree with
// cel-go (or be TooDeep where the walk goes past rt.MaxDepth); cyclic ones
// must not crash or hang, and agree with cel-go where nothing walks them.
func FuzzDyn(f *testing.F) {
	f.Add([]byte{10, 3, 2, 1, 6, 4, 8, 2, 2, 3})
	f.Add([]byte{17, 0, 2, 5, 17, 1, 3})
	f.Add([]byte{16, 3, 200, 2, 4, 16, 3, 200, 2, 4})
	f.Add([]byte{16, 5, 201, 6, 0, 16, 5, 200, 6, 0})
	f.Add([]byte{11, 2, 6, 13, 2, 6, 14, 10, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		e := evaluator(t)
		d := &dynReader{b: data}
		x, y := d.value(0), d.value(0)
		if d.next()%4 == 0 {
			y = x
		}
		a := act{"x": x, "y": y, "i": int64(1), "d": 1.0, "s": "a", "bo": true, "u": uint64(1), "ls": []string{"a"}, "lt": []string{}}
		if cyclic(x) || cyclic(y) {
			checkCyclic(t, e, a)
			return
		}
		walk := max(nesting(x, 2*rt.MaxDepth), nesting(y, 2*rt.MaxDepth))
		for _, c := range walkCases {
			checkDeep(t, e, c, a, walk+c.wrap, false)
		}
		if walk > 20 {
			return // the cases below do not walk; deep values add nothing
		}
		fails := 0
		for _, c := range fuzzMapCases {
			checkOne(t, e, c.expr, a, c.run, &fails)
		}
	})
}

var fuzzMapCases = []dcase{
	{"x[y]", nil, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["y"]) }},
	{"y in x", nil, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["y"], a["x"])) }},
	{"size(x)", nil, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["x"])) }},
	{"type(x)", nil, func(a act) (any, rt.Err) { return ok(rt.TypeOf(a["x"])) }},
	{"x.a", nil, func(a act) (any, rt.Err) { return rt.SelectDyn(a["x"], "a") }},
	{"has(x.a)", nil, func(a act) (any, rt.Err) { return vb(rt.HasDyn(a["x"], "a")) }},
	{"{x: 1}[y]", nil, func(a act) (any, rt.Err) { return rt.IndexDyn(rt.NewAnyMap(a["x"], int64(1)), a["y"]) }},
	{"y in {x: 1}", nil, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["y"], rt.NewAnyMap(a["x"], int64(1)))) }},
	{"{x: 1, y: 2}", nil, func(a act) (any, rt.Err) { return ok(rt.NewAnyMap(a["x"], int64(1), a["y"], int64(2))) }},
	{"{x: 1, y: 2} == {y: 2, x: 1}", nil, func(a act) (any, rt.Err) {
		return vb(rt.EqualDyn(rt.NewAnyMap(a["x"], int64(1), a["y"], int64(2)), rt.NewAnyMap(a["y"], int64(2), a["x"], int64(1))))
	}},
	{"x.all(k, k in x)", nil, func(a act) (any, rt.Err) {
		return all(a["x"], func(k any) (bool, rt.Err) { return rt.InDyn(k, a["x"]) })
	}},
	{"x.exists(k, k == y)", nil, func(a act) (any, rt.Err) {
		return exists(a["x"], func(k any) (bool, rt.Err) { return rt.EqualDyn(k, a["y"]) })
	}},
	{"int(x)", nil, func(a act) (any, rt.Err) { return vi(rt.IntFromDyn(a["x"])) }},
	{"uint(x)", nil, func(a act) (any, rt.Err) { return vu(rt.UintFromDyn(a["x"])) }},
	{"double(x)", nil, func(a act) (any, rt.Err) { return vf(rt.DoubleFromDyn(a["x"])) }},
	{"string(x)", nil, func(a act) (any, rt.Err) { return vs(rt.StringFromDyn(a["x"])) }},
	{"x + y", nil, func(a act) (any, rt.Err) { return rt.AddDyn(a["x"], a["y"]) }},
	{"x - y", nil, func(a act) (any, rt.Err) { return rt.SubDyn(a["x"], a["y"]) }},
	{"x % y", nil, func(a act) (any, rt.Err) { return rt.ModDyn(a["x"], a["y"]) }},
	{"-x", nil, func(a act) (any, rt.Err) { return rt.NegDyn(a["x"]) }},
	{"x < y", nil, func(a act) (any, rt.Err) { return vb(rt.LessDyn(a["x"], a["y"])) }},
}
