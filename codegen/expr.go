package codegen

import (
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
)

// Expression code generation.
//
// An expression is compiled into Go statements that run in a "region": a Go
// function (the rule function, or an immediately-called func literal) that
// returns (value, runtime.Err). Inside a region evaluation is strict: the
// first error returns from the region. CEL's error-absorbing constructs
// (&&, ||, all, exists) evaluate each operand in a region of its own and
// combine the results the way cel-go does. Generated identifiers all start
// with "o" followed by an upper-case letter; CEL variables become "oV_name",
// so nothing a rule author writes can collide with them.

// body accumulates the statements of the function being generated.
type body struct {
	b      strings.Builder
	indent int
}

func (b *body) line(format string, args ...any) {
	b.b.WriteString(strings.Repeat("\t", b.indent))
	fmt.Fprintf(&b.b, format, args...)
	b.b.WriteByte('\n')
}

// exprGen generates one rule's expressions.
type exprGen struct {
	pk    *packGen
	rule  *ir.Rule
	out   *body
	tmp   *int
	zeros []string // return zero values of the enclosing regions
	snaps map[string]int
}

func (g *exprGen) newTmp() string {
	*g.tmp++
	return fmt.Sprintf("oT%d", *g.tmp)
}

func (g *exprGen) zero() string { return g.zeros[len(g.zeros)-1] }

// fail emits the error check for an Err-valued Go expression.
func (g *exprGen) check(errVar string) {
	g.out.line("if %s.Kind != 0 {", errVar)
	g.out.line("\treturn %s, %s", g.zero(), errVar)
	g.out.line("}")
}

// goType is the Go type that holds values of t.
func goType(t *ir.Type) string {
	switch t.Kind {
	case ir.KBool:
		return "bool"
	case ir.KInt:
		return "int64"
	case ir.KUint:
		return "uint64"
	case ir.KDouble:
		return "float64"
	case ir.KString:
		return "string"
	case ir.KType:
		return "runtime.Type"
	case ir.KList:
		// Only lists whose elements the runtime reads natively get typed
		// slices; every other list is []any, because values that came
		// through dyn keep whatever dynamic type they had, as in cel-go.
		switch {
		case t.Elem.Is(ir.KString):
			return "[]string"
		case isDynMap(t.Elem):
			return "[]map[string]any"
		}
		return "[]any"
	case ir.KMap:
		return "map[string]any"
	}
	return "any"
}

func isDynMap(t *ir.Type) bool {
	return t.Is(ir.KMap) && t.Key.Is(ir.KString) && t.Val.Is(ir.KDyn)
}

// elemType is the static type of the elements of a Go slice of goType(t).
func elemGoIsAny(t *ir.Type) bool { return goType(t) == "[]any" }

func zeroOf(t *ir.Type) string {
	switch goType(t) {
	case "bool":
		return "false"
	case "int64", "uint64", "float64":
		return "0"
	case "string", "runtime.Type":
		return `""`
	}
	return "nil"
}

// box converts a Go value of static type t into a dyn (any).
func box(v string, t *ir.Type) string {
	if t.Is(ir.KDyn) || t.Is(ir.KNull) {
		return v
	}
	return "any(" + v + ")"
}

// narrow converts a dyn value to static type t, checking its dynamic type
// the way cel-go's overload dispatch does.
func (g *exprGen) narrow(v string, t *ir.Type) string {
	var fn string
	switch t.Kind {
	case ir.KDyn, ir.KNull:
		return v
	case ir.KBool:
		fn = "AsBool"
	case ir.KInt:
		fn = "AsInt"
	case ir.KDouble:
		fn = "AsDouble"
	case ir.KString:
		fn = "AsString"
	case ir.KList:
		switch goType(t) {
		case "[]string":
			fn = "AsStrings"
		case "[]map[string]any":
			fn = "AsMapList"
		default:
			fn = "AsAnyList"
		}
	case ir.KMap:
		fn = "AsMap"
	case ir.KUint:
		fn = "AsUint"
	}
	r, e := g.newTmp(), g.newTmp()
	g.out.line("%s, %s := runtime.%s(%s)", r, e, fn, v)
	g.check(e)
	return r
}

// conv makes the Go value v of static type from usable where static type to
// is expected.
func (g *exprGen) conv(v string, from, to *ir.Type) string {
	if from.Equal(to) || goType(from) == goType(to) && !to.Is(ir.KDyn) {
		return v
	}
	if to.Is(ir.KDyn) {
		return box(v, from)
	}
	if from.Is(ir.KDyn) {
		return g.narrow(v, to)
	}
	// Static to a different static type: only list/map element types can
	// differ (e.g. list(int) where list(dyn) is expected).
	return g.narrow(box(v, from), to)
}

// val compiles e and returns a Go expression of Go type goType(e.Type()).
func (g *exprGen) val(e ir.Expr) string {
	switch n := e.(type) {
	case *ir.Const:
		return constLit(n.Value, n.T)
	case *ir.Fact:
		return g.fact(n)
	case *ir.Counter:
		return fmt.Sprintf("oX.Snap(%d)", g.snaps[snapKey(n.Slot, n.Counter)])
	case *ir.Var:
		return "oV_" + n.Name
	case *ir.Observe:
		return g.observe(n)
	case *ir.And:
		return g.logic(n.Terms, true)
	case *ir.Or:
		return g.logic(n.Terms, false)
	case *ir.Cond:
		return g.cond(n)
	case *ir.Select:
		return g.sel(n)
	case *ir.Index:
		return g.index(n)
	case *ir.List:
		return g.list(n)
	case *ir.Map:
		return g.mapLit(n)
	case *ir.Comprehension:
		return g.comprehension(n)
	case *ir.Call:
		return g.call(n)
	case *bound:
		return n.code
	}
	panic(fmt.Sprintf("codegen: unexpected node %T", e))
}

