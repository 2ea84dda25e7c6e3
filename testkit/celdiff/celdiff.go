// Package celdiff holds helpers for differential tests that compare the
// runtime's CEL helpers (and generated code) with cel-go.
package celdiff

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"

	"github.com/oarc/oarc/runtime/impl"
	"github.com/oarc/oarc/testkit/reference"
)

// KindOfCelError maps a cel-go evaluation error message to the runtime's
// error kind (see [reference.KindOfCelError]).
func KindOfCelError(msg string) impl.ErrKind { return reference.KindOfCelError(msg) }

// ToCel converts a runtime value to a cel-go value as the activation would.
func ToCel(v any) ref.Val { return Adapter.NativeToValue(v) }

// Adapter is the type adapter of the Evaluator's environment: the
// reference's (cel-go's own, reading host values by the rule of
// docs/cel-semantics.md, reference.HostValue), extended to the runtime's
// own dyn representations, *AnyMap and Type, at any depth inside lists and
// maps. Like cel-go's, it converts lazily, so cyclic values can be given
// to cel-go (operations that walk them, such as ==, stop at the nesting
// limit in the strict evaluator, and overflow cel-go's stack in the plain
// one).
var Adapter types.Adapter = adapter{}

// PlainAdapter is Adapter with cel-go's default adapter for host values:
// cel-go as it is, for the plain evaluator.
var PlainAdapter types.Adapter = adapter{plain: true}

// adapter is the environment's adapter (which cel-go also hands the
// values it makes, taken as they are) or, with elem, the adapter of the
// values inside lists and maps, which reads them as values a host gave
// there (reference.HostElem).
type adapter struct{ plain, elem bool }

func (a adapter) NativeToValue(v any) ref.Val {
	if r, ok := v.(ref.Val); ok && !a.elem && !a.plain {
		return r
	}
	in := adapter{plain: a.plain, elem: true}
	switch x := v.(type) {
	case *impl.AnyMap:
		m := make(map[ref.Val]ref.Val, x.Len())
		for i := 0; i < x.Len(); i++ {
			k, e := x.Entry(i)
			m[in.NativeToValue(k)] = in.NativeToValue(e)
		}
		return types.NewRefValMap(adapter{plain: a.plain}, m)
	case impl.Type:
		if t, ok := celTypes[x]; ok {
			return t
		}
		return types.NewErr("celdiff: unknown type %s", x)
	case []any:
		return types.NewDynamicList(in, x)
	case []map[string]any:
		return types.NewDynamicList(in, x)
	case map[string]any:
		return types.NewStringInterfaceMap(in, x)
	}
	if a.plain {
		return types.DefaultTypeAdapter.NativeToValue(v)
	}
	return reference.HostElem(in, v)
}

var celTypes = map[impl.Type]ref.Val{"int": types.IntType, "uint": types.UintType, "double": types.DoubleType,
	"bool": types.BoolType, "string": types.StringType, "bytes": types.BytesType, "list": types.ListType,
	"map": types.MapType, "null_type": types.NullType, "type": types.TypeType}

// maxWalk bounds the helpers below, which walk values recursively.
const maxWalk = 5000

// FromCel converts a cel-go value to the runtime's canonical dyn
// representation (nil, bool, int64, uint64, float64, string, Type, []any,
// map[string]any, and *AnyMap for a map with a key that is not a string).
// Errors and other types are returned as an error.
func FromCel(v ref.Val) (any, error) { return fromCel(v, 0) }

