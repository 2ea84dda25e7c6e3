package celdiff

import (
	"fmt"
	"math/rand"
	"testing"

	rt "github.com/oarc/oarc/runtime"
)

type act = map[string]any

type dcase struct {
	expr string
	gen  func(r *rand.Rand) act
	run  func(a act) (any, rt.Err)
}

var ev *Evaluator

func evaluator(t testing.TB) *Evaluator {
	if ev == nil {
		var err error
		ev, err = NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
	}
	return ev
}

const iterations = 4000

func runCases(t *testing.T, cases []dcase) {
	e := evaluator(t)
	for ci, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(1000 + ci)))
			fails := 0
			for n := 0; n < iterations; n++ {
				a := c.gen(r)
				checkOne(t, e, c.expr, a, c.run, &fails)
				if fails > 10 {
					t.Fatal("too many failures")
				}
			}
		})
	}
}

func checkOne(t testing.TB, e *Evaluator, expr string, a act, run func(act) (any, rt.Err), fails *int) {
	t.Helper()
	cv, err := e.Eval(expr, a)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	var v any
	var re rt.Err
	func() {
		defer func() {
			if p := recover(); p != nil {
				re = rt.Err{Kind: rt.ErrPanic, S: fmt.Sprint(p)}
			}
		}()
		v, re = run(a)
	}()
	if msg := Check(v, re, cv); msg != "" {
		*fails++
		t.Errorf("%s with %s: %s", expr, Show(map[string]any(a)), msg)
	}
}

// generators of activations
func gInts(r *rand.Rand) act    { return act{"i": genInt(r), "j": genInt(r)} }
func gUints(r *rand.Rand) act   { return act{"u": genUint(r), "v": genUint(r)} }
func gDoubles(r *rand.Rand) act { return act{"d": genDouble(r), "e": genDouble(r)} }
func gNums(r *rand.Rand) act {
	return act{"i": genInt(r), "d": genDouble(r), "u": genUint(r), "j": genInt(r)}
}
func gDyn2(r *rand.Rand) act {
	return act{"x": genDyn(r, 0), "y": genDyn(r, 0), "i": genInt(r), "d": genDouble(r), "s": genShortString(r),
		"bo": r.Intn(2) == 0, "u": genUint(r), "ls": genStrings(r), "lt": genStrings(r)}
}
func gStr(r *rand.Rand) act {
	return act{"s": genString(r), "t": genShortString(r), "r": genShortString(r), "i": genSmallInt(r), "j": genSmallInt(r),
		"ls": genStrings(r)}
}
func gStrAny(r *rand.Rand) act {
	a := gStr(r)
	a["d"] = genDouble(r)
	a["u"] = genUint(r)
	a["i"] = genInt(r)
	if r.Intn(2) == 0 {
		a["s"] = genShortString(r)
	}
	return a
}

func i64(a act, n string) int64   { return a[n].(int64) }
func u64(a act, n string) uint64  { return a[n].(uint64) }
func f64(a act, n string) float64 { return a[n].(float64) }
func str(a act, n string) string  { return a[n].(string) }
func strs(a act, n string) []string {
	l, _ := a[n].([]string)
	return l
}

func ok(v any) (any, rt.Err) { return v, rt.Err{} }
func vi(v int64, e rt.Err) (any, rt.Err) {
	return v, e
}
func vu(v uint64, e rt.Err) (any, rt.Err)  { return v, e }
func vf(v float64, e rt.Err) (any, rt.Err) { return v, e }
func vs(v string, e rt.Err) (any, rt.Err)  { return v, e }
func vb(v bool, e rt.Err) (any, rt.Err)    { return v, e }
func ord(pred func(int) bool) func(c int, e rt.Err) (any, rt.Err) {
	return func(c int, e rt.Err) (any, rt.Err) {
		if !e.Ok() {
			return nil, e
		}
		return pred(c), e
	}
}

