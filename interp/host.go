package interp

// Host values outside the dyn representation, read by the rule of
// docs/cel-semantics.md ("Host values"), written apart from the runtime's
// implementation (runtime/impl/celhost.go): cel-go's own adapter and its
// lists and maps wherever cel-go reads a value as null, bool, int, uint,
// double, string, list or map; an invalid_argument error ("unsupported
// value of Go type T") for every other value, where cel-go would fail on it
// or read it as bytes, a timestamp or a duration; and ==, != and `in`
// walked strictly: cel-go skips an element it cannot read ([x] == [1] is
// true for a struct x), the rule reports it.

import (
	"encoding/json"
	"math"
	"reflect"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"google.golang.org/protobuf/types/known/structpb"
)

// HostAdapter reads host values by the rule; it is the adapter of the
// reference's environment.
var HostAdapter types.Adapter = hostAdapter{}

type hostAdapter struct{}

func (a hostAdapter) NativeToValue(v any) ref.Val { return HostValue(a, v) }

// Unsupported is the error of reading a value the rule does not read.
func Unsupported(v any) ref.Val {
	t := "nil"
	if v != nil {
		t = reflect.TypeOf(v).String()
	}
	return types.NewErr("unsupported value of Go type %s", t)
}

// hostElems reads the values inside a host's list or map with a, by
// [HostElem].
type hostElems struct{ a types.Adapter }

func (h hostElems) NativeToValue(v any) ref.Val { return HostElem(h.a, v) }

// elems is the adapter of the values inside a host's list or map.
func elems(a types.Adapter) types.Adapter {
	if _, ok := a.(hostElems); ok {
		return a
	}
	return hostElems{a}
}

// HostElem is [HostValue] for a value a host gave (inside tool_args, a
// span): cel-go's own null, bool, int, uint, double and string are those
// values, as cel-go's adapter takes them; its other values (bytes,
// timestamps, durations, errors, lists, maps, pointers to its values)
// are what the runtime cannot represent, and a host's error must not
// pass for the rule's.
func HostElem(a types.Adapter, v any) ref.Val {
	switch v.(type) {
	case types.Null, types.Bool, types.Int, types.Uint, types.Double, types.String,
		*types.Bool, *types.Int, *types.Uint, *types.Double, *types.String:
	case ref.Val:
		return Unsupported(v)
	}
	return HostValue(a, v)
}

// HostValue reads the Go value v by the rule, with a for the values inside
// lists and maps (so that an adapter extending HostAdapter reads them too;
// through [HostElem]). cel-go's own values are taken as they are: cel-go
// hands its adapter the values it makes.
func HostValue(a types.Adapter, v any) ref.Val {
	switch x := v.(type) {
	case *types.Bool, *types.Int, *types.Uint, *types.Double, *types.String:
		// cel-go's adapter reads a pointer to its scalar as the scalar
		// (a nil one is an error).
		if reflect.ValueOf(v).IsNil() {
			return Unsupported(v)
		}
		return types.DefaultTypeAdapter.NativeToValue(v)
	case structpb.NullValue, *structpb.NullValue:
		// protobuf's null, and a pointer to it (nil included), are null.
		return types.NullValue
	case ref.Val:
		return x
	case []byte, time.Time, time.Duration:
		return Unsupported(v)
	case json.RawMessage:
		var d any
		if json.Unmarshal(x, &d) != nil {
			return Unsupported(v)
		}
		return HostValue(a, d)
	case map[string]any:
		return types.NewStringInterfaceMap(elems(a), x)
	// cel-go's adapter reads these map types without reflection; the
	// lookups of map[int]string differ from a reflected map's.
	case map[string]string:
		return types.NewMap(elems(a), x)
	case map[int64]bool:
		return types.NewMap(elems(a), x)
	case map[string]int64:
		return types.NewMap(elems(a), x)
	case map[string]int:
		return types.NewMap(elems(a), x)
	case map[string]bool:
		return types.NewMap(elems(a), x)
	case map[string]float64:
		return types.NewMap(elems(a), x)
	case map[int64]string:
		return types.NewMap(elems(a), x)
	case map[int]string:
		return types.NewMap(elems(a), x)
	}
	if v != nil {
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Slice, reflect.Array:
			if rv.Type().Elem() == reflect.TypeFor[byte]() {
				return Unsupported(v)
			}
			return types.NewDynamicList(elems(a), v)
		case reflect.Map:
			switch rv.Type().Key().Kind() {
			case reflect.String, reflect.Bool, reflect.Interface, reflect.Float32, reflect.Float64,
				reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				return types.NewDynamicMap(elems(a), v)
			}
			return Unsupported(v)
		case reflect.Pointer:
			// cel-go reads a pointer to a scalar as the scalar; it fails
			// on the others (or misreads a pointer to a list).
			if rv.IsNil() {
				return Unsupported(v)
			}
			switch rv.Elem().Kind() {
			case reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer, reflect.Struct, reflect.Interface:
				return Unsupported(v)
			}
		}
	}
	switch r := types.DefaultTypeAdapter.NativeToValue(v).(type) {
	case types.Null, types.Bool, types.Int, types.Uint, types.Double, types.String:
		return r
	}
	return Unsupported(v)
}

