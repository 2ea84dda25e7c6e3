package impl

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"time"
)

// Host values outside the dyn representation. Hosts fill dyn facts
// (tool_args and what it holds, span facts) with whatever Go values they
// have. The runtime reads each one the way cel-go's adapter
// (types.Registry.NativeToValue and its reflection-based lists and maps)
// reads it, at the moment it is read: selected, indexed, bound to a
// comprehension variable, or reached by a walk (==, in). A value cel-go
// reads as null, bool, int, uint, double, string, list or map is read the
// same here:
//
//   - every Go bool, integer, float and string kind, named types included
//     (type Port int), and non-nil pointers to them (*int, *Port; a
//     *json.Number is the string it holds, as in cel-go), cel-go's own
//     null, bool, int, uint, double and string and non-nil pointers to
//     all but its null; protobuf's NullValue, and a pointer to one (nil
//     included), as null;
//   - a json.Number as the number it spells, a json.RawMessage as the JSON
//     it holds;
//   - slices and arrays (of any element type but byte) as lists, a nil
//     interface element as null, and, in a slice of pointers (not an
//     array), a nil element as null;
//   - maps whose key type is a string, bool, integer, float or interface
//     type, looked up as cel-go looks them up (see [hostMap]).
//
// Any other value is unsupported, and reading it is [Unsupported] (an
// invalid_argument error, so that the rule's on_error applies), never a
// zero or false: values cel-go cannot convert (structs, functions,
// channels, complex numbers, uintptrs, nil pointers, pointers to pointers,
// lists, maps or structs, a json.Number that spells no number in range,
// invalid JSON in a json.RawMessage, maps with other key types), and
// values it converts to types the code generator does not support ([]byte
// and byte arrays are bytes, time.Time a timestamp, time.Duration a
// duration). docs/cel-semantics.md lists the choices.
//
// [Read] is where a value is read: it returns the value as the helpers
// take it (itself when it is in the representation, else a copy: a []any
// of a host list's elements, a *hostMap of a host map's entries, the
// canonical scalar of a named type) or the error. It is the only function
// that reflects over host lists and maps, because reflection that makes
// values of their elements lets its argument escape: the helpers call it
// only on elements they took out of a container (and generated code on
// values it took out of one), never on their own operands, which must
// stay on the caller's stack. A helper given a host list or map that was
// not read reports it as unsupported rather than misread it.

// Unsupported is the error of reading a host value the runtime cannot
// represent: kind invalid_argument, "unsupported value of Go type T".
func Unsupported(v any) Err {
	return Err{Kind: ErrInvalidArgument, S: "unsupported value of Go type " + goType(v)}
}