func TestIntArith(t *testing.T) {
	runCases(t, []dcase{
		{"i + j", gInts, func(a act) (any, rt.Err) { return vi(rt.AddInt(i64(a, "i"), i64(a, "j"))) }},
		{"i - j", gInts, func(a act) (any, rt.Err) { return vi(rt.SubInt(i64(a, "i"), i64(a, "j"))) }},
		{"i * j", gInts, func(a act) (any, rt.Err) { return vi(rt.MulInt(i64(a, "i"), i64(a, "j"))) }},
		{"i / j", gInts, func(a act) (any, rt.Err) { return vi(rt.DivInt(i64(a, "i"), i64(a, "j"))) }},
		{"i % j", gInts, func(a act) (any, rt.Err) { return vi(rt.ModInt(i64(a, "i"), i64(a, "j"))) }},
		{"-i", gInts, func(a act) (any, rt.Err) { return vi(rt.NegInt(i64(a, "i"))) }},
		{"u + v", gUints, func(a act) (any, rt.Err) { return vu(rt.AddUint(u64(a, "u"), u64(a, "v"))) }},
		{"u - v", gUints, func(a act) (any, rt.Err) { return vu(rt.SubUint(u64(a, "u"), u64(a, "v"))) }},
		{"u * v", gUints, func(a act) (any, rt.Err) { return vu(rt.MulUint(u64(a, "u"), u64(a, "v"))) }},
		{"u / v", gUints, func(a act) (any, rt.Err) { return vu(rt.DivUint(u64(a, "u"), u64(a, "v"))) }},
		{"u % v", gUints, func(a act) (any, rt.Err) { return vu(rt.ModUint(u64(a, "u"), u64(a, "v"))) }},
	})
}

func TestCompareStatic(t *testing.T) {
	type cmp struct {
		op   string
		pred func(int) bool
	}
	ops := []cmp{{"<", rt.Lt}, {"<=", rt.Le}, {">", rt.Gt}, {">=", rt.Ge}}
	var cases []dcase
	for _, o := range ops {
		o := o
		cases = append(cases,
			dcase{"d " + o.op + " e", gDoubles, func(a act) (any, rt.Err) { return ord(o.pred)(rt.CompareDouble(f64(a, "d"), f64(a, "e"))) }},
			dcase{"dyn(i) " + o.op + " d", gNums, func(a act) (any, rt.Err) { return ord(o.pred)(rt.CompareIntDouble(i64(a, "i"), f64(a, "d"))) }},
			dcase{"dyn(d) " + o.op + " i", gNums, func(a act) (any, rt.Err) { return ord(o.pred)(rt.CompareDoubleInt(f64(a, "d"), i64(a, "i"))) }},
			dcase{"dyn(u) " + o.op + " d", gNums, func(a act) (any, rt.Err) { return ord(o.pred)(rt.CompareUintDouble(u64(a, "u"), f64(a, "d"))) }},
			dcase{"dyn(d) " + o.op + " u", gNums, func(a act) (any, rt.Err) { return ord(o.pred)(rt.CompareDoubleUint(f64(a, "d"), u64(a, "u"))) }},
			dcase{"dyn(i) " + o.op + " u", gNums, func(a act) (any, rt.Err) { return o.pred(rt.CompareIntUint(i64(a, "i"), u64(a, "u"))), rt.Err{} }},
			dcase{"dyn(u) " + o.op + " i", gNums, func(a act) (any, rt.Err) { return o.pred(rt.CompareUintInt(u64(a, "u"), i64(a, "i"))), rt.Err{} }},
			dcase{"i " + o.op + " j", gInts, func(a act) (any, rt.Err) { return o.pred(rt.CompareInt(i64(a, "i"), i64(a, "j"))), rt.Err{} }},
			dcase{"s " + o.op + " t", gStr, func(a act) (any, rt.Err) { return o.pred(rt.CompareString(str(a, "s"), str(a, "t"))), rt.Err{} }},
		)
	}
	cases = append(cases,
		dcase{"dyn(i) < d", gNums, func(a act) (any, rt.Err) { return ok(rt.LessIntDouble(i64(a, "i"), f64(a, "d"))) }},
		dcase{"dyn(d) < i", gNums, func(a act) (any, rt.Err) { return ok(rt.LessDoubleInt(f64(a, "d"), i64(a, "i"))) }},
		dcase{"d < e", gDoubles, func(a act) (any, rt.Err) { return ok(rt.LessDouble(f64(a, "d"), f64(a, "e"))) }},
		dcase{"d == e", gDoubles, func(a act) (any, rt.Err) { return ok(rt.EqualDouble(f64(a, "d"), f64(a, "e"))) }},
		dcase{"d != e", gDoubles, func(a act) (any, rt.Err) { return ok(!rt.EqualDouble(f64(a, "d"), f64(a, "e"))) }},
		dcase{"dyn(i) == d", gNums, func(a act) (any, rt.Err) { return ok(rt.EqualIntDouble(i64(a, "i"), f64(a, "d"))) }},
		dcase{"dyn(i) == u", gNums, func(a act) (any, rt.Err) { return ok(rt.EqualIntUint(i64(a, "i"), u64(a, "u"))) }},
		dcase{"ls == lt", gDyn2, func(a act) (any, rt.Err) { return ok(rt.EqualStrings(strs(a, "ls"), strs(a, "lt"))) }},
	)
	runCases(t, cases)
}

