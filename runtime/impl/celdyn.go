package impl

import (
	"encoding/json"
	"math"
	"strconv"
)

// Dyn values. A CEL value of static type dyn is a Go `any` holding one of
// nil (null), bool, int64, uint64, float64, string, []any, map[string]any,
// *AnyMap (a map with keys other than strings) or Type. On read, the host
// conveniences are normalised the way cel-go's native type adapter does:
// int, int8, int16, int32 are int; uint, uint8, uint16, uint32 are uint;
// float32 is double; a json.Number is an int when strconv.ParseInt accepts
// it, else a double when strconv.ParseFloat does, as cel-go reads it (one
// that is neither, such as "abc" or "1e999", is unsupported, as cel-go
// cannot convert it either); []string, []int64, []uint64, []float64, []bool,
// []map[string]any are lists; map[string]string is a map. Any other Go type
// is unsupported: every operation on it is ErrNoSuchOverload, Equal is
// false.

// dkind is the CEL type of a dyn value.
type dkind uint8

const (
	kUnsupported dkind = iota
	kNull
	kBool
	kInt
	kUint
	kDouble
	kString
	kList
	kMap
)

// scalar is a normalised scalar dyn value.
type scalar struct {
	k dkind
	b bool
	i int64
	u uint64
	f float64
	s string
}

// scalarOf normalises v; lists and maps are reported by kind only.
func scalarOf(v any) scalar {
	switch x := v.(type) {
	case nil:
		return scalar{k: kNull}
	case bool:
		return scalar{k: kBool, b: x}
	case int64:
		return scalar{k: kInt, i: x}
	case int:
		return scalar{k: kInt, i: int64(x)}
	case int32:
		return scalar{k: kInt, i: int64(x)}
	case int16:
		return scalar{k: kInt, i: int64(x)}
	case int8:
		return scalar{k: kInt, i: int64(x)}
	case uint64:
		return scalar{k: kUint, u: x}
	case uint:
		return scalar{k: kUint, u: uint64(x)}
	case uint32:
		return scalar{k: kUint, u: uint64(x)}
	case uint16:
		return scalar{k: kUint, u: uint64(x)}
	case uint8:
		return scalar{k: kUint, u: uint64(x)}
	case float64:
		return scalar{k: kDouble, f: x}
	case float32:
		return scalar{k: kDouble, f: float64(x)}
	case string:
		return scalar{k: kString, s: x}
	case []any, []string, []int64, []uint64, []float64, []bool, []map[string]any:
		return scalar{k: kList}
	case map[string]any, map[string]string, *AnyMap:
		return scalar{k: kMap}
	case json.Number:
		return numberScalar(x)
	}
	return scalar{k: kUnsupported}
}

// numberScalar reads a json.Number as cel-go's adapter does: Int64, else
// Float64, else unsupported.
func numberScalar(n json.Number) scalar {
	s := string(n)
	if integral(s) {
		if i, ok := parseInt(s); ok {
			return scalar{k: kInt, i: i}
		}
	}
	if f, ok := parseFloat(s); ok {
		return scalar{k: kDouble, f: f}
	}
	return scalar{k: kUnsupported}
}

// integral reports whether s is an optional sign and decimal digits, the
// only strings strconv.ParseInt(s, 10, 64) can accept; checking first
// spares the allocation of its error for "1.5".
func integral(s string) bool {
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func kindOf(v any) dkind { return scalarOf(v).k }

// typeName is cel-go's name of the type of a value of kind k.
func (k dkind) typeName() string {
	switch k {
	case kNull:
		return "null_type"
	case kBool:
		return "bool"
	case kInt:
		return "int"
	case kUint:
		return "uint"
	case kDouble:
		return "double"
	case kString:
		return "string"
	case kList:
		return "list"
	case kMap:
		return "map"
	}
	return "unsupported"
}

// Normalize returns v in canonical representation (int64, uint64, float64,
// []any, map[string]any...). It allocates only for the host conveniences.
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, uint64, float64, string:
		return v
	case []any:
		return x
	case map[string]any:
		return x
	case int, int32, int16, int8, uint, uint32, uint16, uint8, float32, json.Number:
		s := scalarOf(v)
		switch s.k {
		case kInt:
			return s.i
		case kUint:
			return s.u
		case kDouble:
			return s.f
		}
		return v
	case []string, []int64, []uint64, []float64, []bool, []map[string]any:
		l := listOf(v)
		out := make([]any, l.n)
		for i := range out {
			out[i] = l.At(i)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out
	}
	return v
}

// AsBool narrows a dyn to bool; other types are ErrNoSuchOverload.
func AsBool(v any) (bool, Err) {
	if b, ok := v.(bool); ok {
		return b, Err{}
	}
	return false, NoSuchOverload("")
}

// AsInt narrows a dyn to int (accepting the Go int kinds); uint and double
// are not ints in CEL and are ErrNoSuchOverload.
func AsInt(v any) (int64, Err) {
	if i, ok := v.(int64); ok {
		return i, Err{}
	}
	s := scalarOf(v)
	if s.k == kInt {
		return s.i, Err{}
	}
	return 0, NoSuchOverload("")
}

// AsUint narrows a dyn to uint.
func AsUint(v any) (uint64, Err) {
	s := scalarOf(v)
	if s.k == kUint {
		return s.u, Err{}
	}
	return 0, NoSuchOverload("")
}