func fromCel(v ref.Val, depth int) (any, error) {
	if depth > maxWalk {
		return nil, fmt.Errorf("celdiff: cel value nested more than %d levels", maxWalk)
	}
	switch x := v.(type) {
	case *types.Err:
		if depth > 0 {
			// An element the rule does not read, inside a value.
			return Unreadable(x.Error()), nil
		}
		return nil, x
	case types.Null:
		return nil, nil
	case types.Bool:
		return bool(x), nil
	case types.Int:
		return int64(x), nil
	case types.Uint:
		return uint64(x), nil
	case types.Double:
		return float64(x), nil
	case types.String:
		return string(x), nil
	case *types.Type:
		return impl.Type(x.TypeName()), nil
	}
	if l, ok := v.(traits.Lister); ok {
		n := int(l.Size().(types.Int))
		out := make([]any, n)
		for i := 0; i < n; i++ {
			e, err := fromCel(l.Get(types.Int(i)), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	if m, ok := v.(traits.Mapper); ok {
		// A literal's map: read its Go map, where NaN keys (which no
		// lookup finds) have their values too.
		var pairs [][2]ref.Val
		if native, ok := m.Value().(map[ref.Val]ref.Val); ok {
			for k, e := range native {
				pairs = append(pairs, [2]ref.Val{k, e})
			}
		} else if f, ok := m.(traits.Foldable); ok {
			// The entries as they are: a Go map's own lookup may not
			// find some of its keys (cel-go's conversions, see
			// runtime/impl's hostMap).
			f.Fold(folder(func(k, e any) bool {
				pairs = append(pairs, [2]ref.Val{Adapter.NativeToValue(k), Adapter.NativeToValue(e)})
				return true
			}))
		} else {
			it := m.Iterator()
			for it.HasNext() == types.True {
				k := it.Next()
				pairs = append(pairs, [2]ref.Val{k, m.Get(k)})
			}
		}
		var kv []any
		strKeys := true
		for _, p := range pairs {
			if _, ok := p[0].(types.String); !ok {
				strKeys = false
			}
			k, err := fromCel(p[0], depth+1)
			if err != nil {
				return nil, err
			}
			e, err := fromCel(p[1], depth+1)
			if err != nil {
				return nil, err
			}
			kv = append(kv, k, e)
		}
		if !strKeys {
			return impl.NewAnyMap(kv...), nil
		}
		out := make(map[string]any, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out, nil
	}
	if depth > 0 {
		// A value of a type the rule does not read (bytes, a timestamp,
		// a duration), inside a value.
		return Unreadable(fmt.Sprintf("cel value %T", v)), nil
	}
	return nil, fmt.Errorf("celdiff: unsupported cel value %T", v)
}

// folder is a traits.Folder of a func.
type folder func(k, v any) bool

func (f folder) FoldEntry(k, v any) bool { return f(k, v) }

// Unreadable stands, in a value compared, for an element of it that is
// not read (a host value the rule does not read): its message.
type Unreadable string

// Same reports whether two canonical runtime values are identical: same
// types, NaN equal to NaN, -0.0 distinct from 0.0, maps of any
// representation with the same entries (in any order).
func Same(a, b any) bool { return same(a, b, 0) }

func same(a, b any, depth int) bool {
	if depth > maxWalk {
		return false
	}
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		if x != x {
			return y != y
		}
		return math.Float64bits(x) == math.Float64bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case map[string]any, *impl.AnyMap:
		ea, oka := entries(a)
		eb, okb := entries(b)
		if !oka || !okb || len(ea) != len(eb) {
			return false
		}
		used := make([]bool, len(eb))
	next:
		for i := 0; i < len(ea); i += 2 {
			for j := 0; j < len(eb); j += 2 {
				if !used[j] && same(ea[i], eb[j], depth+1) && same(ea[i+1], eb[j+1], depth+1) {
					used[j] = true
					continue next
				}
			}
			return false
		}
		return true
	case []string:
		return same(impl.Normalize(a), impl.Normalize(b), depth)
	}
	switch b.(type) {
	case []string, map[string]string, *impl.AnyMap, map[string]any:
		if _, ok := a.(map[string]string); ok {
			return same(impl.Normalize(a), b, depth)
		}
		return same(b, a, depth)
	}
	return a == b
}

// entries lists the keys and values of a map, alternating.
func entries(v any) ([]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		out := make([]any, 0, 2*len(x))
		for k, e := range x {
			out = append(out, k, e)
		}
		return out, true
	case map[string]string:
		out := make([]any, 0, 2*len(x))
		for k, e := range x {
			out = append(out, k, e)
		}
		return out, true
	case *impl.AnyMap:
		out := make([]any, 0, 2*x.Len())
		for i := 0; i < x.Len(); i++ {
			k, e := x.Entry(i)
			out = append(out, k, e)
		}
		return out, true
	}
	return nil, false
}

// Vars are the variables of the Evaluator's environment and their types.
var Vars = map[string]*cel.Type{
	"i": cel.IntType, "j": cel.IntType, "k": cel.IntType,
	"u": cel.UintType, "v": cel.UintType,
	"d": cel.DoubleType, "e": cel.DoubleType,
	"s": cel.StringType, "t": cel.StringType, "r": cel.StringType,
	"bo": cel.BoolType,
	"x":  cel.DynType, "y": cel.DynType,
	"ls": cel.ListType(cel.StringType), "lt": cel.ListType(cel.StringType),
	"m": cel.MapType(cel.StringType, cel.DynType),
}

// Evaluator compiles and caches CEL programs over Vars, with the standard
// library and ext.Strings(): cel-go with host values read by the rule of
// docs/cel-semantics.md (Adapter, and ==, != and in walked strictly, as the
// reference evaluates them), or, from NewPlainEvaluator, cel-go as it is.
type Evaluator struct {
	mu    sync.Mutex
	env   *cel.Env
	plain bool
	progs map[string]cel.Program
}

// NewEvaluator builds the environment of the rule.
func NewEvaluator() (*Evaluator, error) { return newEvaluator(false) }

// NewPlainEvaluator builds cel-go's environment as it is (cel-go's adapter
// for host values, its own ==, != and in), to measure where the rule
// departs from cel-go.
func NewPlainEvaluator() (*Evaluator, error) { return newEvaluator(true) }

func newEvaluator(plain bool) (*Evaluator, error) {
	opts := []cel.EnvOption{ext.Strings(), cel.CustomTypeAdapter(Adapter)}
	if plain {
		opts = []cel.EnvOption{ext.Strings(), cel.CustomTypeAdapter(PlainAdapter)}
	} else {
		opts = append(opts, reference.StrictOps()...)
	}
	for n, t := range Vars {
		opts = append(opts, cel.Variable(n, t))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, err
	}
	return &Evaluator{env: env, plain: plain, progs: map[string]cel.Program{}}, nil
}

// Eval evaluates expr with the given activation; an evaluation error is
// returned as the ref.Val (a *types.Err), a compile error as error.
func (ev *Evaluator) Eval(expr string, act map[string]any) (ref.Val, error) {
	ev.mu.Lock()
	prg, ok := ev.progs[expr]
	if !ok {
		compile := ev.env.Compile
		if !ev.plain {
			compile = func(src string) (*cel.Ast, *cel.Issues) { return reference.CompileStrict(ev.env, src) }
		}
		ast, iss := compile(expr)
		if iss.Err() != nil {
			ev.mu.Unlock()
			return nil, iss.Err()
		}
		p, err := ev.env.Program(ast)
		if err != nil {
			ev.mu.Unlock()
			return nil, err
		}
		prg = p
		ev.progs[expr] = prg
	}
	ev.mu.Unlock()
	if ev.plain {
		// cel-go reads a host's value out of a container (tool_args, a
		// span) with its adapter; a variable holding one of its values
		// is read so.
		for k, v := range act {
			if _, ok := v.(ref.Val); ok {
				c := make(map[string]any, len(act))
				for k, v := range act {
					c[k] = v
				}
				c[k] = types.DefaultTypeAdapter.NativeToValue(v)
				act = c
			}
		}
	} else {
		// As the reference's activation hands over its facts.
		out, _, err := prg.Eval(hostActivation(act))
		if err != nil && out == nil {
			return types.WrapErr(err), nil
		}
		return out, nil
	}
	out, _, err := prg.Eval(act)
	if err != nil {
		if out == nil {
			return types.WrapErr(err), nil
		}
	}
	return out, nil
}

// hostActivation hands over its variables as the reference's activation
// hands over its facts, at each resolution: lists and maps as cel-go
// values (so that cel-go's fast paths on Go maps do not take a host's
// values by its environment's adapter, which keeps cel-go's values as
// they are); a variable holding one of cel-go's values is read as an
// element (generated code reads every host value out of a container).
type hostActivation map[string]any

func (a hostActivation) ResolveName(name string) (any, bool) {
	v, ok := a[name]
	switch v.(type) {
	case ref.Val:
		return reference.HostElem(adapter{elem: true}, v), ok
	case map[string]any, []map[string]any, []any:
		return Adapter.NativeToValue(v), ok
	}
	return v, ok
}

func (a hostActivation) Parent() interpreter.Activation { return nil }

// Check compares a runtime result (val, e) with cel-go's result c: both
// errors of the same kind (and, except for "no such overload", the same
// message), or both values and identical. It returns "" when they agree.
func Check(val any, e impl.Err, c ref.Val) string {
	if ce, ok := c.(*types.Err); ok {
		msg := ce.Error()
		if e.Ok() {
			return fmt.Sprintf("runtime gave %#v, cel-go error %q", val, msg)
		}
		if k := KindOfCelError(msg); k != e.Kind {
			return fmt.Sprintf("runtime error kind %d (%q), cel-go %q (kind %d)", e.Kind, e.Error(), msg, k)
		}
		if e.Kind != impl.ErrNoSuchOverload && e.Error() != msg && !sameClass(e.Error(), msg) {
			return fmt.Sprintf("runtime error text %q, cel-go %q", e.Error(), msg)
		}
		return ""
	}
	if !e.Ok() {
		cv, _ := FromCel(c)
		return fmt.Sprintf("runtime error %q, cel-go value %s", e.Error(), Show(cv))
	}
	cv, err := FromCel(c)
	if err != nil {
		return err.Error()
	}
	if !Same(Canon(val), cv) {
		return fmt.Sprintf("runtime %s, cel-go %s", Show(val), Show(cv))
	}
	return ""
}

// sameClass reports whether two error messages are of one class whose
// details differ between the runtime and cel-go: "invalid qualifier type"
// (the runtime names the CEL type, cel-go the Go type); the error of a
// host value that is not read (when several are, which one a walk over a
// map meets first depends on Go's map order); and, for x[k], cel-go's
// "invalid qualifier type" where the runtime reads x or k and fails (cel-go
// checks the key first, and takes a variable it cannot read for a key of
// type *types.Err).
func sameClass(runtime, cel string) bool {
	const qualifier, unsupported = "invalid qualifier type: ", "unsupported value of Go type "
	const tooDeep = "value too deeply nested or cyclic"
	switch {
	case (strings.HasPrefix(runtime, unsupported) || strings.HasPrefix(runtime, tooDeep)) &&
		(strings.HasPrefix(cel, unsupported) || strings.HasPrefix(cel, tooDeep)):
		// A walk that meets several values it cannot read (one nested
		// too deep among them) meets first the one Go's map order puts
		// first.
		return true
	case strings.HasPrefix(runtime, qualifier) && strings.HasPrefix(cel, qualifier):
		return true
	case strings.HasPrefix(runtime, unsupported) && strings.HasPrefix(cel, unsupported):
		return true
	case strings.HasPrefix(runtime, unsupported) && strings.HasPrefix(cel, qualifier):
		return true
	}
	return false
}

// Canon deeply converts a runtime value (with host conveniences anywhere
// inside) to the canonical representation FromCel produces.
func Canon(v any) any { return canon(v, 0) }

func canon(v any, depth int) any {
	if depth > maxWalk {
		return v
	}
	v, e := impl.Read(v)
	if !e.Ok() {
		return Unreadable(e.Error())
	}
	if kv, ok := impl.Entries(v); ok {
		if _, isMap := v.(map[string]any); !isMap {
			if _, isAny := v.(*impl.AnyMap); !isAny {
				v = impl.NewAnyMap(kv...)
			}
		}
	}
	switch x := impl.Normalize(v).(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canon(e, depth+1)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = canon(e, depth+1)
		}
		return out
	case *impl.AnyMap:
		kv := make([]any, 0, 2*x.Len())
		strKeys := true
		for i := 0; i < x.Len(); i++ {
			k, e := x.Entry(i)
			if _, ok := k.(string); !ok {
				strKeys = false
			}
			kv = append(kv, canon(k, depth+1), canon(e, depth+1))
		}
		if strKeys {
			out := make(map[string]any, len(kv)/2)
			for i := 0; i < len(kv); i += 2 {
				out[kv[i].(string)] = kv[i+1]
			}
			return out
		}
		return impl.NewAnyMap(kv...)
	default:
		return x
	}
}

// Show formats a value for a message, like %#v but for the runtime's
// representations, and cut short inside cyclic or very deep values (which
// make fmt recurse forever).
func Show(v any) string {
	var b strings.Builder
	show(&b, v, 0)
	return b.String()
}

func show(b *strings.Builder, v any, depth int) {
	if depth > 12 {
		b.WriteString("…")
		return
	}
	switch x := v.(type) {
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			show(b, e, depth+1)
		}
		b.WriteString("]")
		return
	case []map[string]any:
		b.WriteString("[]map[string]any")
		show(b, impl.Normalize(x), depth)
		return
	case map[string]any, map[string]string, *impl.AnyMap:
		kv, _ := entries(x)
		var parts []string
		for i := 0; i < len(kv); i += 2 {
			var p strings.Builder
			show(&p, kv[i], depth+1)
			p.WriteString(": ")
			show(&p, kv[i+1], depth+1)
			parts = append(parts, p.String())
		}
		if _, ok := x.(*impl.AnyMap); !ok {
			sort.Strings(parts)
		}
		fmt.Fprintf(b, "%s{%s}", mapTag(x), strings.Join(parts, ", "))
		return
	}
	if v != nil {
		switch rv := reflect.ValueOf(v); rv.Kind() {
		case reflect.Func:
			b.WriteString("func")
			return
		case reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer, reflect.Struct, reflect.Interface:
			if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
				break
			}
			// Named and typed containers, pointers and structs (cel-go's
			// values among them) may be cyclic or deep: their type, and
			// their elements shown the same way.
			fmt.Fprintf(b, "%s(", rv.Type())
			showReflect(b, rv, depth+1)
			b.WriteString(")")
			return
		}
	}
	fmt.Fprintf(b, "%#v", v)
}

