// Package celdiff holds helpers for differential tests that compare the
// runtime's CEL helpers (and generated code) with cel-go.
package celdiff

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"

	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/reference"
)

// KindOfCelError maps a cel-go evaluation error message to the runtime's
// error kind (see [reference.KindOfCelError]).
func KindOfCelError(msg string) runtime.ErrKind { return reference.KindOfCelError(msg) }

// ToCel converts a runtime value to a cel-go value as the activation would.
func ToCel(v any) ref.Val { return types.DefaultTypeAdapter.NativeToValue(v) }

// FromCel converts a cel-go value to the runtime's canonical dyn
// representation (nil, bool, int64, uint64, float64, string, []any,
// map[string]any). Errors and other types are returned as an error.
func FromCel(v ref.Val) (any, error) {
	switch x := v.(type) {
	case *types.Err:
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
	}
	if l, ok := v.(traits.Lister); ok {
		n := int(l.Size().(types.Int))
		out := make([]any, n)
		for i := 0; i < n; i++ {
			e, err := FromCel(l.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	if m, ok := v.(traits.Mapper); ok {
		out := map[string]any{}
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			ks, ok := k.(types.String)
			if !ok {
				return nil, fmt.Errorf("celdiff: non-string map key %v", k)
			}
			e, err := FromCel(m.Get(k))
			if err != nil {
				return nil, err
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return nil, fmt.Errorf("celdiff: unsupported cel value %T", v)
}

// Same reports whether two canonical runtime values are identical: same
// types, NaN equal to NaN, -0.0 distinct from 0.0.
func Same(a, b any) bool {
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
			if !Same(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Same(v, w) {
				return false
			}
		}
		return true
	case []string:
		return Same(runtime.Normalize(a), runtime.Normalize(b))
	}
	switch b.(type) {
	case []string, map[string]string:
		return Same(a, runtime.Normalize(b))
	}
	return a == b
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
// library and ext.Strings().
type Evaluator struct {
	mu    sync.Mutex
	env   *cel.Env
	progs map[string]cel.Program
}

// NewEvaluator builds the environment.
func NewEvaluator() (*Evaluator, error) {
	opts := []cel.EnvOption{ext.Strings()}
	for n, t := range Vars {
		opts = append(opts, cel.Variable(n, t))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, err
	}
	return &Evaluator{env: env, progs: map[string]cel.Program{}}, nil
}

// Eval evaluates expr with the given activation; an evaluation error is
// returned as the ref.Val (a *types.Err), a compile error as error.
func (ev *Evaluator) Eval(expr string, act map[string]any) (ref.Val, error) {
	ev.mu.Lock()
	prg, ok := ev.progs[expr]
	if !ok {
		ast, iss := ev.env.Compile(expr)
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
	out, _, err := prg.Eval(act)
	if err != nil {
		if out == nil {
			return types.WrapErr(err), nil
		}
	}
	return out, nil
}

// Check compares a runtime result (val, e) with cel-go's result c: both
// errors of the same kind (and, except for "no such overload", the same
// message), or both values and identical. It returns "" when they agree.
func Check(val any, e runtime.Err, c ref.Val) string {
	if ce, ok := c.(*types.Err); ok {
		msg := ce.Error()
		if e.Ok() {
			return fmt.Sprintf("runtime gave %#v, cel-go error %q", val, msg)
		}
		if k := KindOfCelError(msg); k != e.Kind {
			return fmt.Sprintf("runtime error kind %d (%q), cel-go %q (kind %d)", e.Kind, e.Error(), msg, k)
		}
		if e.Kind != runtime.ErrNoSuchOverload && e.Error() != msg &&
			!(strings.HasPrefix(msg, "invalid qualifier type: ") && strings.HasPrefix(e.Error(), "invalid qualifier type: ")) {
			return fmt.Sprintf("runtime error text %q, cel-go %q", e.Error(), msg)
		}
		return ""
	}
	if !e.Ok() {
		cv, _ := FromCel(c)
		return fmt.Sprintf("runtime error %q, cel-go value %#v", e.Error(), cv)
	}
	cv, err := FromCel(c)
	if err != nil {
		return err.Error()
	}
	if !Same(Canon(val), cv) {
		return fmt.Sprintf("runtime %#v, cel-go %#v", val, cv)
	}
	return ""
}

// Canon deeply converts a runtime value (with host conveniences anywhere
// inside) to the canonical representation FromCel produces.
func Canon(v any) any {
	switch x := runtime.Normalize(v).(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Canon(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Canon(e)
		}
		return out
	default:
		return x
	}
}