// The strict forms of ==, != and `in`, which replace cel-go's in every
// compiled expression (see [CompileStrict]).
const (
	fnEq = "@oarc_strict_eq"
	fnNe = "@oarc_strict_ne"
	fnIn = "@oarc_strict_in"
)

// StrictOps declares the strict operators.
func StrictOps() []cel.EnvOption {
	dyn := []*cel.Type{cel.DynType, cel.DynType}
	return []cel.EnvOption{
		cel.Function(fnEq, cel.Overload("oarc_strict_eq", dyn, cel.BoolType, cel.BinaryBinding(func(x, y ref.Val) ref.Val {
			return strictEqual(x, y, 0)
		}))),
		cel.Function(fnNe, cel.Overload("oarc_strict_ne", dyn, cel.BoolType, cel.BinaryBinding(func(x, y ref.Val) ref.Val {
			r := strictEqual(x, y, 0)
			if b, ok := r.(types.Bool); ok {
				return !b
			}
			return r
		}))),
		cel.Function(fnIn, cel.Overload("oarc_strict_in", dyn, cel.BoolType, cel.BinaryBinding(strictIn))),
	}
}

// CompileStrict parses and checks src in env (which has [StrictOps]) with
// ==, != and `in` replaced by their strict forms.
func CompileStrict(env *cel.Env, src string) (*cel.Ast, *cel.Issues) {
	parsed, iss := env.Parse(src)
	if iss.Err() != nil {
		return nil, iss
	}
	native := parsed.NativeRep()
	fac := ast.NewExprFactory()
	strict := map[string]string{operators.Equals: fnEq, operators.NotEquals: fnNe, operators.In: fnIn}
	for _, e := range ast.MatchDescendants(ast.NavigateAST(native), ast.KindMatcher(ast.CallKind)) {
		call := e.AsCall()
		if fn, ok := strict[call.FunctionName()]; ok && !call.IsMemberFunction() {
			e.SetKindCase(fac.NewCall(e.ID(), fn, call.Args()...))
		}
	}
	return env.Check(parsed)
}

// maxDepth and msgTooDeep are the runtime's nesting limit (MaxDepth) and
// its error: the walks below stop there, as the runtime's do.
const (
	maxDepth   = 1000
	msgTooDeep = "value too deeply nested or cyclic (more than 1000 levels of lists and maps)"
	msgOwnKey  = "a key of a Go map is not found by its own lookup"
	msgHashKey = "a list or map cannot be a key of a Go map with interface keys"
)

// strictEqual is cel-go's heterogeneous equality, walked so that reading
// an element that is an error (a value the rule does not read) is that
// error: lists in order, stopping at the first difference; maps of the
// same size entry by entry, every entry even after a difference.
func strictEqual(x, y ref.Val, depth int) ref.Val {
	if types.IsError(x) {
		return x
	}
	if types.IsError(y) {
		return y
	}
	lx, xList := x.(traits.Lister)
	ly, yList := y.(traits.Lister)
	if xList && yList {
		n := lx.Size().(types.Int)
		if n != ly.Size().(types.Int) {
			return types.False
		}
		if n > 0 && depth >= maxDepth {
			return types.NewErr(msgTooDeep)
		}
		for i := types.Int(0); i < n; i++ {
			r := strictEqual(lx.Get(i), ly.Get(i), depth+1)
			if r != types.True {
				return r
			}
		}
		return types.True
	}
	mx, xMap := x.(traits.Mapper)
	my, yMap := y.(traits.Mapper)
	if xMap && yMap {
		if mx.Size() != my.Size() {
			return types.False
		}
		if mx.Size() == types.Int(0) {
			return types.True
		}
		if depth >= maxDepth {
			return types.NewErr(msgTooDeep)
		}
		eq := types.True
		for it := mx.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			if types.IsError(k) {
				return k
			}
			w, found, err := find(my, k)
			if err != nil {
				return err
			}
			if !found {
				eq = types.False
				continue
			}
			v, own, err := find(mx, k)
			if err != nil {
				return err
			}
			if !own {
				return types.NewErr(msgOwnKey)
			}
			r := strictEqual(v, w, depth+1)
			if types.IsError(r) {
				return r
			}
			if r != types.True {
				eq = types.False
			}
		}
		return eq
	}
	return types.Equal(x, y)
}

