package validators

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// This file owns the walk over tool_args: every string in the arguments,
// map keys included, is scanned, however deep it sits.

// MaxDepth is how many levels of nested lists, maps and pointers the walk
// over tool_args enters, as many as the runtime walks (runtime/impl's
// MaxDepth). Arguments nested deeper, or cyclic, cannot be read whole, so
// the walk fails closed with [ErrUnreadableArgs] rather than answer "no
// secret" about a part it did not read.
const MaxDepth = 1000

// maxValues bounds the values one walk visits. Arguments decoded from JSON
// never come near it (16M values is more JSON than any tool call carries);
// a host value that shares one sub-value many times over can, since a walk
// visits a shared value once per path to it.
const maxValues = 1 << 24

// ErrUnreadableArgs is the error of a walk over tool_args that could not
// read all of them: nested more than [MaxDepth] levels, cyclic, too large,
// or holding a Go value of a kind that has no strings to read and no way
// to look inside (a struct, a func, a channel). Validators answer it as an
// error, so the rule's on_error decides.
var ErrUnreadableArgs = errors.New("tool_args could not be read whole")

// walker visits the strings of a tool_args value.
type walker struct {
	match func(string) bool
	// The containers on the way to the current value: the first ones in
	// an array (a slice into the walker would move it to the heap), the
	// rest, rarely, in far.
	near   [16]ident
	far    []ident
	n      int
	values int
	err    error // the first part that could not be read
	stop   bool  // the value budget is spent: give up
}

// ident is a container's identity: a cycle shows as the same container
// again on its own path. A map is its pointer; a slice its first element
// and length (the slices of one array that start at one element and have
// one length walk alike). The typed pointers spare the allocation of
// boxing a slice for reflect.
type ident struct {
	p  uintptr         // a map, or a value reached by reflection
	ea *any            // the first element of a []any
	em *map[string]any // the first element of a []map[string]any
	n  int             // a slice's length; -1 for a map, -2 for a pointer
}

// argsHit reports whether a string in args satisfies match. A hit anywhere
// is the answer even when another part could not be read; without one, a
// part that could not be read is an error.
func argsHit(args map[string]any, match func(string) bool) (bool, error) {
	w := walker{match: match}
	if w.walk(args, 0) {
		return true, nil
	}
	return false, w.err
}

func (w *walker) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *walker) tooDeep() {
	w.fail(fmt.Errorf("%w: nested too deeply or cyclic (more than %d levels of lists and maps)", ErrUnreadableArgs, MaxDepth))
}

// enter pushes a container on the path; false when it cannot be entered.
func (w *walker) enter(id ident, depth int) bool {
	if depth >= MaxDepth {
		w.tooDeep()
		return false
	}
	for _, p := range w.near[:min(w.n, len(w.near))] {
		if p == id {
			w.tooDeep()
			return false
		}
	}
	for _, p := range w.far {
		if p == id {
			w.tooDeep()
			return false
		}
	}
	if w.n < len(w.near) {
		w.near[w.n] = id
	} else {
		w.far = append(w.far, id)
	}
	w.n++
	return true
}

func (w *walker) leave() {
	w.n--
	if w.n >= len(w.near) {
		w.far = w.far[:len(w.far)-1]
	}
}

// text scans one string.
func (w *walker) text(s string) bool {
	return w.match(s)
}

// walk visits v, a value depth levels down, and reports a hit.
func (w *walker) walk(v any, depth int) bool {
	if w.stop {
		return false
	}
	if w.values++; w.values > maxValues {
		w.fail(fmt.Errorf("%w: more than %d values", ErrUnreadableArgs, maxValues))
		w.stop = true
		return false
	}
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64,
		json.Number, []int64, []uint64, []float64, []bool:
		// No strings (a json.Number spells a number).
		return false
	case string:
		return w.text(x)
	case []string:
		for _, s := range x {
			if w.text(s) {
				return true
			}
		}
		return false
	case map[string]string:
		for k, s := range x {
			if w.text(k) || w.text(s) {
				return true
			}
		}
		return false
	case map[string]any:
		if x == nil || !w.enter(ident{p: reflect.ValueOf(x).Pointer(), n: -1}, depth) {
			return false
		}
		defer w.leave()
		for k, e := range x {
			if w.text(k) || w.walk(e, depth+1) {
				return true
			}
		}
		return false
	case []any:
		if len(x) == 0 || !w.enter(ident{ea: &x[0], n: len(x)}, depth) {
			return false
		}
		defer w.leave()
		for _, e := range x {
			if w.walk(e, depth+1) {
				return true
			}
		}
		return false
	case []map[string]any:
		if len(x) == 0 || !w.enter(ident{em: &x[0], n: len(x)}, depth) {
			return false
		}
		defer w.leave()
		for _, e := range x {
			if w.walk(e, depth+1) {
				return true
			}
		}
		return false
	}
	return w.walkValue(reflect.ValueOf(v), depth)
}

// walkValue visits a value of a Go type outside the runtime's dyn types
// (see runtime/impl/celdyn.go) by reflection: named string types, other
// slices, arrays and maps, pointers. A []byte is read as text.
func (w *walker) walkValue(v reflect.Value, depth int) bool {
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return false
	case reflect.String:
		return w.text(v.String())
	case reflect.Slice:
		if v.Len() == 0 {
			return false
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return w.text(string(v.Bytes()))
		}
		if !w.enter(ident{p: v.Pointer(), n: v.Len()}, depth) {
			return false
		}
		defer w.leave()
		return w.elems(v, depth)
	case reflect.Array:
		if depth >= MaxDepth {
			w.tooDeep()
			return false
		}
		return w.elems(v, depth)
	case reflect.Map:
		if v.Len() == 0 || !w.enter(ident{p: v.Pointer(), n: -1}, depth) {
			return false
		}
		defer w.leave()
		it := v.MapRange()
		for it.Next() {
			if w.walk(it.Key().Interface(), depth+1) || w.walk(it.Value().Interface(), depth+1) {
				return true
			}
		}
		return false
	case reflect.Pointer:
		if v.IsNil() || !w.enter(ident{p: v.Pointer(), n: -2}, depth) {
			return false
		}
		defer w.leave()
		return w.walk(v.Elem().Interface(), depth+1)
	}
	w.fail(fmt.Errorf("%w: cannot look inside a value of Go type %s", ErrUnreadableArgs, v.Type()))
	return false
}

func (w *walker) elems(v reflect.Value, depth int) bool {
	for i := range v.Len() {
		if w.walk(v.Index(i).Interface(), depth+1) {
			return true
		}
	}
	return false
}
