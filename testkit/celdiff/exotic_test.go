package celdiff

import (
	"math/rand"
	"reflect"
	"testing"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"google.golang.org/protobuf/types/known/structpb"

	rt "github.com/oarc/oarc/runtime/impl"
)

// Exotic host values (ExoticValue: named string, list and map types,
// pointers of every depth, integer and float limits, NaN, json.Number
// beyond int64, cel-go's and protobuf's own values, typed nils, cycles,
// deep nesting), read by the runtime's helpers as generated code reads
// them, against the reference.

// gExotic is an activation whose dyn variables hold exotic host values,
// other host values, or dyn values.
func gExotic(r *rand.Rand) act {
	pick := func() any {
		switch r.Intn(6) {
		case 0, 1, 2:
			return ExoticValue(r)
		case 3:
			return ExoticScalar(r)
		case 4:
			return HostValue(r)
		}
		return genDyn(r, 1)
	}
	return act{"x": pick(), "y": pick(), "i": genSmallInt(r), "d": float64(genSmallInt(r)), "u": uint64(r.Intn(3)),
		"s": fieldNames[r.Intn(len(fieldNames))], "bo": r.Intn(2) == 0, "m": map[string]any{"a": pick(), "b": pick()},
		"ls": genStrings(r)}
}

func TestExoticHostValues(t *testing.T) {
	runHostCases(t, hostCases(), func(r *rand.Rand) act {
		// Values nested too deep for the harness to compare (cycles
		// among them: a cyclic value read is the same value in both;
		// walked, the nesting error, as depth_test.go checks).
		for {
			if a := gExotic(r); !deep(a["x"]) && !deep(a["y"]) && !deep(a["m"]) {
				return a
			}
		}
	})
}

// TestExoticDeepWalks: walks over exotic values nested too deep or cyclic
// are the nesting error or the error of a value not read, in both.
func TestExoticDeepWalks(t *testing.T) {
	e := evaluator(t)
	r := rand.New(rand.NewSource(23))
	cases := hostCases()
	fails := 0
	for n := 0; n < iterations/4; n++ {
		a := gExotic(r)
		if !deep(a["x"]) && !deep(a["y"]) && !deep(a["m"]) {
			continue
		}
		for _, c := range cases {
			switch c.expr {
			case "x == y", "x != y", "x == x", "m == m", "[x, 1] == [1, y]", "{'a': x} == {'a': y}", "x in y", "y in x",
				"size(x)", "type(x)", "has(x.a)", "x == [1, 2, 3]":
			default:
				continue
			}
			checkOne(t, e, c.expr, a, func(a act) (any, rt.Err) {
				ra, e := readVars(a, c.vars...)
				if !e.Ok() {
					return nil, e
				}
				return c.run(ra)
			}, &fails)
			if fails > 10 {
				t.Fatal("too many failures")
			}
		}
	}
}

// TestExoticDeviations: where the rule departs from cel-go as it is on
// exotic host values, it is the rule's invalid_argument error, never
// another value.
func TestExoticDeviations(t *testing.T) {
	strict := evaluator(t)
	plain, err := NewPlainEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{"x == y", "x != y", "x in y", "x == [1, 2, 3]", "1 in x", "size(x)", "x[1]", "x.a", "has(x.a)",
		"x < 1", "int(x)", "string(x)", "double(x)", "type(x)", "x.all(e, e == e)", "x + y", "dyn(x) == null", "x == 1",
		"x == 'a'", "x == true", "x == null"}
	r := rand.New(rand.NewSource(19))
	for n := 0; n < iterations; n++ {
		a := gExotic(r)
		if deep(a["x"]) || deep(a["y"]) || deep(a["m"]) {
			continue // cel-go's own walks overflow its stack on them
		}
		for _, expr := range exprs {
			s, err1 := strict.Eval(expr, a)
			p, err2 := evalRecover(plain, expr, a)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", expr, err1, err2)
			}
			se, sIsErr := s.(*types.Err)
			_, pIsErr := p.(*types.Err)
			switch {
			case sIsErr && pIsErr:
				continue
			case !sIsErr && !pIsErr:
				if same, ok := sameValues(s, p); same || !ok {
					// !ok: cel-go panics reading its own value (a
					// pointer to a map or list inside it), which the
					// rule's value holds as an element not read.
					continue
				}
			}
			if !sIsErr || KindOfCelError(se.Error()) != rt.ErrInvalidArgument {
				t.Errorf("%s with %s: rule %v, cel-go %v", expr, Show(map[string]any(a)), s, p)
			}
		}
	}
}

// sameValues reports whether the rule's value s is cel-go's p (but for
// elements the rule does not read); ok is false where cel-go panics
// reading its value.
func sameValues(s, p ref.Val) (same, ok bool) {
	defer func() {
		if recover() != nil {
			same, ok = false, false
		}
	}()
	return s.Equal(p) == types.True || ruleMatches(s, p), true
}

// evalRecover is e.Eval with a panic of cel-go's an error value.
func evalRecover(e *Evaluator, expr string, a act) (v ref.Val, err error) {
	defer func() {
		if p := recover(); p != nil {
			v = types.NewErr("cel-go panicked: %v", p)
		}
	}()
	return e.Eval(expr, a)
}

// deep reports whether v nests lists, maps and pointers more than 100
// levels (cyclic values included): cel-go's own walks overflow its stack
// on them, and the harness cannot compare them.
func deep(v any) bool { return deepRV(reflect.ValueOf(v), 0) }

