package impl

import "math"

// AnyMap is a CEL map whose keys are not (all) strings: a map literal such
// as {1: 'a', 2.0: 'b', true: 1, null: 0, [1]: 2}, or any literal whose key
// type is not string, including the empty literal {} when generated code
// wants it typed map(dyn, dyn). It is immutable once built, safe for
// concurrent readers, and reproduces cel-go's map built from a literal (a Go
// map keyed by ref.Val):
//
//   - keys are distinct by type and value: 1, 1u and 1.0 are three keys;
//     a later duplicate replaces the earlier value (and key, so -0.0 after
//     0.0 is kept as -0.0), keeping the earlier position;
//   - a NaN key never equals anything, so every NaN is a key of its own;
//   - list and map keys are kept but never match a lookup (cel-go matches
//     them only by the identity of the evaluated value, see
//     docs/cel-semantics.md), so each is a key of its own;
//   - lookups ([Get], `in`, equality) try the key as it is, then a
//     numerically equal key of another type: a double holding an exact
//     integer finds an int key, then a uint key; an int >= 0 finds a uint
//     key; a uint <= MaxInt64 an int key. An int never finds a double key.
//
// Entries keep the order of the literal (cel-go's is Go map order, i.e.
// undefined). A nil *AnyMap is an empty map.
type AnyMap struct {
	ents []mapEntry
	idx  map[mapKey]int32 // scalar keys to entry index, for larger maps
	nstr int              // number of string keys
}

type mapEntry struct {
	k, v any
	h    mapKey
	ok   bool // h is valid: the key is a scalar (or a type), not a list or map
}

// mapKey identifies a scalar key with Go's == semantics, as cel-go's Go
// map does: NaN is unequal to itself, -0.0 equals 0.0.
type mapKey struct {
	k dkind
	n uint64 // bool (0, 1), int (two's complement), uint
	f float64
	s string // string, type name
}

// kTypeKey marks a type value used as a key; never a dkind of a value.
const kTypeKey dkind = 255

// linearMax is the size up to which lookups scan instead of hashing.
const linearMax = 8

func keyOf(v any) (mapKey, bool) {
	if t, ok := v.(Type); ok {
		return mapKey{k: kTypeKey, s: string(t)}, true
	}
	return keyOfScalar(scalarOf(v))
}

func keyOfScalar(s scalar) (mapKey, bool) {
	switch s.k {
	case kNull:
		return mapKey{k: kNull}, true
	case kBool:
		if s.b {
			return mapKey{k: kBool, n: 1}, true
		}
		return mapKey{k: kBool}, true
	case kInt:
		return mapKey{k: kInt, n: uint64(s.i)}, true
	case kUint:
		return mapKey{k: kUint, n: s.u}, true
	case kDouble:
		return mapKey{k: kDouble, f: s.f}, true
	case kString:
		return mapKey{k: kString, s: s.s}, true
	}
	return mapKey{}, false
}

// NewAnyMap builds a map from its literal's key/value pairs in source
// order: NewAnyMap(k1, v1, k2, v2, ...). Keys and values may be any dyn
// value (host conveniences such as int or float32 are normalised). A
// trailing key without a value maps to null. It never panics.
func NewAnyMap(kv ...any) *AnyMap {
	n := (len(kv) + 1) / 2
	m := &AnyMap{ents: make([]mapEntry, 0, n)}
	if n > linearMax {
		m.idx = make(map[mapKey]int32, n)
	}
	for i := 0; i < len(kv); i += 2 {
		var v any
		if i+1 < len(kv) {
			v = kv[i+1]
		}
		m.put(kv[i], v)
	}
	return m
}

func (m *AnyMap) put(k, v any) {
	h, ok := keyOf(k)
	if ok {
		if _, isType := k.(Type); !isType {
			k = Normalize(k)
		}
		if j := m.exact(h); j >= 0 {
			m.ents[j].k, m.ents[j].v, m.ents[j].h = k, v, h
			return
		}
		if m.idx != nil && !(h.k == kDouble && h.f != h.f) {
			m.idx[h] = int32(len(m.ents))
		}
		if h.k == kString {
			m.nstr++
		}
	}
	m.ents = append(m.ents, mapEntry{k: k, v: v, h: h, ok: ok})
}

// exact is the index of the entry whose key is exactly h, or -1.
func (m *AnyMap) exact(h mapKey) int {
	if m.idx != nil {
		if j, ok := m.idx[h]; ok {
			return int(j)
		}
		return -1
	}
	for i := range m.ents {
		if m.ents[i].ok && m.ents[i].h == h {
			return i
		}
	}
	return -1
}

// find is cel-go's Find: the exact key, then a numerically equal key of
// another numeric type.
func (m *AnyMap) find(h mapKey) int {
	if m == nil || len(m.ents) == 0 {
		return -1
	}
	if j := m.exact(h); j >= 0 {
		return j
	}
	switch h.k {
	case kDouble:
		if i, ok := doubleToInt64Lossless(h.f); ok {
			if j := m.exact(mapKey{k: kInt, n: uint64(i)}); j >= 0 {
				return j
			}
		}
		if u, ok := doubleToUint64Lossless(h.f); ok {
			return m.exact(mapKey{k: kUint, n: u})
		}
	case kInt:
		if int64(h.n) >= 0 {
			return m.exact(mapKey{k: kUint, n: h.n})
		}
	case kUint:
		if h.n <= math.MaxInt64 {
			return m.exact(mapKey{k: kInt, n: h.n})
		}
	}
	return -1
}

