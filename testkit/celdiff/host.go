package celdiff

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"time"
)

// Host values: Go values a host may put into a dyn fact that are outside
// the runtime's dyn representation (typed slices and maps, named types,
// pointers, structs, json.Number and json.RawMessage of every kind, byte
// slices, times), to compare the runtime's reading of them with the
// reference's (docs/cel-semantics.md, "Host values").

// The named types a host may use.
type (
	// Port is a named int.
	Port int
	// Name is a named string.
	Name string
	// Flag is a named bool.
	Flag bool
	// Ratio is a named float.
	Ratio float32
	// Ports is a named slice.
	Ports []int
	// Labels is a named map.
	Labels map[string]string
	// Key is a named int map key.
	Key int
	// Point is a struct: unsupported.
	Point struct{ X, Y int }
	// Number is a named json.Number: cel-go reads it as a string.
	Number json.Number
)

// String makes Point a fmt.Stringer, so that interface slices can hold it.
func (p Point) String() string { return fmt.Sprint(p.X, p.Y) }

// HostValue is a random Go value of any of the kinds above, nested up to
// depth 2 (elements are host values, dyn values or both).
func HostValue(r *rand.Rand) any { return hostValue(r, 0) }

// HostNumber is a host value that is (or holds) a number near small ints,
// so that comparisons with literals find equal values.
func HostNumber(r *rand.Rand) any {
	n := r.Intn(4)
	switch r.Intn(22) {
	case 0:
		return int8(n)
	case 1:
		return int16(n)
	case 2:
		return uint16(n)
	case 3:
		return Port(n)
	case 4:
		x := n
		return &x
	case 5:
		x := int8(n)
		return &x
	case 6:
		x := float64(n)
		return &x
	case 7:
		x := Port(n)
		return &x
	case 8:
		return json.Number(fmt.Sprint(n))
	case 9:
		return json.Number([]string{"abc", "1e999", "-1e999", "-0", "-0.0", "+1", "0x10", "1_000", "Inf", "NaN", "", " 1", "3.0", "2.5"}[r.Intn(14)])
	case 10:
		return json.RawMessage(fmt.Sprint(n))
	case 11:
		return (*int)(nil)
	case 12:
		return Ratio(float32(n) + 0.5*float32(r.Intn(2)))
	case 13:
		return uintptr(n)
	case 14:
		return complex(float64(n), 0)
	case 15:
		return time.Duration(n)
	case 16:
		d := time.Duration(n)
		return &d
	case 17:
		return Number(fmt.Sprint(n))
	case 18:
		x := &n
		return &x
	case 19:
		return uint(n)
	case 20:
		return float32(n)
	}
	return int32(n)
}

// big40 is 2^40, a variable so that the maps keyed by int that hold it
// compile where int has 32 bits (and hold it truncated there).
var big40 = int64(1) << 40

func hostValue(r *rand.Rand, depth int) any {
	elem := func() any {
		if depth >= 2 || r.Intn(3) == 0 {
			return plainDyn(r, 2)
		}
		return hostValue(r, depth+1)
	}
	n := r.Intn(4)
	switch r.Intn(40) {
	case 0, 1, 2:
		return HostNumber(r)
	case 3:
		return []int{n, 2, 3}[:n]
	case 4:
		return []int8{1, 2, 3}[:n]
	case 5:
		return []int16{1, 2, 3}[:n]
	case 6:
		return []int32{1, 2, 3}[:n]
	case 7:
		return []uint{1, 2, 3}[:n]
	case 8:
		return []uint16{1, 2, 3}[:n]
	case 9:
		return []uint32{1, 2, 3}[:n]
	case 10:
		return []float32{1, 2.5, 3}[:n]
	case 11:
		return []byte("abc")[:n]
	case 12:
		return Ports{1, 2, 3}[:n]
	case 13:
		return [3]int{1, 2, 3}
	case 14:
		return [2]byte{1, 2}
	case 15:
		return [][]string{{"a"}, {}, {"b", "c"}}[:n]
	case 16:
		return [][]int{{1}, {2, 3}}[:min(n, 2)]
	case 17:
		return []map[string]string{{"a": "b"}, {}}[:min(n, 2)]
	case 18:
		one, two := 1, 2
		return []*int{&one, nil, &two}[:n]
	case 19:
		return []any{elem(), elem()}[:min(n, 2)]
	case 20:
		return map[string]int{"a": 1, "b": 2}
	case 21:
		return map[string]any{"a": elem(), "b": elem()}
	case 22:
		return map[string][]int{"a": {1}, "b": nil}
	case 23:
		return map[int]string{1: "a", int(big40): "big", -1: "neg"}
	case 24:
		return map[int8]string{1: "a", 2: "b"}
	case 25:
		return map[Key]string{1: "a", Key(big40): "big"}
	case 26:
		return map[uint]string{1: "a"}
	case 27:
		return map[float32]string{0.5: "h", 1: "one"}
	case 28:
		return map[float64]int{1.5: 1, 2: 2}
	case 29:
		return map[bool]string{true: "t"}
	case 30:
		return map[any]any{"a": 1, int64(2): "two", 3: "three", Name("n"): elem()}
	case 31:
		return Labels{"a": "b"}
	case 32:
		return map[Point]int{{1, 2}: 3}
	case 33:
		return Point{1, 2}
	case 34:
		return &Point{1, 2}
	case 35:
		return []fmt.Stringer{nil, Point{1, 2}, time.Second}[:n]
	case 36:
		return []error{nil}
	case 37:
		return time.Unix(0, 0)
	case 38:
		return json.RawMessage([]string{`{"a": 1, "b": [1, 2]}`, `[1, "a", null]`, `"s"`, `true`, `{`, `1e999`, `null`}[r.Intn(7)])
	}
	return []any{func() {}, make(chan int), Name("a"), Flag(true), &n}[r.Intn(5)]
}

