package impl

import (
	"math"
	"testing"
)

// Issue 9.6: maps with keys other than strings. Expected values are
// cel-go's (testkit/celdiff checks the same operations differentially).

func TestAnyMapLiteral(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name string
		m    *AnyMap
		size int
	}{
		{"{1: 2, 2.0: 3}", NewAnyMap(int64(1), int64(2), 2.0, int64(3)), 2},
		{"{1: 2, 1u: 3}", NewAnyMap(int64(1), int64(2), uint64(1), int64(3)), 2},
		{"{1: 2, 1.0: 3, 1u: 4}", NewAnyMap(int64(1), int64(2), 1.0, int64(3), uint64(1), int64(4)), 3},
		{"{'a': 1, 'a': 2}", NewAnyMap("a", int64(1), "a", int64(2)), 1},
		{"{null: 1, null: 2}", NewAnyMap(nil, int64(1), nil, int64(2)), 1},
		{"{[1]: 2, [1]: 3}", NewAnyMap([]any{int64(1)}, int64(2), []any{int64(1)}, int64(3)), 2},
		{"{NaN: 1, NaN: 2}", NewAnyMap(math.NaN(), int64(1), math.NaN(), int64(2)), 2},
		{"{0.0: 1, -0.0: 2}", NewAnyMap(0.0, int64(1), negZero, int64(2)), 1},
		{"{}", NewAnyMap(), 0},
		{"int and int64 are one key", NewAnyMap(1, "a", int64(1), "b", int8(1), "c"), 1},
		{"odd pair count", NewAnyMap("a"), 1},
	} {
		if got := c.m.Len(); got != c.size {
			t.Errorf("%s: size %d, want %d", c.name, got, c.size)
		}
		if n, e := SizeDyn(c.m); n != int64(c.size) || !e.Ok() {
			t.Errorf("%s: SizeDyn %d %v", c.name, n, e)
		}
		if TypeOf(c.m) != "map" {
			t.Errorf("%s: type %s", c.name, TypeOf(c.m))
		}
	}
	// Later duplicates win, at the first position; -0.0 replaces 0.0.
	m := NewAnyMap("a", int64(1), "b", int64(5), "a", int64(2))
	if k, v := m.Entry(0); k != "a" || v != int64(2) {
		t.Errorf("entry 0 = %v: %v", k, v)
	}
	m = NewAnyMap(0.0, int64(1), negZero, int64(2))
	if k, v := m.Entry(0); math.Float64bits(k.(float64)) != math.Float64bits(negZero) || v != int64(2) {
		t.Errorf("{0.0: 1, -0.0: 2} entry = %v: %v", k, v)
	}
	if v, ok := NewAnyMap(1, "a", int64(1), "b").Get(int64(1)); !ok || v != "b" {
		t.Errorf("normalised duplicate: %v %v", v, ok)
	}
	var nilMap *AnyMap
	if nilMap.Len() != 0 || TypeOf(nilMap) != "map" {
		t.Error("nil *AnyMap")
	}
	if _, ok := nilMap.Get("a"); ok {
		t.Error("nil *AnyMap Get")
	}
	// Larger maps use an index; the semantics are the same.
	kv := []any{}
	for i := 0; i < 40; i++ {
		kv = append(kv, int64(i), int64(i*10), uint64(i), int64(-i), float64(i)+0.5, "h")
	}
	kv = append(kv, int64(3), "dup", math.NaN(), "n1", math.NaN(), "n2", negZero, "z")
	big := NewAnyMap(kv...)
	if big.Len() != 123 { // 120 + two NaNs + -0.0
		t.Errorf("big map size %d", big.Len())
	}
	for _, c := range []struct {
		k    any
		want any
	}{
		{int64(3), "dup"}, {uint64(3), int64(-3)}, {3.0, "dup"}, {3.5, "h"}, {0.0, "z"}, {int64(0), int64(0)},
	} {
		if v, ok := big.Get(c.k); !ok || v != c.want {
			t.Errorf("big.Get(%v) = %v %v, want %v", c.k, v, ok, c.want)
		}
	}
	if _, ok := big.Get(math.NaN()); ok {
		t.Error("NaN found")
	}
}

