// Package lower turns cel-go's checked AST of a rule's `when` into IR.
//
// The lowering resolves every node to an operation and static operand types
// (from the checker's type map), so that codegen never has to guess; what the
// code generator cannot compile exactly is reported here as OAR_UNSUPPORTED at
// the offending node, never silently approximated.
package lower

import (
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
)

// Problem is something the lowering cannot compile, at an offset of the
// expression source in code points (as cel-go counts offsets).
type Problem struct {
	Offset  int
	Code    string // OAR_UNSUPPORTED or OAR_REF
	Message string
}

// Options carries what the lowering needs beyond the AST.
type Options struct {
	// RuleIDs are the ids of the rules of the pack, for fire_count_of and
	// breaker_count_of references. Nil skips the check.
	RuleIDs map[string]bool
	// Detector is true for kind: detector rules, whose detector facts read
	// the validator's values.
	Detector bool
}

// DetectorFacts are the facts a validator may supply.
var DetectorFacts = map[string]bool{
	"prompt_injection_score": true,
	"jailbreak_score":        true,
	"pii_entities":           true,
	"secret_matches":         true,
}

// When lowers a checked expression.
func When(checked *cel.Ast, opts Options) (ir.Expr, []Problem) {
	if checked == nil {
		return nil, nil
	}
	a := checked.NativeRep()
	l := &lowerer{a: a, opts: opts, cat: catalog.Default()}
	e := l.expr(a.Expr())
	if len(l.problems) > 0 {
		return nil, l.problems
	}
	sound(e)
	return e, nil
}

type lowerer struct {
	a        *ast.AST
	opts     Options
	cat      *catalog.Catalog
	scopes   []scopeVar
	problems []Problem
}

type scopeVar struct {
	name string
	t    *ir.Type
}

func (l *lowerer) off(e ast.Expr) int {
	if r, ok := l.a.SourceInfo().GetOffsetRange(e.ID()); ok {
		return int(r.Start)
	}
	return 0
}

func (l *lowerer) fail(e ast.Expr, code, format string, args ...any) ir.Expr {
	l.problems = append(l.problems, Problem{Offset: l.off(e), Code: code, Message: fmt.Sprintf(format, args...)})
	return &ir.Const{Node: ir.Node{T: ir.DynType, Off: l.off(e)}, Value: nil}
}

func (l *lowerer) unsupported(e ast.Expr, format string, args ...any) ir.Expr {
	return l.fail(e, "OAR_UNSUPPORTED", format, args...)
}

// irType converts a checker type; ok is false for types the generator does
// not support (bytes, timestamps, durations, types, optionals, messages).
func irType(t *types.Type) (*ir.Type, bool) {
	if t == nil {
		return ir.DynType, true
	}
	switch t.Kind() {
	case types.DynKind, types.AnyKind:
		return ir.DynType, true
	case types.BoolKind:
		return ir.BoolType, true
	case types.IntKind:
		return ir.IntType, true
	case types.UintKind:
		return ir.UintType, true
	case types.DoubleKind:
		return ir.DoubleType, true
	case types.StringKind:
		return ir.StringType, true
	case types.NullTypeKind:
		return ir.NullType, true
	case types.ListKind:
		e, ok := irType(t.Parameters()[0])
		return ir.ListOf(e), ok
	case types.MapKind:
		k, ok1 := irType(t.Parameters()[0])
		v, ok2 := irType(t.Parameters()[1])
		return ir.MapOf(k, v), ok1 && ok2
	case types.TypeKind:
		return ir.TypeType, true
	case types.TypeParamKind:
		// An unresolved type parameter (e.g. the element of an empty list
		// literal) is dyn.
		return ir.DynType, true
	}
	return nil, false
}

func (l *lowerer) typeOf(e ast.Expr) (*ir.Type, bool) {
	t, ok := irType(l.a.GetType(e.ID()))
	if !ok {
		l.unsupported(e, "values of type %s are not supported by the code generator", l.a.GetType(e.ID()))
		return ir.DynType, false
	}
	return t, true
}

func (l *lowerer) node(e ast.Expr) ir.Node {
	t, _ := l.typeOf(e)
	return ir.Node{T: t, Off: l.off(e)}
}