// valAs compiles e and converts it to static type t.
func (g *exprGen) valAs(e ir.Expr, t *ir.Type) string {
	return g.conv(g.val(e), e.Type(), t)
}

// bind stores a Go expression in a fresh variable, so that it is evaluated
// once, where it stands.
func (g *exprGen) bind(v string) string {
	if isSimple(v) {
		return v
	}
	t := g.newTmp()
	g.out.line("%s := %s", t, v)
	return t
}

// numLit matches the numeric constants constLit writes.
var numLit = regexp.MustCompile(`^(int64|uint64|float64)\(-?[0-9][0-9.e+-]*\)$`)

// isSimple reports whether a Go expression can be repeated without being
// evaluated twice: a name, a selector or a constant.
func isSimple(v string) bool {
	if numLit.MatchString(v) {
		return true
	}
	if _, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
		return true
	}
	for _, r := range v {
		if !(r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func constLit(v any, t *ir.Type) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case bool:
		return strconv.FormatBool(v)
	case int64:
		if v == math.MinInt64 {
			return "int64(math.MinInt64)"
		}
		return fmt.Sprintf("int64(%d)", v)
	case uint64:
		return fmt.Sprintf("uint64(%d)", v)
	case float64:
		return "float64(" + strconv.FormatFloat(v, 'g', -1, 64) + ")"
	case string:
		return strconv.Quote(v)
	case ir.TypeName:
		return "runtime.Type(" + strconv.Quote(string(v)) + ")"
	}
	panic(fmt.Sprintf("codegen: constant %T", v))
}

func factPath(name string) string {
	f := catalog.Default().Fact(name)
	if f.Tier == catalog.Host {
		return "oF.Lycaon." + f.GoName
	}
	return "oF." + f.GoName
}

func (g *exprGen) fact(n *ir.Fact) string {
	if n.Name == "anchor" {
		return "oX.Occ.Anchor"
	}
	if n.Detector {
		return "oD." + catalog.GoName(n.Name) + "(oF)"
	}
	return factPath(n.Name)
}

func (g *exprGen) observe(n *ir.Observe) string {
	arg := g.valAs(n.Arg, ir.StringType)
	f := catalog.Default().Function(n.Func)
	if !n.Provider {
		return fmt.Sprintf("runtime.%s(oF.ToolArgs, %s)", catalog.GoName(f.Name), arg)
	}
	field := f.GoName
	if f.Tier == catalog.Host {
		field = "Lycaon" + field
	}
	r, e := g.newTmp(), g.newTmp()
	g.out.line("%s, %s := runtime.Provide(oX, oX.Env.Providers.%s, %s, %s)", r, e, field, strconv.Quote(n.Func), arg)
	g.check(e)
	return r
}

// region runs gen inside an immediately-called func literal returning
// (goType(t), runtime.Err), and returns the names of the value and error.
func (g *exprGen) region(t *ir.Type, gen func() string) (string, string) {
	r, e := g.newTmp(), g.newTmp()
	g.out.line("%s, %s := func() (%s, runtime.Err) {", r, e, goType(t))
	g.out.indent++
	g.zeros = append(g.zeros, zeroOf(t))
	v := gen()
	g.out.line("return %s, runtime.Err{}", v)
	g.zeros = g.zeros[:len(g.zeros)-1]
	g.out.indent--
	g.out.line("}()")
	return r, e
}

// logic compiles && (and=true) and || with cel-go's semantics: terms in
// order; the first false (true for ||) decides; otherwise the first error
// (a non-bool term counts as a no-such-overload error); otherwise true
// (false).
func (g *exprGen) logic(terms []ir.Expr, and bool) string {
	decide := "false"
	cond := "!"
	if !and {
		decide, cond = "true", ""
	}
	if !anyFallible(terms) {
		// No term can fail: plain short-circuit evaluation, each term
		// computed only when the ones before it did not decide.
		r := g.newTmp()
		g.out.line("%s := %s", r, decide)
		open := 0
		for i, t := range terms {
			v := g.valAs(t, ir.BoolType)
			if i == len(terms)-1 {
				g.out.line("%s = %s", r, v)
				break
			}
			g.out.line("if %s%s {", strings.TrimPrefix("!"+cond, "!!"), v)
			g.out.indent++
			open++
		}
		for ; open > 0; open-- {
			g.out.indent--
			g.out.line("}")
		}
		return r
	}
	r, e := g.region(ir.BoolType, func() string {
		g.out.line("var oErr runtime.Err")
		for _, t := range terms {
			tv, te := g.region(ir.BoolType, func() string { return g.valAs(t, ir.BoolType) })
			g.out.line("if %s.Kind == 0 {", te)
			g.out.line("\tif %s%s {", cond, tv)
			g.out.line("\t\treturn %s, runtime.Err{}", decide)
			g.out.line("\t}")
			g.out.line("} else if oErr.Kind == 0 {")
			g.out.line("\toErr = %s", te)
			g.out.line("}")
		}
		g.out.line("if oErr.Kind != 0 {")
		g.out.line("\treturn false, oErr")
		g.out.line("}")
		if and {
			return "true"
		}
		return "false"
	})
	g.check(e)
	return r
}