// Len is the number of entries (distinct keys).
func (m *AnyMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.ents)
}

// Entry is the i-th entry (0 <= i < Len()) in literal order; out of range
// gives nils.
func (m *AnyMap) Entry(i int) (key, val any) {
	if m == nil || i < 0 || i >= len(m.ents) {
		return nil, nil
	}
	return m.ents[i].k, m.ents[i].v
}

// Get looks key up as cel-go does (see [AnyMap]): exact key first, then a
// numerically equal one. List and map keys are never found.
func (m *AnyMap) Get(key any) (any, bool) {
	h, ok := keyOf(key)
	if !ok {
		return nil, false
	}
	if j := m.find(h); j >= 0 {
		return m.ents[j].v, true
	}
	return nil, false
}

func (m *AnyMap) getString(s string) (any, bool) {
	if j := m.find(mapKey{k: kString, s: s}); j >= 0 {
		return m.ents[j].v, true
	}
	return nil, false
}

// stringKeyed reports whether every key is a string (true when empty).
func (m *AnyMap) stringKeyed() bool { return m == nil || m.nstr == len(m.ents) }

// doubleToUint64Lossless mirrors cel-go: d must convert to uint64 and back.
func doubleToUint64Lossless(d float64) (uint64, bool) {
	if math.IsInf(d, 0) || math.IsNaN(d) || d < 0 || d >= 18446744073709551616.0 {
		return 0, false
	}
	u := uint64(d)
	if float64(u) != d {
		return 0, false
	}
	return u, true
}

// anyMapKeys is the list of an AnyMap's keys, for comprehensions.
type anyMapKeys struct{ m *AnyMap }

// mapView returns a view of any map representation, or false.
func mapView(v any) (Map, bool) {
	switch x := v.(type) {
	case map[string]any:
		return Map{a: x}, true
	case map[string]string:
		return Map{s: x}, true
	case *AnyMap:
		if x == nil {
			return Map{}, true
		}
		return Map{x: x}, true
	case *hostMap:
		return Map{h: x}, true
	}
	return Map{}, false
}

// stringKeyed reports whether every key is a string (true when empty).
func (m Map) stringKeyed() bool {
	switch {
	case m.x != nil:
		return m.x.stringKeyed()
	case m.h != nil:
		return m.h.stringKeyed()
	}
	return true
}

// find is cel-go's Find on any map representation: string-keyed host maps
// find only string keys; an *AnyMap and other host maps as [AnyMap] and
// [hostMap] say. The Err is a list or map key that a host map with
// interface keys cannot hash, or an unsupported key.
func (m Map) find(key any) (any, bool, Err) {
	switch {
	case m.x != nil:
		v, ok := m.x.Get(key)
		return v, ok, Err{}
	case m.h != nil:
		s := scalarOf(key)
		if s.k == kUnsupported {
			return nil, false, Unsupported(key)
		}
		return m.h.find(s)
	}
	k, ok := key.(string)
	if !ok {
		if s := scalarOf(key); s.k == kString {
			k = s.s
		} else {
			return nil, false, Err{}
		}
	}
	v, ok := m.Get(k)
	return v, ok, Err{}
}

// each calls f for every entry, keys of any type, until f returns false.
func (m Map) each(f func(k, v any) bool) {
	switch {
	case m.x != nil:
		for i := range m.x.ents {
			if !f(m.x.ents[i].k, m.x.ents[i].v) {
				return
			}
		}
	case m.h != nil:
		m.h.each(f)
	case m.s != nil:
		for k, v := range m.s {
			if !f(k, v) {
				return
			}
		}
	default:
		for k, v := range m.a {
			if !f(k, v) {
				return
			}
		}
	}
}

// AsAnyMap narrows a dyn to an *AnyMap, the representation of maps whose
// static key type is not string: an *AnyMap as it is, any other map copied
// into one (in Go's map order, which cannot matter for a map with string
// keys; a host map with other keys keeps its own, cel-go's, order too).
// Anything else is ErrNoSuchOverload.
func AsAnyMap(v any) (*AnyMap, Err) {
	if x, ok := v.(*AnyMap); ok {
		return x, Err{}
	}
	m, ok := mapView(v)
	if !ok {
		if kindOf(v) == kUnsupported {
			return nil, Unsupported(v)
		}
		return nil, NoSuchOverload("")
	}
	kv := make([]any, 0, 2*m.Len())
	m.each(func(k, v any) bool {
		kv = append(kv, k, v)
		return true
	})
	return NewAnyMap(kv...), Err{}
}

// Entries lists the keys and values of any map a dyn value holds
// (alternating), in the order a comprehension visits them, or false for a
// value that is no map. It is for tests that compare maps (a host map read
// by [Read] is of a type unexported here).
func Entries(v any) ([]any, bool) {
	m, ok := mapView(v)
	if !ok {
		return nil, false
	}
	kv := make([]any, 0, 2*m.Len())
	m.each(func(k, e any) bool {
		kv = append(kv, k, e)
		return true
	})
	return kv, true
}
