package impl

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// Issue 18 item 3: host values outside the dyn representation are read as
// cel-go's adapter reads them, and are an invalid_argument error where it
// cannot read them, never a silent zero or false. Expected values are
// cel-go's (testkit/celdiff and codegen/internal/edge check the same
// against it).

type (
	hPort   int
	hName   string
	hPoint  struct{ X int }
	hKey    int
	hLabels map[string]string
	hNumber json.Number
)

func (p hPoint) String() string { return fmt.Sprint(p.X) }

func TestReadHostValues(t *testing.T) {
	one, two := 1, 2
	port := hPort(7)
	dur := time.Duration(3)
	num := json.Number("12")
	var nilInt *int
	for _, c := range []struct {
		name string
		v    any
		want any // the value read; an Err for an error
	}{
		{"int64 as it is", int64(3), int64(3)},
		{"named int", hPort(7), int64(7)},
		{"named string", hName("x"), "x"},
		{"*int", &one, int64(1)},
		{"*named", &port, int64(7)},
		{"*time.Duration is an int", &dur, int64(3)},
		{"*json.Number is a string", &num, "12"},
		{"named json.Number is a string", hNumber("12"), "12"},
		{"uint16", uint16(3), uint16(3)},
		{"[]int8", []int8{1, 2}, []any{int8(1), int8(2)}},
		{"[2]int", [2]int{1, 2}, []any{1, 2}},
		{"named slice", []hPort{1}, []any{hPort(1)}},
		{"[][]string", [][]string{{"a"}}, []any{[]string{"a"}}},
		{"nil *int in a slice is null", []*int{&one, nil}, []any{&one, nil}},
		{"nil interface element is null", []fmt.Stringer{nil}, []any{nil}},
		{"json.RawMessage", json.RawMessage(`{"a": [1, 2.5]}`), map[string]any{"a": []any{1.0, 2.5}}},
		{"json.Number", json.Number("2.5"), json.Number("2.5")},
		{"nil *int", nilInt, Unsupported(nilInt)},
		{"**int", &[]*int{&two}[0], Unsupported(&[]*int{&two}[0])},
		{"*[]int", &[]int{1}, Unsupported(&[]int{1})},
		{"struct", hPoint{1}, Unsupported(hPoint{1})},
		{"*struct", &hPoint{1}, Unsupported(&hPoint{1})},
		{"json.Number abc", json.Number("abc"), Unsupported(json.Number("abc"))},
		{"json.Number 1e999", json.Number("1e999"), Unsupported(json.Number("1e999"))},
		{"bad json.RawMessage", json.RawMessage(`{`), Unsupported(json.RawMessage(`{`))},
		{"[]byte is bytes", []byte("ab"), Unsupported([]byte("ab"))},
		{"[2]byte is bytes", [2]byte{1, 2}, Unsupported([2]byte{1, 2})},
		{"time.Time is a timestamp", time.Unix(0, 0), Unsupported(time.Unix(0, 0))},
		{"time.Duration is a duration", time.Second, Unsupported(time.Second)},
		{"uintptr", uintptr(1), Unsupported(uintptr(1))},
		{"complex", complex(1, 0), Unsupported(complex(1, 0))},
		{"map with struct keys", map[hPoint]int{{1}: 1}, Unsupported(map[hPoint]int{{1}: 1})},
	} {
		got, e := Read(c.v)
		if want, isErr := c.want.(Err); isErr {
			if e != want || e.Kind != ErrInvalidArgument {
				t.Errorf("%s: Read = %#v, %v; want the error %v", c.name, got, e, want)
			}
			continue
		}
		if !e.Ok() || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Read = %#v, %v; want %#v", c.name, got, e, c.want)
		}
	}
	if e := Unsupported(hPoint{}); e.Error() != "unsupported value of Go type impl.hPoint" {
		t.Errorf("message %q", e.Error())
	}
}

// read is Read for a test that expects no error.
func read(t *testing.T, v any) any {
	t.Helper()
	r, e := Read(v)
	if !e.Ok() {
		t.Fatalf("Read(%#v): %v", v, e)
	}
	return r
}