// readNode is the node of a value read from x by index or selection: when
// x is dyn the value is dyn, whatever type the checker inferred for it from
// its context (which may even be one the generator does not support, as
// bytes in size(tool_args.l[0])).
func (l *lowerer) readNode(e ast.Expr, x ir.Expr) ir.Node {
	if x.Type().Is(ir.KDyn) {
		return ir.Node{T: ir.DynType, Off: l.off(e)}
	}
	return l.node(e)
}

func (l *lowerer) lookupVar(name string) *ir.Type {
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if l.scopes[i].name == name {
			return l.scopes[i].t
		}
	}
	return nil
}

func (l *lowerer) expr(e ast.Expr) ir.Expr {
	switch e.Kind() {
	case ast.LiteralKind:
		return l.literal(e)
	case ast.IdentKind:
		return l.ident(e, e.AsIdent())
	case ast.SelectKind:
		if ref, ok := l.a.ReferenceMap()[e.ID()]; ok && ref.Name != "" && len(ref.OverloadIDs) == 0 {
			return l.ident(e, ref.Name)
		}
		s := e.AsSelect()
		x := l.expr(s.Operand())
		if s.IsTestOnly() {
			return &ir.Select{Node: ir.Node{T: ir.BoolType, Off: l.off(e)}, X: x, Field: s.FieldName(), Test: true}
		}
		return &ir.Select{Node: l.readNode(e, x), X: x, Field: s.FieldName()}
	case ast.ListKind:
		lst := e.AsList()
		if len(lst.OptionalIndices()) > 0 {
			return l.unsupported(e, "optional list elements are not supported")
		}
		n := &ir.List{Node: l.node(e)}
		for _, el := range lst.Elements() {
			n.Elems = append(n.Elems, l.expr(el))
		}
		return n
	case ast.MapKind:
		m := e.AsMap()
		n := &ir.Map{Node: l.node(e)}
		if !n.T.Key.Is(ir.KString) {
			return l.unsupported(e, "map literals with %s keys are not supported; use string keys", n.T.Key)
		}
		for _, ent := range m.Entries() {
			me := ent.AsMapEntry()
			if me.IsOptional() {
				return l.unsupported(e, "optional map entries are not supported")
			}
			n.Keys = append(n.Keys, l.expr(me.Key()))
			n.Values = append(n.Values, l.expr(me.Value()))
		}
		return n
	case ast.StructKind:
		return l.unsupported(e, "message construction is not supported")
	case ast.ComprehensionKind:
		return l.comprehension(e)
	case ast.CallKind:
		return l.call(e)
	}
	return l.unsupported(e, "unsupported expression")
}

func (l *lowerer) literal(e ast.Expr) ir.Expr {
	n := ir.Node{Off: l.off(e)}
	switch v := e.AsLiteral().(type) {
	case types.Bool:
		n.T = ir.BoolType
		return &ir.Const{Node: n, Value: bool(v)}
	case types.Int:
		n.T = ir.IntType
		return &ir.Const{Node: n, Value: int64(v)}
	case types.Uint:
		n.T = ir.UintType
		return &ir.Const{Node: n, Value: uint64(v)}
	case types.Double:
		n.T = ir.DoubleType
		return &ir.Const{Node: n, Value: float64(v)}
	case types.String:
		n.T = ir.StringType
		return &ir.Const{Node: n, Value: string(v)}
	case types.Null:
		n.T = ir.NullType
		return &ir.Const{Node: n, Value: nil}
	}
	return l.unsupported(e, "literals of type %s are not supported", e.AsLiteral().Type())
}

func (l *lowerer) ident(e ast.Expr, name string) ir.Expr {
	if t := l.lookupVar(name); t != nil {
		return &ir.Var{Node: ir.Node{T: t, Off: l.off(e)}, Name: name}
	}
	switch name {
	case "fire_count", "breaker_count":
		return &ir.Counter{Node: ir.Node{T: ir.IntType, Off: l.off(e)}, Slot: -1, Counter: name[:len(name)-len("_count")]}
	}
	if f := l.cat.Fact(name); f != nil {
		return &ir.Fact{Node: l.node(e), Name: name, Detector: l.opts.Detector && DetectorFacts[name]}
	}
	if typeNames[name] && l.a.GetType(e.ID()).Kind() == types.TypeKind {
		return &ir.Const{Node: ir.Node{T: ir.TypeType, Off: l.off(e)}, Value: ir.TypeName(name)}
	}
	return l.unsupported(e, "unknown identifier %s", name)
}