func (g *exprGen) cond(n *ir.Cond) string {
	c := g.valAs(n.C, ir.BoolType)
	r := g.newTmp()
	g.out.line("var %s %s", r, goType(n.T))
	g.out.line("if %s {", c)
	g.out.indent++
	g.out.line("%s = %s", r, g.valAs(n.Then, n.Type()))
	g.out.indent--
	g.out.line("} else {")
	g.out.indent++
	g.out.line("%s = %s", r, g.valAs(n.Else, n.Type()))
	g.out.indent--
	g.out.line("}")
	return r
}

// lookup emits a map lookup with CEL's missing-key error.
func (g *exprGen) lookup(m, key string, valT *ir.Type) string {
	r, ok := g.newTmp(), g.newTmp()
	g.out.line("%s, %s := %s[%s]", r, ok, m, key)
	g.out.line("if !%s {", ok)
	g.out.line("\treturn %s, runtime.NoSuchKey(%s)", g.zero(), key)
	g.out.line("}")
	return g.narrow(r, valT)
}

func (g *exprGen) sel(n *ir.Select) string {
	xt := n.X.Type()
	x := g.bind(g.val(n.X))
	field := strconv.Quote(n.Field)
	if xt.Is(ir.KMap) && xt.Key.Is(ir.KString) {
		if n.Test {
			r := g.newTmp()
			g.out.line("_, %s := %s[%s]", r, x, field)
			return r
		}
		if isDynMap(xt) {
			return g.lookup(x, field, ir.DynType)
		}
		return g.lookup(x, field, xt.Val)
	}
	r, e := g.newTmp(), g.newTmp()
	if n.Test {
		g.out.line("%s, %s := runtime.HasDyn(%s, %s)", r, e, box(x, xt), field)
		g.check(e)
		return r
	}
	g.out.line("%s, %s := runtime.SelectDyn(%s, %s)", r, e, box(x, xt), field)
	g.check(e)
	return g.conv(r, ir.DynType, n.Type())
}

func (g *exprGen) index(n *ir.Index) string {
	xt, it := n.X.Type(), n.I.Type()
	x := g.bind(g.val(n.X))
	if xt.Is(ir.KList) && it.Is(ir.KInt) {
		i := g.val(n.I)
		r, e := g.newTmp(), g.newTmp()
		g.out.line("%s, %s := runtime.IndexList(%s, %s)", r, e, x, i)
		g.check(e)
		if elemGoIsAny(xt) {
			return g.narrow(r, n.Type())
		}
		return r
	}
	if xt.Is(ir.KMap) && xt.Key.Is(ir.KString) && it.Is(ir.KString) {
		k := g.bind(g.val(n.I))
		return g.lookup(x, k, xt.Val)
	}
	i := g.val(n.I)
	r, e := g.newTmp(), g.newTmp()
	g.out.line("%s, %s := runtime.IndexDyn(%s, %s)", r, e, box(x, xt), box(i, it))
	g.check(e)
	return g.conv(r, ir.DynType, n.Type())
}

func (g *exprGen) list(n *ir.List) string {
	et := n.T.Elem
	elems := make([]string, len(n.Elems))
	allConst := true
	for i, el := range n.Elems {
		if _, ok := el.(*ir.Const); !ok {
			allConst = false
		}
		elems[i] = g.valAs(el, et)
		if goType(n.T) == "[]any" {
			elems[i] = box(elems[i], et)
		}
	}
	lit := goType(n.T) + "{" + strings.Join(elems, ", ") + "}"
	if allConst {
		return g.pk.constVar(lit)
	}
	return lit
}

func (g *exprGen) mapLit(n *ir.Map) string {
	var parts []string
	allConst := true
	for i := range n.Keys {
		_, ok1 := n.Keys[i].(*ir.Const)
		_, ok2 := n.Values[i].(*ir.Const)
		allConst = allConst && ok1 && ok2
		k := g.valAs(n.Keys[i], ir.StringType)
		v := box(g.valAs(n.Values[i], n.T.Val), n.T.Val)
		parts = append(parts, k+": "+v)
	}
	lit := "map[string]any{" + strings.Join(parts, ", ") + "}"
	if allConst && len(n.Keys) > 0 {
		return g.pk.constVar(lit)
	}
	return lit
}

