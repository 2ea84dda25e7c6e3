package lower

import "github.com/oarc/oarc/ir"

// sound replaces the checker's types where they are not guaranteed at run
// time. The checker infers the type of a value read from a dyn from its
// context (in `tool_args.a["k"] in {"a": 1}` the index is typed string),
// but cel-go evaluates by the value's dynamic type, whatever the checker
// inferred. So every value that may come from a dyn is typed dyn here,
// and the generated code dispatches on its dynamic type, as cel-go does.
func sound(e ir.Expr) {
	if c, ok := e.(*ir.Comprehension); ok {
		sound(c.Range)
		retypeVar(c.Pred, c.Var, c.Range.Type().Iter())
		retypeVar(c.Body, c.Var, c.Range.Type().Iter())
		if c.Pred != nil {
			sound(c.Pred)
		}
		if c.Body != nil {
			sound(c.Body)
		}
	} else {
		for _, c := range ir.Children(e) {
			sound(c)
		}
	}
	dyn := func(x ir.Expr) bool { return x.Type().Is(ir.KDyn) }
	set := func(t *ir.Type) {
		switch n := e.(type) {
		case *ir.Call:
			n.T = t
		case *ir.Select:
			n.T = t
		case *ir.Index:
			n.T = t
		case *ir.Cond:
			n.T = t
		case *ir.List:
			n.T = t
		case *ir.Map:
			n.T = t
		case *ir.Comprehension:
			n.T = t
		}
	}
	switch n := e.(type) {
	case *ir.Select:
		if !n.Test {
			set(n.X.Type().Value())
		}
	case *ir.Index:
		set(n.X.Type().Value())
	case *ir.Cond:
		if dyn(n.Then) || dyn(n.Else) || !n.Then.Type().Equal(n.Else.Type()) {
			set(ir.DynType)
		}
	case *ir.Call:
		if n.Op.Info().Result != nil {
			return
		}
		for _, a := range n.Args {
			if dyn(a) || a.Type().Is(ir.KNull) {
				set(ir.DynType)
				return
			}
		}
		if n.Op == ir.OpAdd && n.Type().Is(ir.KList) && !n.Args[0].Type().Equal(n.Args[1].Type()) {
			set(ir.ListOf(ir.DynType))
		}
	case *ir.List:
		for _, x := range n.Elems {
			if !x.Type().Equal(n.T.Elem) {
				set(ir.ListOf(ir.DynType))
				return
			}
		}
	case *ir.Map:
		key, val := n.T.Key, n.T.Val
		for i := range n.Keys {
			if !n.Keys[i].Type().Equal(key) {
				key = ir.DynType
			}
			if !n.Values[i].Type().Equal(val) {
				val = ir.DynType
			}
		}
		set(ir.MapOf(key, val))
	case *ir.Comprehension:
		switch n.Macro {
		case ir.Filter:
			set(ir.ListOf(n.Range.Type().Iter()))
		case ir.MapMacro:
			set(ir.ListOf(n.Body.Type()))
		}
	}
}

// retypeVar gives the references to a comprehension variable the type of
// the (sound) range, stopping where a nested comprehension shadows it.
func retypeVar(e ir.Expr, name string, t *ir.Type) {
	switch n := e.(type) {
	case nil:
		return
	case *ir.Var:
		if n.Name == name {
			n.T = t
		}
		return
	case *ir.Comprehension:
		retypeVar(n.Range, name, t)
		if n.Var == name {
			return
		}
	}
	for _, c := range ir.Children(e) {
		if cc, ok := e.(*ir.Comprehension); ok && c == cc.Range {
			continue
		}
		retypeVar(c, name, t)
	}
}
