package lower

import (
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"

	"github.com/oarc/oarc/ir"
)

var (
	stdOnce sync.Once
	stdEnv  *cel.Env
)

// overloadParams returns the declared parameter types of a standard
// library or strings-extension overload when cel-go calls it through a
// runtime type guard, or nil.
func overloadParams(fn, id string, arity int) []*ir.Type {
	stdOnce.Do(func() { stdEnv, _ = cel.NewEnv(ext.Strings()) })
	if stdEnv == nil {
		return nil
	}
	decl, ok := stdEnv.Functions()[fn]
	if !ok {
		return nil
	}
	// Only an overload with a binding of its own is called through a type
	// guard; a function with a singleton binding (the operators) dispatches
	// on the operands' traits whatever overload the checker chose.
	bindings, err := decl.Bindings()
	if err != nil {
		return nil
	}
	own := false
	for _, b := range bindings {
		own = own || b.Operator == id
	}
	if !own {
		return nil
	}
	for _, o := range decl.OverloadDecls() {
		if o.ID() != id || len(o.ArgTypes()) != arity {
			continue
		}
		var out []*ir.Type
		for _, t := range o.ArgTypes() {
			out = append(out, guardType(t))
		}
		return out
	}
	return nil
}

// guardType converts a declared parameter type; type parameters and dyn
// accept anything.
func guardType(t *types.Type) *ir.Type {
	switch t.Kind() {
	case types.BoolKind:
		return ir.BoolType
	case types.IntKind:
		return ir.IntType
	case types.UintKind:
		return ir.UintType
	case types.DoubleKind:
		return ir.DoubleType
	case types.StringKind:
		return ir.StringType
	case types.NullTypeKind:
		return ir.NullType
	case types.ListKind:
		return ir.ListOf(guardType(t.Parameters()[0]))
	case types.MapKind:
		return ir.MapOf(guardType(t.Parameters()[0]), guardType(t.Parameters()[1]))
	}
	return ir.DynType
}
