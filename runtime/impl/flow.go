package impl

import (
	"slices"
	"strings"
)

// MatchFlow reports whether steps match, in order, entries of names: each
// step is a set of tool names (any of them matches). Only the last within
// entries count when within > 0. Without contiguous, gaps are allowed and
// the earliest match of each step is taken, which finds a match whenever one
// exists; with contiguous the steps must match adjacent entries, tried at
// every start so that overlapping prefixes (steps [a b] in a a b) match.
func MatchFlow(names []string, steps [][]string, within int, contiguous bool) bool {
	if len(steps) == 0 {
		return true
	}
	if within > 0 && len(names) > within {
		names = names[len(names)-within:]
	}
	if contiguous {
		for start := 0; start+len(steps) <= len(names); start++ {
			ok := true
			for j, step := range steps {
				if !among(names[start+j], step) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
		return false
	}
	j := 0
	for _, n := range names {
		if among(n, steps[j]) {
			j++
			if j == len(steps) {
				return true
			}
		}
	}
	return false
}

func among(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// AnyAmong reports whether any element of l is in set: a selector clause on
// a list(string) fact.
func AnyAmong(l []string, set []string) bool {
	for _, s := range l {
		if among(s, set) {
			return true
		}
	}
	return false
}

// Range returns what a comprehension over a dyn value iterates: a list's
// elements, or a map's keys.
func Range(v any) (List, Err) {
	// cel-go returns a comprehension's initial result without looking at
	// the range's type when the range has size zero: an empty string
	// iterates nothing; a non-empty one is not iterable.
	if s, ok := v.(string); ok && s == "" {
		return List{}, Err{}
	}
	if l, e := AsList(v); e.Kind == ErrNone {
		return l, e
	}
	m, e := AsDynMap(v)
	if e.Kind != ErrNone {
		return List{}, InvalidArgument(notIterable(v))
	}
	keys := make([]any, 0, m.Len())
	m.Range(func(k string, _ any) bool {
		keys = append(keys, k)
		return true
	})
	// Sorted, as SortedKeys says.
	slices.SortFunc(keys, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	return listOf(keys), Err{}
}

// SortedKeys returns the keys of m in ascending order, in buf while they
// fit: a comprehension over a map with string keys visits them in this
// order, so that its answer (the list of a map or filter, the error that
// all or exists reports first) does not change from one evaluation to the
// next. cel-go visits them in Go's map order, which does; the sorted order
// is one of its orders. With buf an array of the caller's, nothing is
// allocated for a map of up to len(buf) keys.
func SortedKeys(m map[string]any, buf []string) []string {
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AsAnyList narrows a dyn to a []any list: a []any as it is, any other
// list representation copied.
func AsAnyList(v any) ([]any, Err) {
	if x, ok := v.([]any); ok {
		return x, Err{}
	}
	l, e := AsList(v)
	if e.Kind != ErrNone {
		return nil, e
	}
	out := make([]any, l.Len())
	for i := range out {
		out[i] = l.At(i)
	}
	return out, Err{}
}

// AsMapList narrows a dyn to a list of dyn maps; every element must be a map.
func AsMapList(v any) ([]map[string]any, Err) {
	if x, ok := v.([]map[string]any); ok {
		return x, Err{}
	}
	l, e := AsList(v)
	if e.Kind != ErrNone {
		return nil, e
	}
	out := make([]map[string]any, l.Len())
	for i := range out {
		x, e := readElem(l.At(i))
		if e.Kind != ErrNone {
			return nil, e
		}
		m, e := AsMap(x)
		if e.Kind != ErrNone {
			return nil, e
		}
		out[i] = m
	}
	return out, Err{}
}

// notIterable is cel-go's message for a comprehension over a value that is
// neither a list nor a map.
func notIterable(v any) string {
	switch Normalize(v).(type) {
	case nil:
		return "got 'types.Null', expected iterable type"
	case bool:
		return "got 'types.Bool', expected iterable type"
	case int64:
		return "got 'types.Int', expected iterable type"
	case uint64:
		return "got 'types.Uint', expected iterable type"
	case float64:
		return "got 'types.Double', expected iterable type"
	case string:
		return "got 'types.String', expected iterable type"
	}
	return "expected iterable type"
}
