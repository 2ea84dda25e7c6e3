package impl

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/oarc/oarc/testkit/racecheck"
)

// Sinks keep the results of pure functions the allocation checks call, so
// that the compiler cannot drop the calls.
var (
	sinkI int64
	sinkE Err
	sinkS string
)

func TestToolArgs(t *testing.T) {
	args := map[string]any{"s": "x", "i": int64(5), "n": 7, "f": 3.0, "g": 3.5, "big": 1e19, "nan": math.NaN(),
		"b": true, "f32": float32(4), "neg": -9223372036854775808.0}
	str := func(m map[string]any, k string) string { s, _ := ToolArgString(m, k); return s }
	if str(args, "s") != "x" || str(args, "i") != "" || str(nil, "s") != "" {
		t.Fatal("ToolArgString")
	}
	for name, want := range map[string]int64{"i": 5, "n": 7, "f": 3, "g": 0, "big": 0, "nan": 0, "s": 0, "x": 0, "f32": 4, "neg": math.MinInt64} {
		if got, e := ToolArgInt(args, name); got != want || !e.Ok() {
			t.Errorf("ToolArgInt(%s) = %d %v, want %d", name, got, e, want)
		}
	}
	boolean := func(m map[string]any, k string) bool { b, _ := ToolArgBool(m, k); return b }
	if !boolean(args, "b") || boolean(args, "s") || boolean(nil, "b") {
		t.Fatal("ToolArgBool")
	}
}

func TestErrMessages(t *testing.T) {
	for _, c := range []struct {
		e    Err
		want string
	}{
		{NoSuchKey("foo"), "no such key: foo"},
		{IndexOutOfRange(-1), "index out of bounds: -1"},
		{StringIndexOutOfRange(7), "index out of range: 7"},
		{DivisionByZero(), "division by zero"},
		{ModulusByZero(), "modulus by zero"},
		{IntOverflow(), "integer overflow"},
		{UintOverflow(), "unsigned integer overflow"},
		{NoSuchOverload(""), "no such overload"},
		{NoSuchOverload("int(bool)"), "no such overload: int(bool)"},
		{NoSuchKeyInt(math.MinInt64), "no such key: -9223372036854775808"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%#v.Error() = %q, want %q", c.e, got, c.want)
		}
	}
}

var sink any

func TestNoAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	m := map[string]any{"a": int64(1), "path": "/x", "l": []any{"a", int64(2)}}
	ms := map[string]string{"a": "b"}
	l := []any{"a", int64(300), 2.5, nil}
	ls := []string{"a", "b", "c"}
	var x any = int64(300)
	var y any = 2.5
	var s any = "hello"
	am := NewAnyMap(int64(1), "a", uint64(2), "b", 3.5, "c", "k", int64(4), true, nil, nil, int64(0))
	am2 := NewAnyMap(int64(1), "a", uint64(2), "b", 3.5, "c", "k", int64(4), true, nil, nil, int64(0))
	amS := NewAnyMap("a", int64(1), "path", "/x", "l", []any{"a", int64(2)})
	var jn any = json.Number("300")
	var one any = 1.0
	ja := map[string]any{"n": json.Number("12")}
	var lv, mv any = l, m
	checks := map[string]func(){
		"AddInt":       func() { sinkI, sinkE = AddInt(1<<40, 5) },
		"DivInt":       func() { sinkI, sinkE = DivInt(1<<40, 5) },
		"ModInt":       func() { sinkI, sinkE = ModInt(1<<40, 0) },
		"CompareDyn":   func() { CompareDyn(x, y) },
		"CompareDynI":  func() { CompareDynInt(y, 1<<40) },
		"CompareDynS":  func() { CompareDynString(s, "zz") },
		"LessDyn":      func() { LessDyn(x, y) },
		"Equal":        func() { Equal(l, l) },
		"EqualMap":     func() { Equal(m, m) },
		"EqualMapStr":  func() { Equal(ms, ms) },
		"EqualDynInt":  func() { EqualDynInt(y, 3) },
		"EqualDynStr":  func() { EqualDynString(s, "hello") },
		"AsInt":        func() { AsInt(x) },
		"AsString":     func() { AsString(s) },
		"AsDynMap":     func() { AsDynMap(ms) },
		"AsList":       func() { lv, _ := AsList(l); _ = lv.At(1) },
		"IndexDyn":     func() { IndexDyn(l, int64(1)) },
		"IndexDynMiss": func() { IndexDyn(m, "zzz") },
		"IndexDynOOR":  func() { IndexDyn(l, int64(10)) },
		"IndexMap":     func() { IndexMap(m, "a") },
		"IndexList":    func() { IndexList(ls, 2) },
		"SelectDyn":    func() { SelectDyn(m, "path") },
		"SelectMiss":   func() { SelectDyn(m, "nope") },
		"HasDyn":       func() { HasDyn(m, "a") },
		"InDyn":        func() { InDyn(s, l) },
		"InStrings":    func() { InStrings("c", ls) },
		"InMapDyn":     func() { InMapDyn(s, m) },
		"SizeDyn":      func() { SizeDyn(s) },
		"SizeString":   func() { sinkI = SizeString("héllo") },
		"IntFromDbl":   func() { IntFromDouble(1e10) },
		"IntFromStr":   func() { IntFromString("12345") },
		"DblFromStr":   func() { DoubleFromString("1.5") },
		"BoolFromStr":  func() { BoolFromString("true") },
		"IntFromDyn":   func() { IntFromDyn(y) },
		"LowerASCII":   func() { LowerASCII("already lower") },
		"Trim":         func() { sinkS = Trim("  x  ") },
		"IndexOf":      func() { IndexOf("héllo wörld", "wö") },
		"IndexOfFrom":  func() { IndexOfFrom("héllo wörld", "o", 5) },
		"LastIndexOf":  func() { LastIndexOf("héllo wörld", "o") },
		"Substring":    func() { SubstringRange("héllo wörld", 1, 4) },
		"CharAt":       func() { CharAt("héllo", 1) },
		"Contains":     func() { Contains("héllo", "ll") },
		"ToolArgStr":   func() { ToolArgString(m, "path") },
		"ToolArgInt":   func() { ToolArgInt(m, "a") },
		"ToolArgBool":  func() { ToolArgBool(m, "a") },
		"ErrCreate":    func() { _ = NoSuchKey("k"); _ = IndexOutOfRange(5); _ = NoSuchOverload("") },
		"EqualDyn":     func() { EqualDyn(l, l) },
		"EqualDynMap":  func() { EqualDyn(m, m) },
		"EqualDynAny":  func() { EqualDyn(am, am2) },
		"EqualDynMix":  func() { EqualDyn(amS, m) },
		"TooDeep":      func() { _ = TooDeep() },
		"AnyMapIndex":  func() { IndexDyn(am, one) },
		"AnyMapMiss":   func() { IndexDyn(am, s) },
		"AnyMapIn":     func() { InDyn(x, am) },
		"AnyMapSelect": func() { SelectDyn(amS, "path") },
		"AnyMapHas":    func() { HasDyn(am, "k") },
		"AnyMapSize":   func() { SizeDyn(am) },
		"AnyMapRange":  func() { r, _ := RangeDyn(am); _ = r.At(2) },
		"AnyMapView":   func() { v, _ := AsDynMap(amS); v.Get("l") },
		"JSONNumber":   func() { EqualDynInt(jn, 300); CompareDynInt(jn, 5); AsInt(jn) },
		"ToolArgJSON":  func() { ToolArgInt(ja, "n") },
		"UintFromDyn":  func() { UintFromDyn(y) },
		// Reading values already in the dyn representation (as generated
		// code reads every value it takes out of a host container).
		"Read":      func() { Read(x); Read(y); Read(s); Read(jn) },
		"ReadList":  func() { Read(lv) },
		"ReadMap":   func() { Read(mv) },
		"InDynRead": func() { InDyn(x, lv) },
	}
	for name, f := range checks {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times per run", name, n)
		}
	}
}

