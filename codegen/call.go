package codegen

import (
	"github.com/dave/jennifer/jen"

	"github.com/oarc/oarc/ir"
)

// Operations. The implementation of a call is chosen from the static types
// of its operands (their kinds and Go representations), never from the
// text of code emitted for them.

// callOp evaluates every operand first, in order (cel-go evaluates all the
// arguments of a call before it dispatches, so an erroneous argument wins
// over a type mismatch in an earlier one), then applies the type guard of a
// single resolved overload, then the operation.
func (g *fn) callOp(n *ir.Call) value {
	if v, ok := g.inConstStrings(n); ok {
		return v
	}
	args := make([]ir.Expr, len(n.Args))
	for i, a := range n.Args {
		if _, ok := a.(*ir.Const); ok {
			args[i] = a
			continue
		}
		args[i] = &evaluated{Node: ir.Node{T: a.Type(), Off: a.Offset()}, v: g.bind(g.val(a))}
	}
	for i, gt := range n.Guards {
		if i >= len(args) || gt.Is(ir.KDyn) || args[i].Type().Equal(gt) {
			continue
		}
		arg := g.val(args[i])
		desc := g.pk.hoist(g.rule, "oGuard", "guard "+gt.String(), guardDesc(gt), nil)
		g.emit(jen.If(jen.Op("!").Add(implQ("Assignable")).Call(box(arg).code, desc.code)).Block(
			jen.Return(g.zero(), implQ("NoSuchOverload").Call(jen.Lit(n.Op.Info().Name)))))
		g.b.exits++
	}
	a := args
	t0 := a[0].Type()
	switch op := n.Op; {
	case op.Arithmetic():
		return g.arith(n, a[0], a[1])
	case op == ir.OpNeg:
		x := g.val(a[0])
		switch x.rep() {
		case repInt:
			return g.call(ir.IntType, "NegInt", x.code)
		case repDouble:
			// A variable: Go's constant negation of 0.0 is +0, not -0.
			v := g.newTmp()
			g.emit(jen.Id(v).Op(":=").Add(x.code))
			return value{code: jen.Parens(jen.Op("-").Id(v)), t: ir.DoubleType}
		}
		return g.conv(g.call(ir.DynType, "NegDyn", box(x).code), n.T)
	case op == ir.OpNot:
		x := g.val(a[0])
		if x.rep() == repBool {
			if x.negates != nil {
				return not(x)
			}
			return not(g.bind(x))
		}
		return g.call(ir.BoolType, "NotDyn", box(x).code)
	case op == ir.OpEq:
		return g.eq(a[0], a[1])
	case op == ir.OpNe:
		return not(g.bind(g.eq(a[0], a[1])))
	case op.Ordering():
		return g.compare(op, a[0], a[1])
	case op == ir.OpIn:
		return g.in(a[0], a[1])
	case op == ir.OpSize:
		x := g.bind(g.val(a[0]))
		switch x.rep() {
		case repString:
			return value{code: implQ("SizeString").Call(x.code), t: ir.IntType}
		case repStrings, repMaps, repList, repStrMap:
			return value{code: jen.Int64().Call(jen.Len(x.code)), t: ir.IntType}
		}
		return g.call(ir.IntType, "SizeDyn", box(x).code)
	case op == ir.OpContains, op == ir.OpStartsWith, op == ir.OpEndsWith:
		s := g.bind(g.valAs(a[0], ir.StringType))
		sub := g.bind(g.valAs(a[1], ir.StringType))
		fn := map[ir.Op]string{ir.OpContains: "Contains", ir.OpStartsWith: "HasPrefix", ir.OpEndsWith: "HasSuffix"}[op]
		return value{code: jen.Qual("strings", fn).Call(s.code, sub.code), t: ir.BoolType}
	case op == ir.OpMatches:
		s := g.bind(g.valAs(a[0], ir.StringType))
		if c, ok := a[1].(*ir.Const); ok {
			if p, ok := c.Value.(string); ok {
				return value{code: g.pk.match(g.rule, p, s.code), t: ir.BoolType}
			}
		}
		p := g.bind(g.valAs(a[1], ir.StringType))
		return g.call(ir.BoolType, "MatchesDynamic", s.code, p.code)
	case op == ir.OpInt, op == ir.OpUint, op == ir.OpDouble, op == ir.OpString, op == ir.OpBool:
		return g.convert(op, a[0])
	case op == ir.OpDyn:
		return g.valAs(a[0], ir.DynType)
	case op == ir.OpType:
		x := g.val(a[0])
		if k := t0.Kind; k != ir.KDyn && k != ir.KNull {
			// The static type is the dynamic one for every static kind the
			// generator represents; the operand was evaluated (for its
			// errors) above.
			if !x.constant {
				g.emit(jen.Id("_").Op("=").Add(x.code))
			}
			name := map[ir.Kind]string{ir.KBool: "bool", ir.KInt: "int", ir.KUint: "uint", ir.KDouble: "double",
				ir.KString: "string", ir.KList: "list", ir.KMap: "map", ir.KType: "type"}[k]
			return constValue(ir.TypeName(name), ir.TypeType)
		}
		return value{code: implQ("TypeOf").Call(x.code), t: ir.TypeType}
	}
	return g.stringsExt(n.Op, a)
}

