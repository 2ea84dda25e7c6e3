package celdiff

import (
	"math/rand"
	"strings"
	"testing"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	rt "github.com/oarc/oarc/runtime/impl"
)

// Issue 18 item 3: the runtime's helpers against cel-go on host values
// outside the dyn representation (HostValue: typed slices and maps, named
// types, pointers, structs, json.Number and json.RawMessage, bytes,
// times), read as generated code reads them.

// gHost is an activation whose dyn variables hold host values, numbers
// near the small ints the expressions use, or dyn values.
func gHost(r *rand.Rand) act {
	pick := func() any {
		switch r.Intn(5) {
		case 0, 1:
			return HostValue(r)
		case 2:
			return HostNumber(r)
		case 3:
			return genKey(r)
		}
		return genDyn(r, 1)
	}
	return act{"x": pick(), "y": pick(), "i": genSmallInt(r), "d": float64(genSmallInt(r)), "u": uint64(r.Intn(3)),
		"s": fieldNames[r.Intn(len(fieldNames))], "bo": r.Intn(2) == 0, "m": map[string]any{"a": pick(), "b": pick()},
		"ls": genStrings(r)}
}

// readVars reads the named variables of a as generated code reads a value
// out of a host container (impl.Read), in the order cel-go evaluates them:
// the activation of read values, or the first error.
func readVars(a act, names ...string) (act, rt.Err) {
	out := act{}
	for k, v := range a {
		out[k] = v
	}
	for _, n := range names {
		v, e := rt.Read(a[n])
		if !e.Ok() {
			return nil, e
		}
		out[n] = v
	}
	return out, rt.Err{}
}

// hostCase is a helper run on the variables it names, read first.
type hostCase struct {
	expr string
	vars []string
	run  func(a act) (any, rt.Err)
}

func runHostCases(t *testing.T, cases []hostCase, gen func(*rand.Rand) act) {
	e := evaluator(t)
	for ci, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(1800 + ci)))
			fails := 0
			for n := 0; n < iterations; n++ {
				a := gen(r)
				run := func(a act) (any, rt.Err) {
					ra, e := readVars(a, c.vars...)
					if !e.Ok() {
						return nil, e
					}
					return c.run(ra)
				}
				checkOne(t, e, c.expr, a, run, &fails)
				if fails > 10 {
					t.Fatal("too many failures")
				}
			}
		})
	}
}

func TestHostValues(t *testing.T) { runHostCases(t, hostCases(), gHost) }