func TestNoPanics(t *testing.T) {
	cyc := map[string]any{"k": int64(1)}
	cyc["self"] = cyc
	cycl := []any{nil}
	cycl[0] = cycl
	weird := []any{nil, math.NaN(), math.Inf(1), int64(math.MinInt64), uint64(math.MaxUint64), "\xff\xfe", []any{nil},
		map[string]any{}, map[string]string(nil), []string(nil), struct{}{}, []int{1}, func() {}, int8(-1), uint8(3),
		cyc, cycl, NewAnyMap(), (*AnyMap)(nil), NewAnyMap(cycl, cyc, math.NaN(), nil, struct{}{}, func() {}), []uint64{1},
		json.Number("x"), json.Number("1e999"), json.Number("-5"), Type("int")}
	for _, a := range weird {
		for _, b := range weird {
			AddDyn(a, b)
			SubDyn(a, b)
			MulDyn(a, b)
			DivDyn(a, b)
			ModDyn(a, b)
			CompareDyn(a, b)
			Equal(a, b)
			IndexDyn(a, b)
			InDyn(a, b)
			EqualDyn(a, b)
			RangeDyn(a)
			Assignable(a, &TypeDesc{Kind: TypeMap, Key: &TypeDesc{Kind: TypeInt}, Val: &TypeDesc{}})
			NewAnyMap(a, b, b, a)
		}
		NegDyn(a)
		SizeDyn(a)
		SelectDyn(a, "f")
		HasDyn(a, "f")
		IntFromDyn(a)
		DoubleFromDyn(a)
		StringFromDyn(a)
		BoolFromDyn(a)
		UintFromDyn(a)
		AsMap(a)
		AsDynMap(a)
		TypeOf(a)
		AsList(a)
		AsStrings(a)
		sink = Normalize(a)
	}
	for _, i := range []int64{math.MinInt64, -1, 0, 1, 3, math.MaxInt64} {
		for _, s := range []string{"", "\xff", "héllo", "\xe2\x82"} {
			IndexOfFrom(s, "l", i)
			LastIndexOfFrom(s, "l", i)
			LastIndexOfFrom(s, "", i)
			Substring(s, i)
			SubstringRange(s, i, i+1)
			SubstringRange(s, 0, i)
			CharAt(s, i)
			SplitN(s, "", i)
			sinkS = ReplaceN(s, "", "x", i)
		}
	}
}