// comprehension compiles the macros. all and exists absorb errors like
// && and ||; exists_one, filter and map are strict.
func (g *exprGen) comprehension(n *ir.Comprehension) string {
	rt := n.Range.Type()
	rng := g.bind(g.val(n.Range))
	v := "oV_" + n.Var
	// iterate emits the loop header binding the variable; the caller
	// closes the loop.
	iterate := func() {
		switch {
		case rt.Is(ir.KList) && !elemGoIsAny(rt):
			g.out.line("for _, %s := range %s {", v, rng)
		case rt.Is(ir.KList):
			el := g.newTmp()
			g.out.line("for _, %s := range %s {", el, rng)
			g.out.line("\t%s := %s", v, g.narrow(el, rt.Elem))
		case rt.Is(ir.KMap):
			g.out.line("for %s := range %s {", v, rng)
		default:
			l, e := g.newTmp(), g.newTmp()
			g.out.line("%s, %s := runtime.Range(%s)", l, e, rng)
			g.check(e)
			i := g.newTmp()
			g.out.line("for %s := 0; %s < %s.Len(); %s++ {", i, i, l, i)
			g.out.line("\t%s := %s.At(%s)", v, l, i)
		}
		g.out.line("\t_ = %s", v)
	}
	switch n.Macro {
	case "all", "exists":
		decide, cond := "false", "!"
		if n.Macro == "exists" {
			decide, cond = "true", ""
		}
		if !fallible(n.Pred) {
			// The predicate cannot fail: a plain loop that stops at the
			// first element that decides.
			r := g.newTmp()
			g.out.line("%s := %s", r, map[string]string{"all": "true", "exists": "false"}[n.Macro])
			iterate()
			g.out.indent++
			pv := g.valAs(n.Pred, ir.BoolType)
			g.out.line("if %s%s {", cond, pv)
			g.out.line("\t%s = %s", r, decide)
			g.out.line("\tbreak")
			g.out.line("}")
			g.out.indent--
			g.out.line("}")
			return r
		}
		r, e := g.region(ir.BoolType, func() string {
			g.out.line("var oErr runtime.Err")
			iterate()
			g.out.indent++
			pv, pe := g.region(ir.BoolType, func() string { return g.valAs(n.Pred, ir.BoolType) })
			g.out.line("if %s.Kind == 0 {", pe)
			g.out.line("\tif %s%s {", cond, pv)
			g.out.line("\t\treturn %s, runtime.Err{}", decide)
			g.out.line("\t}")
			g.out.line("} else if oErr.Kind == 0 {")
			g.out.line("\toErr = %s", pe)
			g.out.line("}")
			g.out.indent--
			g.out.line("}")
			g.out.line("if oErr.Kind != 0 {")
			g.out.line("\treturn false, oErr")
			g.out.line("}")
			if n.Macro == "all" {
				return "true"
			}
			return "false"
		})
		g.check(e)
		return r
	case "exists_one", "filter", "map":
		// cel-go iterates every element of these (their loop condition is
		// constant true) and keeps the error in the accumulator: a
		// predicate error replaces it (the ternary's condition comes first),
		// while appending to an accumulator that is already an error keeps
		// the old error. So the last predicate error wins, and a transform
		// error counts only while no error is held.
		rt := n.Type()
		if n.Macro == "exists_one" {
			rt = ir.BoolType
		}
		r, e := g.region(rt, func() string {
			acc := g.newTmp()
			if n.Macro == "exists_one" {
				g.out.line("%s := 0", acc)
			} else {
				g.out.line("%s := %s{}", acc, goType(rt))
			}
			g.out.line("var oErr runtime.Err")
			iterate()
			g.out.indent++
			if n.Pred != nil {
				pv, pe := g.region(ir.BoolType, func() string { return g.valAs(n.Pred, ir.BoolType) })
				g.out.line("if %s.Kind != 0 {", pe)
				g.out.line("\toErr = %s", pe)
				g.out.line("\tcontinue")
				g.out.line("}")
				g.out.line("if !%s {", pv)
				g.out.line("\tcontinue")
				g.out.line("}")
			}
			switch n.Macro {
			case "exists_one":
				g.out.line("%s++", acc)
			case "filter":
				item := g.conv(v, n.Range.Type().Iter(), rt.Elem)
				if elemGoIsAny(rt) {
					item = box(item, rt.Elem)
				}
				g.out.line("%s = append(%s, %s)", acc, acc, item)
			case "map":
				bv, be := g.region(rt.Elem, func() string { return g.valAs(n.Body, rt.Elem) })
				g.out.line("if %s.Kind != 0 {", be)
				g.out.line("\tif oErr.Kind == 0 {")
				g.out.line("\t\toErr = %s", be)
				g.out.line("\t}")
				g.out.line("\tcontinue")
				g.out.line("}")
				item := bv
				if elemGoIsAny(rt) {
					item = box(item, rt.Elem)
				}
				g.out.line("%s = append(%s, %s)", acc, acc, item)
			}
			g.out.indent--
			g.out.line("}")
			g.out.line("if oErr.Kind != 0 {")
			g.out.line("\treturn %s, oErr", zeroOf(rt))
			g.out.line("}")
			if n.Macro == "exists_one" {
				return acc + " == 1"
			}
			return acc
		})
		g.check(e)
		return r
	}
	panic("codegen: macro " + n.Macro)
}

var strictDyn = map[string]string{"add": "AddDyn", "sub": "SubDyn", "mul": "MulDyn", "div": "DivDyn", "mod": "ModDyn"}
var intOps = map[string]string{"add": "AddInt", "sub": "SubInt", "mul": "MulInt", "div": "DivInt", "mod": "ModInt"}
var goOps = map[string]string{"add": "+", "sub": "-", "mul": "*", "div": "/"}
var cmpPred = map[string]string{"lt": "Lt", "le": "Le", "gt": "Gt", "ge": "Ge"}

// bound is an operand already evaluated into a Go expression.
type bound struct {
	ir.Node
	code string
}

// guardDesc spells a guard type as a runtime.TypeDesc literal.
func guardDesc(t *ir.Type) string {
	kind := map[ir.Kind]string{ir.KDyn: "TypeDyn", ir.KBool: "TypeBool", ir.KInt: "TypeInt", ir.KUint: "TypeUint",
		ir.KDouble: "TypeDouble", ir.KString: "TypeString", ir.KNull: "TypeNull", ir.KList: "TypeList", ir.KMap: "TypeMap"}[t.Kind]
	s := "&runtime.TypeDesc{Kind: runtime." + kind
	switch t.Kind {
	case ir.KList:
		s += ", Elem: " + guardDesc(t.Elem)
	case ir.KMap:
		s += ", Key: " + guardDesc(t.Key) + ", Val: " + guardDesc(t.Val)
	}
	return s + "}"
}