// hostCases are the runtime's helpers on host values, each with the
// expression cel-go evaluates.
func hostCases() []hostCase {
	x, xy, yx := []string{"x"}, []string{"x", "y"}, []string{"y", "x"}
	var cases []hostCase
	for _, o := range []struct {
		op   string
		pred func(int) bool
	}{{"<", rt.Lt}, {"<=", rt.Le}, {">", rt.Gt}, {">=", rt.Ge}} {
		p := ord(o.pred)
		cases = append(cases,
			hostCase{"x " + o.op + " y", xy, func(a act) (any, rt.Err) { return p(rt.CompareDyn(a["x"], a["y"])) }},
			hostCase{"x " + o.op + " i", x, func(a act) (any, rt.Err) { return p(rt.CompareDynInt(a["x"], i64(a, "i"))) }},
			hostCase{"d " + o.op + " x", x, func(a act) (any, rt.Err) { return p(rt.CompareDoubleDyn(f64(a, "d"), a["x"])) }},
		)
	}
	cases = append(cases,
		hostCase{"x == y", xy, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["y"])) }},
		hostCase{"x != y", xy, func(a act) (any, rt.Err) { b, e := rt.EqualDyn(a["x"], a["y"]); return !b, e }},
		hostCase{"x == x", x, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["x"], a["x"])) }},
		hostCase{"[x, 1] == [1, y]", xy, func(a act) (any, rt.Err) {
			return vb(rt.EqualDyn([]any{a["x"], int64(1)}, []any{int64(1), a["y"]}))
		}},
		hostCase{"{'a': x} == {'a': y}", xy, func(a act) (any, rt.Err) {
			return vb(rt.EqualDyn(map[string]any{"a": a["x"]}, map[string]any{"a": a["y"]}))
		}},
		hostCase{"x == i", x, func(a act) (any, rt.Err) { return ok(rt.EqualDynInt(a["x"], i64(a, "i"))) }},
		hostCase{"x == d", x, func(a act) (any, rt.Err) { return ok(rt.EqualDynDouble(a["x"], f64(a, "d"))) }},
		hostCase{"x == u", x, func(a act) (any, rt.Err) { return ok(rt.EqualDynUint(a["x"], u64(a, "u"))) }},
		hostCase{"x == s", x, func(a act) (any, rt.Err) { return ok(rt.EqualDynString(a["x"], str(a, "s"))) }},
		hostCase{"x == bo", x, func(a act) (any, rt.Err) { return ok(rt.EqualDynBool(a["x"], a["bo"].(bool))) }},
		hostCase{"x == [1, 2, 3]", x, func(a act) (any, rt.Err) {
			return vb(rt.EqualDyn(a["x"], []any{int64(1), int64(2), int64(3)}))
		}},
		hostCase{"x == {'a': 1, 'b': 2}", x, func(a act) (any, rt.Err) {
			return vb(rt.EqualDyn(a["x"], map[string]any{"a": int64(1), "b": int64(2)}))
		}},
		hostCase{"m == m", nil, func(a act) (any, rt.Err) { return vb(rt.EqualDyn(a["m"], a["m"])) }},
		hostCase{"x in y", xy, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["x"], a["y"])) }},
		hostCase{"y in x", yx, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["y"], a["x"])) }},
		hostCase{"i in x", x, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["i"], a["x"])) }},
		hostCase{"s in x", x, func(a act) (any, rt.Err) { return vb(rt.InDyn(a["s"], a["x"])) }},
		hostCase{"x in [1, 2, 3]", x, func(a act) (any, rt.Err) {
			return vb(rt.InDyn(a["x"], []any{int64(1), int64(2), int64(3)}))
		}},
		hostCase{"size(x)", x, func(a act) (any, rt.Err) { return vi(rt.SizeDyn(a["x"])) }},
		hostCase{"x[y]", xy, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["y"]) }},
		hostCase{"x[i]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["i"]) }},
		hostCase{"x[s]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], a["s"]) }},
		hostCase{"x[1]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], int64(1)) }},
		hostCase{"x[1u]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], uint64(1)) }},
		hostCase{"x[1.0]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], 1.0) }},
		hostCase{"x[0.5]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], 0.5) }},
		hostCase{"x[1099511627776]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], int64(1)<<40) }},
		hostCase{"x['a']", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], "a") }},
		hostCase{"x[true]", x, func(a act) (any, rt.Err) { return rt.IndexDyn(a["x"], true) }},
		hostCase{"x.a", x, func(a act) (any, rt.Err) { return rt.SelectDyn(a["x"], "a") }},
		hostCase{"m.a", nil, func(a act) (any, rt.Err) { return rt.SelectDyn(a["m"], "a") }},
		hostCase{"has(x.a)", x, func(a act) (any, rt.Err) { return vb(rt.HasDyn(a["x"], "a")) }},
		hostCase{"has(m.a)", nil, func(a act) (any, rt.Err) { return vb(rt.HasDyn(a["m"], "a")) }},
		hostCase{"has(m.a.a)", nil, func(a act) (any, rt.Err) {
			v, e := rt.SelectDyn(a["m"], "a")
			if !e.Ok() {
				return nil, e
			}
			return vb(rt.HasDyn(v, "a"))
		}},
		hostCase{"x + y", xy, func(a act) (any, rt.Err) { return rt.AddDyn(a["x"], a["y"]) }},
		hostCase{"x - i", x, func(a act) (any, rt.Err) { return rt.SubDyn(a["x"], a["i"]) }},
		hostCase{"-x", x, func(a act) (any, rt.Err) { return rt.NegDyn(a["x"]) }},
		hostCase{"!x", x, func(a act) (any, rt.Err) { return vb(rt.NotDyn(a["x"])) }},
		hostCase{"int(x)", x, func(a act) (any, rt.Err) { return vi(rt.IntFromDyn(a["x"])) }},
		hostCase{"uint(x)", x, func(a act) (any, rt.Err) { return vu(rt.UintFromDyn(a["x"])) }},
		hostCase{"double(x)", x, func(a act) (any, rt.Err) { return vf(rt.DoubleFromDyn(a["x"])) }},
		hostCase{"string(x)", x, func(a act) (any, rt.Err) { return vs(rt.StringFromDyn(a["x"])) }},
		hostCase{"bool(x)", x, func(a act) (any, rt.Err) { return vb(rt.BoolFromDyn(a["x"])) }},
		hostCase{"type(x)", x, func(a act) (any, rt.Err) { return ok(rt.TypeOf(a["x"])) }},
		hostCase{"x + 1", x, func(a act) (any, rt.Err) {
			n, e := rt.AsInt(a["x"])
			if !e.Ok() {
				return nil, e
			}
			return vi(rt.AddInt(n, 1))
		}},
		hostCase{"x + ''", x, func(a act) (any, rt.Err) { return vs(rt.AsString(a["x"])) }},
		hostCase{"x.startsWith('a')", x, func(a act) (any, rt.Err) {
			if !rt.Assignable(a["x"], &rt.TypeDesc{Kind: rt.TypeString}) {
				return nil, rt.NoSuchOverload("")
			}
			s, e := rt.AsString(a["x"])
			return strings.HasPrefix(s, "a"), e
		}},
		// A comprehension reads each element it binds: map() is strict,
		// exists() absorbs an error where another element is true. (The
		// order of a map's keys is Go's in cel-go: only what does not
		// depend on it is compared.)
		hostCase{"size(x.map(e, e))", x, func(a act) (any, rt.Err) {
			l, e := comprehend(a["x"])
			return int64(len(l)), e
		}},
		hostCase{"x.exists(e, e == 1)", x, func(a act) (any, rt.Err) {
			l, e := rt.RangeDyn(a["x"])
			if !e.Ok() {
				return nil, e
			}
			var first rt.Err
			for i := 0; i < l.Len(); i++ {
				v, e := rt.Read(l.At(i))
				if !e.Ok() {
					if first.Ok() {
						first = e
					}
					continue
				}
				if rt.EqualDynInt(v, 1) {
					return true, rt.Err{}
				}
			}
			return false, first
		}},
	)
	return cases
}

// comprehend binds every element of x's range as generated code does,
// reading each: the elements, or the first error.
func comprehend(x any) ([]any, rt.Err) {
	l, e := rt.RangeDyn(x)
	if !e.Ok() {
		return nil, e
	}
	var out []any
	for i := 0; i < l.Len(); i++ {
		v, e := rt.Read(l.At(i))
		if !e.Ok() {
			return nil, e
		}
		out = append(out, v)
	}
	return out, rt.Err{}
}

// TestStrictMatchesCelGo: on values cel-go reads (the dyn representation
// and the host conveniences the runtime has always read), the strict ==,
// != and in of the rule are cel-go's own.
func TestStrictMatchesCelGo(t *testing.T) {
	strict := evaluator(t)
	plain, err := NewPlainEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(7))
	for n := 0; n < 3*iterations; n++ {
		a := gDyn2(r)
		if cyclic(a["x"]) || cyclic(a["y"]) {
			continue
		}
		for _, expr := range []string{"x == y", "x != y", "x in y", "y in x", "[x, 1] == [x, y]", "{'a': x} == {'a': y}", "x in [1, y, 2.0]"} {
			s, err1 := strict.Eval(expr, a)
			p, err2 := plain.Eval(expr, a)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", expr, err1, err2)
			}
			if types.IsError(s) != types.IsError(p) || (!types.IsError(s) && s.Equal(p) != types.True) {
				t.Errorf("%s with %s: strict %v, cel-go %v", expr, Show(map[string]any(a)), s, p)
			}
		}
	}
}