// typeNames are the type identifiers whose values the generator supports.
var typeNames = map[string]bool{
	"int": true, "uint": true, "double": true, "bool": true, "string": true,
	"bytes": true, "list": true, "map": true, "null_type": true, "type": true,
}

// ops maps CEL function names to IR operations with a fixed arity
// (receiver counted as an argument).
var ops = map[string]struct {
	op    string
	arity []int
}{
	"_+_": {"add", []int{2}}, "_-_": {"sub", []int{2}}, "_*_": {"mul", []int{2}},
	"_/_": {"div", []int{2}}, "_%_": {"mod", []int{2}}, "-_": {"neg", []int{1}},
	"!_": {"not", []int{1}}, "_==_": {"eq", []int{2}}, "_!=_": {"ne", []int{2}},
	"_<_": {"lt", []int{2}}, "_<=_": {"le", []int{2}}, "_>_": {"gt", []int{2}}, "_>=_": {"ge", []int{2}},
	"@in": {"in", []int{2}}, "size": {"size", []int{1}},
	"contains": {"contains", []int{2}}, "startsWith": {"startsWith", []int{2}}, "endsWith": {"endsWith", []int{2}},
	"matches": {"matches", []int{2}},
	"int":     {"int", []int{1}}, "double": {"double", []int{1}}, "string": {"string", []int{1}},
	"bool": {"bool", []int{1}}, "dyn": {"dyn", []int{1}}, "type": {"type", []int{1}},
	"lowerAscii": {"lowerAscii", []int{1}}, "upperAscii": {"upperAscii", []int{1}}, "trim": {"trim", []int{1}},
	"split": {"split", []int{2, 3}}, "join": {"join", []int{1, 2}}, "replace": {"replace", []int{3, 4}},
	"indexOf": {"indexOf", []int{2, 3}}, "lastIndexOf": {"lastIndexOf", []int{2, 3}},
	"substring": {"substring", []int{2, 3}}, "charAt": {"charAt", []int{2}},
}

func (l *lowerer) call(e ast.Expr) ir.Expr {
	c := e.AsCall()
	fn := c.FunctionName()
	var args []ast.Expr
	if c.IsMemberFunction() {
		args = append(args, c.Target())
	}
	args = append(args, c.Args()...)
	// Catalog functions, possibly namespaced: lycaon.f(x) parses as a member
	// call on the identifier lycaon.
	qual := fn
	if c.IsMemberFunction() && c.Target().Kind() == ast.IdentKind && c.Target().AsIdent() == catalog.HostNamespace && l.lookupVar(catalog.HostNamespace) == nil {
		qual = catalog.HostNamespace + "." + fn
		args = args[1:]
	}
	if f := l.cat.Function(qual); f != nil && len(args) == 1 {
		return l.observe(e, f, args[0])
	}
	switch fn {
	case "_&&_", "_||_":
		var terms []ir.Expr
		l.flatten(e, fn, &terms)
		if fn == "_&&_" {
			return &ir.And{Node: ir.Node{T: ir.BoolType, Off: l.off(e)}, Terms: terms}
		}
		return &ir.Or{Node: ir.Node{T: ir.BoolType, Off: l.off(e)}, Terms: terms}
	case "_?_:_":
		c, t, f := l.expr(args[0]), l.expr(args[1]), l.expr(args[2])
		if t.Type().Is(ir.KDyn) || f.Type().Is(ir.KDyn) || !t.Type().Equal(f.Type()) {
			return &ir.Cond{Node: ir.Node{T: ir.DynType, Off: l.off(e)}, C: c, Then: t, Else: f}
		}
		return &ir.Cond{Node: l.node(e), C: c, Then: t, Else: f}
	case "_[_]":
		x := l.expr(args[0])
		return &ir.Index{Node: l.readNode(e, x), X: x, I: l.expr(args[1])}
	case "@not_strictly_false":
		return l.unsupported(e, "internal function %s outside a macro", fn)
	}
	spec, ok := ops[fn]
	if !ok {
		// cel-go places a call at its opening parenthesis; point at the
		// function's name instead.
		off := l.off(e)
		if !c.IsMemberFunction() && off >= len(fn) {
			off -= len(fn)
		}
		l.problems = append(l.problems, Problem{Offset: off, Code: "OAR_UNSUPPORTED", Message: fmt.Sprintf("function %s is not supported by the code generator", fn)})
		return &ir.Const{Node: ir.Node{T: ir.DynType, Off: off}}
	}
	arityOK := false
	for _, n := range spec.arity {
		arityOK = arityOK || n == len(args)
	}
	if !arityOK {
		return l.unsupported(e, "%s with %d arguments is not supported", fn, len(args))
	}
	var lowered []ir.Expr
	anyDyn := false
	for _, a := range args {
		x := l.expr(a)
		lowered = append(lowered, x)
		anyDyn = anyDyn || x.Type().Is(ir.KDyn) || x.Type().Is(ir.KNull)
	}
	node := ir.Node{T: ir.DynType, Off: l.off(e)}
	if fixedResult[spec.op] || !anyDyn {
		// Otherwise the result is dyn whatever the checker inferred from
		// the context (see sound); its inferred type is not looked at.
		node = l.node(e)
	}
	n := &ir.Call{Node: node, Op: spec.op, Args: lowered}
	if ids := l.a.GetOverloadIDs(e.ID()); len(ids) == 1 {
		n.Guards = overloadParams(fn, ids[0], len(args))
	}
	for _, a := range n.Args {
		if a.Type().Is(ir.KUint) {
			l.problems = append(l.problems, Problem{Offset: a.Offset(), Code: "OAR_UNSUPPORTED", Message: "unsigned integers are not supported by the code generator; use int"})
		}
	}
	return n
}