// call evaluates every operand first, in order (cel-go evaluates all the
// arguments of a call before it dispatches, so an erroneous argument wins
// over a type mismatch in an earlier one), then applies the type guard of a
// single resolved overload, then the operation.
func (g *exprGen) call(n *ir.Call) string {
	if r, ok := g.inConstStrings(n); ok {
		return r
	}
	args := make([]ir.Expr, len(n.Args))
	for i, a := range n.Args {
		if _, ok := a.(*ir.Const); ok {
			args[i] = a
			continue
		}
		args[i] = &bound{Node: ir.Node{T: a.Type(), Off: a.Offset()}, code: g.bind(g.val(a))}
	}
	for i, gt := range n.Guards {
		if i >= len(args) || gt.Is(ir.KDyn) || args[i].Type().Equal(gt) {
			continue
		}
		if c, ok := args[i].(*ir.Const); ok && c.T.Equal(gt) {
			continue
		}
		g.out.line("if !runtime.Assignable(%s, %s) {", box(g.val(args[i]), args[i].Type()), g.pk.constVar(guardDesc(gt)))
		g.out.line("\treturn %s, runtime.NoSuchOverload(%s)", g.zero(), strconv.Quote(n.Op))
		g.out.line("}")
	}
	n = &ir.Call{Node: n.Node, Op: n.Op, Args: args}
	a := n.Args
	switch n.Op {
	case "add", "sub", "mul", "div", "mod":
		t0, t1 := a[0].Type(), a[1].Type()
		switch {
		case t0.Is(ir.KInt) && t1.Is(ir.KInt):
			x, y := g.bind(g.val(a[0])), g.val(a[1])
			r, e := g.newTmp(), g.newTmp()
			g.out.line("%s, %s := runtime.%s(%s, %s)", r, e, intOps[n.Op], x, y)
			g.check(e)
			return r
		case t0.Is(ir.KDouble) && t1.Is(ir.KDouble) && n.Op != "mod":
			// Variables, not constants, so that Go does not fold x / 0.0 or
			// an overflowing product at compile time (it rejects both):
			// CEL wants IEEE results at run time.
			x, y := g.newTmp(), g.newTmp()
			g.out.line("%s, %s := %s, %s", x, y, g.val(a[0]), g.val(a[1]))
			return "(" + x + " " + goOps[n.Op] + " " + y + ")"
		case t0.Is(ir.KString) && t1.Is(ir.KString) && n.Op == "add":
			x, y := g.bind(g.val(a[0])), g.bind(g.val(a[1]))
			return "(" + x + " + " + y + ")"
		case t0.Is(ir.KList) && t1.Is(ir.KList) && n.Op == "add" && goType(t0) == goType(n.T) && goType(t1) == goType(n.T):
			x, y := g.bind(g.val(a[0])), g.bind(g.val(a[1]))
			return "runtime.ConcatList(" + x + ", " + y + ")"
		}
		x := g.bind(box(g.val(a[0]), a[0].Type()))
		y := g.bind(box(g.val(a[1]), a[1].Type()))
		r, e := g.newTmp(), g.newTmp()
		g.out.line("%s, %s := runtime.%s(%s, %s)", r, e, strictDyn[n.Op], x, y)
		g.check(e)
		return g.conv(r, ir.DynType, n.T)
	case "neg":
		x := g.val(a[0])
		switch {
		case a[0].Type().Is(ir.KInt):
			r, e := g.newTmp(), g.newTmp()
			g.out.line("%s, %s := runtime.NegInt(%s)", r, e, x)
			g.check(e)
			return r
		case a[0].Type().Is(ir.KDouble):
			// A variable: Go's constant negation of 0.0 is +0, not -0.
			v := g.newTmp()
			g.out.line("%s := %s", v, x)
			return "(-" + v + ")"
		}
		r, e := g.newTmp(), g.newTmp()
		g.out.line("%s, %s := runtime.NegDyn(%s)", r, e, box(x, a[0].Type()))
		g.check(e)
		return g.conv(r, ir.DynType, n.T)
	case "not":
		if a[0].Type().Is(ir.KBool) {
			return "!" + g.bind(g.val(a[0]))
		}
		r, e := g.newTmp(), g.newTmp()
		g.out.line("%s, %s := runtime.NotDyn(%s)", r, e, g.val(a[0]))
		g.check(e)
		return r
	case "eq":
		return g.eq(a[0], a[1])
	case "ne":
		return "!" + g.bind(g.eq(a[0], a[1]))
	case "lt", "le", "gt", "ge":
		return g.compare(n.Op, a[0], a[1])
	case "in":
		return g.in(a[0], a[1])
	case "size":
		t := a[0].Type()
		x := g.bind(g.val(a[0]))
		switch {
		case t.Is(ir.KString):
			return "runtime.SizeString(" + x + ")"
		case t.Is(ir.KList), t.Is(ir.KMap):
			return "int64(len(" + x + "))"
		}
		r, e := g.newTmp(), g.newTmp()
		g.out.line("%s, %s := runtime.SizeDyn(%s)", r, e, box(x, t))
		g.check(e)
		return r
	case "contains", "startsWith", "endsWith":
		s := g.bind(g.valAs(a[0], ir.StringType))
		sub := g.bind(g.valAs(a[1], ir.StringType))
		fn := map[string]string{"contains": "Contains", "startsWith": "HasPrefix", "endsWith": "HasSuffix"}[n.Op]
		return "strings." + fn + "(" + s + ", " + sub + ")"
	case "matches":
		s := g.bind(g.valAs(a[0], ir.StringType))
		if c, ok := a[1].(*ir.Const); ok {
			if p, ok := c.Value.(string); ok {
				if code, ok := literalMatch(p, s); ok {
					return code
				}
				return g.pk.regexVar(p) + ".MatchString(" + s + ")"
			}
		}
		p := g.bind(g.valAs(a[1], ir.StringType))
		r, e := g.newTmp(), g.newTmp()
		g.out.line("%s, %s := runtime.MatchesDynamic(%s, %s)", r, e, s, p)
		g.check(e)
		return r
	case "int", "double", "string", "bool":
		return g.convert(n.Op, a[0])
	case "dyn":
		return g.valAs(a[0], ir.DynType)
	case "type":
		if t := a[0].Type(); t.Kind != ir.KDyn && t.Kind != ir.KNull {
			// The static type is the dynamic one for every static kind
			// the generator represents; the operand was evaluated (for
			// its errors) above.
			if _, ok := a[0].(*ir.Const); !ok {
				g.out.line("_ = %s", g.val(a[0]))
			}
			return constLit(ir.TypeName(map[ir.Kind]string{ir.KBool: "bool", ir.KInt: "int", ir.KUint: "uint",
				ir.KDouble: "double", ir.KString: "string", ir.KList: "list", ir.KMap: "map", ir.KType: "type"}[t.Kind]), ir.TypeType)
		}
		return "runtime.TypeOf(" + g.val(a[0]) + ")"
	}
	return g.stringsExt(n)
}