// TestHostDeviations measures where the rule departs from cel-go as it is
// on host values, and requires every departure to be the rule's
// invalid_argument error (a value cel-go reads as bytes, a timestamp or a
// duration; an element cel-go skips in a walk; a pointer to a list, on
// which cel-go fails otherwise): the rule never gives another value than
// cel-go.
func TestHostDeviations(t *testing.T) {
	strict := evaluator(t)
	plain, err := NewPlainEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{"x == y", "x != y", "x in y", "x == [1, 2, 3]", "1 in x", "size(x)", "x[1]", "x.a", "has(x.a)",
		"x < 1", "int(x)", "string(x)", "type(x)", "x.all(e, true)", "x + y"}
	r := rand.New(rand.NewSource(18))
	compared, deviations := 0, map[string]int{}
	for n := 0; n < iterations; n++ {
		a := gHost(r)
		for _, expr := range exprs {
			s, err1 := strict.Eval(expr, a)
			p, err2 := plain.Eval(expr, a)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", expr, err1, err2)
			}
			compared++
			se, sIsErr := s.(*types.Err)
			_, pIsErr := p.(*types.Err)
			switch {
			case sIsErr && pIsErr:
				continue
			case !sIsErr && !pIsErr:
				if s.Equal(p) == types.True || ruleMatches(s, p) {
					continue
				}
			}
			if !sIsErr || KindOfCelError(se.Error()) != rt.ErrInvalidArgument {
				t.Errorf("%s with %s: rule %v, cel-go %v", expr, Show(map[string]any(a)), s, p)
				continue
			}
			deviations[expr]++
		}
	}
	total := 0
	for _, n := range deviations {
		total += n
	}
	t.Logf("%d comparisons with cel-go as it is: %d where the rule is an error and cel-go a value (%v)", compared, total, deviations)
}

// ruleMatches reports whether the rule's value r is cel-go's p but for
// elements the rule does not read (which cel-go may read as bytes, a
// timestamp, a duration, or as an error value it keeps in the list).
func ruleMatches(r, p ref.Val) bool {
	rv, e1 := FromCel(r)
	pv, e2 := FromCel(p)
	return e1 == nil && e2 == nil && matches(rv, pv)
}

func matches(r, p any) bool {
	if _, ok := r.(Unreadable); ok {
		return true
	}
	switch x := r.(type) {
	case []any:
		y, ok := p.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !matches(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := p.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			if f, ok := y[k]; !ok || !matches(e, f) {
				return false
			}
		}
		return true
	case *rt.AnyMap:
		y, ok := p.(*rt.AnyMap)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i := 0; i < x.Len(); i++ {
			k, e := x.Entry(i)
			found := false
			for j := 0; j < y.Len() && !found; j++ {
				l, f := y.Entry(j)
				found = Same(k, l) && matches(e, f)
			}
			if !found {
				return false
			}
		}
		return true
	}
	return Same(r, p)
}