// The issue's two cases, on the helpers generated code calls: a []int is
// the list of its ints; a json.Number that spells no number in range is an
// error where it is read, so `in` never answers false for it.
func TestIssue18Helpers(t *testing.T) {
	if eq, e := EqualDyn(read(t, []int{22}), []any{int64(22)}); !eq || !e.Ok() {
		t.Errorf("[]int{22} == [22]: %v %v", eq, e)
	}
	if _, e := Read(json.Number("1e999")); e.Kind != ErrInvalidArgument {
		t.Errorf("reading json.Number(1e999): %v", e)
	}
	// Inside a list, `in` reads every element it compares.
	if in, e := InDyn(int64(1), []any{json.Number("1e999"), int64(1)}); e.Kind != ErrInvalidArgument {
		t.Errorf("1 in [1e999, 1]: %v %v", in, e)
	}
}

// cel-go skips an element it cannot read when it walks lists and maps
// ([x] == [1] is true for a struct x, 1 in [x] false); the rule reports it.
func TestWalksReadElements(t *testing.T) {
	bad := hPoint{1}
	for _, c := range []struct {
		name string
		f    func() (bool, Err)
		want bool
		err  bool
	}{
		{"[bad, 1] == [1, 1]", func() (bool, Err) { return EqualDyn([]any{bad, int64(1)}, []any{int64(1), int64(1)}) }, false, true},
		{"[1] == [bad]", func() (bool, Err) { return EqualDyn([]any{int64(1)}, []any{bad}) }, false, true},
		{"[null] == [bad]", func() (bool, Err) { return EqualDyn([]any{nil}, []any{bad}) }, false, true},
		{"[1, bad] == [2, 1]: stops at the first difference", func() (bool, Err) {
			return EqualDyn([]any{int64(1), bad}, []any{int64(2), int64(1)})
		}, false, false},
		{"[bad] == [1, 2]: sizes differ", func() (bool, Err) { return EqualDyn([]any{bad}, []any{int64(1), int64(2)}) }, false, false},
		{"1 in [bad, 1]", func() (bool, Err) { return InDyn(int64(1), []any{bad, int64(1)}) }, false, true},
		{"1 in [1, bad]", func() (bool, Err) { return InDyn(int64(1), []any{int64(1), bad}) }, true, false},
		{"{a: bad, b: 1} == {a: 2, b: 1}", func() (bool, Err) {
			return EqualDyn(map[string]any{"a": bad, "b": int64(1)}, map[string]any{"a": int64(2), "b": int64(1)})
		}, false, true},
		{"{a: bad} == {b: 1}: a's value is not read", func() (bool, Err) {
			return EqualDyn(map[string]any{"a": bad}, map[string]any{"b": int64(1)})
		}, false, false},
		{"[[]int8] == [[1]]", func() (bool, Err) { return EqualDyn([]any{[]int8{1}}, []any{[]any{int64(1)}}) }, true, false},
		{"[2]int in [[1, 2]]", func() (bool, Err) { return InDyn(read(t, [2]int{1, 2}), []any{[]any{int64(1), int64(2)}}) }, true, false},
	} {
		got, e := c.f()
		if got != c.want || e.Ok() == c.err || (c.err && e.Kind != ErrInvalidArgument) {
			t.Errorf("%s = %v %v, want %v (error %v)", c.name, got, e, c.want, c.err)
		}
	}
}