// arithTable names the runtime functions of + - * / % on ints and uints.
var arithTable = map[rep]map[ir.Op]string{
	repInt:  {ir.OpAdd: "AddInt", ir.OpSub: "SubInt", ir.OpMul: "MulInt", ir.OpDiv: "DivInt", ir.OpMod: "ModInt"},
	repUint: {ir.OpAdd: "AddUint", ir.OpSub: "SubUint", ir.OpMul: "MulUint", ir.OpDiv: "DivUint", ir.OpMod: "ModUint"},
}

var arithDyn = map[ir.Op]string{ir.OpAdd: "AddDyn", ir.OpSub: "SubDyn", ir.OpMul: "MulDyn", ir.OpDiv: "DivDyn", ir.OpMod: "ModDyn"}

var goArith = map[ir.Op]string{ir.OpAdd: "+", ir.OpSub: "-", ir.OpMul: "*", ir.OpDiv: "/"}

func (g *fn) arith(n *ir.Call, ax, ay ir.Expr) value {
	op := n.Op
	x, y := g.val(ax), g.val(ay)
	rx, ry := x.rep(), y.rep()
	switch {
	case rx == ry && arithTable[rx] != nil:
		return g.call(n.T, arithTable[rx][op], g.bind(x).code, y.code)
	case rx == repDouble && ry == repDouble && op != ir.OpMod:
		// Variables, not constants, so that Go does not fold x / 0.0 or an
		// overflowing product at compile time (it rejects both): CEL wants
		// IEEE results at run time.
		a, b := g.newTmp(), g.newTmp()
		g.emit(jen.List(jen.Id(a), jen.Id(b)).Op(":=").List(x.code, y.code))
		return value{code: jen.Parens(jen.Id(a).Op(goArith[op]).Id(b)), t: ir.DoubleType}
	case rx == repString && ry == repString && op == ir.OpAdd:
		a, b := g.bind(x), g.bind(y)
		return value{code: jen.Parens(jen.Add(a.code).Op("+").Add(b.code)), t: ir.StringType}
	case op == ir.OpAdd && ax.Type().Is(ir.KList) && ay.Type().Is(ir.KList) && rx == repOf(n.T) && ry == repOf(n.T):
		a, b := g.bind(x), g.bind(y)
		return value{code: implQ("ConcatList").Call(a.code, b.code), t: n.T}
	}
	a, b := g.bind(box(x)), g.bind(box(y))
	return g.conv(g.call(ir.DynType, arithDyn[op], a.code, b.code), n.T)
}