func TestCompareDyn(t *testing.T) {
	type cmp struct {
		op   string
		pred func(int) bool
	}
	ops := []cmp{{"<", rt.Lt}, {"<=", rt.Le}, {">", rt.Gt}, {">=", rt.Ge}}
	var cases []dcase
	for _, o := range ops {
		o := o
		p := ord(o.pred)
		cases = append(cases,
			dcase{"x " + o.op + " y", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareDyn(a["x"], a["y"])) }},
			dcase{"x " + o.op + " i", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareDynInt(a["x"], i64(a, "i"))) }},
			dcase{"i " + o.op + " x", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareIntDyn(i64(a, "i"), a["x"])) }},
			dcase{"x " + o.op + " u", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareDynUint(a["x"], u64(a, "u"))) }},
			dcase{"u " + o.op + " x", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareUintDyn(u64(a, "u"), a["x"])) }},
			dcase{"x " + o.op + " d", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareDynDouble(a["x"], f64(a, "d"))) }},
			dcase{"d " + o.op + " x", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareDoubleDyn(f64(a, "d"), a["x"])) }},
			dcase{"x " + o.op + " s", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareDynString(a["x"], str(a, "s"))) }},
			dcase{"s " + o.op + " x", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareStringDyn(str(a, "s"), a["x"])) }},
			dcase{"x " + o.op + " bo", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareDynBool(a["x"], a["bo"].(bool))) }},
			dcase{"bo " + o.op + " x", gDyn2, func(a act) (any, rt.Err) { return p(rt.CompareBoolDyn(a["bo"].(bool), a["x"])) }},
		)
	}
	cases = append(cases,
		dcase{"x < y", gDyn2, func(a act) (any, rt.Err) { return vb(rt.LessDyn(a["x"], a["y"])) }},
		dcase{"x <= y", gDyn2, func(a act) (any, rt.Err) { return vb(rt.LessEqDyn(a["x"], a["y"])) }},
		dcase{"x > y", gDyn2, func(a act) (any, rt.Err) { return vb(rt.GreaterDyn(a["x"], a["y"])) }},
		dcase{"x >= y", gDyn2, func(a act) (any, rt.Err) { return vb(rt.GreaterEqDyn(a["x"], a["y"])) }},
	)
	runCases(t, cases)
}

func TestEqual(t *testing.T) {
	runCases(t, []dcase{
		{"x == y", gDyn2, func(a act) (any, rt.Err) { return ok(rt.Equal(a["x"], a["y"])) }},
		{"x != y", gDyn2, func(a act) (any, rt.Err) { return ok(!rt.Equal(a["x"], a["y"])) }},
		{"x == x", gDyn2, func(a act) (any, rt.Err) { return ok(rt.Equal(a["x"], a["x"])) }},
		{"[x, y] == [y, x]", gDyn2, func(a act) (any, rt.Err) {
			return ok(rt.Equal([]any{a["x"], a["y"]}, []any{a["y"], a["x"]}))
		}},
		{"{'a': x} == {'a': y}", gDyn2, func(a act) (any, rt.Err) {
			return ok(rt.Equal(map[string]any{"a": a["x"]}, map[string]any{"a": a["y"]}))
		}},
		{"x == s", gDyn2, func(a act) (any, rt.Err) { return ok(rt.EqualDynString(a["x"], str(a, "s"))) }},
		{"x == i", gDyn2, func(a act) (any, rt.Err) { return ok(rt.EqualDynInt(a["x"], i64(a, "i"))) }},
		{"x == u", gDyn2, func(a act) (any, rt.Err) { return ok(rt.EqualDynUint(a["x"], u64(a, "u"))) }},
		{"x == d", gDyn2, func(a act) (any, rt.Err) { return ok(rt.EqualDynDouble(a["x"], f64(a, "d"))) }},
		{"x == bo", gDyn2, func(a act) (any, rt.Err) { return ok(rt.EqualDynBool(a["x"], a["bo"].(bool))) }},
		{"x == ls", gDyn2, func(a act) (any, rt.Err) { return ok(rt.Equal(a["x"], strs(a, "ls"))) }},
	})
}