func (g *exprGen) convert(op string, x ir.Expr) string {
	t := x.Type()
	v := g.bind(g.val(x))
	target := map[string]*ir.Type{"int": ir.IntType, "double": ir.DoubleType, "string": ir.StringType, "bool": ir.BoolType}[op]
	if t.Equal(target) {
		return v
	}
	var fn string
	fallible := true
	switch op + "/" + t.String() {
	case "int/double":
		fn = "IntFromDouble"
	case "int/string":
		fn = "IntFromString"
	case "double/int":
		return "float64(" + v + ")"
	case "double/string":
		fn = "DoubleFromString"
	case "string/int":
		fn, fallible = "StringFromInt", false
	case "string/double":
		fn, fallible = "StringFromDouble", false
	case "string/bool":
		fn, fallible = "StringFromBool", false
	case "bool/string":
		fn = "BoolFromString"
	default:
		fn = map[string]string{"int": "IntFromDyn", "double": "DoubleFromDyn", "string": "StringFromDyn", "bool": "BoolFromDyn"}[op]
		v = box(v, t)
	}
	if !fallible {
		return "runtime." + fn + "(" + v + ")"
	}
	r, e := g.newTmp(), g.newTmp()
	g.out.line("%s, %s := runtime.%s(%s)", r, e, fn, v)
	g.check(e)
	return r
}

func (g *exprGen) eq(x, y ir.Expr) string {
	tx, ty := x.Type(), y.Type()
	a, b := g.bind(g.val(x)), g.bind(g.val(y))
	scalar := func(t *ir.Type) bool { return t.Is(ir.KBool) || t.Is(ir.KInt) || t.Is(ir.KString) || t.Is(ir.KType) }
	dynFn := map[ir.Kind]string{ir.KString: "EqualDynString", ir.KInt: "EqualDynInt", ir.KDouble: "EqualDynDouble", ir.KBool: "EqualDynBool"}
	switch {
	case scalar(tx) && tx.Equal(ty), tx.Is(ir.KDouble) && ty.Is(ir.KDouble):
		return "(" + a + " == " + b + ")"
	case tx.Is(ir.KInt) && ty.Is(ir.KDouble):
		return "runtime.EqualIntDouble(" + a + ", " + b + ")"
	case tx.Is(ir.KDouble) && ty.Is(ir.KInt):
		return "runtime.EqualIntDouble(" + b + ", " + a + ")"
	case tx.Is(ir.KDyn) && dynFn[ty.Kind] != "":
		return "runtime." + dynFn[ty.Kind] + "(" + a + ", " + b + ")"
	case ty.Is(ir.KDyn) && dynFn[tx.Kind] != "":
		return "runtime." + dynFn[tx.Kind] + "(" + b + ", " + a + ")"
	case tx.Is(ir.KList) && ty.Is(ir.KList) && tx.Elem.Is(ir.KString) && ty.Elem.Is(ir.KString):
		return "runtime.EqualStrings(" + a + ", " + b + ")"
	}
	return "runtime.Equal(" + box(a, tx) + ", " + box(b, ty) + ")"
}

