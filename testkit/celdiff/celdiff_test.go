package celdiff

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/impl"
)

type act = map[string]any

type dcase struct {
	expr string
	gen  func(r *rand.Rand) act
	run  func(a act) (any, impl.Err)
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

func checkOne(t testing.TB, e *Evaluator, expr string, a act, run func(act) (any, impl.Err), fails *int) {
	t.Helper()
	cv, err := e.Eval(expr, a)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	var v any
	var re impl.Err
	func() {
		defer func() {
			if p := recover(); p != nil {
				re = impl.Err{Kind: runtime.ErrPanic, S: fmt.Sprint(p)}
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

func ok(v any) (any, impl.Err) { return v, impl.Err{} }
func vi(v int64, e impl.Err) (any, impl.Err) {
	return v, e
}
func vu(v uint64, e impl.Err) (any, impl.Err)  { return v, e }
func vf(v float64, e impl.Err) (any, impl.Err) { return v, e }
func vs(v string, e impl.Err) (any, impl.Err)  { return v, e }
func vb(v bool, e impl.Err) (any, impl.Err)    { return v, e }
func ord(pred func(int) bool) func(c int, e impl.Err) (any, impl.Err) {
	return func(c int, e impl.Err) (any, impl.Err) {
		if !e.Ok() {
			return nil, e
		}
		return pred(c), e
	}
}

func TestIntArith(t *testing.T) {
	runCases(t, []dcase{
		{"i + j", gInts, func(a act) (any, impl.Err) { return vi(impl.AddInt(i64(a, "i"), i64(a, "j"))) }},
		{"i - j", gInts, func(a act) (any, impl.Err) { return vi(impl.SubInt(i64(a, "i"), i64(a, "j"))) }},
		{"i * j", gInts, func(a act) (any, impl.Err) { return vi(impl.MulInt(i64(a, "i"), i64(a, "j"))) }},
		{"i / j", gInts, func(a act) (any, impl.Err) { return vi(impl.DivInt(i64(a, "i"), i64(a, "j"))) }},
		{"i % j", gInts, func(a act) (any, impl.Err) { return vi(impl.ModInt(i64(a, "i"), i64(a, "j"))) }},
		{"-i", gInts, func(a act) (any, impl.Err) { return vi(impl.NegInt(i64(a, "i"))) }},
		{"u + v", gUints, func(a act) (any, impl.Err) { return vu(impl.AddUint(u64(a, "u"), u64(a, "v"))) }},
		{"u - v", gUints, func(a act) (any, impl.Err) { return vu(impl.SubUint(u64(a, "u"), u64(a, "v"))) }},
		{"u * v", gUints, func(a act) (any, impl.Err) { return vu(impl.MulUint(u64(a, "u"), u64(a, "v"))) }},
		{"u / v", gUints, func(a act) (any, impl.Err) { return vu(impl.DivUint(u64(a, "u"), u64(a, "v"))) }},
		{"u % v", gUints, func(a act) (any, impl.Err) { return vu(impl.ModUint(u64(a, "u"), u64(a, "v"))) }},
	})
}

func TestCompareStatic(t *testing.T) {
	type cmp struct {
		op   string
		pred func(int) bool
	}
	ops := []cmp{{"<", impl.Lt}, {"<=", impl.Le}, {">", impl.Gt}, {">=", impl.Ge}}
	var cases []dcase
	for _, o := range ops {
		o := o
		cases = append(cases,
			dcase{"d " + o.op + " e", gDoubles, func(a act) (any, impl.Err) { return ord(o.pred)(impl.CompareDouble(f64(a, "d"), f64(a, "e"))) }},
			dcase{"dyn(i) " + o.op + " d", gNums, func(a act) (any, impl.Err) { return ord(o.pred)(impl.CompareIntDouble(i64(a, "i"), f64(a, "d"))) }},
			dcase{"dyn(d) " + o.op + " i", gNums, func(a act) (any, impl.Err) { return ord(o.pred)(impl.CompareDoubleInt(f64(a, "d"), i64(a, "i"))) }},
			dcase{"dyn(u) " + o.op + " d", gNums, func(a act) (any, impl.Err) { return ord(o.pred)(impl.CompareUintDouble(u64(a, "u"), f64(a, "d"))) }},
			dcase{"dyn(d) " + o.op + " u", gNums, func(a act) (any, impl.Err) { return ord(o.pred)(impl.CompareDoubleUint(f64(a, "d"), u64(a, "u"))) }},
			dcase{"dyn(i) " + o.op + " u", gNums, func(a act) (any, impl.Err) { return o.pred(impl.CompareIntUint(i64(a, "i"), u64(a, "u"))), impl.Err{} }},
			dcase{"dyn(u) " + o.op + " i", gNums, func(a act) (any, impl.Err) { return o.pred(impl.CompareUintInt(u64(a, "u"), i64(a, "i"))), impl.Err{} }},
			dcase{"i " + o.op + " j", gInts, func(a act) (any, impl.Err) { return o.pred(impl.CompareInt(i64(a, "i"), i64(a, "j"))), impl.Err{} }},
			dcase{"s " + o.op + " t", gStr, func(a act) (any, impl.Err) { return o.pred(impl.CompareString(str(a, "s"), str(a, "t"))), impl.Err{} }},
		)
	}
	cases = append(cases,
		dcase{"dyn(i) < d", gNums, func(a act) (any, impl.Err) { return ok(impl.LessIntDouble(i64(a, "i"), f64(a, "d"))) }},
		dcase{"dyn(d) < i", gNums, func(a act) (any, impl.Err) { return ok(impl.LessDoubleInt(f64(a, "d"), i64(a, "i"))) }},
		dcase{"d < e", gDoubles, func(a act) (any, impl.Err) { return ok(impl.LessDouble(f64(a, "d"), f64(a, "e"))) }},
		dcase{"d == e", gDoubles, func(a act) (any, impl.Err) { return ok(impl.EqualDouble(f64(a, "d"), f64(a, "e"))) }},
		dcase{"d != e", gDoubles, func(a act) (any, impl.Err) { return ok(!impl.EqualDouble(f64(a, "d"), f64(a, "e"))) }},
		dcase{"dyn(i) == d", gNums, func(a act) (any, impl.Err) { return ok(impl.EqualIntDouble(i64(a, "i"), f64(a, "d"))) }},
		dcase{"dyn(i) == u", gNums, func(a act) (any, impl.Err) { return ok(impl.EqualIntUint(i64(a, "i"), u64(a, "u"))) }},
		dcase{"ls == lt", gDyn2, func(a act) (any, impl.Err) { return ok(impl.EqualStrings(strs(a, "ls"), strs(a, "lt"))) }},
	)
	runCases(t, cases)
}

func TestCompareDyn(t *testing.T) {
	type cmp struct {
		op   string
		pred func(int) bool
	}
	ops := []cmp{{"<", impl.Lt}, {"<=", impl.Le}, {">", impl.Gt}, {">=", impl.Ge}}
	var cases []dcase
	for _, o := range ops {
		o := o
		p := ord(o.pred)
		cases = append(cases,
			dcase{"x " + o.op + " y", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareDyn(a["x"], a["y"])) }},
			dcase{"x " + o.op + " i", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareDynInt(a["x"], i64(a, "i"))) }},
			dcase{"i " + o.op + " x", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareIntDyn(i64(a, "i"), a["x"])) }},
			dcase{"x " + o.op + " u", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareDynUint(a["x"], u64(a, "u"))) }},
			dcase{"u " + o.op + " x", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareUintDyn(u64(a, "u"), a["x"])) }},
			dcase{"x " + o.op + " d", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareDynDouble(a["x"], f64(a, "d"))) }},
			dcase{"d " + o.op + " x", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareDoubleDyn(f64(a, "d"), a["x"])) }},
			dcase{"x " + o.op + " s", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareDynString(a["x"], str(a, "s"))) }},
			dcase{"s " + o.op + " x", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareStringDyn(str(a, "s"), a["x"])) }},
			dcase{"x " + o.op + " bo", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareDynBool(a["x"], a["bo"].(bool))) }},
			dcase{"bo " + o.op + " x", gDyn2, func(a act) (any, impl.Err) { return p(impl.CompareBoolDyn(a["bo"].(bool), a["x"])) }},
		)
	}
	cases = append(cases,
		dcase{"x < y", gDyn2, func(a act) (any, impl.Err) { return vb(impl.LessDyn(a["x"], a["y"])) }},
		dcase{"x <= y", gDyn2, func(a act) (any, impl.Err) { return vb(impl.LessEqDyn(a["x"], a["y"])) }},
		dcase{"x > y", gDyn2, func(a act) (any, impl.Err) { return vb(impl.GreaterDyn(a["x"], a["y"])) }},
		dcase{"x >= y", gDyn2, func(a act) (any, impl.Err) { return vb(impl.GreaterEqDyn(a["x"], a["y"])) }},
	)
	runCases(t, cases)
}