// Host maps are looked up as cel-go looks them up, quirks included.
func TestHostMapLookup(t *testing.T) {
	big := int64(1) << 40
	for _, c := range []struct {
		name  string
		m     any
		key   any
		found bool
		want  any
	}{
		{"map[string]int", map[string]int{"a": 1}, "a", true, 1},
		{"map[string]int, an int key", map[string]int{"a": 1}, int64(1), false, nil},
		{"map[int]string", map[int]string{1: "a"}, int64(1), true, "a"},
		{"map[int]string, a uint key", map[int]string{1: "a"}, uint64(1), true, "a"},
		{"map[int]string, a double key", map[int]string{1: "a"}, 1.0, true, "a"},
		{"map[int]string, 2^40", map[int]string{int(big): "big"}, big, true, "big"},
		{"map[int]any, 2^40 (the 32-bit check)", map[int]any{int(big): "big"}, big, false, nil},
		{"named key, 2^40", map[hKey]string{hKey(big): "big"}, big, false, nil},
		{"named key", map[hKey]string{1: "a"}, int64(1), true, "a"},
		{"map[int8]string, a uint key", map[int8]string{3: "c"}, uint64(3), true, "c"},
		{"map[int8]string, 300", map[int8]string{44: "x"}, int64(300), false, nil},
		{"map[uint]string, an int key", map[uint]string{1: "a"}, int64(1), true, "a"},
		{"map[float32]string, 0.5", map[float32]string{0.5: "h"}, 0.5, true, "h"},
		{"map[float32]string, 0.1 rounded", map[float32]string{0.1: "t"}, 0.1, true, "t"},
		{"map[float64]int, an int key", map[float64]int{1: 1}, int64(1), false, nil},
		{"map[bool]string", map[bool]string{true: "t"}, true, true, "t"},
		{"map[any]any, an int key", map[any]any{1: "a"}, int64(1), false, nil},
		{"map[any]any, an int64 key", map[any]any{int64(1): "a"}, int64(1), true, "a"},
		{"map[any]any, a uint64 key found by an int", map[any]any{uint64(1): "a"}, int64(1), true, "a"},
		{"map[any]any, a string key", map[any]any{"s": "b"}, "s", true, "b"},
		{"map[any]any, a named string key", map[any]any{hName("s"): "b"}, "s", false, nil},
		{"null key", map[any]any{nil: 1}, nil, false, nil},
		{"named map", hLabels{"a": "b"}, "a", true, "b"},
	} {
		m := read(t, c.m)
		v, e := IndexDyn(m, c.key)
		found := e.Ok()
		if found != c.found || (found && !reflect.DeepEqual(v, c.want)) {
			t.Errorf("%s: [%#v] = %#v %v, want %#v (found %v)", c.name, c.key, v, e, c.want, c.found)
		}
		if in, e := InDyn(c.key, m); in != c.found || !e.Ok() {
			t.Errorf("%s: %#v in = %v %v", c.name, c.key, in, e)
		}
	}
	// A list key cannot be hashed by a Go map with interface keys.
	if _, e := InDyn([]any{int64(1)}, read(t, map[any]any{1: 2})); e.Kind != ErrInvalidArgument {
		t.Errorf("[1] in map[any]any: %v", e)
	}
	if in, e := InDyn([]any{int64(1)}, read(t, map[string]int{"a": 1})); in || !e.Ok() {
		t.Errorf("[1] in map[string]int: %v %v", in, e)
	}
	// Equality looks each key of the left map up in the right one, then
	// reads the left value through the left map's own lookup: a key found
	// on the right but not on the left is an error (cel-go compares nil
	// with the value and fails); one found on neither side is a difference.
	wide := read(t, map[int]string{int(big): "a"})
	narrow := read(t, map[hKey]string{hKey(big): "a"})
	if _, e := EqualDyn(narrow, wide); e.Kind != ErrInvalidArgument {
		t.Errorf("equality of a map whose own key is not found: %v", e)
	}
	if eq, e := EqualDyn(narrow, narrow); eq || !e.Ok() {
		t.Errorf("equality of a map that finds none of its keys: %v %v", eq, e)
	}
	if eq, e := EqualDyn(wide, narrow); eq || !e.Ok() {
		t.Errorf("map[int]string == map[hKey]string: %v %v", eq, e)
	}
	if eq, e := EqualDyn(read(t, map[string]int{"a": 1}), map[string]any{"a": 1.0}); !eq || !e.Ok() {
		t.Errorf("map[string]int == {'a': 1.0}: %v %v", eq, e)
	}
	// has() reads the value on a Go map other than map[string]any, as
	// cel-go does.
	if h, e := HasDyn(read(t, map[string]hPoint{"a": {1}}), "a"); e.Kind != ErrInvalidArgument {
		t.Errorf("has() on map[string]struct: %v %v", h, e)
	}
	if h, e := HasDyn(map[string]any{"a": hPoint{1}}, "a"); !h || !e.Ok() {
		t.Errorf("has() on map[string]any: %v %v", h, e)
	}
	// Comprehensions over a host map iterate its keys, read, in a fixed
	// order.
	l, e := RangeDyn(read(t, map[hKey]string{2: "b", 1: "a"}))
	if !e.Ok() || l.Len() != 2 || l.At(0) != int64(1) || l.At(1) != int64(2) {
		t.Errorf("range over a host map: %v %v", l, e)
	}
}