func deepRV(rv reflect.Value, depth int) bool {
	if depth > 100 {
		return true
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < rv.Len() && i < 4; i++ {
			if deepRV(rv.Index(i), depth+1) {
				return true
			}
		}
	case reflect.Map:
		for it := rv.MapRange(); it.Next(); {
			if deepRV(it.Value(), depth+1) {
				return true
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !rv.IsNil() {
			return deepRV(rv.Elem(), depth+1)
		}
	}
	return false
}

// TestExoticReview: the values the sweep found read apart, each read by
// the runtime's helpers and by the reference, both as cel-go reads it (or
// as the rule's error where cel-go panics or is inconsistent).
func TestExoticReview(t *testing.T) {
	e := evaluator(t)
	m := map[string]any{"a": int64(1)}
	l := []any{int64(1)}
	byExpr := map[string]hostCase{}
	for _, c := range hostCases() {
		byExpr[c.expr] = c
	}
	const fails = "error"
	for _, c := range []struct {
		name string
		x, y any
		expr string
		want any // "error" for an error
	}{
		// cel-go's adapter reads protobuf's NullValue (an int32 enum),
		// and a pointer to one, nil included, as null.
		{"structpb null == null", structpb.NullValue_NULL_VALUE, nil, "x == y", true},
		{"structpb null is no int", structpb.NullValue_NULL_VALUE, nil, "x == i", false},
		{"structpb null type", structpb.NullValue_NULL_VALUE, nil, "type(x)", rt.Type("null_type")},
		{"*structpb null type", ptr(structpb.NullValue_NULL_VALUE), nil, "type(x)", rt.Type("null_type")},
		{"nil *structpb null type", (*structpb.NullValue)(nil), nil, "type(x)", rt.Type("null_type")},
		{"structpb null < 1", structpb.NullValue(1), nil, "x < i", fails},
		// cel-go's adapter reads a pointer to its scalars as the scalar.
		{"*types.Int == 2", ptr(types.Int(2)), nil, "x == i", true},
		{"*types.Int type", ptr(types.Int(2)), nil, "type(x)", rt.Type("int")},
		{"*types.String", ptr(types.String("a")), nil, "string(x)", "a"},
		{"*types.Double + 1", ptr(types.Double(1.5)), nil, "double(x)", 1.5},
		{"*types.Uint", ptr(types.Uint(3)), nil, "uint(x)", uint64(3)},
		{"*types.Bool", ptr(types.True), nil, "!x", false},
		{"nil *types.Int", (*types.Int)(nil), nil, "type(x)", fails},
		{"*types.Bytes", ptr(types.Bytes("a")), nil, "type(x)", fails},
		{"*types.Null", ptr(types.NullValue), nil, "type(x)", fails},
		// `in` on a Go map cel-go reads by reflection reads the value it
		// finds (cel-go panics on a pointer to a map or list there).
		{"in reflected map, *map value", map[any]any{"k": &m}, "k", "y in x", fails},
		{"in reflected map, *list value", map[any]any{"k": &l}, "k", "y in x", fails},
		{"in reflected map, struct value", map[any]any{"k": struct{}{}}, "k", "y in x", fails},
		{"in reflected map, absent", map[any]any{"k": &m}, "j", "y in x", false},
		{"in reflected map, value", map[any]any{"k": int8(1)}, "k", "y in x", true},
		{"in map[string]any, *map value", map[string]any{"k": &m}, "k", "y in x", true},
		{"in named map, *map value", M{"k": &m}, "k", "y in x", fails},
	} {
		t.Run(c.name, func(t *testing.T) {
			hc, ok := byExpr[c.expr]
			if !ok {
				t.Fatalf("no case %s", c.expr)
			}
			a := act{"x": c.x, "y": c.y, "i": int64(2), "d": 0.0, "u": uint64(0), "s": "", "bo": false, "m": map[string]any{}, "ls": []string{}}
			fails := 0
			checkOne(t, e, c.expr, a, func(a act) (any, rt.Err) {
				ra, e := readVars(a, hc.vars...)
				if !e.Ok() {
					return nil, e
				}
				return hc.run(ra)
			}, &fails)
			got, err := e.Eval(c.expr, a)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "error" {
				if _, ok := got.(*types.Err); !ok {
					t.Errorf("%s: %v, want an error", c.expr, got)
				}
				return
			}
			if msg := Check(c.want, rt.Err{}, got); msg != "" {
				t.Errorf("%s: reference %s", c.expr, msg)
			}
		})
	}
}

// FuzzHostValues: the runtime's helpers against the reference on exotic
// host values, the activation drawn from the fuzzer's seed.
func FuzzHostValues(f *testing.F) {
	for _, s := range []int64{1, 2, 3, 19, 23, 1800} {
		f.Add(s)
	}
	e := evaluator(f)
	cases := hostCases()
	f.Fuzz(func(t *testing.T, seed int64) {
		r := rand.New(rand.NewSource(seed))
		a := gExotic(r)
		if deep(a["x"]) || deep(a["y"]) || deep(a["m"]) {
			return
		}
		fails := 0
		for _, c := range cases {
			checkOne(t, e, c.expr, a, func(a act) (any, rt.Err) {
				ra, e := readVars(a, c.vars...)
				if !e.Ok() {
					return nil, e
				}
				return c.run(ra)
			}, &fails)
		}
	})
}