func TestAnyMapLookup(t *testing.T) {
	iu := NewAnyMap(int64(1), int64(2))
	ui := NewAnyMap(uint64(1), int64(2))
	dd := NewAnyMap(1.0, int64(2))
	both := NewAnyMap(int64(1), int64(2), uint64(1), int64(3))
	for _, c := range []struct {
		name string
		m    *AnyMap
		key  any
		want any // nil: no such key
	}{
		{"dyn({1:2})[1.0]", iu, 1.0, int64(2)},
		{"dyn({1:2})[1u]", iu, uint64(1), int64(2)},
		{"dyn({1:2})[-0.0]", NewAnyMap(int64(0), int64(2)), math.Copysign(0, -1), int64(2)},
		{"dyn({1u:2})[1]", ui, int64(1), int64(2)},
		{"dyn({1u:2})[1.0]", ui, 1.0, int64(2)},
		{"dyn({1.0:2})[1]", dd, int64(1), nil},
		{"dyn({1.0:2})[1u]", dd, uint64(1), nil},
		{"dyn({1:2})[1.5]", iu, 1.5, nil},
		{"dyn({1:2})[-1]", NewAnyMap(uint64(1), int64(2)), int64(-1), nil},
		{"dyn({1: 2, 1u: 3})[1u]", both, uint64(1), int64(3)},
		{"dyn({1: 2, 1u: 3})[1.0]", both, 1.0, int64(2)},
		{"dyn({1u: 2, 1: 3})[1.0]", NewAnyMap(uint64(1), int64(2), int64(1), int64(3)), 1.0, int64(3)},
		{"dyn({true: 1})[true]", NewAnyMap(true, int64(1)), true, int64(1)},
		{"dyn({1:2})[true]", iu, true, nil},
		{"dyn({1:2})['a']", iu, "a", nil},
		{"dyn({'a':1, 1:2})['a']", NewAnyMap("a", int64(1), int64(1), int64(2)), "a", int64(1)},
		{"int(1) host key", iu, 1, int64(2)},
	} {
		v, e := IndexDyn(c.m, c.key)
		if c.want == nil {
			if e.Kind != ErrNoSuchKey {
				t.Errorf("%s = %v, %v; want no such key", c.name, v, e)
			}
			continue
		}
		if !e.Ok() || v != c.want {
			t.Errorf("%s = %v, %v; want %v", c.name, v, e, c.want)
		}
		if ok, e := InDyn(c.key, c.m); !ok || !e.Ok() {
			t.Errorf("%s: key not in map (%v)", c.name, e)
		}
	}
	for key, msg := range map[any]string{uint64(3): "no such key: 3", 2.5: "no such key: 2.5", 1e100: "no such key: 1e+100", true: "no such key: true"} {
		if _, e := IndexDyn(iu, key); e.Error() != msg {
			t.Errorf("IndexDyn({1:2}, %v): %q, want %q", key, e.Error(), msg)
		}
	}
	// List, map and null keys: invalid qualifiers for [], never found by in.
	lk := NewAnyMap([]any{int64(1)}, int64(2), map[string]any{}, int64(3), nil, int64(4))
	for _, k := range []any{[]any{int64(1)}, map[string]any{}, nil} {
		if _, e := IndexDyn(lk, k); e.Kind != ErrInvalidArgument {
			t.Errorf("IndexDyn(%#v) = %v", k, e)
		}
	}
	if ok, _ := InDyn([]any{int64(1)}, lk); ok {
		t.Error("[1] in {[1]: 2}")
	}
	if ok, _ := InDyn(map[string]any{}, lk); ok {
		t.Error("{} in {{}: 3}")
	}
	if ok, _ := InDyn(nil, lk); !ok {
		t.Error("null in {null: 4}")
	}
	if ok, _ := InDyn(Type("int"), NewAnyMap(Type("int"), int64(1))); !ok {
		t.Error("int in {int: 1}")
	}
}