func TestDynArith(t *testing.T) {
	runCases(t, []dcase{
		{"x + y", gDyn2, func(a act) (any, rt.Err) { return rt.AddDyn(a["x"], a["y"]) }},
		{"x - y", gDyn2, func(a act) (any, rt.Err) { return rt.SubDyn(a["x"], a["y"]) }},
		{"x * y", gDyn2, func(a act) (any, rt.Err) { return rt.MulDyn(a["x"], a["y"]) }},
		{"x / y", gDyn2, func(a act) (any, rt.Err) { return rt.DivDyn(a["x"], a["y"]) }},
		{"x % y", gDyn2, func(a act) (any, rt.Err) { return rt.ModDyn(a["x"], a["y"]) }},
		{"x + x", gDyn2, func(a act) (any, rt.Err) { return rt.AddDyn(a["x"], a["x"]) }},
		{"-x", gDyn2, func(a act) (any, rt.Err) { return rt.NegDyn(a["x"]) }},
		{"!x", gDyn2, func(a act) (any, rt.Err) { return vb(rt.NotDyn(a["x"])) }},
		{"ls + lt", gDyn2, func(a act) (any, rt.Err) { return ok(rt.ConcatList(strs(a, "ls"), strs(a, "lt"))) }},
	})
}

func TestNarrowing(t *testing.T) {
	runCases(t, []dcase{
		{"x + i", gDyn2, func(a act) (any, rt.Err) {
			x, e := rt.AsInt(a["x"])
			if !e.Ok() {
				return nil, e
			}
			return vi(rt.AddInt(x, i64(a, "i")))
		}},
		{"x + d", gDyn2, func(a act) (any, rt.Err) {
			x, e := rt.AsDouble(a["x"])
			return x + f64(a, "d"), e
		}},
		{"x + s", gDyn2, func(a act) (any, rt.Err) {
			x, e := rt.AsString(a["x"])
			return x + str(a, "s"), e
		}},
		{"x && bo", gDyn2, func(a act) (any, rt.Err) {
			// && absorbs: false && err is false.
			x, e := rt.AsBool(a["x"])
			bo := a["bo"].(bool)
			if !e.Ok() {
				if !bo {
					return false, rt.Err{}
				}
				return nil, e
			}
			return x && bo, e
		}},
		{"x + u", gDyn2, func(a act) (any, rt.Err) {
			x, e := rt.AsUint(a["x"])
			if !e.Ok() {
				return nil, e
			}
			return vu(rt.AddUint(x, u64(a, "u")))
		}},
		{"size(x) + 0", gDyn2, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["x"])) }},
	})
}

