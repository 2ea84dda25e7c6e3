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

// guardType converts a declared parameter type; type parameters, dyn and
// types the generator does not represent accept anything.
func guardType(t *types.Type) *ir.Type {
	if g, ok := irType(t); ok {
		return g
	}
	return ir.DynType
}
