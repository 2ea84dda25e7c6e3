package impl

import (
	"strconv"
	"unicode/utf8"
)

// Containers: indexing, field selection, has(), in, size.

// formatKey renders a key as cel-go's "%v" does in "no such key: %v".
func formatKey(s scalar) string {
	switch s.k {
	case kString:
		return s.s
	case kInt:
		return itoa(s.i)
	case kUint:
		return strconv.FormatUint(s.u, 10)
	case kDouble:
		return strconv.FormatFloat(s.f, 'g', -1, 64)
	case kBool:
		return strconv.FormatBool(s.b)
	case kNull:
		return "NULL_VALUE"
	}
	return "?"
}

// listIndex is cel-go's GetOrError: the int index a key denotes in a list.
func listIndex(k scalar) (int64, Err) {
	switch k.k {
	case kInt:
		return k.i, Err{}
	case kDouble:
		if i, ok := doubleToInt64Lossless(k.f); ok {
			return i, Err{}
		}
		return 0, InvalidArgument("unsupported index value " + formatKey(k) + " in list")
	case kUint:
		if k.u <= 1<<63-1 {
			return int64(k.u), Err{}
		}
		return 0, InvalidArgument("unsupported index value " + formatKey(k) + " in list")
	}
	return 0, InvalidArgument("unsupported index type '" + k.k.typeName() + "' in list")
}

// IndexDyn is container[key] on dyn operands, as cel-go evaluates it: a
// map looks the key up (absent: ErrNoSuchKey; an *AnyMap with cel-go's
// numeric key lookup, so {1: 2}[1.0] and {1: 2}[1u] find 1; another host
// map as [hostMap] says); a list takes an int, or a uint or double holding
// an exact integer (else ErrInvalidArgument "unsupported index ..."), out
// of range is ErrIndexOutOfRange; indexing anything else (null, string,
// numbers) is ErrNoSuchKey, as in cel-go. A key that is not a string,
// int, uint, double or bool (null, list, map) is ErrInvalidArgument
// ("invalid qualifier type"), whatever the container, as is an
// unsupported key (cel-go checks the key first, and reports an error value
// as a key of type *types.Err). An unsupported container, or element read,
// is [Unsupported].
func IndexDyn(container any, key any) (any, Err) { return indexDyn(container, key, true) }

// IndexDynRaw is IndexDyn but for the element found, which it returns as
// the host gave it, unread: generated code reads it (Read) where cel-go
// converts it (see codegen's keyFirst).
func IndexDynRaw(container any, key any) (any, Err) { return indexDyn(container, key, false) }

func indexDyn(container any, key any, read bool) (any, Err) {
	switch key.(type) {
	case string, int64:
	default:
		switch k := kindOf(key); k {
		case kString, kInt, kUint, kDouble, kBool:
		default:
			return nil, InvalidArgument("invalid qualifier type: " + k.typeName())
		}
	}
	switch c := container.(type) {
	case map[string]any:
		if k, ok := key.(string); ok {
			if v, ok := c[k]; ok {
				return elem(read, v)
			}
			return nil, NoSuchKey(k)
		}
		if s := scalarOf(key); s.k == kString {
			if v, ok := c[s.s]; ok {
				return elem(read, v)
			}
		}
		return nil, Err{Kind: ErrNoSuchKey, S: formatKey(scalarOf(key))}
	case *AnyMap:
		if v, ok := c.Get(key); ok {
			return v, Err{}
		}
		return nil, Err{Kind: ErrNoSuchKey, S: formatKey(scalarOf(key))}
	case []any:
		var i int64
		if x, ok := key.(int64); ok {
			i = x
		} else {
			k := scalarOf(key)
			var e Err
			if i, e = listIndex(k); !e.Ok() {
				return nil, e
			}
			if i < 0 || i >= int64(len(c)) {
				return nil, Err{Kind: ErrIndexOutOfRange, S: formatKey(k), N: i}
			}
		}
		if i < 0 || i >= int64(len(c)) {
			return nil, IndexOutOfRange(i)
		}
		return elem(read, c[i])
	}
	switch kindOf(container) {
	case kMap:
		m, _ := mapView(container)
		v, ok, e := m.find(key)
		switch {
		case !e.Ok():
			return nil, e
		case ok:
			return elem(read, v)
		}
		return nil, Err{Kind: ErrNoSuchKey, S: formatKey(scalarOf(key))}
	case kList:
		l := listOf(container)
		k := scalarOf(key)
		i, e := listIndex(k)
		if !e.Ok() {
			return nil, e
		}
		if i < 0 || i >= int64(l.n) {
			return nil, Err{Kind: ErrIndexOutOfRange, S: formatKey(k), N: i}
		}
		v := l.At(int(i))
		return elem(read, v)
	case kUnsupported:
		return nil, Unsupported(container)
	}
	return nil, Err{Kind: ErrNoSuchKey, S: formatKey(scalarOf(key))}
}