func TestContainers(t *testing.T) {
	gIdx := func(r *rand.Rand) act {
		a := gDyn2(r)
		switch r.Intn(4) {
		case 0:
			a["y"] = genSmallInt(r)
		case 1:
			a["y"] = fieldNames[r.Intn(len(fieldNames))]
		case 2:
			a["y"] = float64(genSmallInt(r))
		}
		a["i"] = genSmallInt(r)
		a["s"] = fieldNames[r.Intn(len(fieldNames))]
		m := map[string]any{}
		for n := r.Intn(3); n > 0; n-- {
			m[fieldNames[r.Intn(len(fieldNames))]] = genDyn(r, 1)
		}
		a["m"] = m
		return a
	}
	runCases(t, []dcase{
		{"x[y]", gIdx, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["y"]) }},
		{"x[i]", gIdx, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["i"]) }},
		{"x[s]", gIdx, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["s"]) }},
		{"x[1]", gIdx, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], int64(1)) }},
		{"x['a']", gIdx, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], "a") }},
		{"x.a", gIdx, func(a act) (any, rt.Err) { return rt.SelectDyn(a["x"], "a") }},
		{"x.path", gIdx, func(a act) (any, rt.Err) { return rt.SelectDyn(a["x"], "path") }},
		{"has(x.a)", gIdx, func(a act) (any, rt.Err) { return vb(rt.HasDyn(a["x"], "a")) }},
		{"has(m.a)", gIdx, func(a act) (any, rt.Err) { return vb(rt.HasDyn(a["m"], "a")) }},
		{"m.a", gIdx, func(a act) (any, rt.Err) { return rt.SelectDyn(a["m"], "a") }},
		{"m[s]", gIdx, func(a act) (any, rt.Err) { return rt.IndexMap(a["m"].(map[string]any), str(a, "s")) }},
		{"ls[i]", gIdx, func(a act) (any, rt.Err) { return rt.IndexList(strs(a, "ls"), i64(a, "i")) }},
		{"x in y", gIdx, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["x"], a["y"])) }},
		{"y in x", gIdx, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["y"], a["x"])) }},
		{"s in x", gIdx, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["s"], a["x"])) }},
		{"i in x", gIdx, func(a act) (any, rt.Err) { return vb(rt.InList(a["i"], a["x"])) }},
		{"s in ls", gIdx, func(a act) (any, rt.Err) { return ok(rt.InStrings(str(a, "s"), strs(a, "ls"))) }},
		{"s in m", gIdx, func(a act) (any, rt.Err) { return vb(rt.InMapDyn(a["s"], a["m"])) }},
		{"size(x)", gIdx, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["x"])) }},
		{"size(s)", gStr, func(a act) (any, rt.Err) { return ok(rt.SizeString(str(a, "s"))) }},
		{"size(m)", gIdx, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["m"])) }},
	})
}

func TestConversions(t *testing.T) {
	gConv := func(r *rand.Rand) act {
		a := gStrAny(r)
		a["x"] = genDyn(r, 0)
		if r.Intn(3) == 0 {
			a["x"] = genString(r)
		}
		a["bo"] = r.Intn(2) == 0
		return a
	}
	runCases(t, []dcase{
		{"int(d)", gConv, func(a act) (any, rt.Err) { return vi(rt.IntFromDouble(f64(a, "d"))) }},
		{"int(s)", gConv, func(a act) (any, rt.Err) { return vi(rt.IntFromString(str(a, "s"))) }},
		{"int(u)", gConv, func(a act) (any, rt.Err) { return vi(rt.IntFromUint(u64(a, "u"))) }},
		{"int(x)", gConv, func(a act) (any, rt.Err) { return vi(rt.IntFromDyn(a["x"])) }},
		{"uint(i)", gConv, func(a act) (any, rt.Err) { return vu(rt.UintFromInt(i64(a, "i"))) }},
		{"uint(d)", gConv, func(a act) (any, rt.Err) { return vu(rt.UintFromDouble(f64(a, "d"))) }},
		{"uint(s)", gConv, func(a act) (any, rt.Err) { return vu(rt.UintFromString(str(a, "s"))) }},
		{"double(i)", gConv, func(a act) (any, rt.Err) { return ok(rt.DoubleFromInt(i64(a, "i"))) }},
		{"double(u)", gConv, func(a act) (any, rt.Err) { return ok(rt.DoubleFromUint(u64(a, "u"))) }},
		{"double(s)", gConv, func(a act) (any, rt.Err) { return vf(rt.DoubleFromString(str(a, "s"))) }},
		{"double(x)", gConv, func(a act) (any, rt.Err) { return vf(rt.DoubleFromDyn(a["x"])) }},
		{"string(i)", gConv, func(a act) (any, rt.Err) { return ok(rt.StringFromInt(i64(a, "i"))) }},
		{"string(u)", gConv, func(a act) (any, rt.Err) { return ok(rt.StringFromUint(u64(a, "u"))) }},
		{"string(d)", gConv, func(a act) (any, rt.Err) { return ok(rt.StringFromDouble(f64(a, "d"))) }},
		{"string(bo)", gConv, func(a act) (any, rt.Err) { return ok(rt.StringFromBool(a["bo"].(bool))) }},
		{"string(x)", gConv, func(a act) (any, rt.Err) { return vs(rt.StringFromDyn(a["x"])) }},
		{"bool(s)", gConv, func(a act) (any, rt.Err) { return vb(rt.BoolFromString(str(a, "s"))) }},
		{"bool(x)", gConv, func(a act) (any, rt.Err) { return vb(rt.BoolFromDyn(a["x"])) }},
	})
}