func (g *exprGen) compare(op string, x, y ir.Expr) string {
	tx, ty := x.Type(), y.Type()
	a, b := g.bind(g.val(x)), g.bind(g.val(y))
	pred := cmpPred[op]
	goOp := map[string]string{"lt": "<", "le": "<=", "gt": ">", "ge": ">="}[op]
	switch {
	case tx.Is(ir.KInt) && ty.Is(ir.KInt), tx.Is(ir.KString) && ty.Is(ir.KString):
		return "(" + a + " " + goOp + " " + b + ")"
	case tx.Is(ir.KDouble) && ty.Is(ir.KDouble):
		// Go's float comparisons are false on NaN, as cel-go's are.
		return "(" + a + " " + goOp + " " + b + ")"
	}
	name := map[ir.Kind]string{ir.KInt: "Int", ir.KDouble: "Double", ir.KString: "String", ir.KBool: "Bool", ir.KDyn: "Dyn", ir.KNull: "Dyn"}
	nx, ny := name[tx.Kind], name[ty.Kind]
	if nx == "" || ny == "" {
		nx, ny = "Dyn", "Dyn"
		a, b = box(a, tx), box(b, ty)
	}
	fn := "Compare" + nx + ny
	if nx == ny {
		fn = "Compare" + nx
	}
	switch fn {
	case "CompareInt", "CompareString", "CompareBool":
		return "runtime." + pred + "(runtime." + fn + "(" + a + ", " + b + "))"
	}
	c, e := g.newTmp(), g.newTmp()
	// A dyn compared with a static scalar is usually of that scalar's type:
	// test for it inline and leave the general dispatch to the runtime.
	fast := map[string][2]string{
		"CompareDynDouble": {"float64", "runtime.CompareDouble(%s, %s)"},
		"CompareDynInt":    {"int64", "runtime.CompareInt(%s, %s), runtime.Err{}"},
		"CompareDynString": {"string", "runtime.CompareString(%s, %s), runtime.Err{}"},
	}
	if f, ok := fast[fn]; ok {
		v, okv := g.newTmp(), g.newTmp()
		g.out.line("var %s int", c)
		g.out.line("var %s runtime.Err", e)
		g.out.line("if %s, %s := %s.(%s); %s {", v, okv, a, f[0], okv)
		g.out.line("\t%s, %s = "+f[1], c, e, v, b)
		g.out.line("} else {")
		g.out.line("\t%s, %s = runtime.%s(%s, %s)", c, e, fn, a, b)
		g.out.line("}")
	} else {
		g.out.line("%s, %s := runtime.%s(%s, %s)", c, e, fn, a, b)
	}
	g.check(e)
	return "runtime." + pred + "(" + c + ")"
}

func (g *exprGen) in(x, c ir.Expr) string {
	tx, tc := x.Type(), c.Type()
	if tc.Is(ir.KList) && tc.Elem.Is(ir.KString) && tx.Is(ir.KString) {
		return "runtime.InStrings(" + g.bind(g.val(x)) + ", " + g.bind(g.val(c)) + ")"
	}
	if tc.Is(ir.KMap) && tc.Key.Is(ir.KString) && tx.Is(ir.KString) {
		k, m := g.bind(g.val(x)), g.bind(g.val(c))
		r := g.newTmp()
		g.out.line("_, %s := %s[%s]", r, m, k)
		return r
	}
	a, b := g.bind(box(g.val(x), tx)), g.bind(box(g.val(c), tc))
	r, e := g.newTmp(), g.newTmp()
	switch {
	case tc.Is(ir.KList):
		g.out.line("%s, %s := runtime.InList(%s, %s)", r, e, a, b)
	case tc.Is(ir.KMap):
		g.out.line("%s, %s := runtime.InMapDyn(%s, %s)", r, e, a, b)
	default:
		g.out.line("%s, %s := runtime.InDyn(%s, %s)", r, e, a, b)
	}
	g.check(e)
	return r
}

// stringsExt compiles the strings extension's functions.
func (g *exprGen) stringsExt(n *ir.Call) string {
	a := n.Args
	str := func(i int) string { return g.bind(g.valAs(a[i], ir.StringType)) }
	num := func(i int) string { return g.bind(g.valAs(a[i], ir.IntType)) }
	fallible := func(fn string, args ...string) string {
		r, e := g.newTmp(), g.newTmp()
		g.out.line("%s, %s := runtime.%s(%s)", r, e, fn, strings.Join(args, ", "))
		g.check(e)
		return r
	}
	switch n.Op + "/" + strconv.Itoa(len(a)) {
	case "lowerAscii/1":
		return "runtime.LowerASCII(" + str(0) + ")"
	case "upperAscii/1":
		return "runtime.UpperASCII(" + str(0) + ")"
	case "trim/1":
		return "runtime.Trim(" + str(0) + ")"
	case "split/2":
		return "runtime.Split(" + str(0) + ", " + str(1) + ")"
	case "split/3":
		return "runtime.SplitN(" + str(0) + ", " + str(1) + ", " + num(2) + ")"
	case "join/1":
		return "runtime.Join(" + g.bind(g.valAs(a[0], ir.ListOf(ir.StringType))) + ")"
	case "join/2":
		return "runtime.JoinSep(" + g.bind(g.valAs(a[0], ir.ListOf(ir.StringType))) + ", " + str(1) + ")"
	case "replace/3":
		return "runtime.Replace(" + str(0) + ", " + str(1) + ", " + str(2) + ")"
	case "replace/4":
		return "runtime.ReplaceN(" + str(0) + ", " + str(1) + ", " + str(2) + ", " + num(3) + ")"
	case "indexOf/2":
		return "runtime.IndexOf(" + str(0) + ", " + str(1) + ")"
	case "indexOf/3":
		return fallible("IndexOfFrom", str(0), str(1), num(2))
	case "lastIndexOf/2":
		return "runtime.LastIndexOf(" + str(0) + ", " + str(1) + ")"
	case "lastIndexOf/3":
		return fallible("LastIndexOfFrom", str(0), str(1), num(2))
	case "substring/2":
		return fallible("Substring", str(0), num(1))
	case "substring/3":
		return fallible("SubstringRange", str(0), num(1), num(2))
	case "charAt/2":
		return fallible("CharAt", str(0), num(1))
	}
	panic("codegen: operation " + n.Op)
}