func (l *lowerer) flatten(e ast.Expr, fn string, out *[]ir.Expr) {
	if e.Kind() == ast.CallKind && e.AsCall().FunctionName() == fn {
		for _, a := range e.AsCall().Args() {
			l.flatten(a, fn, out)
		}
		return
	}
	*out = append(*out, l.expr(e))
}

func (l *lowerer) observe(e ast.Expr, f *catalog.Function, arg ast.Expr) ir.Expr {
	switch f.Name {
	case "fire_count_of", "breaker_count_of":
		if arg.Kind() != ast.LiteralKind {
			return l.fail(arg, "OAR_REF", "the argument of %s must be a string literal naming a rule of the pack", f.Name)
		}
		id, ok := arg.AsLiteral().(types.String)
		if !ok {
			return l.fail(arg, "OAR_REF", "the argument of %s must be a string literal naming a rule of the pack", f.Name)
		}
		if l.opts.RuleIDs != nil && !l.opts.RuleIDs[string(id)] {
			return l.fail(arg, "OAR_REF", "%s(%q): no rule %s in the pack", f.Name, string(id), string(id))
		}
		return &ir.Counter{Node: ir.Node{T: ir.IntType, Off: l.off(e)}, Rule: string(id), Slot: -1, Counter: f.Name[:len(f.Name)-len("_count_of")]}
	}
	t := IRType(f.Result)
	return &ir.Observe{Node: ir.Node{T: t, Off: l.off(e)}, Func: f.CELName, Provider: f.Provider, Arg: l.expr(arg)}
}

// IRType is the IR type of a catalog type.
func IRType(t catalog.Type) *ir.Type {
	switch t {
	case catalog.String:
		return ir.StringType
	case catalog.Int:
		return ir.IntType
	case catalog.Bool:
		return ir.BoolType
	case catalog.Double:
		return ir.DoubleType
	case catalog.ListString:
		return ir.ListOf(ir.StringType)
	case catalog.MapStringDyn:
		return ir.MapOf(ir.StringType, ir.DynType)
	case catalog.ListMapStringDyn:
		return ir.ListOf(ir.MapOf(ir.StringType, ir.DynType))
	}
	return ir.DynType
}