// HostArgs is a tool_args map for the edge cases of
// codegen/internal/edgecases: each key they read holds, at random, a host
// value shaped like what the expressions expect there, a host value of
// any kind, or a plain dyn value.
func HostArgs(r *rand.Rand) map[string]any {
	shaped := map[string]func() any{
		"n":     func() any { return HostNumber(r) },
		"zero":  func() any { return HostNumber(r) },
		"min":   func() any { return HostNumber(r) },
		"d":     func() any { return []any{float32(2.5), json.Number("2.5"), Ratio(2.5), ptr(2.5)}[r.Intn(4)] },
		"whole": func() any { return []any{float32(4), json.Number("4"), Ratio(4), ptr(4.0)}[r.Intn(4)] },
		"big":   func() any { return []any{json.Number("1e19"), json.Number("1e999"), float32(1e19)}[r.Intn(3)] },
		"nan": func() any {
			return []any{float32(math.NaN()), json.Number("NaN"), Ratio(float32(math.NaN()))}[r.Intn(3)]
		},
		"s": func() any {
			return []any{Name("hello"), ptr("hello"), Number("hello"), json.RawMessage(`"hello"`)}[r.Intn(4)]
		},
		"u": func() any { return []any{Name("aéb"), ptr("aéb"), []byte("aéb")}[r.Intn(3)] },
		"b": func() any { return []any{Flag(true), ptr(true), Flag(false)}[r.Intn(3)] },
		"list": func() any {
			return []any{[]int{1, 2, 3}, []int8{1, 2, 3}, [3]int{1, 2, 3}, []float32{1, 2, 3}, []uint{1, 2, 3}, Ports{1, 2, 3},
				json.RawMessage(`[1, 2, 3]`), []*int{ptr(1), ptr(2), ptr(3)}, []any{ptr(1), int8(2), json.Number("3")}}[r.Intn(9)]
		},
		"map": func() any {
			return []any{map[string]int{"a": 1}, map[string]int8{"a": 1}, map[any]any{"a": 1}, Labels{"a": "1"},
				json.RawMessage(`{"a": 1}`), map[string]any{"a": Port(1)}}[r.Intn(6)]
		},
		"mixed": func() any { return []any{[]any{int8(1), Name("a"), (*int)(nil)}, []fmt.Stringer{nil}}[r.Intn(2)] },
		"l":     func() any { return []any{[]any{Name("a"), Flag(true)}, []Flag{true, false}}[r.Intn(2)] },
		"m":     func() any { return []any{map[string]bool{}, Labels{}, map[Key]string{}}[r.Intn(3)] },
		"key":   func() any { return []any{Name("n"), ptr("n"), Key(1)}[r.Intn(3)] },
		"ports": func() any {
			return []any{[]int{22}, []int32{22}, []uint{22}, []float32{22}, [1]int{22}, Ports{22}}[r.Intn(6)]
		},
	}
	args := map[string]any{}
	for k, f := range shaped {
		switch r.Intn(3) {
		case 0:
			args[k] = f()
		case 1:
			args[k] = HostValue(r)
		default:
			args[k] = plainDyn(r, 0)
		}
	}
	return args
}

// plainDyn is a value of the dyn representation (small ints, so that it
// meets the host numbers).
func plainDyn(r *rand.Rand, depth int) any {
	switch r.Intn(9) {
	case 0:
		return nil
	case 1:
		return r.Intn(2) == 0
	case 2:
		return int64(r.Intn(4))
	case 3:
		return float64(r.Intn(4)) / 2
	case 4:
		return []string{"a", "hello", "", "n"}[r.Intn(4)]
	case 5:
		return uint64(r.Intn(3))
	case 6:
		if depth < 2 {
			return []any{plainDyn(r, depth+1), plainDyn(r, depth+1)}[:r.Intn(3)]
		}
	case 7:
		if depth < 2 {
			return map[string]any{"a": plainDyn(r, depth+1)}
		}
	}
	return int64(1)
}

func ptr[T any](v T) *T { return &v }