func (g *fn) convert(op ir.Op, ax ir.Expr) value {
	target := op.Info().Result
	x := g.bind(g.val(ax))
	if ax.Type().Equal(target) {
		return x
	}
	type conv struct {
		fn       string
		fallible bool
	}
	table := map[ir.Op]map[rep]conv{
		ir.OpInt:    {repDouble: {"IntFromDouble", true}, repString: {"IntFromString", true}, repUint: {"IntFromUint", true}},
		ir.OpUint:   {repInt: {"UintFromInt", true}, repDouble: {"UintFromDouble", true}, repString: {"UintFromString", true}},
		ir.OpDouble: {repInt: {"DoubleFromInt", false}, repUint: {"DoubleFromUint", false}, repString: {"DoubleFromString", true}},
		ir.OpString: {repInt: {"StringFromInt", false}, repUint: {"StringFromUint", false}, repDouble: {"StringFromDouble", false}, repBool: {"StringFromBool", false}},
		ir.OpBool:   {repString: {"BoolFromString", true}},
	}
	dyn := map[ir.Op]string{ir.OpInt: "IntFromDyn", ir.OpUint: "UintFromDyn", ir.OpDouble: "DoubleFromDyn", ir.OpString: "StringFromDyn", ir.OpBool: "BoolFromDyn"}
	c, ok := table[op][x.rep()]
	if !ok {
		return g.call(target, dyn[op], box(x).code)
	}
	if !c.fallible {
		return value{code: implQ(c.fn).Call(x.code), t: target}
	}
	return g.call(target, c.fn, x.code)
}

func (g *fn) eq(ax, ay ir.Expr) value {
	x, y := g.bind(g.val(ax)), g.bind(g.val(ay))
	rx, ry := x.rep(), y.rep()
	scalar := func(r rep) bool { return r == repBool || r == repInt || r == repUint || r == repString || r == repType }
	dynFn := map[rep]string{repString: "EqualDynString", repInt: "EqualDynInt", repUint: "EqualDynUint", repDouble: "EqualDynDouble", repBool: "EqualDynBool"}
	b := func(c jen.Code) value { return value{code: c, t: ir.BoolType} }
	switch {
	case scalar(rx) && rx == ry, rx == repDouble && ry == repDouble:
		return b(jen.Parens(jen.Add(x.code).Op("==").Add(y.code)))
	case rx == repInt && ry == repDouble:
		return b(implQ("EqualIntDouble").Call(x.code, y.code))
	case rx == repDouble && ry == repInt:
		return b(implQ("EqualIntDouble").Call(y.code, x.code))
	case rx == repInt && ry == repUint:
		return b(implQ("EqualIntUint").Call(x.code, y.code))
	case rx == repUint && ry == repInt:
		return b(implQ("EqualIntUint").Call(y.code, x.code))
	case rx == repDyn && dynFn[ry] != "":
		return b(implQ(dynFn[ry]).Call(x.code, y.code))
	case ry == repDyn && dynFn[rx] != "":
		return b(implQ(dynFn[rx]).Call(y.code, x.code))
	case rx == repStrings && ry == repStrings:
		return b(implQ("EqualStrings").Call(x.code, y.code))
	}
	// Lists, maps and dyn values that may hold them: equality walks them,
	// and fails past the runtime's nesting limit or on a cycle.
	return g.call(ir.BoolType, "EqualDyn", box(x).code, box(y).code)
}

// compareFunc is a runtime function ordering two representations: it
// returns an ordering int and, when fallible, an Err.
type compareFunc struct {
	name     string
	fallible bool
}

// compareFuncs are the typed Compare functions of the runtime; any other
// pair of representations is compared as dyn.
var compareFuncs = map[[2]rep]compareFunc{
	{repInt, repInt}:       {"CompareInt", false},
	{repUint, repUint}:     {"CompareUint", false},
	{repString, repString}: {"CompareString", false},
	{repBool, repBool}:     {"CompareBool", false},
	{repInt, repUint}:      {"CompareIntUint", false},
	{repUint, repInt}:      {"CompareUintInt", false},
	{repDouble, repDouble}: {"CompareDouble", true},
	{repInt, repDouble}:    {"CompareIntDouble", true},
	{repDouble, repInt}:    {"CompareDoubleInt", true},
	{repUint, repDouble}:   {"CompareUintDouble", true},
	{repDouble, repUint}:   {"CompareDoubleUint", true},
	{repDyn, repDyn}:       {"CompareDyn", true},
	{repDyn, repInt}:       {"CompareDynInt", true},
	{repInt, repDyn}:       {"CompareIntDyn", true},
	{repDyn, repUint}:      {"CompareDynUint", true},
	{repUint, repDyn}:      {"CompareUintDyn", true},
	{repDyn, repDouble}:    {"CompareDynDouble", true},
	{repDouble, repDyn}:    {"CompareDoubleDyn", true},
	{repDyn, repString}:    {"CompareDynString", true},
	{repString, repDyn}:    {"CompareStringDyn", true},
	{repDyn, repBool}:      {"CompareDynBool", true},
	{repBool, repDyn}:      {"CompareBoolDyn", true},
}