// The observation functions read an argument as every value is read, and
// fail on one they cannot read.
func TestToolArgsHostValues(t *testing.T) {
	one := 1
	args := map[string]any{"name": hName("x"), "port": hPort(7), "p": &one, "list": []int{1}, "point": hPoint{1},
		"big": json.Number("1e999"), "f32": float32(4), "flag": func() any { b := true; return &b }()}
	if s, e := ToolArgString(args, "name"); s != "x" || !e.Ok() {
		t.Errorf("tool_arg_string(named string) = %q %v", s, e)
	}
	if s, e := ToolArgString(args, "list"); s != "" || !e.Ok() {
		t.Errorf("tool_arg_string([]int) = %q %v", s, e)
	}
	for k, want := range map[string]int64{"port": 7, "p": 1, "f32": 4, "list": 0, "name": 0} {
		if i, e := ToolArgInt(args, k); i != want || !e.Ok() {
			t.Errorf("tool_arg_int(%s) = %d %v, want %d", k, i, e, want)
		}
	}
	if b, e := ToolArgBool(args, "flag"); !b || !e.Ok() {
		t.Errorf("tool_arg_bool(*bool) = %v %v", b, e)
	}
	for _, k := range []string{"point", "big"} {
		if _, e := ToolArgString(args, k); e.Kind != ErrInvalidArgument {
			t.Errorf("tool_arg_string(%s): %v", k, e)
		}
		if _, e := ToolArgInt(args, k); e.Kind != ErrInvalidArgument {
			t.Errorf("tool_arg_int(%s): %v", k, e)
		}
		if _, e := ToolArgBool(args, k); e.Kind != ErrInvalidArgument {
			t.Errorf("tool_arg_bool(%s): %v", k, e)
		}
	}
}

// A helper given an operand it cannot read fails, whatever the operation.
func TestUnsupportedOperands(t *testing.T) {
	bad := hPoint{1}
	want := Unsupported(bad)
	if _, e := IndexDyn([]any{int64(1)}, bad); e != InvalidArgument("invalid qualifier type: unsupported") {
		t.Errorf("an unsupported key: %v", e)
	}
	for name, e := range map[string]Err{
		"CompareDyn":  second(CompareDyn(bad, int64(1))),
		"CompareIntD": second(CompareIntDyn(1, bad)),
		"AddDyn":      second(AddDyn(int64(1), bad)),
		"NegDyn":      second(NegDyn(bad)),
		"NotDyn":      second(NotDyn(bad)),
		"SizeDyn":     second(SizeDyn(bad)),
		"IndexDyn":    second(IndexDyn(bad, int64(0))),
		"SelectDyn":   second(SelectDyn(bad, "a")),
		"HasDyn":      second(HasDyn(bad, "a")),
		"InDyn":       second(InDyn(bad, []any{})),
		"InDynC":      second(InDyn(int64(1), bad)),
		"IntFromDyn":  second(IntFromDyn(bad)),
		"StringFrom":  second(StringFromDyn(bad)),
		"AsString":    second(AsString(bad)),
		"AsList":      second(AsList(bad)),
		"AsMap":       second(AsMap(bad)),
		"RangeDyn":    second(RangeDyn(bad)),
		"EqualDyn":    second(EqualDyn(bad, nil)),
		"IndexResult": second(IndexDyn([]any{bad}, int64(0))),
		"SelectRes":   second(SelectDyn(map[string]any{"a": bad}, "a")),
	} {
		if e != want {
			t.Errorf("%s: %v, want %v", name, e, want)
		}
	}
}

func second[T any](_ T, e Err) Err { return e }
