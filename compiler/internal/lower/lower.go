// Package lower turns cel-go's checked AST of a rule's `when` into IR.
//
// The lowering resolves every node to an operation and static operand types
// (from the checker's type map), so that codegen never has to guess; what the
// code generator cannot compile exactly is reported here as OAR_UNSUPPORTED at
// the offending node, never silently approximated.
package lower

import (
	"fmt"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
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

// Options carries what the lowering needs beyond the AST: with them the IR
// it returns is final (counter slots, detector facts and field paths
// resolved), so nothing after it rewrites the IR.
type Options struct {
	// Catalog is the catalog the expression was checked against; nil is
	// the default catalog.
	Catalog *catalog.Catalog
	// Self is the id of the rule the expression belongs to: fire_count and
	// breaker_count read its counters.
	Self string
	// Slots are the counter slots of the rules of the compilation set, for
	// fire_count_of and breaker_count_of. A name not in Slots is OAR_REF.
	Slots map[string]int
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

// FactField is the Go field path of a fact in the facts struct: host
// facts live under a field named after the host namespace.
func FactField(cat *catalog.Catalog, f *catalog.Fact) []string {
	switch f.Tier {
	case catalog.Host:
		return []string{cat.HostField(), f.GoName}
	case catalog.Oarc:
		// Derived from the session (spec 5.7): the field of runtime.Scope.
		return []string{strings.TrimPrefix(f.GoName, "Provenance")}
	}
	return []string{f.GoName}
}

// ProviderField is the Go field of the providers struct that answers a
// provider-backed function (the catalog names it, host functions included).
func ProviderField(cat *catalog.Catalog, f *catalog.Function) string {
	return f.GoName
}

// When lowers a checked expression.
func When(checked *cel.Ast, opts Options) (ir.Expr, []Problem) {
	if checked == nil {
		return nil, nil
	}
	a := checked.NativeRep()
	if opts.Catalog == nil {
		opts.Catalog = catalog.Default()
	}
	l := &lowerer{a: a, opts: opts, cat: opts.Catalog}
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
		c, _ := ir.ParseCounter(name[:len(name)-len("_count")])
		return l.counter(e, l.opts.Self, c)
	}
	if f := l.cat.Fact(name); f != nil {
		n := factRead(l.cat, f, l.opts.Detector)
		n.Node = l.node(e)
		return n
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
	if c.IsMemberFunction() && c.Target().Kind() == ast.IdentKind && c.Target().AsIdent() == l.cat.Host && l.lookupVar(l.cat.Host) == nil {
		qual = l.cat.Host + "." + fn
		args = args[1:]
	}
	if f := l.cat.Function(qual); f != nil && len(args) == len(f.Params) {
		return l.observe(e, f, args)
	}
	switch fn {
	case operators.LogicalAnd, operators.LogicalOr:
		var terms []ir.Expr
		l.flatten(e, fn, &terms)
		if fn == operators.LogicalAnd {
			return &ir.And{Node: ir.Node{T: ir.BoolType, Off: l.off(e)}, Terms: terms}
		}
		return &ir.Or{Node: ir.Node{T: ir.BoolType, Off: l.off(e)}, Terms: terms}
	case operators.Conditional:
		c, t, f := l.expr(args[0]), l.expr(args[1]), l.expr(args[2])
		if t.Type().Is(ir.KDyn) || f.Type().Is(ir.KDyn) || !t.Type().Equal(f.Type()) {
			return &ir.Cond{Node: ir.Node{T: ir.DynType, Off: l.off(e)}, C: c, Then: t, Else: f}
		}
		return &ir.Cond{Node: l.node(e), C: c, Then: t, Else: f}
	case operators.Index:
		x := l.expr(args[0])
		return &ir.Index{Node: l.readNode(e, x), X: x, I: l.expr(args[1])}
	case operators.NotStrictlyFalse:
		return l.unsupported(e, "internal function %s outside a macro", fn)
	}
	op, ok := ir.OpOf(fn)
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
	if info := op.Info(); len(args) < info.MinArity || len(args) > info.MaxArity {
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
	switch {
	case op.Info().Result != nil:
		node.T = op.Info().Result
	case !anyDyn:
		// Otherwise the result is dyn whatever the checker inferred from
		// the context (see sound); its inferred type is not looked at.
		node = l.node(e)
	}
	n := &ir.Call{Node: node, Op: op, Args: lowered}
	if ids := l.a.GetOverloadIDs(e.ID()); len(ids) == 1 {
		n.Guards = overloadParams(fn, ids[0], len(args))
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

func (l *lowerer) observe(e ast.Expr, f *catalog.Function, args []ast.Expr) ir.Expr {
	arg := args[0]
	switch f.Name {
	case "fire_count_of", "breaker_count_of":
		if arg.Kind() != ast.LiteralKind {
			return l.fail(arg, "OAR_REF", "the argument of %s must be a string literal naming a rule of the pack", f.Name)
		}
		id, ok := arg.AsLiteral().(types.String)
		if !ok {
			return l.fail(arg, "OAR_REF", "the argument of %s must be a string literal naming a rule of the pack", f.Name)
		}
		if _, ok := l.opts.Slots[string(id)]; !ok {
			return l.fail(arg, "OAR_REF", "%s(%q): no rule %s in the pack", f.Name, string(id), string(id))
		}
		c, _ := ir.ParseCounter(f.Name[:len(f.Name)-len("_count_of")])
		return l.counter(e, string(id), c)
	}
	n := &ir.Observe{Node: ir.Node{T: IRType(f.Result), Off: l.off(e)}, Func: f.CELName}
	for i, a := range args {
		n.Args = append(n.Args, l.expr(a))
		n.Params = append(n.Params, IRType(f.Params[i]))
	}
	if b, ok := ir.BuiltinByName(f.CELName); ok && !f.Provider {
		n.Builtin = b
		n.ToolArgs = FactField(l.cat, l.cat.Fact("tool_args"))
	} else {
		n.Provider = ProviderField(l.cat, f)
	}
	return n
}

// factRead is the read of catalog fact f (not a core counter), with its
// source; detector says that the detector facts read the validator's values
// (a detector rule's when).
func factRead(cat *catalog.Catalog, f *catalog.Fact, detector bool) *ir.Fact {
	n := &ir.Fact{Node: ir.Node{T: IRType(f.Type)}, Name: f.CELName, Field: FactField(cat, f)}
	switch {
	case f.CELName == "anchor" && f.Tier == catalog.Core:
		n.Source, n.Field = ir.FromAnchor, nil
	case f.CELName == "provenance_nodes" && f.Tier == catalog.Oarc:
		n.Source, n.Field = ir.FromNodes, nil
	case f.CELName == "batch_tools" && f.Tier == catalog.Oarc:
		n.Source, n.Field = ir.FromBatch, nil
	case f.CELName == "tenant" && f.Tier == catalog.Oarc:
		n.Source, n.Field = ir.FromTenant, nil
	case f.CELName == "content" && f.Tier == catalog.Oarc:
		n.Source, n.Field = ir.FromContent, nil
	case f.Tier == catalog.Oarc:
		n.Source = ir.FromProvenance
	case f.Kept != catalog.NotKept:
		n.Source, n.Kept, n.Field = ir.FromKept, ir.Kept(f.Kept), nil
	case detector && DetectorFacts[f.CELName]:
		n.Source = ir.FromDetector
	}
	return n
}

// FactRead is the read of the fact name as a rule's selector sees it (spec
// 5.2): the same node the rule's when would read, with the host's values of
// detector facts (a selector is evaluated before the validator). fire_count
// and breaker_count read the counters of rule self, in slot. It returns nil
// for a name the catalog does not have.
func FactRead(cat *catalog.Catalog, name, self string, slot int) ir.Expr {
	switch name {
	case "fire_count", "breaker_count":
		c, _ := ir.ParseCounter(name[:len(name)-len("_count")])
		return &ir.CounterRead{Node: ir.Node{T: ir.IntType}, Rule: self, Slot: slot, Counter: c}
	}
	f := cat.Fact(name)
	if f == nil {
		return nil
	}
	return factRead(cat, f, false)
}

// counter reads a counter of the rule id, whose slot must be known.
func (l *lowerer) counter(e ast.Expr, id string, c ir.Counter) ir.Expr {
	slot, ok := l.opts.Slots[id]
	if !ok {
		return l.fail(e, "OAR_REF", "no counter slot for rule %s", id)
	}
	return &ir.CounterRead{Node: ir.Node{T: ir.IntType, Off: l.off(e)}, Rule: id, Slot: slot, Counter: c}
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

var macroByName = map[string]ir.Macro{
	operators.All: ir.All, operators.Exists: ir.Exists, operators.ExistsOne: ir.ExistsOne,
	operators.Filter: ir.Filter, operators.Map: ir.MapMacro,
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
	m, _ := macroByName[macro]
	n := &ir.Comprehension{Node: ir.Node{T: ir.BoolType, Off: l.off(e)}, Macro: m, Range: rng, Var: c.IterVar()}
	if m == ir.Filter {
		n.T = ir.ListOf(vt)
	}
	defer func() {
		if m == ir.MapMacro && n.Body != nil {
			n.T = ir.ListOf(n.Body.Type())
		}
	}()
	l.scopes = append(l.scopes, scopeVar{c.IterVar(), vt})
	defer func() { l.scopes = l.scopes[:len(l.scopes)-1] }()
	step := c.LoopStep()
	if macro == operators.Filter || macro == operators.Map {
		if a := callArgs(step, operators.Conditional); len(a) == 3 && macro == operators.Filter {
			step = a[1]
		}
	}
	bad := func() ir.Expr { return l.unsupported(e, "unrecognised expansion of macro %s", macro) }
	switch macro {
	case operators.All, operators.Exists:
		op := operators.LogicalAnd
		if macro == operators.Exists {
			op = operators.LogicalOr
		}
		a := callArgs(step, op)
		if len(a) != 2 {
			return bad()
		}
		n.Pred = l.expr(a[1])
	case operators.ExistsOne:
		a := callArgs(step, operators.Conditional)
		if len(a) != 3 {
			return bad()
		}
		n.Pred = l.expr(a[0])
	case operators.Filter:
		a := callArgs(c.LoopStep(), operators.Conditional)
		if len(a) != 3 {
			return bad()
		}
		n.Pred = l.expr(a[0])
	case operators.Map:
		if a := callArgs(step, operators.Conditional); len(a) == 3 {
			n.Pred = l.expr(a[0])
			step = a[1]
		}
		a := callArgs(step, operators.Add)
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
		a := callArgs(x, operators.Add)
		if len(a) != 2 || !isAccu(a[0]) || a[1].Kind() != ast.ListKind || len(a[1].AsList().Elements()) != 1 {
			return nil, false
		}
		return a[1].AsList().Elements()[0], true
	}
	switch init.Kind() {
	case ast.LiteralKind:
		switch v := init.AsLiteral().(type) {
		case types.Bool:
			if a := callArgs(step, operators.LogicalAnd); bool(v) && len(a) == 2 && isAccu(a[0]) {
				return operators.All
			}
			if a := callArgs(step, operators.LogicalOr); !bool(v) && len(a) == 2 && isAccu(a[0]) {
				return operators.Exists
			}
		case types.Int:
			if a := callArgs(step, operators.Conditional); v == 0 && len(a) == 3 && isAccu(a[2]) {
				return operators.ExistsOne
			}
		}
	case ast.ListKind:
		if len(init.AsList().Elements()) != 0 {
			return ""
		}
		if a := callArgs(step, operators.Conditional); len(a) == 3 && isAccu(a[2]) {
			if el, ok := appendsTo(a[1]); ok {
				if el.Kind() == ast.IdentKind && el.AsIdent() == c.IterVar() {
					return operators.Filter
				}
				return operators.Map
			}
		}
		if _, ok := appendsTo(step); ok {
			return operators.Map
		}
	}
	return ""
}