func TestEqual(t *testing.T) {
	runCases(t, []dcase{
		{"x == y", gDyn2, func(a act) (any, impl.Err) { return ok(impl.Equal(a["x"], a["y"])) }},
		{"x != y", gDyn2, func(a act) (any, impl.Err) { return ok(!impl.Equal(a["x"], a["y"])) }},
		{"x == x", gDyn2, func(a act) (any, impl.Err) { return ok(impl.Equal(a["x"], a["x"])) }},
		{"[x, y] == [y, x]", gDyn2, func(a act) (any, impl.Err) {
			return ok(impl.Equal([]any{a["x"], a["y"]}, []any{a["y"], a["x"]}))
		}},
		{"{'a': x} == {'a': y}", gDyn2, func(a act) (any, impl.Err) {
			return ok(impl.Equal(map[string]any{"a": a["x"]}, map[string]any{"a": a["y"]}))
		}},
		{"x == s", gDyn2, func(a act) (any, impl.Err) { return ok(impl.EqualDynString(a["x"], str(a, "s"))) }},
		{"x == i", gDyn2, func(a act) (any, impl.Err) { return ok(impl.EqualDynInt(a["x"], i64(a, "i"))) }},
		{"x == u", gDyn2, func(a act) (any, impl.Err) { return ok(impl.EqualDynUint(a["x"], u64(a, "u"))) }},
		{"x == d", gDyn2, func(a act) (any, impl.Err) { return ok(impl.EqualDynDouble(a["x"], f64(a, "d"))) }},
		{"x == bo", gDyn2, func(a act) (any, impl.Err) { return ok(impl.EqualDynBool(a["x"], a["bo"].(bool))) }},
		{"x == ls", gDyn2, func(a act) (any, impl.Err) { return ok(impl.Equal(a["x"], strs(a, "ls"))) }},
	})
}