// IndexList is l[i] on a statically typed list.
func IndexList[T any](l []T, i int64) (T, Err) {
	if i < 0 || i >= int64(len(l)) {
		var zero T
		return zero, IndexOutOfRange(i)
	}
	return l[i], Err{}
}

// IndexMap is m[k] on a statically typed map(string, V).
func IndexMap[V any](m map[string]V, k string) (V, Err) {
	v, ok := m[k]
	if !ok {
		return v, NoSuchKey(k)
	}
	return v, Err{}
}

// IndexMapInt is m[k] on a statically typed map(int, V).
func IndexMapInt[V any](m map[int64]V, k int64) (V, Err) {
	v, ok := m[k]
	if !ok {
		return v, NoSuchKeyInt(k)
	}
	return v, Err{}
}

// SelectDyn is x.field on a dyn x: a map looks field up (absent:
// ErrNoSuchKey); a list is ErrInvalidArgument ("unsupported index type
// 'string' in list"); anything else (null, scalars) is ErrNoSuchKey. An
// unsupported x, or value read, is [Unsupported].
func SelectDyn(v any, field string) (any, Err) { return selectDyn(v, field, true) }

// SelectDynRaw is SelectDyn but for the value found, which it returns as
// the host gave it, unread (see IndexDynRaw).
func SelectDynRaw(v any, field string) (any, Err) { return selectDyn(v, field, false) }

func selectDyn(v any, field string, read bool) (any, Err) {
	switch m := v.(type) {
	case map[string]any:
		if x, ok := m[field]; ok {
			return elem(read, x)
		}
		return nil, NoSuchKey(field)
	case map[string]string:
		if x, ok := m[field]; ok {
			return x, Err{}
		}
		return nil, NoSuchKey(field)
	case *AnyMap:
		if x, ok := m.getString(field); ok {
			return x, Err{}
		}
		return nil, NoSuchKey(field)
	}
	switch kindOf(v) {
	case kMap:
		m, _ := mapView(v)
		if x, ok := m.Get(field); ok {
			return elem(read, x)
		}
		return nil, NoSuchKey(field)
	case kList:
		return nil, InvalidArgument("unsupported index type 'string' in list")
	case kUnsupported:
		return nil, Unsupported(v)
	}
	return nil, NoSuchKey(field)
}

// HasDyn is has(x.field) on a dyn x: key presence for a map; false for
// null and scalars; an error for a list (as cel-go, which tries to use the
// field name as a list index). On a Go map of a type other than
// map[string]any and map[string]string it reads the value, as cel-go does
// (through its adapter), so an unsupported value is [Unsupported] there.
func HasDyn(v any, field string) (bool, Err) {
	switch m := v.(type) {
	case map[string]any:
		_, ok := m[field]
		return ok, Err{}
	case map[string]string:
		_, ok := m[field]
		return ok, Err{}
	case *AnyMap:
		_, ok := m.getString(field)
		return ok, Err{}
	}
	switch kindOf(v) {
	case kMap:
		m, _ := mapView(v)
		x, ok := m.Get(field)
		if ok && m.h != nil {
			if _, e := readElem(x); !e.Ok() {
				return false, e
			}
		}
		return ok, Err{}
	case kList:
		return false, InvalidArgument("unsupported index type 'string' in list")
	case kUnsupported:
		return false, Unsupported(v)
	}
	return false, Err{}
}