func goType(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// Read is v read as a dyn value where it is taken out of a container that
// may hold host values (a map, a list, a comprehension's range): v itself
// when it is in the dyn representation, else the value it reads as
// (allocating), or [Unsupported].
func Read(v any) (any, Err) {
	switch x := v.(type) {
	case string, int64, float64, bool, nil, []any, map[string]any, uint64, *AnyMap, Type, *hostMap,
		int, int32, int16, int8, uint, uint32, uint16, uint8, float32,
		[]string, []int64, []uint64, []float64, []bool, []map[string]any, map[string]string,
		[]int, []int32, []uint, []uint32, []float32:
		return v, Err{}
	case json.Number:
		if numberScalar(x).k == kUnsupported {
			return nil, Unsupported(v)
		}
		return v, Err{}
	case json.RawMessage:
		d, ok := rawJSON(x)
		if !ok {
			return nil, Unsupported(v)
		}
		return d, Err{}
	}
	switch s := hostScalar(v); s.k {
	case kNull:
		return nil, Err{}
	case kBool:
		return s.b, Err{}
	case kInt:
		return s.i, Err{}
	case kUint:
		return s.u, Err{}
	case kDouble:
		return s.f, Err{}
	case kString:
		return s.s, Err{}
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		// cel-go reads a byte slice or array as bytes.
		if rv.Type().Elem() != byteType {
			return hostList(rv), Err{}
		}
	case reflect.Map:
		if keyKindOK(rv.Type().Key().Kind()) {
			return newHostMap(rv), Err{}
		}
	}
	return nil, Unsupported(v)
}

// readElem is Read for an element a helper took out of a container.
func readElem(v any) (any, Err) { return Read(v) }

// operandErr is [Unsupported] for an operand that is not a dyn value (an
// unsupported value, or a host list or map that was not read), found
// without reflecting over it.
func operandErr(v any) Err {
	if kindOf(v) == kUnsupported {
		return Unsupported(v)
	}
	return Err{}
}

// celTypes is the package of cel-go's values, named here without linking
// cel-go: a host may hand over values it took from a CEL evaluation.
const celTypes = "cel.dev/cel-go/common/types"

// pbStruct is the package of protobuf's JSON values, whose NullValue
// cel-go reads as null.
const pbStruct = "google.golang.org/protobuf/types/known/structpb"

func isPBNull(t reflect.Type) bool { return t.PkgPath() == pbStruct && t.Name() == "NullValue" }

var (
	byteType  = reflect.TypeFor[byte]()
	mapIntStr = reflect.TypeFor[map[int]string]()
)

// hostScalar reads a scalar outside the fast cases of [scalarOf] (a named
// type, a pointer) by its kind, without making a value of it; anything
// else, host lists and maps that were not [Read] included, is unsupported.
func hostScalar(v any) scalar {
	switch v.(type) {
	case json.RawMessage, time.Duration, time.Time:
		return scalar{k: kUnsupported}
	}
	rv := reflect.ValueOf(v)
	t := rv.Type()
	switch {
	case t.PkgPath() == celTypes && t.Name() == "Null":
		// cel-go's own values, which its adapter takes as they are: its
		// null is null, not the int32 it is in Go; the others read by
		// their kind (its bytes, timestamps and durations are not
		// scalars).
		return scalar{k: kNull}
	case isPBNull(t), rv.Kind() == reflect.Pointer && isPBNull(t.Elem()):
		// protobuf's NullValue, an int32 enum, and a pointer to one (nil
		// included) are null in cel-go's adapter.
		return scalar{k: kNull}
	}
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return scalar{k: kUnsupported}
		}
		if e := t.Elem(); e.PkgPath() == celTypes {
			// cel-go's adapter reads a pointer to its bool, int, uint,
			// double or string as the value; a pointer to its other
			// values is one of its values (their methods are the
			// value's) that is none of its types.
			switch e.Name() {
			case "Bool", "Int", "Uint", "Double", "String":
			default:
				return scalar{k: kUnsupported}
			}
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Bool:
		return scalar{k: kBool, b: rv.Bool()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return scalar{k: kInt, i: rv.Int()}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return scalar{k: kUint, u: rv.Uint()}
	case reflect.Float32, reflect.Float64:
		return scalar{k: kDouble, f: rv.Float()}
	case reflect.String:
		return scalar{k: kString, s: rv.String()}
	}
	return scalar{k: kUnsupported}
}

// rawJSON decodes a json.RawMessage as cel-go does (encoding/json into an
// any: numbers are float64).
func rawJSON(m json.RawMessage) (any, bool) {
	var d any
	if json.Unmarshal(m, &d) != nil {
		return nil, false
	}
	return d, true
}

// keyKindOK reports whether maps with keys of kind k are supported.
func keyKindOK(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Interface, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// hostList is the []any of a host slice or array's elements, each to be
// read where it is read. cel-go reads the nil element of a slice of
// pointers as null (and fails on the nil element of an array of pointers).
func hostList(rv reflect.Value) []any {
	nilNull := rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Pointer
	out := make([]any, rv.Len())
	for i := range out {
		e := rv.Index(i)
		if nilNull && e.IsNil() {
			continue
		}
		out[i] = e.Interface()
	}
	return out
}

// hostMap is a Go map outside the dyn representation (map[string]int,
// map[int]string, named map types, map[any]any...), its entries copied
// when it is read, in Go's map order. cel-go looks a key up by converting
// it to the map's key type (ConvertToNative), then tries a numerically
// equal key of another type: a double holding an exact integer as an int,
// then as a uint; an int >= 0 as a uint; a uint <= 2^63-1 as an int. Its
// conversions have quirks the lookup keeps: to an int or int32 key type
// (named types included) an int must fit in 32 bits, and a uint to a uint
// or uint32 key type in 32 bits (except for map[int]string, which cel-go
// reads without reflection); a double to a float32 key is rounded to
// float32; to an interface key type a key is int64, uint64, float64,
// string or bool, so that a map[any]any key 1 (an int) is never found. A
// key the conversion rejects is not found; null and type keys are never
// found, and a list or map key on an interface-keyed map is an error
// (cel-go cannot hash it). On such maps has() reads the value, as cel-go
// does on every Go map but map[string]any.
type hostMap struct {
	kt   reflect.Type // the key type
	wide bool         // map[int]string: int keys convert without the 32-bit check
	ents []hostEntry
}

// hostEntry is an entry of a host map: the key read as a dyn value (a
// normalised scalar, or the Go value of a key that is no scalar), the key
// found under (its Go value made canonical: for an interface key type,
// only keys of types int64, uint64, float64, string and bool can be
// found), and the value to be read where it is read.
type hostEntry struct {
	k    any
	at   mapKey
	find bool   // a lookup can find the entry
	typ  string // the Go type of the key, to order entries
	v    any
}

func newHostMap(rv reflect.Value) *hostMap {
	h := &hostMap{kt: rv.Type().Key(), wide: rv.Type() == mapIntStr, ents: make([]hostEntry, 0, rv.Len())}
	iface := h.kt.Kind() == reflect.Interface
	it := rv.MapRange()
	for it.Next() {
		k := it.Key().Interface()
		e := hostEntry{k: k, typ: goType(k), v: it.Value().Interface()}
		s := scalarOf(k)
		switch s.k {
		case kBool, kInt, kUint, kDouble, kString:
			e.k = scalarValue(s)
			e.at, _ = keyOfScalar(s)
			e.find = true
			if iface {
				switch k.(type) {
				case int64, uint64, float64, string, bool:
				default:
					e.find = false
				}
			}
		}
		h.ents = append(h.ents, e)
	}
	// Go's map order is random; the entries are sorted, so that an
	// evaluation (a comprehension over the map, the first error an
	// equality meets) is the same every time. cel-go's order is Go's.
	sort.SliceStable(h.ents, func(i, j int) bool { return keyLess(h.ents[i], h.ents[j]) })
	return h
}

// keyLess orders entries: scalar keys by kind and value (NaNs last among
// doubles), then by Go type; the other keys by Go type. Keys of one Go type
// that are no scalars (only interface-keyed maps have them) keep Go's
// order, which cannot matter: reading one is an error.
func keyLess(a, b hostEntry) bool {
	if a.at.k != b.at.k {
		return a.at.k < b.at.k
	}
	if a.at != b.at {
		switch a.at.k {
		case kBool, kUint:
			return a.at.n < b.at.n
		case kInt:
			return int64(a.at.n) < int64(b.at.n)
		case kDouble:
			return a.at.f < b.at.f || (a.at.f == a.at.f && b.at.f != b.at.f)
		case kString:
			return a.at.s < b.at.s
		}
	}
	return a.typ < b.typ
}

// scalarValue is the canonical value of a scalar.
func scalarValue(s scalar) any {
	switch s.k {
	case kBool:
		return s.b
	case kInt:
		return s.i
	case kUint:
		return s.u
	case kDouble:
		return s.f
	case kString:
		return s.s
	}
	return nil
}

// Len is the number of entries.
func (h *hostMap) Len() int { return len(h.ents) }

// find is cel-go's Find for key k (a normalised scalar; list and map keys
// have kind kList or kMap).
func (h *hostMap) find(k scalar) (any, bool, Err) {
	if len(h.ents) == 0 {
		return nil, false, Err{}
	}
	if (k.k == kList || k.k == kMap) && h.kt.Kind() == reflect.Interface {
		return nil, false, InvalidArgument("a list or map cannot be a key of a Go map with interface keys")
	}
	if v, ok := h.findExact(k); ok {
		return v, true, Err{}
	}
	switch k.k {
	case kDouble:
		if i, ok := doubleToInt64Lossless(k.f); ok {
			if v, ok := h.findExact(scalar{k: kInt, i: i}); ok {
				return v, true, Err{}
			}
		}
		if u, ok := doubleToUint64Lossless(k.f); ok {
			v, ok := h.findExact(scalar{k: kUint, u: u})
			return v, ok, Err{}
		}
	case kInt:
		if k.i >= 0 {
			v, ok := h.findExact(scalar{k: kUint, u: uint64(k.i)})
			return v, ok, Err{}
		}
	case kUint:
		if k.u <= math.MaxInt64 {
			v, ok := h.findExact(scalar{k: kInt, i: int64(k.u)})
			return v, ok, Err{}
		}
	}
	return nil, false, Err{}
}

func (h *hostMap) findExact(k scalar) (any, bool) {
	c, ok := h.convert(k)
	if !ok {
		return nil, false
	}
	at, _ := keyOfScalar(c)
	for i := range h.ents {
		if h.ents[i].find && h.ents[i].at == at {
			return h.ents[i].v, true
		}
	}
	return nil, false
}

// convert is cel-go's ConvertToNative of a key to the key type, as the
// canonical scalar of the converted key.
func (h *hostMap) convert(k scalar) (scalar, bool) {
	kind := h.kt.Kind()
	if kind == reflect.Interface {
		// Converted to its own Go type; the entry must have exactly that
		// type (see newHostMap). Only the empty interface holds them all.
		ok := h.kt.NumMethod() == 0 && (k.k == kInt || k.k == kUint || k.k == kDouble || k.k == kString || k.k == kBool)
		return k, ok
	}
	switch k.k {
	case kInt:
		switch kind {
		case reflect.Int, reflect.Int32:
			return k, (kind == reflect.Int && h.wide) || (k.i >= math.MinInt32 && k.i <= math.MaxInt32)
		case reflect.Int8:
			return k, k.i >= math.MinInt8 && k.i <= math.MaxInt8
		case reflect.Int16:
			return k, k.i >= math.MinInt16 && k.i <= math.MaxInt16
		case reflect.Int64:
			return k, true
		}
	case kUint:
		switch kind {
		case reflect.Uint, reflect.Uint32:
			return k, k.u <= math.MaxUint32
		case reflect.Uint8:
			return k, k.u <= math.MaxUint8
		case reflect.Uint16:
			return k, k.u <= math.MaxUint16
		case reflect.Uint64:
			return k, true
		}
	case kDouble:
		switch kind {
		case reflect.Float32:
			return scalar{k: kDouble, f: float64(float32(k.f))}, true
		case reflect.Float64:
			return k, true
		}
	case kString:
		return k, kind == reflect.String
	case kBool:
		return k, kind == reflect.Bool
	}
	return scalar{}, false
}

// each calls f for every entry until f returns false.
func (h *hostMap) each(f func(k, v any) bool) {
	for i := range h.ents {
		if !f(h.ents[i].k, h.ents[i].v) {
			return
		}
	}
}

// stringKeyed reports whether every key reads as a string (true when
// empty).
func (h *hostMap) stringKeyed() bool {
	for i := range h.ents {
		if _, ok := h.ents[i].k.(string); !ok {
			return false
		}
	}
	return true
}