// fastCompare: a dyn compared with a static scalar is usually of that
// scalar's type, so the generated code tests for it inline and leaves the
// general dispatch to the runtime. The entry is the Go type asserted and
// the runtime function ordering two values of it.
var fastCompare = map[rep]compareFunc{
	repDouble: {"CompareDouble", true},
	repInt:    {"CompareInt", false},
	repString: {"CompareString", false},
}

var orderPred = map[ir.Op]string{ir.OpLt: "Lt", ir.OpLe: "Le", ir.OpGt: "Gt", ir.OpGe: "Ge"}
var goOrder = map[ir.Op]string{ir.OpLt: "<", ir.OpLe: "<=", ir.OpGt: ">", ir.OpGe: ">="}

func (g *fn) compare(op ir.Op, ax, ay ir.Expr) value {
	x, y := g.bind(g.val(ax)), g.bind(g.val(ay))
	rx, ry := x.rep(), y.rep()
	if rx == ry && (rx == repInt || rx == repUint || rx == repString || rx == repDouble) {
		// Go's float comparisons are false on NaN, as cel-go's are.
		return value{code: jen.Parens(jen.Add(x.code).Op(goOrder[op]).Add(y.code)), t: ir.BoolType}
	}
	f, ok := compareFuncs[[2]rep{rx, ry}]
	if !ok {
		f = compareFuncs[[2]rep{repDyn, repDyn}]
		x, y = box(x), box(y)
		rx, ry = repDyn, repDyn
	}
	pred := implQ(orderPred[op])
	if !f.fallible {
		return value{code: jen.Add(pred).Call(implQ(f.name).Call(x.code, y.code)), t: ir.BoolType}
	}
	c, e := g.newTmp(), g.newTmp()
	if fast, ok := fastCompare[ry]; ok && rx == repDyn {
		v, okv := g.newTmp(), g.newTmp()
		direct := []jen.Code{implQ(fast.name).Call(jen.Id(v), y.code)}
		if !fast.fallible {
			direct = append(direct, rtErrNone())
		}
		g.emit(jen.Var().Id(c).Int())
		g.emit(jen.Var().Id(e).Add(rt("Err")))
		g.emit(jen.If(jen.List(jen.Id(v), jen.Id(okv)).Op(":=").Add(x.code).Assert(ry.goType()), jen.Id(okv)).Block(
			jen.List(jen.Id(c), jen.Id(e)).Op("=").List(direct...),
		).Else().Block(
			jen.List(jen.Id(c), jen.Id(e)).Op("=").Add(implQ(f.name)).Call(x.code, y.code),
		))
	} else {
		g.emit(jen.List(jen.Id(c), jen.Id(e)).Op(":=").Add(implQ(f.name)).Call(x.code, y.code))
	}
	g.check(e)
	return value{code: jen.Add(pred).Call(jen.Id(c)), t: ir.BoolType}
}

func (g *fn) in(ax, ac ir.Expr) value {
	x, c := g.bind(g.val(ax)), g.bind(g.val(ac))
	switch {
	case x.rep() == repString && c.rep() == repStrings:
		return value{code: implQ("InStrings").Call(x.code, c.code), t: ir.BoolType}
	case x.rep() == repString && c.rep() == repStrMap:
		r := g.newTmp()
		g.emit(jen.List(jen.Id("_"), jen.Id(r)).Op(":=").Add(c.code).Index(x.code))
		return value{code: jen.Id(r), t: ir.BoolType, simple: true}
	}
	return g.call(ir.BoolType, "InDyn", box(x).code, box(c).code)
}

