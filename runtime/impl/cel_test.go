package impl

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"

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

// TestNoPanics feeds the dyn helpers every pair of odd values (cycles,
// NaN, values of no CEL type, nil maps, invalid UTF-8) and the string
// helpers out-of-range offsets. None may panic, and what they return must
// make sense: an error is a CEL error kind with a message, never a kind
// of the engine (provider, store, ...) nor an empty one; a value is a
// value of a CEL type; equality and comparison are symmetric; + and *
// fail alike both ways round; offsets stay in their strings.
func TestNoPanics(t *testing.T) {
	cyc := map[string]any{"k": int64(1)}
	cyc["self"] = cyc
	cycl := []any{nil}
	cycl[0] = cycl
	weird := []any{nil, math.NaN(), math.Inf(1), int64(math.MinInt64), uint64(math.MaxUint64), "\xff\xfe", []any{nil},
		map[string]any{}, map[string]string(nil), []string(nil), struct{}{}, []int{1}, func() {}, int8(-1), uint8(3),
		cyc, cycl, NewAnyMap(), (*AnyMap)(nil), NewAnyMap(cycl, cyc, math.NaN(), nil, struct{}{}, func() {}), []uint64{1},
		json.Number("x"), json.Number("1e999"), json.Number("-5"), Type("int")}
	celKinds := map[ErrKind]bool{ErrNoSuchKey: true, ErrIndexOutOfRange: true, ErrDivideByZero: true, ErrModulusByZero: true,
		ErrIntOverflow: true, ErrNoSuchOverload: true, ErrConversion: true, ErrInvalidArgument: true,
		runtime.ErrUintOverflow: true, runtime.ErrStringIndex: true}
	bad := 0
	errorf := func(format string, args ...any) {
		t.Helper()
		if bad++; bad <= 30 {
			t.Errorf(format, args...)
		}
	}
	// checkErr: e is no error or a CEL error with a message.
	checkErr := func(what string, e Err) bool {
		t.Helper()
		if e.Ok() {
			return true
		}
		if !celKinds[e.Kind] || e.Error() == "" {
			errorf("%s: error of kind %v (%q), not a CEL error", what, e.Kind, e.Error())
		}
		return false
	}
	// checkVal: a result without an error is a value of a CEL type.
	checkVal := func(what string, v any, e Err) {
		t.Helper()
		if checkErr(what, e) && TypeOf(v) == "dyn" {
			errorf("%s = %#v, of no CEL type", what, v)
		}
	}
	// name names a value by its place in weird: printing a cycle would
	// not end.
	name := func(i int) string { return fmt.Sprintf("weird[%d] (%T)", i, weird[i]) }
	for i, a := range weird {
		for j, b := range weird {
			at := func(op string) string { return fmt.Sprintf("%s(%s, %s)", op, name(i), name(j)) }
			for _, op := range []struct {
				name string
				f    func(a, b any) (any, Err)
			}{{"AddDyn", AddDyn}, {"SubDyn", SubDyn}, {"MulDyn", MulDyn}, {"DivDyn", DivDyn}, {"ModDyn", ModDyn}} {
				v, e := op.f(a, b)
				checkVal(at(op.name), v, e)
			}
			for _, op := range []struct {
				name string
				f    func(a, b any) (any, Err)
			}{{"AddDyn", AddDyn}, {"MulDyn", MulDyn}} {
				_, e1 := op.f(a, b)
				_, e2 := op.f(b, a)
				if e1.Kind != e2.Kind && !isString(a) && !isString(b) && !isList(a) && !isList(b) {
					errorf("%s fails with %v, the other way round with %v", at(op.name), e1.Kind, e2.Kind)
				}
			}
			c1, e1 := CompareDyn(a, b)
			c2, e2 := CompareDyn(b, a)
			checkErr(at("CompareDyn"), e1)
			// Past a NaN, cel-go's ordering depends on which side is
			// orderable (docs/cel-semantics.md): no symmetry to check.
			if !isNaN(a) && !isNaN(b) && (e1.Ok() != e2.Ok() || e1.Ok() && c1 != -c2) {
				errorf("%s = %d (%v), the other way round %d (%v)", at("CompareDyn"), c1, e1.Kind, c2, e2.Kind)
			}
			if Equal(a, b) != Equal(b, a) {
				errorf("%s is not symmetric", at("Equal"))
			}
			q1, e1 := EqualDyn(a, b)
			q2, e2 := EqualDyn(b, a)
			checkErr(at("EqualDyn"), e1)
			if q1 != q2 || e1.Kind != e2.Kind {
				errorf("%s = %v (%v), the other way round %v (%v)", at("EqualDyn"), q1, e1.Kind, q2, e2.Kind)
			}
			_, e := IndexDyn(a, b)
			checkErr(at("IndexDyn"), e)
			_, e = InDyn(a, b)
			checkErr(at("InDyn"), e)
			_, e = RangeDyn(a)
			checkErr(at("RangeDyn"), e)
			Assignable(a, &TypeDesc{Kind: TypeMap, Key: &TypeDesc{Kind: TypeInt}, Val: &TypeDesc{}})
			if m := NewAnyMap(a, b, b, a); m == nil {
				errorf("%s is nil", at("NewAnyMap"))
			}
		}
		at := func(op string) string { return fmt.Sprintf("%s(%s)", op, name(i)) }
		v, e := NegDyn(a)
		checkVal(at("NegDyn"), v, e)
		if n, e := SizeDyn(a); checkErr(at("SizeDyn"), e) && n < 0 {
			errorf("%s = %d", at("SizeDyn"), n)
		}
		_, e = SelectDyn(a, "f")
		checkErr(at("SelectDyn"), e)
		_, e = HasDyn(a, "f")
		checkErr(at("HasDyn"), e)
		_, e = IntFromDyn(a)
		checkErr(at("IntFromDyn"), e)
		_, e = DoubleFromDyn(a)
		checkErr(at("DoubleFromDyn"), e)
		_, e = StringFromDyn(a)
		checkErr(at("StringFromDyn"), e)
		_, e = BoolFromDyn(a)
		checkErr(at("BoolFromDyn"), e)
		_, e = UintFromDyn(a)
		checkErr(at("UintFromDyn"), e)
		_, e = AsMap(a)
		checkErr(at("AsMap"), e)
		_, e = AsDynMap(a)
		checkErr(at("AsDynMap"), e)
		if TypeOf(a) == "" {
			errorf("%s is empty", at("TypeOf"))
		}
		_, e = AsList(a)
		checkErr(at("AsList"), e)
		_, e = AsStrings(a)
		checkErr(at("AsStrings"), e)
		sink = Normalize(a)
	}
	// The other Go kinds of numbers are read as their values (docs/choices-runtime.md).
	for _, c := range []struct {
		v    any
		want int64
	}{{int8(-1), -1}, {uint8(3), 3}, {json.Number("-5"), -5}} {
		if n, e := IntFromDyn(c.v); !e.Ok() || n != c.want {
			t.Errorf("IntFromDyn(%#v) = %d, %v; want %d", c.v, n, e, c.want)
		}
	}
	if n, e := SizeDyn(cyc); !e.Ok() || n != 2 {
		t.Errorf("SizeDyn of a map that holds itself = %d, %v; want 2", n, e)
	}
	for _, i := range []int64{math.MinInt64, -1, 0, 1, 3, math.MaxInt64} {
		for _, s := range []string{"", "\xff", "héllo", "\xe2\x82"} {
			at := func(op string) string { return fmt.Sprintf("%s(%q, %d)", op, s, i) }
			runes := int64(utf8.RuneCountInString(s))
			for _, f := range []struct {
				name string
				f    func(string, string, int64) (int64, Err)
				sub  string
			}{{"IndexOfFrom", IndexOfFrom, "l"}, {"LastIndexOfFrom", LastIndexOfFrom, "l"}, {"LastIndexOfFrom", LastIndexOfFrom, ""}} {
				if n, e := f.f(s, f.sub, i); checkErr(at(f.name), e) && (n < -1 || n > runes) {
					errorf("%s(%q) = %d, outside the string", at(f.name), f.sub, n)
				}
			}
			if r, e := Substring(s, i); checkErr(at("Substring"), e) && !strings.HasSuffix(s, r) && utf8.ValidString(s) {
				errorf("%s = %q, not a suffix", at("Substring"), r)
			}
			if r, e := SubstringRange(s, i, i+1); checkErr(at("SubstringRange+1"), e) && int64(utf8.RuneCountInString(r)) > 1 {
				errorf("%s = %q, more than one code point", at("SubstringRange+1"), r)
			}
			if r, e := SubstringRange(s, 0, i); checkErr(at("SubstringRange from 0"), e) && !strings.HasPrefix(s, r) && utf8.ValidString(s) {
				errorf("%s = %q, not a prefix", at("SubstringRange from 0"), r)
			}
			if r, e := CharAt(s, i); checkErr(at("CharAt"), e) && utf8.RuneCountInString(r) > 1 {
				errorf("%s = %q, more than one code point", at("CharAt"), r)
			}
			if l := SplitN(s, "", i); i == 0 && l != nil {
				errorf("%s = %q, want none", at("SplitN"), l)
			}
			if r := ReplaceN(s, "", "x", i); i == 0 && r != s {
				errorf("%s = %q, want the string unchanged", at("ReplaceN"), r)
			}
		}
	}
	if bad > 30 {
		t.Errorf("... and %d more", bad-30)
	}
}

func isNaN(v any) bool { f, ok := v.(float64); return ok && f != f }

func isString(v any) bool { _, ok := v.(string); return ok }

func isList(v any) bool { return TypeOf(v) == "list" }
