package impl

import (
	"encoding/json"
	"math"
	"strconv"
)

// Dyn values. A CEL value of static type dyn is a Go `any` holding one of
// nil (null), bool, int64, uint64, float64, string, []any, map[string]any,
// *AnyMap (a map with keys other than strings) or Type. Host values are
// read as cel-go's native type adapter reads them: the other Go int, uint
// and float kinds are int, uint and double; a json.Number is an int when
// strconv.ParseInt accepts it, else a double when strconv.ParseFloat does,
// as cel-go reads it; []string, []int64, []uint64, []float64, []bool,
// []map[string]any and the like are lists, map[string]string is a map; and
// every other Go value as celhost.go says (named types, pointers, other
// slices and maps by reflection). A value cel-go cannot read, or reads as
// a type the generator does not support (bytes, timestamps), is
// unsupported: reading it is [Unsupported].

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
	kType // a Type value
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
	case []any, []string, []int64, []uint64, []float64, []bool, []map[string]any,
		[]int, []int32, []uint, []uint32, []float32:
		return scalar{k: kList}
	case map[string]any, map[string]string, *AnyMap, *hostMap:
		return scalar{k: kMap}
	case json.Number:
		return numberScalar(x)
	case Type:
		return scalar{k: kType, s: string(x)}
	}
	return hostScalar(v)
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
	case kType:
		return "type"
	}
	return "unsupported"
}

// Normalize returns v in canonical representation (int64, uint64, float64,
// []any, map[string]any...), one level deep. It allocates only for host
// conveniences; host values are made canonical by [Read], and a read host
// map with keys that are not all strings stays as it is, as does an
// unsupported value.
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, uint64, float64, string, Type, *AnyMap:
		return v
	case []any:
		return x
	case map[string]any:
		return x
	}
	switch s := scalarOf(v); s.k {
	case kNull:
		return nil
	case kBool, kInt, kUint, kDouble, kString:
		return scalarValue(s)
	case kList:
		l := listOf(v)
		out := make([]any, l.n)
		for i := range out {
			out[i] = l.At(i)
		}
		return out
	case kMap:
		if m, _ := mapView(v); m.stringKeyed() {
			out := make(map[string]any, m.Len())
			m.each(func(k, e any) bool {
				out[k.(string)] = e
				return true
			})
			return out
		}
	}
	return v
}