// stringsExt compiles the strings extension's functions.
func (g *fn) stringsExt(op ir.Op, a []ir.Expr) value {
	str := func(i int) jen.Code { return g.bind(g.valAs(a[i], ir.StringType)).code }
	num := func(i int) jen.Code { return g.bind(g.valAs(a[i], ir.IntType)).code }
	strs := func(i int) jen.Code { return g.bind(g.valAs(a[i], ir.ListOf(ir.StringType))).code }
	res := op.Info().Result
	pure := func(fn string, args ...jen.Code) value { return value{code: implQ(fn).Call(args...), t: res} }
	switch len(a) {
	case 1:
		switch op {
		case ir.OpLowerASCII:
			return pure("LowerASCII", str(0))
		case ir.OpUpperASCII:
			return pure("UpperASCII", str(0))
		case ir.OpTrim:
			return pure("Trim", str(0))
		case ir.OpJoin:
			return pure("Join", strs(0))
		}
	case 2:
		switch op {
		case ir.OpSplit:
			return pure("Split", str(0), str(1))
		case ir.OpJoin:
			return pure("JoinSep", strs(0), str(1))
		case ir.OpIndexOf:
			return pure("IndexOf", str(0), str(1))
		case ir.OpLastIndexOf:
			return pure("LastIndexOf", str(0), str(1))
		case ir.OpSubstring:
			return g.call(res, "Substring", str(0), num(1))
		case ir.OpCharAt:
			return g.call(res, "CharAt", str(0), num(1))
		}
	case 3:
		switch op {
		case ir.OpSplit:
			return pure("SplitN", str(0), str(1), num(2))
		case ir.OpReplace:
			return pure("Replace", str(0), str(1), str(2))
		case ir.OpIndexOf:
			return g.call(res, "IndexOfFrom", str(0), str(1), num(2))
		case ir.OpLastIndexOf:
			return g.call(res, "LastIndexOfFrom", str(0), str(1), num(2))
		case ir.OpSubstring:
			return g.call(res, "SubstringRange", str(0), num(1), num(2))
		}
	case 4:
		if op == ir.OpReplace {
			return pure("ReplaceN", str(0), str(1), str(2), num(3))
		}
	}
	panic("codegen: operation " + op.String())
}

// inConstStrings compiles `s in ["a", "b", ...]` with a static string s and
// a list literal of string constants into a switch, which Go compiles to a
// length-and-byte dispatch instead of a loop of comparisons.
func (g *fn) inConstStrings(n *ir.Call) (value, bool) {
	if n.Op != ir.OpIn || !n.Args[0].Type().Is(ir.KString) {
		return value{}, false
	}
	l, ok := n.Args[1].(*ir.List)
	if !ok || len(l.Elems) == 0 {
		return value{}, false
	}
	var lits []jen.Code
	seen := map[string]bool{}
	for _, e := range l.Elems {
		c, ok := e.(*ir.Const)
		if !ok {
			return value{}, false
		}
		v, ok := c.Value.(string)
		if !ok {
			return value{}, false
		}
		if !seen[v] {
			seen[v] = true
			lits = append(lits, jen.Lit(v))
		}
	}
	x := g.bind(g.val(n.Args[0]))
	r := g.newTmp()
	g.emit(jen.Var().Id(r).Bool())
	g.emit(jen.Switch(x.code).Block(jen.Case(lits...).Block(jen.Id(r).Op("=").True())))
	return value{code: jen.Id(r), t: ir.BoolType, simple: true}, true
}

// guardDesc spells a guard type as a runtime.TypeDesc literal.
func guardDesc(t *ir.Type) jen.Code {
	kind := map[ir.Kind]string{ir.KDyn: "TypeDyn", ir.KBool: "TypeBool", ir.KInt: "TypeInt", ir.KUint: "TypeUint",
		ir.KDouble: "TypeDouble", ir.KString: "TypeString", ir.KNull: "TypeNull", ir.KList: "TypeList", ir.KMap: "TypeMap"}[t.Kind]
	fields := []jen.Code{jen.Id("Kind").Op(":").Add(implQ(kind))}
	switch t.Kind {
	case ir.KList:
		fields = append(fields, jen.Id("Elem").Op(":").Add(guardDesc(t.Elem)))
	case ir.KMap:
		fields = append(fields, jen.Id("Key").Op(":").Add(guardDesc(t.Key)), jen.Id("Val").Op(":").Add(guardDesc(t.Val)))
	}
	return jen.Op("&").Add(implQ("TypeDesc")).Values(fields...)
}