// AsDouble narrows a dyn to double (float64, float32, or a json.Number
// that is not an int); ints are not doubles in CEL.
func AsDouble(v any) (float64, Err) {
	switch x := v.(type) {
	case float64:
		return x, Err{}
	case float32:
		return float64(x), Err{}
	case json.Number:
		if s := numberScalar(x); s.k == kDouble {
			return s.f, Err{}
		}
	}
	return 0, NoSuchOverload("")
}

// AsString narrows a dyn to string.
func AsString(v any) (string, Err) {
	if s, ok := v.(string); ok {
		return s, Err{}
	}
	return "", NoSuchOverload("")
}

// AsMap narrows a dyn to map(string, dyn). A map[string]string, or an
// *AnyMap whose keys are all strings, is copied into a new map[string]any
// (allocation; use AsDynMap to avoid it). An *AnyMap with other keys is
// ErrNoSuchOverload.
func AsMap(v any) (map[string]any, Err) {
	switch x := v.(type) {
	case map[string]any:
		return x, Err{}
	case map[string]string:
		return Normalize(x).(map[string]any), Err{}
	case *AnyMap:
		if x.stringKeyed() {
			out := make(map[string]any, x.Len())
			for i := 0; i < x.Len(); i++ {
				out[x.ents[i].k.(string)] = x.ents[i].v
			}
			return out, Err{}
		}
	}
	return nil, NoSuchOverload("")
}

// Map is a read-only view of a dyn map with string keys (map[string]any,
// map[string]string, or an *AnyMap whose keys are all strings) that never
// allocates.
type Map struct {
	a map[string]any
	s map[string]string
	x *AnyMap // any keys inside the runtime; only string keys from AsDynMap
}

// AsDynMap narrows a dyn to a Map view. An *AnyMap with a key that is not a
// string is ErrNoSuchOverload: the view's keys are strings (comprehensions
// over any map use RangeDyn).
func AsDynMap(v any) (Map, Err) {
	switch x := v.(type) {
	case map[string]any:
		return Map{a: x}, Err{}
	case map[string]string:
		return Map{s: x}, Err{}
	case *AnyMap:
		if x.stringKeyed() {
			return Map{x: x}, Err{}
		}
	}
	return Map{}, NoSuchOverload("")
}

// Len is the number of entries.
func (m Map) Len() int {
	if m.x != nil {
		return m.x.Len()
	}
	if m.s != nil {
		return len(m.s)
	}
	return len(m.a)
}

// Get looks k up.
func (m Map) Get(k string) (any, bool) {
	if m.x != nil {
		return m.x.getString(k)
	}
	if m.s != nil {
		v, ok := m.s[k]
		if !ok {
			return nil, false
		}
		return v, true
	}
	v, ok := m.a[k]
	return v, ok
}

// Range calls f for each entry until f returns false (Go map order; an
// *AnyMap's in literal order). Only string keys are visited.
func (m Map) Range(f func(k string, v any) bool) {
	if m.x != nil {
		for i := range m.x.ents {
			if k, ok := m.x.ents[i].k.(string); ok && !f(k, m.x.ents[i].v) {
				return
			}
		}
		return
	}
	if m.s != nil {
		for k, v := range m.s {
			if !f(k, v) {
				return
			}
		}
		return
	}
	for k, v := range m.a {
		if !f(k, v) {
			return
		}
	}
}

// List is a read-only view of a dyn list of any supported backing slice.
// At on a []any backing never allocates; on typed backings it boxes.
type List struct {
	v any
	n int
}

func listOf(v any) List {
	switch x := v.(type) {
	case []any:
		return List{v: v, n: len(x)}
	case []string:
		return List{v: v, n: len(x)}
	case []int64:
		return List{v: v, n: len(x)}
	case []uint64:
		return List{v: v, n: len(x)}
	case []float64:
		return List{v: v, n: len(x)}
	case []bool:
		return List{v: v, n: len(x)}
	case []map[string]any:
		return List{v: v, n: len(x)}
	}
	return List{}
}

// AsList narrows a dyn to a List view.
func AsList(v any) (List, Err) {
	if kindOf(v) != kList {
		return List{}, NoSuchOverload("")
	}
	return listOf(v), Err{}
}

// Len is the number of elements.
func (l List) Len() int { return l.n }

// At is element i (0 <= i < Len()); out of range gives nil.
func (l List) At(i int) any {
	if i < 0 || i >= l.n {
		return nil
	}
	switch x := l.v.(type) {
	case []any:
		return x[i]
	case []string:
		return x[i]
	case []int64:
		return x[i]
	case []uint64:
		return x[i]
	case []float64:
		return x[i]
	case []bool:
		return x[i]
	case []map[string]any:
		return x[i]
	case anyMapKeys:
		return x.m.ents[i].k
	}
	return nil
}

// AsStrings narrows a dyn to list(string). A []string is returned as is;
// a []any is copied and every element must be a string (else
// ErrNoSuchOverload). Use it only where cel-go reads every element as a
// string; otherwise use AsList and AsString per element.
func AsStrings(v any) ([]string, Err) {
	switch x := v.(type) {
	case []string:
		return x, Err{}
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, NoSuchOverload("")
			}
			out[i] = s
		}
		return out, Err{}
	}
	return nil, NoSuchOverload("")
}

// doubleToInt64Lossless mirrors cel-go: d must convert to int64 and back.
func doubleToInt64Lossless(d float64) (int64, bool) {
	if math.IsInf(d, 0) || math.IsNaN(d) || d <= float64(math.MinInt64) || d >= float64(math.MaxInt64) {
		return 0, false
	}
	i := int64(d)
	if float64(i) != d {
		return 0, false
	}
	return i, true
}

func parseInt(s string) (int64, bool) {
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

func parseFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