func showReflect(b *strings.Builder, rv reflect.Value, depth int) {
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("[")
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			showElem(b, rv.Index(i), depth)
		}
		b.WriteString("]")
	case reflect.Map:
		if rv.IsNil() {
			b.WriteString("nil")
			return
		}
		var parts []string
		for it := rv.MapRange(); it.Next(); {
			var p strings.Builder
			showElem(&p, it.Key(), depth)
			p.WriteString(": ")
			showElem(&p, it.Value(), depth)
			parts = append(parts, p.String())
		}
		sort.Strings(parts)
		fmt.Fprintf(b, "{%s}", strings.Join(parts, ", "))
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("&")
		showElem(b, rv.Elem(), depth)
	case reflect.Struct:
		b.WriteString("{")
		for i := 0; i < rv.NumField(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(rv.Type().Field(i).Name + ": ")
			showElem(b, rv.Field(i), depth)
		}
		b.WriteString("}")
	default:
		fmt.Fprintf(b, "%v", rv)
	}
}

func showElem(b *strings.Builder, rv reflect.Value, depth int) {
	if depth > 12 {
		b.WriteString("…")
		return
	}
	if rv.CanInterface() {
		show(b, rv.Interface(), depth+1)
		return
	}
	showReflect(b, rv, depth+1)
}

func mapTag(v any) string {
	switch v.(type) {
	case *impl.AnyMap:
		return "AnyMap"
	case map[string]string:
		return "map[string]string"
	}
	return "map"
}