// AsBool narrows a dyn to bool; other types are ErrNoSuchOverload, an
// unsupported value [Unsupported].
func AsBool(v any) (bool, Err) {
	if b, ok := v.(bool); ok {
		return b, Err{}
	}
	s := scalarOf(v)
	switch s.k {
	case kBool:
		return s.b, Err{}
	case kUnsupported:
		return false, Unsupported(v)
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
	switch s.k {
	case kInt:
		return s.i, Err{}
	case kUnsupported:
		return 0, Unsupported(v)
	}
	return 0, NoSuchOverload("")
}

// AsUint narrows a dyn to uint.
func AsUint(v any) (uint64, Err) {
	s := scalarOf(v)
	switch s.k {
	case kUint:
		return s.u, Err{}
	case kUnsupported:
		return 0, Unsupported(v)
	}
	return 0, NoSuchOverload("")
}

// AsDouble narrows a dyn to double (float64, float32, or a json.Number
// that is not an int); ints are not doubles in CEL.
func AsDouble(v any) (float64, Err) {
	if f, ok := v.(float64); ok {
		return f, Err{}
	}
	s := scalarOf(v)
	switch s.k {
	case kDouble:
		return s.f, Err{}
	case kUnsupported:
		return 0, Unsupported(v)
	}
	return 0, NoSuchOverload("")
}

// AsString narrows a dyn to string.
func AsString(v any) (string, Err) {
	if s, ok := v.(string); ok {
		return s, Err{}
	}
	s := scalarOf(v)
	switch s.k {
	case kString:
		return s.s, Err{}
	case kUnsupported:
		return "", Unsupported(v)
	}
	return "", NoSuchOverload("")
}

// AsMap narrows a dyn to map(string, dyn). A host map of another type,
// or an *AnyMap, whose keys are all strings is copied into a new
// map[string]any (allocation; use AsDynMap to avoid it). A map with
// other keys is ErrNoSuchOverload.
func AsMap(v any) (map[string]any, Err) {
	if x, ok := v.(map[string]any); ok {
		return x, Err{}
	}
	m, e := AsDynMap(v)
	if !e.Ok() {
		return nil, e
	}
	out := make(map[string]any, m.Len())
	m.Range(func(k string, e any) bool {
		out[k] = e
		return true
	})
	return out, Err{}
}

// Map is a read-only view of a dyn map with string keys (map[string]any,
// map[string]string, an *AnyMap whose keys are all strings, or another Go
// map read by reflection) that never allocates for the first three.
type Map struct {
	a map[string]any
	s map[string]string
	x *AnyMap  // any keys inside the runtime; only string keys from AsDynMap
	h *hostMap // another Go map, read; only string keys from AsDynMap
}

// AsDynMap narrows a dyn to a Map view. A map with a key that is not a
// string is ErrNoSuchOverload: the view's keys are strings (comprehensions
// over any map use RangeDyn).
func AsDynMap(v any) (Map, Err) {
	switch x := v.(type) {
	case map[string]any:
		return Map{a: x}, Err{}
	case map[string]string:
		return Map{s: x}, Err{}
	}
	m, ok := mapView(v)
	switch {
	case ok && m.stringKeyed():
		return m, Err{}
	case !ok && kindOf(v) == kUnsupported:
		return Map{}, Unsupported(v)
	}
	return Map{}, NoSuchOverload("")
}

// Len is the number of entries.
func (m Map) Len() int {
	switch {
	case m.x != nil:
		return m.x.Len()
	case m.h != nil:
		return m.h.Len()
	case m.s != nil:
		return len(m.s)
	}
	return len(m.a)
}

// Get looks k up.
func (m Map) Get(k string) (any, bool) {
	switch {
	case m.x != nil:
		return m.x.getString(k)
	case m.h != nil:
		v, ok, _ := m.h.find(scalar{k: kString, s: k})
		return v, ok
	case m.s != nil:
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
	m.each(func(k, v any) bool {
		if s, ok := k.(string); ok {
			return f(s, v)
		}
		return true
	})
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
	case []int:
		return List{v: v, n: len(x)}
	case []int32:
		return List{v: v, n: len(x)}
	case []uint:
		return List{v: v, n: len(x)}
	case []uint32:
		return List{v: v, n: len(x)}
	case []float32:
		return List{v: v, n: len(x)}
	}
	return List{}
}

// AsList narrows a dyn to a List view.
func AsList(v any) (List, Err) {
	switch kindOf(v) {
	case kList:
		return listOf(v), Err{}
	case kUnsupported:
		return List{}, Unsupported(v)
	}
	return List{}, NoSuchOverload("")
}

// Len is the number of elements.
func (l List) Len() int { return l.n }

// At is element i (0 <= i < Len()); out of range gives nil. The element is
// the Go value the list holds: where it may be a host value, [Read] it
// before using it.
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
	case []int:
		return x[i]
	case []int32:
		return x[i]
	case []uint:
		return x[i]
	case []uint32:
		return x[i]
	case []float32:
		return x[i]
	case anyMapKeys:
		return x.m.ents[i].k
	}
	return nil
}

// AsStrings narrows a dyn to list(string). A []string is returned as is;
// any other list is copied and every element must be a string (else
// ErrNoSuchOverload, or [Unsupported] for an unsupported element). Use it
// only where cel-go reads every element as a string; otherwise use AsList
// and AsString per element.
func AsStrings(v any) ([]string, Err) {
	if x, ok := v.([]string); ok {
		return x, Err{}
	}
	l, e := AsList(v)
	if !e.Ok() {
		return nil, e
	}
	out := make([]string, l.n)
	for i := range out {
		x, e := readElem(l.At(i))
		if !e.Ok() {
			return nil, e
		}
		s, e := AsString(x)
		if !e.Ok() {
			return nil, e
		}
		out[i] = s
	}
	return out, Err{}
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