// find looks k up in m as cel-go does, but reports the key cel-go cannot
// hash (a list or map on a Go map with interface keys) as an error rather
// than let it panic.
func find(m traits.Mapper, k ref.Val) (ref.Val, bool, ref.Val) {
	if _, isList := k.(traits.Lister); isList || isMapper(k) {
		// A map literal's keys are CEL values (hashed by identity), a
		// host map's are Go values.
		native := reflect.ValueOf(m.Value())
		if native.Kind() == reflect.Map && native.Type().Key().Kind() == reflect.Interface &&
			native.Type().Key() != reflect.TypeFor[ref.Val]() && native.Len() > 0 {
			return nil, false, types.NewErr(msgHashKey)
		}
	}
	v, ok := m.Find(k)
	return v, ok, nil
}

// readsByReflection reports whether m is a host's Go map that cel-go
// reads by reflection: any but map[string]any (whose `in` cel-go answers
// without reading the value) and its map literals.
func readsByReflection(m traits.Mapper) bool {
	switch m.Value().(type) {
	case map[string]any, map[ref.Val]ref.Val:
		return false
	}
	return reflect.ValueOf(m.Value()).Kind() == reflect.Map
}

func isMapper(v ref.Val) bool {
	_, ok := v.(traits.Mapper)
	return ok
}

// strictIn is `in`: list membership by strictEqual in order, stopping at
// the first match (an error on the way is the answer); map key presence.
func strictIn(elem, container ref.Val) ref.Val {
	switch c := container.(type) {
	case traits.Lister:
		n := c.Size().(types.Int)
		for i := types.Int(0); i < n; i++ {
			r := strictEqual(elem, c.Get(i), 0)
			if r != types.False {
				return r
			}
		}
		return types.False
	case traits.Mapper:
		v, found, err := find(c, elem)
		if err != nil {
			return err
		}
		if found && types.IsError(v) && readsByReflection(c) {
			// cel-go reads the value it finds in a Go map it reads by
			// reflection, and panics on some (a pointer to a map or a
			// list): a value the rule does not read is the error.
			return v
		}
		return types.Bool(found)
	}
	return types.NewErr("no such overload")
}

// toolArgString, toolArgInt and toolArgBool are the observation functions
// by their catalog text, the argument read by the rule: the argument when
// it reads as a value of the type (an int also from a double holding an
// exact integer), else the zero (absent, or another type), and an error
// for an argument the rule does not read.
func hostArg(args map[string]any, k string) (ref.Val, bool) {
	v, ok := args[k]
	if !ok {
		return nil, false
	}
	return HostElem(HostAdapter, v), true
}

func toolArgString(args map[string]any, k string) ref.Val {
	v, _ := hostArg(args, k)
	switch x := v.(type) {
	case types.String:
		return x
	case *types.Err:
		return x
	}
	return types.String("")
}

func toolArgInt(args map[string]any, k string) ref.Val {
	v, _ := hostArg(args, k)
	switch x := v.(type) {
	case types.Int:
		return x
	case types.Double:
		if f := float64(x); f == math.Trunc(f) && f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
			return types.Int(int64(f))
		}
	case *types.Err:
		return x
	}
	return types.Int(0)
}

func toolArgBool(args map[string]any, k string) ref.Val {
	v, _ := hostArg(args, k)
	switch x := v.(type) {
	case types.Bool:
		return x
	case *types.Err:
		return x
	}
	return types.False
}

// spanBound reads a span's start or end: an int as the rule reads it
// (spec 5.6 skips entries without int bounds).
func spanBound(m map[string]any, k string) (int64, bool) {
	v, ok := m[k]
	if !ok {
		return 0, false
	}
	i, ok := HostElem(HostAdapter, v).(types.Int)
	return int64(i), ok
}