func TestAnyMapSelect(t *testing.T) {
	mixed := NewAnyMap("a", int64(1), int64(1), int64(2))
	ints := NewAnyMap(int64(1), int64(2))
	empty := NewAnyMap()
	if v, e := SelectDyn(mixed, "a"); v != int64(1) || !e.Ok() {
		t.Errorf("{'a':1, 1:2}.a = %v %v", v, e)
	}
	if _, e := SelectDyn(ints, "a"); e.Error() != "no such key: a" {
		t.Errorf("{1:2}.a: %v", e)
	}
	for m, want := range map[*AnyMap]bool{mixed: true, ints: false, empty: false, nil: false} {
		if ok, e := HasDyn(m, "a"); ok != want || !e.Ok() {
			t.Errorf("has(%v.a) = %v %v", m, ok, e)
		}
	}
	if ok, _ := InDyn("a", ints); ok {
		t.Error("'a' in {1: 2}")
	}
	if ok, _ := InDyn(1.5, ints); ok {
		t.Error("1.5 in {1: 2}")
	}
}

func TestAnyMapEqual(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b any
		want bool
	}{
		{"dyn({1:2}) == {1:2}", NewAnyMap(int64(1), int64(2)), NewAnyMap(int64(1), int64(2)), true},
		{"{1:2} == {1u:2}", NewAnyMap(int64(1), int64(2)), NewAnyMap(uint64(1), int64(2)), true},
		{"{1:2} == {1.0:2}", NewAnyMap(int64(1), int64(2)), NewAnyMap(1.0, int64(2)), false},
		{"{1.0:2} == {1:2}", NewAnyMap(1.0, int64(2)), NewAnyMap(int64(1), int64(2)), true},
		{"{2u:2} == {2.0:2}", NewAnyMap(uint64(2), int64(2)), NewAnyMap(2.0, int64(2)), false},
		{"{2.0:2} == {2u:2}", NewAnyMap(2.0, int64(2)), NewAnyMap(uint64(2), int64(2)), true},
		{"{1:'x',1u:'x'} == {1:'x',2:'x'}", NewAnyMap(int64(1), "x", uint64(1), "x"), NewAnyMap(int64(1), "x", int64(2), "x"), true},
		{"{1:'x',2:'x'} == {1:'x',1u:'x'}", NewAnyMap(int64(1), "x", int64(2), "x"), NewAnyMap(int64(1), "x", uint64(1), "x"), false},
		{"{[1]:2} == {[1]:2}", NewAnyMap([]any{int64(1)}, int64(2)), NewAnyMap([]any{int64(1)}, int64(2)), false},
		{"{NaN:1} == {NaN:1}", NewAnyMap(math.NaN(), int64(1)), NewAnyMap(math.NaN(), int64(1)), false},
		{"{} == tool_args.m", NewAnyMap(), map[string]any{}, true},
		{"tool_args.m == {}", map[string]any{}, NewAnyMap(), true},
		{"{} == nil host map", NewAnyMap(), map[string]string(nil), true},
		{"{} != {'a': 1}", NewAnyMap(), map[string]any{"a": int64(1)}, false},
		{"{'a': 1} == {'a': 1.0}", map[string]any{"a": int64(1)}, NewAnyMap("a", 1.0), true},
		{"{'a': 'b'} == map[string]string", NewAnyMap("a", "b"), map[string]string{"a": "b"}, true},
		{"{1: 1} vs {'1': 1}", NewAnyMap(int64(1), int64(1)), map[string]any{"1": int64(1)}, false},
		{"{} == []", NewAnyMap(), []any{}, false},
		{"nested", NewAnyMap("a", NewAnyMap(int64(1), []any{int64(2)})), map[string]any{"a": NewAnyMap(1.0, []any{2.0})}, false},
		{"nested'", map[string]any{"a": NewAnyMap(1.0, []any{2.0})}, NewAnyMap("a", NewAnyMap(int64(1), []any{int64(2)})), true},
	} {
		eq, e := EqualDyn(c.a, c.b)
		if eq != c.want || !e.Ok() {
			t.Errorf("%s = %v, %v; want %v", c.name, eq, e, c.want)
		}
	}
	// A list key matches nothing, not even in the same map (cel-go
	// matches it only by the identity of the evaluated value).
	lk := NewAnyMap([]any{int64(1)}, int64(2))
	if eq, _ := EqualDyn(lk, lk); eq {
		t.Error("a map with a list key equals itself")
	}
}