// comprehension recognises the macros by the call recorded in the source
// info and takes the predicate or transform out of the expanded loop step.
func (l *lowerer) comprehension(e ast.Expr) ir.Expr {
	c := e.AsComprehension()
	if c.HasIterVar2() {
		return l.unsupported(e, "two-variable comprehensions are not supported")
	}
	macro := macroOf(c)
	if macro == "" {
		return l.unsupported(e, "comprehensions other than the standard macros are not supported")
	}
	rng := l.expr(c.IterRange())
	var vt *ir.Type
	switch rt := rng.Type(); rt.Kind {
	case ir.KList:
		vt = rt.Elem
	case ir.KMap:
		vt = rt.Key
	default:
		vt = ir.DynType
	}
	// The result type follows from the range and the body, not from the
	// checker's (context-inferred) type; see sound.
	n := &ir.Comprehension{Node: ir.Node{T: ir.BoolType, Off: l.off(e)}, Macro: macro, Range: rng, Var: c.IterVar()}
	if macro == "filter" {
		n.T = ir.ListOf(vt)
	}
	defer func() {
		if macro == "map" && n.Body != nil {
			n.T = ir.ListOf(n.Body.Type())
		}
	}()
	l.scopes = append(l.scopes, scopeVar{c.IterVar(), vt})
	defer func() { l.scopes = l.scopes[:len(l.scopes)-1] }()
	step := c.LoopStep()
	if macro == "filter" || macro == "map" {
		if a := callArgs(step, "_?_:_"); len(a) == 3 && macro == "filter" {
			step = a[1]
		}
	}
	bad := func() ir.Expr { return l.unsupported(e, "unrecognised expansion of macro %s", macro) }
	switch macro {
	case "all", "exists":
		op := "_&&_"
		if macro == "exists" {
			op = "_||_"
		}
		a := callArgs(step, op)
		if len(a) != 2 {
			return bad()
		}
		n.Pred = l.expr(a[1])
	case "exists_one":
		a := callArgs(step, "_?_:_")
		if len(a) != 3 {
			return bad()
		}
		n.Pred = l.expr(a[0])
	case "filter":
		a := callArgs(c.LoopStep(), "_?_:_")
		if len(a) != 3 {
			return bad()
		}
		n.Pred = l.expr(a[0])
	case "map":
		if a := callArgs(step, "_?_:_"); len(a) == 3 {
			n.Pred = l.expr(a[0])
			step = a[1]
		}
		a := callArgs(step, "_+_")
		if len(a) != 2 || a[1].Kind() != ast.ListKind || len(a[1].AsList().Elements()) != 1 {
			return bad()
		}
		n.Body = l.expr(a[1].AsList().Elements()[0])
	default:
		return l.unsupported(e, "macro %s is not supported", macro)
	}
	return n
}

func callArgs(x ast.Expr, fn string) []ast.Expr {
	if x.Kind() == ast.CallKind && x.AsCall().FunctionName() == fn {
		return x.AsCall().Args()
	}
	return nil
}

// macroOf recognises the standard macros by the shape of their expansion
// (cel-go's parser/macro.go), so that it does not depend on the parser
// recording macro calls.
func macroOf(c ast.ComprehensionExpr) string {
	init := c.AccuInit()
	step := c.LoopStep()
	accu := c.AccuVar()
	isAccu := func(x ast.Expr) bool { return x.Kind() == ast.IdentKind && x.AsIdent() == accu }
	appendsTo := func(x ast.Expr) (ast.Expr, bool) {
		a := callArgs(x, "_+_")
		if len(a) != 2 || !isAccu(a[0]) || a[1].Kind() != ast.ListKind || len(a[1].AsList().Elements()) != 1 {
			return nil, false
		}
		return a[1].AsList().Elements()[0], true
	}
	switch init.Kind() {
	case ast.LiteralKind:
		switch v := init.AsLiteral().(type) {
		case types.Bool:
			if a := callArgs(step, "_&&_"); bool(v) && len(a) == 2 && isAccu(a[0]) {
				return "all"
			}
			if a := callArgs(step, "_||_"); !bool(v) && len(a) == 2 && isAccu(a[0]) {
				return "exists"
			}
		case types.Int:
			if a := callArgs(step, "_?_:_"); v == 0 && len(a) == 3 && isAccu(a[2]) {
				return "exists_one"
			}
		}
	case ast.ListKind:
		if len(init.AsList().Elements()) != 0 {
			return ""
		}
		if a := callArgs(step, "_?_:_"); len(a) == 3 && isAccu(a[2]) {
			if el, ok := appendsTo(a[1]); ok {
				if el.Kind() == ast.IdentKind && el.AsIdent() == c.IterVar() {
					return "filter"
				}
				return "map"
			}
		}
		if _, ok := appendsTo(step); ok {
			return "map"
		}
	}
	return ""
}