// inConstStrings compiles `s in ["a", "b", ...]` with a static string s and
// a list literal of string constants into a switch, which Go compiles to a
// length-and-byte dispatch instead of a loop of comparisons.
func (g *exprGen) inConstStrings(n *ir.Call) (string, bool) {
	if n.Op != "in" || !n.Args[0].Type().Is(ir.KString) {
		return "", false
	}
	l, ok := n.Args[1].(*ir.List)
	if !ok || len(l.Elems) == 0 {
		return "", false
	}
	var lits []string
	seen := map[string]bool{}
	for _, e := range l.Elems {
		c, ok := e.(*ir.Const)
		if !ok {
			return "", false
		}
		v, ok := c.Value.(string)
		if !ok {
			return "", false
		}
		if !seen[v] {
			seen[v] = true
			lits = append(lits, strconv.Quote(v))
		}
	}
	x := g.bind(g.val(n.Args[0]))
	r := g.newTmp()
	g.out.line("var %s bool", r)
	g.out.line("switch %s {", x)
	g.out.line("case %s:", strings.Join(lits, ", "))
	g.out.line("\t%s = true", r)
	g.out.line("}")
	return r, true
}

// literalMatch compiles s.matches(pattern) without a regular expression when
// the pattern is a plain literal, optionally anchored with ^ and $, and RE2
// would give the same answer as a string comparison: no flags (case
// folding), no U+FFFD (which RE2 also matches for each invalid byte of s).
func literalMatch(pattern, s string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || strings.ContainsRune(pattern, utf8.RuneError) {
		return "", false
	}
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	begin, end := false, false
	if len(parts) > 0 && parts[0].Op == syntax.OpBeginText {
		begin, parts = true, parts[1:]
	}
	if len(parts) > 0 && parts[len(parts)-1].Op == syntax.OpEndText {
		end, parts = true, parts[:len(parts)-1]
	}
	var lit strings.Builder
	for _, p := range parts {
		switch {
		case p.Op == syntax.OpLiteral && p.Flags&syntax.FoldCase == 0:
			lit.WriteString(string(p.Rune))
		case p.Op == syntax.OpEmptyMatch:
		default:
			return "", false
		}
	}
	q := strconv.Quote(lit.String())
	switch {
	case begin && end:
		return "(" + s + " == " + q + ")", true
	case begin:
		return "strings.HasPrefix(" + s + ", " + q + ")", true
	case end:
		return "strings.HasSuffix(" + s + ", " + q + ")", true
	}
	return "strings.Contains(" + s + ", " + q + ")", true
}

func anyFallible(es []ir.Expr) bool {
	for _, e := range es {
		if fallible(e) {
			return true
		}
	}
	return false
}

// fallible reports whether the code generated for e may produce an
// evaluation error. It errs on the side of true: a false answer lets the
// generator drop CEL's error bookkeeping around e.
func fallible(e ir.Expr) bool {
	static := func(x ir.Expr, kinds ...ir.Kind) bool {
		for _, k := range kinds {
			if x.Type().Is(k) {
				return true
			}
		}
		return false
	}
	switch n := e.(type) {
	case *ir.Const, *ir.Fact, *ir.Counter, *ir.Var:
		return false
	case *ir.Observe:
		return n.Provider || fallible(n.Arg)
	case *ir.And:
		return anyFallible(n.Terms)
	case *ir.Or:
		return anyFallible(n.Terms)
	case *ir.Cond:
		return !n.C.Type().Is(ir.KBool) || anyFallible([]ir.Expr{n.C, n.Then, n.Else})
	case *ir.Select:
		return !(n.Test && n.X.Type().Is(ir.KMap)) || fallible(n.X)
	case *ir.List:
		return anyFallible(n.Elems)
	case *ir.Map:
		return anyFallible(n.Keys) || anyFallible(n.Values)
	case *ir.Call:
		if anyFallible(n.Args) {
			return true
		}
		a := n.Args
		switch n.Op {
		case "eq", "ne", "dyn", "type":
			return false
		case "lt", "le", "gt", "ge":
			return !(a[0].Type().Equal(a[1].Type()) && static(a[0], ir.KInt, ir.KString, ir.KDouble, ir.KBool))
		case "not":
			return !static(a[0], ir.KBool)
		case "size":
			return !static(a[0], ir.KString, ir.KList, ir.KMap)
		case "contains", "startsWith", "endsWith", "lowerAscii", "upperAscii", "trim":
			return !static(a[0], ir.KString) || len(a) > 1 && !static(a[1], ir.KString)
		case "matches":
			_, constant := a[1].(*ir.Const)
			return !constant || !static(a[0], ir.KString)
		case "in":
			return !(static(a[0], ir.KString) && (a[1].Type().Is(ir.KList) && a[1].Type().Elem.Is(ir.KString) ||
				a[1].Type().Is(ir.KMap) && a[1].Type().Key.Is(ir.KString)))
		case "add", "sub", "mul", "div":
			return !(static(a[0], ir.KDouble) && static(a[1], ir.KDouble) ||
				n.Op == "add" && static(a[0], ir.KString) && static(a[1], ir.KString))
		case "string":
			return !static(a[0], ir.KString, ir.KInt, ir.KDouble, ir.KBool)
		case "double":
			return !static(a[0], ir.KDouble, ir.KInt)
		}
		return true
	}
	return true
}