// InDyn is `elem in container` on a dyn container: list membership by
// [EqualDyn] (elem on the left, in list order, stopping at the first
// match), map key presence (a string-keyed host map has only string keys;
// an *AnyMap finds keys as cel-go does, see [AnyMap], another host map as
// [hostMap] says); any other container is ErrNoSuchOverload. The other
// errors are [TooDeep], from comparing elem with an element nested past
// [MaxDepth], and [Unsupported] for an unsupported elem, container, or
// element reached before a match.
func InDyn(elem any, container any) (bool, Err) {
	switch c := container.(type) {
	case []any:
		for _, x := range c {
			eq, e := equalElem(elem, x)
			if eq || !e.Ok() {
				return eq, e
			}
		}
		if len(c) == 0 {
			return false, operandErr(elem)
		}
		return false, Err{}
	case []string:
		if s, ok := elem.(string); ok {
			return InStrings(s, c), Err{}
		}
	case map[string]any:
		if k, ok := elem.(string); ok {
			_, ok = c[k]
			return ok, Err{}
		}
	case map[string]string:
		if k, ok := elem.(string); ok {
			_, ok = c[k]
			return ok, Err{}
		}
	}
	if e := operandErr(elem); !e.Ok() {
		return false, e
	}
	switch kindOf(container) {
	case kList:
		l := listOf(container)
		for i := 0; i < l.n; i++ {
			eq, e := equalElem(elem, l.At(i))
			if eq || !e.Ok() {
				return eq, e
			}
		}
		return false, Err{}
	case kMap:
		m, _ := mapView(container)
		x, ok, e := m.find(elem)
		if ok && e.Ok() && m.h != nil {
			// cel-go reads the value it finds in a Go map it reads by
			// reflection (and panics on a pointer to a map or list
			// there): the value must be read.
			if _, e := readElem(x); !e.Ok() {
				return false, e
			}
		}
		return ok, e
	case kUnsupported:
		return false, Unsupported(container)
	}
	return false, NoSuchOverload("")
}

// equalElem compares elem with an element x of a list, read first.
func equalElem(elem, x any) (bool, Err) {
	x, e := readElem(x)
	if !e.Ok() {
		return false, e
	}
	return equalAt(elem, x, 0)
}

// InList is `elem in l` where l is a dyn expected to be a list (a map is
// accepted too, as cel-go's `in` dispatches on the container at run time).
func InList(elem any, l any) (bool, Err) { return InDyn(elem, l) }

// InMapDyn is `key in m` where m is a dyn expected to be a map.
func InMapDyn(key any, m any) (bool, Err) { return InDyn(key, m) }

// InStrings is `s in l` for list(string).
func InStrings(s string, l []string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// InInts is `i in l` for list(int).
func InInts(i int64, l []int64) bool {
	for _, x := range l {
		if x == i {
			return true
		}
	}
	return false
}

// SizeDyn is size(v) on a dyn: code points of a string, elements of a list,
// entries of a map; anything else is ErrNoSuchOverload, an unsupported
// value [Unsupported].
func SizeDyn(v any) (int64, Err) {
	switch x := v.(type) {
	case string:
		return SizeString(x), Err{}
	case []any:
		return int64(len(x)), Err{}
	case map[string]any:
		return int64(len(x)), Err{}
	case map[string]string:
		return int64(len(x)), Err{}
	case *AnyMap:
		return int64(x.Len()), Err{}
	}
	s := scalarOf(v)
	switch s.k {
	case kString:
		return SizeString(s.s), Err{}
	case kList:
		return int64(listOf(v).n), Err{}
	case kMap:
		m, _ := mapView(v)
		return int64(m.Len()), Err{}
	case kUnsupported:
		return 0, Unsupported(v)
	}
	return 0, NoSuchOverload("")
}

// RangeDyn is what a comprehension over a dyn value iterates: a list's
// elements, or a map's keys (an *AnyMap's in literal order, without
// allocating; a host map's are collected into a new list). It is [Range]
// extended to *AnyMap, which Range reports as not iterable. The elements
// are the Go values held: generated code checks each ([Check]) where it
// binds it.
func RangeDyn(v any) (List, Err) {
	switch x := v.(type) {
	case *AnyMap:
		return List{v: anyMapKeys{x}, n: x.Len()}, Err{}
	case []any, map[string]any, string:
		return Range(v)
	}
	switch kindOf(v) {
	case kUnsupported:
		return List{}, Unsupported(v)
	case kMap:
		if m, _ := mapView(v); m.h != nil {
			keys := make([]any, 0, m.Len())
			m.each(func(k, _ any) bool {
				keys = append(keys, k)
				return true
			})
			return listOf(keys), Err{}
		}
	}
	return Range(v)
}

// SizeString is size(s): the number of code points, each invalid UTF-8
// byte counting as one (as cel-go's len([]rune(s))).
func SizeString(s string) int64 { return int64(utf8.RuneCountInString(s)) }

// ConcatList is a + b on lists; always a new slice.
func ConcatList[T any](a, b []T) []T {
	out := make([]T, 0, len(a)+len(b))
	out = append(out, a...)
	return append(out, b...)
}

// elem is v read (Read) when read is set, else v as it is.
func elem(read bool, v any) (any, Err) {
	if read {
		return readElem(v)
	}
	return v, Err{}
}