func TestAnyMapViewsAndRange(t *testing.T) {
	strs := NewAnyMap("a", int64(1), "b", "x")
	mixed := NewAnyMap("a", int64(1), int64(2), "x", []any{}, true)
	if m, e := AsDynMap(strs); !e.Ok() || m.Len() != 2 {
		t.Errorf("AsDynMap(string keys) = %v", e)
	} else if v, ok := m.Get("b"); !ok || v != "x" {
		t.Errorf("view Get = %v %v", v, ok)
	}
	if _, e := AsDynMap(mixed); e.Kind != ErrNoSuchOverload {
		t.Errorf("AsDynMap(mixed keys) = %v", e)
	}
	if m, e := AsMap(strs); !e.Ok() || len(m) != 2 || m["a"] != int64(1) {
		t.Errorf("AsMap(string keys) = %v %v", m, e)
	}
	if _, e := AsMap(mixed); e.Kind != ErrNoSuchOverload {
		t.Errorf("AsMap(mixed) = %v", e)
	}
	l, e := RangeDyn(mixed)
	if !e.Ok() || l.Len() != 3 || l.At(0) != "a" || l.At(1) != int64(2) {
		t.Fatalf("RangeDyn(mixed) = %v (%d)", e, l.Len())
	}
	if k, ok := l.At(2).([]any); !ok || len(k) != 0 {
		t.Errorf("third key %#v", l.At(2))
	}
	if l, e := RangeDyn(NewAnyMap()); !e.Ok() || l.Len() != 0 {
		t.Error("RangeDyn({})")
	}
	if l, e := RangeDyn((*AnyMap)(nil)); !e.Ok() || l.Len() != 0 {
		t.Error("RangeDyn(nil *AnyMap)")
	}
	if l, e := RangeDyn(map[string]any{"a": 1}); !e.Ok() || l.Len() != 1 || l.At(0) != "a" {
		t.Error("RangeDyn(host map)")
	}
	if _, e := RangeDyn(int64(1)); e.Kind != ErrInvalidArgument {
		t.Errorf("RangeDyn(1) = %v", e)
	}
	// Guards: the first entry decides, as in cel-go.
	mapStrDyn := &TypeDesc{Kind: TypeMap, Key: &TypeDesc{Kind: TypeString}, Val: &TypeDesc{Kind: TypeDyn}}
	mapIntInt := &TypeDesc{Kind: TypeMap, Key: &TypeDesc{Kind: TypeInt}, Val: &TypeDesc{Kind: TypeInt}}
	for _, c := range []struct {
		v    any
		t    *TypeDesc
		want bool
	}{
		{strs, mapStrDyn, true},
		{NewAnyMap(int64(1), int64(2)), mapStrDyn, false},
		{NewAnyMap(int64(1), int64(2)), mapIntInt, true},
		{NewAnyMap(), mapIntInt, true},
		{NewAnyMap(math.NaN(), int64(2)), &TypeDesc{Kind: TypeMap, Key: &TypeDesc{}, Val: &TypeDesc{}}, false},
		{map[string]any{"a": int64(1)}, mapIntInt, false},
	} {
		if got := Assignable(c.v, c.t); got != c.want {
			t.Errorf("Assignable(%v) = %v", c.v, got)
		}
	}
	// Conversions and operators treat it as a map.
	if _, e := IntFromDyn(strs); e.Kind != ErrNoSuchOverload || e.Error() != "no such overload: int(map)" {
		t.Errorf("int(map) = %v", e)
	}
	if _, e := StringFromDyn(mixed); e.Error() != "no such overload: string(map)" {
		t.Errorf("string(map) = %v", e)
	}
	if _, e := AddDyn(strs, strs); e.Kind != ErrNoSuchOverload {
		t.Error("map + map")
	}
	if _, e := CompareDyn(strs, strs); e.Kind != ErrNoSuchOverload {
		t.Error("map < map")
	}
	if _, e := InDyn(int64(1), int64(1)); e.Kind != ErrNoSuchOverload {
		t.Error("1 in 1")
	}
	if Normalize(mixed) != any(mixed) {
		t.Error("Normalize(*AnyMap)")
	}
}