func TestStrings(t *testing.T) {
	runCases(t, []dcase{
		{"s.lowerAscii()", gStr, func(a act) (any, rt.Err) { return ok(rt.LowerASCII(str(a, "s"))) }},
		{"s.upperAscii()", gStr, func(a act) (any, rt.Err) { return ok(rt.UpperASCII(str(a, "s"))) }},
		{"s.trim()", gStr, func(a act) (any, rt.Err) { return ok(rt.Trim(str(a, "s"))) }},
		{"s.split(t)", gStr, func(a act) (any, rt.Err) { return ok(rt.Split(str(a, "s"), str(a, "t"))) }},
		{"s.split(t, i)", gStr, func(a act) (any, rt.Err) { return ok(rt.SplitN(str(a, "s"), str(a, "t"), i64(a, "i"))) }},
		{"ls.join()", gStr, func(a act) (any, rt.Err) { return ok(rt.Join(strs(a, "ls"))) }},
		{"ls.join(t)", gStr, func(a act) (any, rt.Err) { return ok(rt.JoinSep(strs(a, "ls"), str(a, "t"))) }},
		{"s.replace(t, r)", gStr, func(a act) (any, rt.Err) { return ok(rt.Replace(str(a, "s"), str(a, "t"), str(a, "r"))) }},
		{"s.replace(t, r, i)", gStr, func(a act) (any, rt.Err) {
			return ok(rt.ReplaceN(str(a, "s"), str(a, "t"), str(a, "r"), i64(a, "i")))
		}},
		{"s.indexOf(t)", gStr, func(a act) (any, rt.Err) { return ok(rt.IndexOf(str(a, "s"), str(a, "t"))) }},
		{"s.indexOf(t, i)", gStr, func(a act) (any, rt.Err) { return vi(rt.IndexOfFrom(str(a, "s"), str(a, "t"), i64(a, "i"))) }},
		{"s.lastIndexOf(t)", gStr, func(a act) (any, rt.Err) { return ok(rt.LastIndexOf(str(a, "s"), str(a, "t"))) }},
		{"s.lastIndexOf(t, i)", gStr, func(a act) (any, rt.Err) {
			return vi(rt.LastIndexOfFrom(str(a, "s"), str(a, "t"), i64(a, "i")))
		}},
		{"s.substring(i)", gStr, func(a act) (any, rt.Err) { return vs(rt.Substring(str(a, "s"), i64(a, "i"))) }},
		{"s.substring(i, j)", gStr, func(a act) (any, rt.Err) { return vs(rt.SubstringRange(str(a, "s"), i64(a, "i"), i64(a, "j"))) }},
		{"s.charAt(i)", gStr, func(a act) (any, rt.Err) { return vs(rt.CharAt(str(a, "s"), i64(a, "i"))) }},
		{"s.contains(t)", gStr, func(a act) (any, rt.Err) { return ok(rt.Contains(str(a, "s"), str(a, "t"))) }},
		{"s.startsWith(t)", gStr, func(a act) (any, rt.Err) { return ok(rt.StartsWith(str(a, "s"), str(a, "t"))) }},
		{"s.endsWith(t)", gStr, func(a act) (any, rt.Err) { return ok(rt.EndsWith(str(a, "s"), str(a, "t"))) }},
		{"s.matches(t)", func(r *rand.Rand) act { a := gStr(r); a["t"] = genRegex(r); return a },
			func(a act) (any, rt.Err) { return vb(rt.MatchesDynamic(str(a, "s"), str(a, "t"))) }},
		{"s + t", gStr, func(a act) (any, rt.Err) { return ok(str(a, "s") + str(a, "t")) }},
	})
}