func TestDynArith(t *testing.T) {
	runCases(t, []dcase{
		{"x + y", gDyn2, func(a act) (any, impl.Err) { return impl.AddDyn(a["x"], a["y"]) }},
		{"x - y", gDyn2, func(a act) (any, impl.Err) { return impl.SubDyn(a["x"], a["y"]) }},
		{"x * y", gDyn2, func(a act) (any, impl.Err) { return impl.MulDyn(a["x"], a["y"]) }},
		{"x / y", gDyn2, func(a act) (any, impl.Err) { return impl.DivDyn(a["x"], a["y"]) }},
		{"x % y", gDyn2, func(a act) (any, impl.Err) { return impl.ModDyn(a["x"], a["y"]) }},
		{"x + x", gDyn2, func(a act) (any, impl.Err) { return impl.AddDyn(a["x"], a["x"]) }},
		{"-x", gDyn2, func(a act) (any, impl.Err) { return impl.NegDyn(a["x"]) }},
		{"!x", gDyn2, func(a act) (any, impl.Err) { return vb(impl.NotDyn(a["x"])) }},
		{"ls + lt", gDyn2, func(a act) (any, impl.Err) { return ok(impl.ConcatList(strs(a, "ls"), strs(a, "lt"))) }},
	})
}

func TestNarrowing(t *testing.T) {
	runCases(t, []dcase{
		{"x + i", gDyn2, func(a act) (any, impl.Err) {
			x, e := impl.AsInt(a["x"])
			if !e.Ok() {
				return nil, e
			}
			return vi(impl.AddInt(x, i64(a, "i")))
		}},
		{"x + d", gDyn2, func(a act) (any, impl.Err) {
			x, e := impl.AsDouble(a["x"])
			return x + f64(a, "d"), e
		}},
		{"x + s", gDyn2, func(a act) (any, impl.Err) {
			x, e := impl.AsString(a["x"])
			return x + str(a, "s"), e
		}},
		{"x && bo", gDyn2, func(a act) (any, impl.Err) {
			// && absorbs: false && err is false.
			x, e := impl.AsBool(a["x"])
			bo := a["bo"].(bool)
			if !e.Ok() {
				if !bo {
					return false, impl.Err{}
				}
				return nil, e
			}
			return x && bo, e
		}},
		{"x + u", gDyn2, func(a act) (any, impl.Err) {
			x, e := impl.AsUint(a["x"])
			if !e.Ok() {
				return nil, e
			}
			return vu(impl.AddUint(x, u64(a, "u")))
		}},
		{"size(x) + 0", gDyn2, func(a act) (any, impl.Err) { return vi(impl.SizeDyn(a["x"])) }},
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
		{"x[y]", gIdx, func(a act) (any, impl.Err) { return impl.IndexDyn(a["x"], a["y"]) }},
		{"x[i]", gIdx, func(a act) (any, impl.Err) { return impl.IndexDyn(a["x"], a["i"]) }},
		{"x[s]", gIdx, func(a act) (any, impl.Err) { return impl.IndexDyn(a["x"], a["s"]) }},
		{"x[1]", gIdx, func(a act) (any, impl.Err) { return impl.IndexDyn(a["x"], int64(1)) }},
		{"x['a']", gIdx, func(a act) (any, impl.Err) { return impl.IndexDyn(a["x"], "a") }},
		{"x.a", gIdx, func(a act) (any, impl.Err) { return impl.SelectDyn(a["x"], "a") }},
		{"x.path", gIdx, func(a act) (any, impl.Err) { return impl.SelectDyn(a["x"], "path") }},
		{"has(x.a)", gIdx, func(a act) (any, impl.Err) { return vb(impl.HasDyn(a["x"], "a")) }},
		{"has(m.a)", gIdx, func(a act) (any, impl.Err) { return vb(impl.HasDyn(a["m"], "a")) }},
		{"m.a", gIdx, func(a act) (any, impl.Err) { return impl.SelectDyn(a["m"], "a") }},
		{"m[s]", gIdx, func(a act) (any, impl.Err) { return impl.IndexMap(a["m"].(map[string]any), str(a, "s")) }},
		{"ls[i]", gIdx, func(a act) (any, impl.Err) { return impl.IndexList(strs(a, "ls"), i64(a, "i")) }},
		{"x in y", gIdx, func(a act) (any, impl.Err) { return vb(impl.InDyn(a["x"], a["y"])) }},
		{"y in x", gIdx, func(a act) (any, impl.Err) { return vb(impl.InDyn(a["y"], a["x"])) }},
		{"s in x", gIdx, func(a act) (any, impl.Err) { return vb(impl.InDyn(a["s"], a["x"])) }},
		{"i in x", gIdx, func(a act) (any, impl.Err) { return vb(impl.InList(a["i"], a["x"])) }},
		{"s in ls", gIdx, func(a act) (any, impl.Err) { return ok(impl.InStrings(str(a, "s"), strs(a, "ls"))) }},
		{"s in m", gIdx, func(a act) (any, impl.Err) { return vb(impl.InMapDyn(a["s"], a["m"])) }},
		{"size(x)", gIdx, func(a act) (any, impl.Err) { return vi(impl.SizeDyn(a["x"])) }},
		{"size(s)", gStr, func(a act) (any, impl.Err) { return ok(impl.SizeString(str(a, "s"))) }},
		{"size(m)", gIdx, func(a act) (any, impl.Err) { return vi(impl.SizeDyn(a["m"])) }},
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
		{"int(d)", gConv, func(a act) (any, impl.Err) { return vi(impl.IntFromDouble(f64(a, "d"))) }},
		{"int(s)", gConv, func(a act) (any, impl.Err) { return vi(impl.IntFromString(str(a, "s"))) }},
		{"int(u)", gConv, func(a act) (any, impl.Err) { return vi(impl.IntFromUint(u64(a, "u"))) }},
		{"int(x)", gConv, func(a act) (any, impl.Err) { return vi(impl.IntFromDyn(a["x"])) }},
		{"uint(i)", gConv, func(a act) (any, impl.Err) { return vu(impl.UintFromInt(i64(a, "i"))) }},
		{"uint(d)", gConv, func(a act) (any, impl.Err) { return vu(impl.UintFromDouble(f64(a, "d"))) }},
		{"uint(s)", gConv, func(a act) (any, impl.Err) { return vu(impl.UintFromString(str(a, "s"))) }},
		{"double(i)", gConv, func(a act) (any, impl.Err) { return ok(impl.DoubleFromInt(i64(a, "i"))) }},
		{"double(u)", gConv, func(a act) (any, impl.Err) { return ok(impl.DoubleFromUint(u64(a, "u"))) }},
		{"double(s)", gConv, func(a act) (any, impl.Err) { return vf(impl.DoubleFromString(str(a, "s"))) }},
		{"double(x)", gConv, func(a act) (any, impl.Err) { return vf(impl.DoubleFromDyn(a["x"])) }},
		{"string(i)", gConv, func(a act) (any, impl.Err) { return ok(impl.StringFromInt(i64(a, "i"))) }},
		{"string(u)", gConv, func(a act) (any, impl.Err) { return ok(impl.StringFromUint(u64(a, "u"))) }},
		{"string(d)", gConv, func(a act) (any, impl.Err) { return ok(impl.StringFromDouble(f64(a, "d"))) }},
		{"string(bo)", gConv, func(a act) (any, impl.Err) { return ok(impl.StringFromBool(a["bo"].(bool))) }},
		{"string(x)", gConv, func(a act) (any, impl.Err) { return vs(impl.StringFromDyn(a["x"])) }},
		{"bool(s)", gConv, func(a act) (any, impl.Err) { return vb(impl.BoolFromString(str(a, "s"))) }},
		{"bool(x)", gConv, func(a act) (any, impl.Err) { return vb(impl.BoolFromDyn(a["x"])) }},
	})
}

