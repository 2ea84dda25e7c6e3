package celdiff

import (
	"testing"

	rt "github.com/oarc/oarc/runtime"
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
		} {
			checkOne(t, e, c.expr, a, c.run, &fails)
		}
	})
}