func TestStrings(t *testing.T) {
	runCases(t, []dcase{
		{"s.lowerAscii()", gStr, func(a act) (any, impl.Err) { return ok(impl.LowerASCII(str(a, "s"))) }},
		{"s.upperAscii()", gStr, func(a act) (any, impl.Err) { return ok(impl.UpperASCII(str(a, "s"))) }},
		{"s.trim()", gStr, func(a act) (any, impl.Err) { return ok(impl.Trim(str(a, "s"))) }},
		{"s.split(t)", gStr, func(a act) (any, impl.Err) { return ok(impl.Split(str(a, "s"), str(a, "t"))) }},
		{"s.split(t, i)", gStr, func(a act) (any, impl.Err) { return ok(impl.SplitN(str(a, "s"), str(a, "t"), i64(a, "i"))) }},
		{"ls.join()", gStr, func(a act) (any, impl.Err) { return ok(impl.Join(strs(a, "ls"))) }},
		{"ls.join(t)", gStr, func(a act) (any, impl.Err) { return ok(impl.JoinSep(strs(a, "ls"), str(a, "t"))) }},
		{"s.replace(t, r)", gStr, func(a act) (any, impl.Err) { return ok(impl.Replace(str(a, "s"), str(a, "t"), str(a, "r"))) }},
		{"s.replace(t, r, i)", gStr, func(a act) (any, impl.Err) {
			return ok(impl.ReplaceN(str(a, "s"), str(a, "t"), str(a, "r"), i64(a, "i")))
		}},
		{"s.indexOf(t)", gStr, func(a act) (any, impl.Err) { return ok(impl.IndexOf(str(a, "s"), str(a, "t"))) }},
		{"s.indexOf(t, i)", gStr, func(a act) (any, impl.Err) { return vi(impl.IndexOfFrom(str(a, "s"), str(a, "t"), i64(a, "i"))) }},
		{"s.lastIndexOf(t)", gStr, func(a act) (any, impl.Err) { return ok(impl.LastIndexOf(str(a, "s"), str(a, "t"))) }},
		{"s.lastIndexOf(t, i)", gStr, func(a act) (any, impl.Err) {
			return vi(impl.LastIndexOfFrom(str(a, "s"), str(a, "t"), i64(a, "i")))
		}},
		{"s.substring(i)", gStr, func(a act) (any, impl.Err) { return vs(impl.Substring(str(a, "s"), i64(a, "i"))) }},
		{"s.substring(i, j)", gStr, func(a act) (any, impl.Err) { return vs(impl.SubstringRange(str(a, "s"), i64(a, "i"), i64(a, "j"))) }},
		{"s.charAt(i)", gStr, func(a act) (any, impl.Err) { return vs(impl.CharAt(str(a, "s"), i64(a, "i"))) }},
		{"s.contains(t)", gStr, func(a act) (any, impl.Err) { return ok(impl.Contains(str(a, "s"), str(a, "t"))) }},
		{"s.startsWith(t)", gStr, func(a act) (any, impl.Err) { return ok(impl.StartsWith(str(a, "s"), str(a, "t"))) }},
		{"s.endsWith(t)", gStr, func(a act) (any, impl.Err) { return ok(impl.EndsWith(str(a, "s"), str(a, "t"))) }},
		{"s.matches(t)", func(r *rand.Rand) act { a := gStr(r); a["t"] = genRegex(r); return a },
			func(a act) (any, impl.Err) { return vb(impl.MatchesDynamic(str(a, "s"), str(a, "t"))) }},
		{"s + t", gStr, func(a act) (any, impl.Err) { return ok(str(a, "s") + str(a, "t")) }},
	})
}
