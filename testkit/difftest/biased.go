// This file owns the generator's biased productions: the shapes where the
// last disagreements with cel-go hid and the first generator never looked.
// dyn(...) around typed expressions of every type as the operand of every
// operator, mixed-type list literals under macros (with non-bool
// predicates), negative zero, provider-backed calls with dyn arguments,
// macro variables named like facts, map literals of every key type, uint
// arithmetic, and long &&/|| chains. Every production is well-typed for
// cel-go's checker (cel-go rejects `1u < 2` but accepts `dyn(1u) < 2`), and
// each one tags the expressions it appears in, so that a run can report
// how often the compiler rejects it.

package difftest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
)

// Production tags, one per family of biased productions.
const (
	tagDyn      = "dyn"       // dyn(...) of a typed expression
	tagDynLogic = "dyn-logic" // dyn operands of && || ! ?:
	tagDynCmp   = "dyn-cmp"   // dyn operands of comparisons
	tagDynArith = "dyn-arith" // dyn operands of arithmetic
	tagDynIn    = "dyn-in"    // dyn on either side of in
	tagDynIndex = "dyn-index" // indexing dyn values and with dyn keys
	tagDynSize  = "dyn-size"  // size of dyn values
	tagDynConv  = "dyn-conv"  // conversions of dyn values
	tagDynRange = "dyn-range" // dyn values as macro ranges
	tagMixed    = "mixed"     // mixed-type list literals under macros
	tagNonBool  = "nonbool"   // macro predicates that are not bools
	tagMixedEq  = "mixed-eq"  // equality of mixed lists
	tagNegZero  = "negzero"   // negative-zero literals
	tagProvider = "provider"  // provider-backed calls
	tagToolArg  = "toolarg"   // tool_arg_* with dyn arguments
	tagShadow   = "shadow"    // macro variables named like facts
	tagMap      = "map"       // map literals of every key type
	tagUint     = "uint"      // uint literals and operations
	tagChain    = "chain"     // long && / || chains
	tagNumEdge  = "num-edge"  // numbers at their types' edges, across types
	tagConvEdge = "conv-edge" // conversions at their edges, double text
)

func (g *Gen) tag(t string) {
	if g.tags != nil {
		g.tags[t] = true
	}
}

// Tags returns the biased productions the last expression of [Gen.When]
// used, sorted; none for an expression of the first generator's
// distribution.
func (g *Gen) Tags() []string { return slices.Sorted(maps.Keys(g.tags)) }

// newTypes are the expression types only the biased productions produce.
var newTypes = map[string]bool{"uint": true, "dyn": true, "list(dyn)": true}

// newExpr returns a biased expression of type t.
func (g *Gen) newExpr(t string, d int) string {
	if d <= 0 {
		return g.newLeaf(t)
	}
	d--
	switch t {
	case "bool":
		return g.newBool(d)
	case "int":
		return g.newInt(d)
	case "uint":
		return g.newUint(d)
	case "double":
		return g.newDouble(d)
	case "string":
		return g.newString(d)
	case "dyn":
		return g.dynOf(d)
	case "list(dyn)":
		return g.mixedList(d)
	case "list(string)":
		g.tag(tagMixed)
		return fmt.Sprintf("%s.map(%s)", g.mixedList(d), g.withVar("dyn", func(v string) string { return v + ", string(" + v + ")" }))
	}
	return g.leaf(t)
}

func (g *Gen) newLeaf(t string) string {
	switch t {
	case "bool":
		switch g.r.Intn(4) {
		case 0:
			g.tag(tagNegZero)
			return g.pick("(-0.0 == 0.0)", `(string(-0.0) == "-0")`, "(1.0 / -0.0 < 0.0)")
		case 1:
			g.tag(tagUint)
			return fmt.Sprintf("(%s %s %s)", g.uintLit(), g.pick("<", "==", ">="), g.uintLit())
		case 2:
			return g.providerCall("bool", 0)
		}
	case "int":
		if g.chance(2) {
			g.tag(tagMap)
			return g.pick("size({})", `size({1: "a", 2u: "b"})`, `{"a": 1}.size()`)
		}
	case "uint":
		if v := g.varOf("uint"); v != "" && g.chance(3) {
			return v
		}
		g.tag(tagUint)
		return g.uintLit()
	case "double":
		if g.chance(2) {
			return g.negZero()
		}
	case "string":
		if g.chance(3) {
			g.tag(tagNegZero)
			return "string(-0.0)"
		}
	case "dyn":
		if v := g.varOf("dyn"); v != "" && g.chance(2) {
			return v
		}
		if g.chance(2) {
			g.tag(tagDyn)
			return fmt.Sprintf("dyn(%s)", g.anyLit())
		}
		return g.dynExpr(0)
	case "list(dyn)":
		return g.mixedList(0)
	}
	return g.leaf(t)
}

// withVar declares a macro variable of type typ (named v<n>) for the body
// that f returns, and returns "name, body".
func (g *Gen) withVar(typ string, f func(v string) string) string {
	return g.withNamedVar(fmt.Sprintf("v%d", len(g.vars)), typ, f)
}

// withNamedVar declares a macro variable named name: an outer variable
// of the same name is hidden while the body is generated.
func (g *Gen) withNamedVar(name, typ string, f func(v string) string) string {
	saved := g.vars
	var vs []genVar
	for _, v := range saved {
		if v.name != name {
			vs = append(vs, v)
		}
	}
	g.vars = append(vs, genVar{name, typ})
	defer func() { g.vars = saved }()
	return f(name)
}

// Literals.

func (g *Gen) uintLit() string {
	return g.pick("0u", "1u", "2u", "3u", "7u", "10u", "18446744073709551615u", "9223372036854775808u", "4294967296u", "9223372036854775807u")
}

// anyLit is a literal of a random type, lists and maps included.
func (g *Gen) anyLit() string {
	switch g.r.Intn(11) {
	case 0:
		return g.lit("int")
	case 1:
		return g.lit("double")
	case 2:
		return g.uintLit()
	case 3:
		return g.lit("string")
	case 4:
		return g.lit("bool")
	case 5:
		return "null"
	case 6:
		return g.lit("list(string)")
	case 7:
		return g.pick("[1, 2]", `[1, "a", true]`, "[1, 2.0, 3u]", `[[1], {"a": 1}]`, "[-0.0]", "[]")
	case 8:
		return g.pick(`{"a": 1}`, "{}", `{1: "a", 2: "b"}`, "{true: 1}", "{1u: 2}", `{"a": {"b": 1}}`, "{1: 2, 2.0: 3}")
	case 9:
		return g.pick("-0.0", "0.0")
	}
	return g.pick("1", "1.0", "1u", `"1"`)
}

// negZero is a double expression that holds -0.0.
func (g *Gen) negZero() string {
	g.tag(tagNegZero)
	return g.pick("-0.0", "[-0.0][0]", `{"a": -0.0}.a`, "-(0.0)", "(0.0 * -1.0)", `double("-0")`, "(true ? -0.0 : 1.0)",
		"{-0.0: -0.0}[0.0]", "-(-(-0.0))", "(-0.0 + -0.0)", "[1.0, -0.0][1]", "double(-0.0)")
}

// typedExpr is an expression of a random type, for dyn(...) to wrap.
func (g *Gen) typedExpr(d int) string {
	switch t := g.pick("int", "uint", "double", "string", "bool", "list(string)", "list(dyn)", "map", "dyn", "negzero"); t {
	case "map":
		return g.mapLit(d).code
	case "negzero":
		return g.negZero()
	default:
		return g.expr(t, d)
	}
}

// dynOf is an expression of static type dyn.
func (g *Gen) dynOf(d int) string {
	if v := g.varOf("dyn"); v != "" && g.chance(3) {
		return v
	}
	if d <= 0 {
		g.tag(tagDyn)
		switch g.r.Intn(4) {
		case 0:
			return g.dynExpr(0)
		case 1:
			return fmt.Sprintf("dyn(%s)", g.negZero())
		case 2:
			return fmt.Sprintf("dyn(%s)", g.typedExpr(0))
		}
		return fmt.Sprintf("dyn(%s)", g.anyLit())
	}
	switch g.r.Intn(9) {
	case 0, 1, 2:
		g.tag(tagDyn)
		return fmt.Sprintf("dyn(%s)", g.typedExpr(d))
	case 3:
		return g.dynExpr(d)
	case 4:
		g.tag(tagMixed)
		return fmt.Sprintf("%s[%s]", g.mixedList(d), g.pick("0", "1", "2", "-1", g.expr("int", d)))
	case 5:
		g.tag(tagMap)
		m := g.mapLit(d)
		e := fmt.Sprintf("%s[%s]", m.code, g.mapKey(m, d-1))
		if m.vt != "dyn" {
			e = "dyn(" + e + ")"
		}
		return e
	case 6:
		g.tag(tagDynIndex)
		return fmt.Sprintf("%s[%s]", g.dynOf(d-1), g.pick("0", "1", `"a"`, `"b"`, "0u", "1.0", "dyn(0)", "true"))
	case 7:
		g.tag(tagDyn)
		return fmt.Sprintf("dyn(%s)", g.negZero())
	}
	g.tag(tagDyn)
	return fmt.Sprintf("dyn(%s)", g.anyLit())
}

// elem is one element of a list or map literal, kept abstract so that the
// literal can be rendered again with numeric cousins (1, 1.0, 1u) for
// equality that may hold.
type elem struct {
	kind string // int, uint, double, string, bool, null, raw
	n    int64
	s    string // string value, or the code of a raw element
	typ  string // static type of a raw element ("" when not one of ours)
}

func (g *Gen) elemOf(kind string) elem {
	switch kind {
	case "num":
		return elem{kind: g.pick("int", "double", "uint"), n: int64(g.r.Intn(4))}
	case "int":
		if g.chance(6) {
			return elem{kind: "raw", s: g.pick("-1", "9223372036854775807", "-9223372036854775808"), typ: "int"}
		}
		return elem{kind: "int", n: int64(g.r.Intn(4))}
	case "uint":
		if g.chance(6) {
			return elem{kind: "raw", s: "18446744073709551615u", typ: "uint"}
		}
		return elem{kind: "uint", n: int64(g.r.Intn(4))}
	case "double":
		if g.chance(5) {
			return elem{kind: "raw", s: g.pick("-0.0", "0.5", "-1.5", "1e308"), typ: "double"}
		}
		return elem{kind: "double", n: int64(g.r.Intn(4))}
	case "string":
		return elem{kind: "string", s: g.pick("a", "b", "", "x", "héllo", "1")}
	case "bool":
		return elem{kind: "bool", n: int64(g.r.Intn(2))}
	case "null":
		return elem{kind: "null"}
	case "list":
		return elem{kind: "raw", s: g.pick("[1]", `["a"]`, "[]", `[1, "a"]`, "[1.0, 2u]", "[true]"), typ: "list"}
	case "map":
		return elem{kind: "raw", s: g.pick(`{"a": 1}`, "{}", `{1: "a"}`, `{"a": [1]}`, `{true: false}`), typ: "map"}
	}
	return elem{kind: "int", n: 1}
}

// render writes an element; cousin renders a number in any of its
// numeric types.
func (g *Gen) render(e elem, cousin bool) (code, typ string) {
	k := e.kind
	if cousin && (k == "int" || k == "uint" || k == "double") && e.n >= 0 {
		k = g.pick("int", "uint", "double")
	}
	switch k {
	case "int":
		return fmt.Sprint(e.n), "int"
	case "uint":
		return fmt.Sprintf("%du", e.n), "uint"
	case "double":
		return fmt.Sprintf("%d.0", e.n), "double"
	case "string":
		return fmt.Sprintf("%q", e.s), "string"
	case "bool":
		return fmt.Sprint(e.n == 1), "bool"
	case "null":
		return "null", "null"
	}
	return e.s, e.typ
}

var mixedKinds = []string{"int", "double", "uint", "string", "bool", "null", "list", "map", "num"}

// mixedSpec draws the elements of a mixed-type list literal: two to five,
// the first two of different classes (int, uint, double, string, bool,
// null, list, map), so that cel-go's checker types the list list(dyn).
func (g *Gen) mixedSpec() []elem {
	n := 2 + g.r.Intn(4)
	out := []elem{g.elemOf(g.pick(mixedKinds...))}
	for len(out) < n {
		e := g.elemOf(g.pick(mixedKinds...))
		if len(out) == 1 && elemClass(e) == elemClass(out[0]) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func elemClass(e elem) string {
	if e.kind == "raw" {
		return e.typ
	}
	return e.kind
}

func (g *Gen) renderList(es []elem, cousin bool) string {
	var parts []string
	for _, e := range es {
		c, _ := g.render(e, cousin)
		parts = append(parts, c)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// mixedList is an expression of type list(dyn): mostly a mixed-type list
// literal.
func (g *Gen) mixedList(d int) string {
	g.tag(tagMixed)
	switch g.r.Intn(8) {
	case 0:
		if d > 0 {
			// dyn(...) again: an index of a dyn value is typed as a free
			// type parameter, which would take the other element's type.
			return fmt.Sprintf("[dyn(%s), %s]", g.dynOf(d-1), g.typedExpr(d-1))
		}
	case 1:
		if d > 0 {
			return fmt.Sprintf("(%s + %s)", g.mixedList(d-1), g.renderList(g.mixedSpec(), false))
		}
	case 2:
		if d > 0 {
			rng := g.mixedList(d - 1)
			return fmt.Sprintf("%s.map(%s)", rng, g.withVar("dyn", func(v string) string { return v + ", " + g.pick(v, "dyn(["+v+"])", "dyn(["+v+", 1])") }))
		}
	case 3:
		if d > 0 {
			rng := g.mixedList(d - 1)
			return fmt.Sprintf("%s.filter(%s)", rng, g.withVar("dyn", func(v string) string { return v + ", " + g.predicate(v, d-1) }))
		}
	}
	return g.renderList(g.mixedSpec(), false)
}

// predicate is a macro body over the dyn variable v: often not a bool.
func (g *Gen) predicate(v string, d int) string {
	switch g.r.Intn(7) {
	case 0:
		g.tag(tagNonBool)
		return v
	case 1:
		g.tag(tagNonBool)
		return g.pick("dyn("+v+")", v+" && true", "true && "+v, v+" || false", "!"+v, v+"[0]")
	case 2:
		return fmt.Sprintf("%s %s %s", v, g.pick("==", "!="), g.anyLit())
	case 3:
		return fmt.Sprintf("%s %s %s", v, g.pick("<", ">=", ">"), g.pick("1", "1.0", "1u", `"a"`, "true"))
	case 4:
		return fmt.Sprintf("%s in %s", v, g.pick(`[1, "a"]`, `{"a": 1, 1: 2}`, `["a", "b"]`, "[1u, 2.0]"))
	}
	return g.expr("bool", min(d, 2))
}

// macroRange is a range of element type dyn for a new macro.
func (g *Gen) macroRange(d int) string {
	switch g.r.Intn(6) {
	case 0, 1, 2:
		return g.mixedList(d)
	case 3:
		g.tag(tagDynRange)
		return fmt.Sprintf("dyn(%s)", g.pick(g.renderList(g.mixedSpec(), false), g.mapLit(d).code, g.lit("list(string)"), `"ab"`, "1"))
	case 4:
		g.tag(tagDynRange)
		g.profiles["tool"] = true
		return g.pick("tool_args.l", "tool_args.m", "tool_args.a", "tool_args.l[0]")
	}
	g.tag(tagDynRange)
	return fmt.Sprintf("dyn(%s)", g.dynOf(d))
}

// macro applies a random macro to rng with a body over a variable of
// type typ (named name, or v<n> when name is ""), as a bool.
func (g *Gen) macro(rng, name, typ string, body func(v string) string) string {
	if name == "" {
		name = fmt.Sprintf("v%d", len(g.vars))
		if len(g.vars) > 0 && g.chance(4) {
			// The name of an enclosing macro's variable, which the new
			// one shadows in its body.
			g.tag(tagShadow)
			name = g.vars[g.r.Intn(len(g.vars))].name
		}
	}
	vb := g.withNamedVar(name, typ, func(v string) string { return v + ", " + body(v) })
	switch g.r.Intn(8) {
	case 0:
		return fmt.Sprintf("(%s.filter(%s).size() %s %s)", rng, vb, g.pick("==", ">=", "<"), g.pick("0", "1", "2"))
	case 1:
		return fmt.Sprintf("(%s.map(%s) == %s)", rng, vb, g.pick("[true]", "[false, true]", "[]", `[1, true]`))
	case 2:
		return fmt.Sprintf("(%s.map(%s).size() == %s)", rng, vb, g.pick("0", "1", "2"))
	}
	return fmt.Sprintf("%s.%s(%s)", rng, g.pick("all", "exists", "exists_one"), vb)
}

// Bool productions.

func (g *Gen) newBool(d int) string {
	switch g.r.Intn(28) {
	case 0, 1:
		g.tag(tagDynLogic)
		switch g.r.Intn(5) {
		case 0:
			return fmt.Sprintf("(%s && %s)", g.dynOf(d), g.expr("bool", d))
		case 1:
			return fmt.Sprintf("(%s || %s)", g.expr("bool", d), g.dynOf(d))
		case 2:
			return fmt.Sprintf("!%s", g.dynOf(d))
		case 3:
			return fmt.Sprintf("(%s ? %s : %s)", g.dynOf(d), g.expr("bool", d), g.expr("bool", d))
		}
		return fmt.Sprintf("((%s %s %s) %s %s)", g.dynOf(d), g.pick("&&", "||"), g.pick("false", "true", g.expr("bool", d)), g.pick("||", "&&"), g.pick("true", "false", g.dynOf(d)))
	case 2, 3:
		g.tag(tagDynCmp)
		t := g.pick("int", "uint", "double", "string", "bool")
		op := g.pick("==", "!=", "<", "<=", ">", ">=")
		if g.chance(2) {
			return fmt.Sprintf("(%s %s %s)", g.dynOf(d), op, g.expr(t, d))
		}
		return fmt.Sprintf("(%s %s %s)", g.expr(t, d), op, g.dynOf(d))
	case 4:
		g.tag(tagDynCmp)
		return fmt.Sprintf("(%s %s %s)", g.dynOf(d), g.pick("==", "!="), g.pick(g.typedExpr(d), g.dynOf(d)))
	case 5:
		g.tag(tagDynArith)
		t := g.pick("int", "uint", "double", "string")
		op := g.pick("+", "-", "*", "/", "%")
		switch t {
		case "double":
			op = g.pick("+", "-", "*", "/")
		case "string":
			op = "+"
		}
		if g.chance(3) {
			// cel-go types dyn op dyn as one of the overloads' results:
			// wrap it to compare with anything.
			return fmt.Sprintf("(dyn(%s %s %s) %s %s)", g.dynOf(d), op, g.dynOf(d), g.pick("==", "<", "!="), g.pick("0", "1.0", "1u", `"ab"`, "dyn(2)"))
		}
		return fmt.Sprintf("((%s %s %s) %s %s)", g.dynOf(d), op, g.expr(t, d), g.pick("==", "<", ">=", "!="), g.expr(t, 0))
	case 6:
		g.tag(tagDynIn)
		switch g.r.Intn(4) {
		case 0:
			return fmt.Sprintf("(%s in %s)", g.dynOf(d), g.mixedList(d))
		case 1:
			return fmt.Sprintf("(%s in %s)", g.dynOf(d), g.mapLit(d).code)
		case 2:
			return fmt.Sprintf("(%s in %s)", g.typedExpr(d), g.dynOf(d))
		}
		rng := g.pick(`["a", "b"]`, "tool_args", "[1, 2]", "tool_args.l", "principal_roles")
		switch rng {
		case "principal_roles":
			g.profiles["session"] = true
		case "tool_args", "tool_args.l":
			g.profiles["tool"] = true
		}
		return fmt.Sprintf("(%s in %s)", g.dynOf(d), rng)
	case 7:
		g.tag(tagDynIndex)
		switch g.r.Intn(3) {
		case 0:
			return fmt.Sprintf("(%s[%s] == %s)", g.dynOf(d), g.pick("0", "1", `"a"`, "0u", "1.0", g.dynOf(d)), g.anyLit())
		case 1:
			return fmt.Sprintf("(%s[%s] == dyn(%s))", g.pick(`["a", "b"]`, `[1, "a", true]`, "[1, 2.0]"), g.dynOf(d), g.anyLit())
		}
		m := g.mapLit(d)
		return fmt.Sprintf("(%s[%s] %s)", m.code, g.dynOf(d), g.valueCmp(m.vt))
	case 8:
		g.tag(tagDynSize)
		return fmt.Sprintf("(%s %s %s)", g.pick("size("+g.dynOf(d)+")", g.dynOf(d)+".size()"), g.pick("==", ">", "<="), g.pick("0", "1", "2", g.expr("int", d)))
	case 9:
		g.tag(tagDynConv)
		switch g.r.Intn(5) {
		case 0:
			return fmt.Sprintf("(int(%s) %s %s)", g.dynOf(d), g.pick("==", ">"), g.lit("int"))
		case 1:
			return fmt.Sprintf("(uint(%s) %s %s)", g.dynOf(d), g.pick("==", ">"), g.uintLit())
		case 2:
			return fmt.Sprintf("(double(%s) %s %s)", g.dynOf(d), g.pick("==", "<"), g.lit("double"))
		case 3:
			return fmt.Sprintf("(string(%s) == %s)", g.dynOf(d), g.pick(g.lit("string"), `"-0"`, `"1"`, `"true"`, `"1.5"`))
		}
		return fmt.Sprintf("bool(%s)", g.dynOf(d))
	case 10, 11:
		g.tag(tagMixed)
		return g.macro(g.macroRange(d), "", "dyn", func(v string) string { return g.predicate(v, d) })
	case 12:
		g.tag(tagMixedEq)
		es := g.mixedSpec()
		a := g.renderList(es, g.chance(2))
		b := g.renderList(es, true)
		if g.chance(3) {
			b = g.renderList(g.mixedSpec(), false)
		}
		switch g.r.Intn(4) {
		case 0:
			g.profiles["tool"] = true
			return fmt.Sprintf("(%s %s tool_args.l)", a, g.pick("==", "!="))
		case 1:
			return fmt.Sprintf("(dyn(%s) %s %s)", a, g.pick("==", "!="), b)
		}
		return fmt.Sprintf("(%s %s %s)", a, g.pick("==", "!="), b)
	case 13, 14:
		return g.negZeroBool(d)
	case 15, 16:
		switch g.r.Intn(3) {
		case 0:
			return fmt.Sprintf("(%s %s %s)", g.providerCall("string", d), g.pick("==", "!="), g.pick(`"x"`, `""`, `"ok"`, g.expr("string", d)))
		case 1:
			return fmt.Sprintf("(%s %s %s)", g.providerCall("int", d), g.pick("==", ">", "<"), g.pick("0", "1", "-1", g.expr("int", d)))
		}
		return g.providerCall("bool", d)
	case 17, 18:
		return g.shadow(d)
	case 19, 20:
		return g.mapBool(d)
	case 21, 22:
		return g.uintBool(d)
	case 23, 24:
		return g.numEdge(d)
	case 25, 26:
		return g.convEdge(d)
	}
	g.tag(tagToolArg)
	g.profiles["tool"] = true
	switch g.r.Intn(3) {
	case 0:
		return fmt.Sprintf("(tool_arg_string(%s) == %s)", g.dynOf(d), g.lit("string"))
	case 1:
		return fmt.Sprintf("(tool_arg_int(%s) %s %s)", g.dynOf(d), g.pick("==", ">"), g.lit("int"))
	}
	return fmt.Sprintf("tool_arg_bool(%s)", g.dynOf(d))
}

func (g *Gen) negZeroBool(d int) string {
	z := g.negZero()
	if v := g.varOf("double"); v != "" && g.chance(4) {
		z = v
	}
	if g.chance(5) {
		g.profiles["content-safety"] = true
		z = g.pick("jailbreak_score", "prompt_injection_score", "-(jailbreak_score)")
	}
	switch g.r.Intn(12) {
	case 0:
		return fmt.Sprintf("(1.0 / %s %s 0.0)", z, g.pick("<", ">", "=="))
	case 1:
		return fmt.Sprintf("(string(%s) == %s)", z, g.pick(`"-0"`, `"0"`, `"-Infinity"`))
	case 2:
		return fmt.Sprintf("(string(1.0 / %s) == %s)", z, g.pick(`"-Infinity"`, `"+Inf"`, `"Infinity"`, `"-Inf"`))
	case 3:
		return fmt.Sprintf("(%s %s 0.0)", z, g.pick("==", "<", "!=", ">="))
	case 4:
		return fmt.Sprintf("(int(%s) == 0)", z)
	case 5:
		return fmt.Sprintf("(dyn(%s) == %s)", z, g.pick("0", "0u", "0.0", "-0.0"))
	case 6:
		return fmt.Sprintf("([%s] == [0.0])", z)
	case 7:
		return fmt.Sprintf(`({"a": %s} == {"a": 0.0})`, z)
	case 8:
		return fmt.Sprintf("(%s in [0.0, 1.0])", z)
	case 9:
		return fmt.Sprintf("(0.0 in {%s: 1})", z)
	case 10:
		return fmt.Sprintf("(string([%s][0]) == \"-0\")", z)
	}
	return fmt.Sprintf("(1.0 / (%s * %s) < 0.0)", z, g.expr("double", d))
}

// Provider-backed calls.

var providerFns = []struct{ name, result, profile string }{
	{"path_outside_scope", "bool", "filesystem"},
	{"lycaon.source_includes", "bool", ""},
	{"mcp_server_configured_for", "bool", "mcp"},
	{"mcp_server_enabled_for", "bool", "mcp"},
	{"mcp_has_field", "bool", "mcp"},
	{"mcp_field_bool", "bool", "mcp"},
	{"mcp_field_string", "string", "mcp"},
	{"mcp_field_int", "int", "mcp"},
	{"lycaon.host_resource_status_for", "string", ""},
	{"lycaon.host_resource_policy_for", "string", ""},
}

// providerArgs are the arguments calls use and providers answer.
var providerArgs = []string{"a", "b", "x", "", "web", "1", "abc"}

func (g *Gen) providerArg(d int) string {
	if d <= 0 && g.chance(2) {
		return fmt.Sprintf("%q", g.pick(providerArgs...))
	}
	if d <= 0 {
		g.tag(tagDyn)
		return fmt.Sprintf("dyn(%s)", g.anyLit())
	}
	switch g.r.Intn(7) {
	case 0, 1:
		return fmt.Sprintf("%q", g.pick(providerArgs...))
	case 2:
		g.tag(tagDyn)
		return fmt.Sprintf("dyn(%s)", g.typedExpr(d))
	case 3:
		return g.expr("string", d)
	case 4:
		return g.dynOf(d)
	case 5:
		g.tag(tagDyn)
		return fmt.Sprintf("dyn(%q)", g.pick(providerArgs...))
	}
	g.profiles["tool"] = true
	return g.pick("tool_args.a", "tool_args.s", `tool_args["b"]`, "tool", `tool_arg_string("a")`)
}

// providerCall calls a provider-backed function of the given result type.
func (g *Gen) providerCall(result string, d int) string {
	g.tag(tagProvider)
	var c []int
	for i, f := range providerFns {
		if f.result == result {
			c = append(c, i)
		}
	}
	f := providerFns[c[g.r.Intn(len(c))]]
	if f.profile != "" {
		g.profiles[f.profile] = true
	}
	return fmt.Sprintf("%s(%s)", f.name, g.providerArg(d))
}

// Macro variables named like facts.

func (g *Gen) shadow(d int) string {
	g.tag(tagShadow)
	name := g.pick("tool", "principal", "anchor", "content_length", "jailbreak_score", "principal_roles", "tool_args", "lycaon", "lycaon", "tool")
	var rng, typ string
	switch name {
	case "tool", "principal", "anchor":
		switch g.r.Intn(4) {
		case 0:
			rng, typ = g.pick(`["a", "b"]`, `["x"]`, `"a,b".split(",")`), "string"
		case 1:
			rng, typ = g.fact("list(string)"), "string"
		case 2:
			g.profiles["tool"] = true
			rng, typ = "tool_args.l", "dyn"
		default:
			rng, typ = g.mixedList(d), "dyn"
		}
	case "content_length":
		rng, typ = g.pick("[1, 2]", "[0, -1, 9223372036854775807]"), "int"
		if g.chance(2) {
			rng, typ = g.mixedList(d), "dyn"
		}
	case "jailbreak_score":
		rng, typ = g.pick("[0.5, -0.0]", "[1.0]"), "double"
		if g.chance(2) {
			rng, typ = g.mixedList(d), "dyn"
		}
	case "principal_roles":
		rng, typ = g.pick(`[["a"], []]`, "[principal_roles]", `[["x", "y"]]`), "list(string)"
		if strings.Contains(rng, "principal_roles") {
			g.profiles["session"] = true
		}
		if g.chance(3) {
			rng, typ = "tool_args.l", "dyn"
			g.profiles["tool"] = true
		}
	case "tool_args":
		rng, typ = g.pick("[tool_args]", "[tool_args, {}]", `[{"a": dyn(1), "l": dyn(["a", true])}]`), "tamap"
		if strings.Contains(rng, "[tool_args") {
			g.profiles["tool"] = true
		}
	case "lycaon":
		switch g.r.Intn(4) {
		case 0:
			g.profiles["tool"] = true
			rng, typ = "tool_args.l", "dyn"
		case 1:
			g.profiles["content-safety"] = true
			rng, typ = "secret_matches", "tamap"
		case 2:
			// Elements of type map(string, dyn).
			rng, typ = g.pick(`[{"x": 1, "phase": "p"}, {"x": "a"}]`, `[{"x": true, "fruitless_search_run": 3}]`, `[{"x": -0.0, "workers_idle": true}, {"x": 1}]`), "tamap"
		default:
			rng, typ = g.pick(`dyn([{}])`, `dyn({"x": 1})`, `[{"x": [1, "a"]}, {"x": {"x": 2}}]`, `[{"x": 1}, 1]`), "dyn"
		}
	}
	return g.macro(rng, name, typ, func(v string) string {
		if name == "lycaon" && !g.chance(3) {
			return g.pick("lycaon.x == 1", "has(lycaon.x)", "lycaon.x", `lycaon.phase == "p"`, "lycaon.fruitless_search_run > 2", "lycaon.x.y == 2", `lycaon.x != "a"`, "lycaon.workers_idle")
		}
		if g.chance(3) {
			switch typ {
			case "string":
				return fmt.Sprintf("%s %s %s", v, g.pick("==", "!="), g.lit("string"))
			case "int":
				return fmt.Sprintf("%s %s %s", v, g.pick("==", ">"), g.lit("int"))
			case "double":
				return fmt.Sprintf("1.0 / %s < 0.0", v)
			case "dyn":
				return g.predicate(v, d)
			case "list(string)":
				return fmt.Sprintf("%q in %s", g.pick("a", "x"), v)
			case "tamap":
				return g.pick(v+`.a == 1`, `has(`+v+`.l)`, `"a" in `+v, v+` == {}`)
			}
		}
		return g.expr("bool", min(d, 2))
	})
}

// Map literals.

// mapSpec is a map literal: its code and static key and value types
// (types "dyn" for mixed ones, "" for the empty map).
type mapSpec struct {
	code, kt, vt string
	keys         []elem
}

var mapKeyKinds = []string{"int", "uint", "bool", "string", "double", "mixnum", "mixany", "empty", "nonconst", "string", "int"}

// mapLit is a map literal with keys of a random type.
func (g *Gen) mapLit(d int) mapSpec {
	g.tag(tagMap)
	kind := g.pick(mapKeyKinds...)
	if kind == "empty" {
		return mapSpec{code: "{}"}
	}
	n := 1 + g.r.Intn(3)
	var keys []elem
	seen := map[string]bool{}
	for tries := 0; len(keys) < n && tries < 20; tries++ {
		var e elem
		switch kind {
		case "mixnum":
			e = g.elemOf("num")
		case "mixany":
			e = g.elemOf(g.pick("int", "string", "bool", "uint"))
		case "nonconst":
			e = g.nonConstKey()
		case "bool", "string":
			e = g.elemOf(kind)
		default:
			e = g.elemOf(kind)
		}
		c, _ := g.render(e, false)
		if seen[c] && !g.chance(8) {
			continue
		}
		seen[c] = true
		keys = append(keys, e)
	}
	vkind := g.pick("int", "string", "bool", "double", "mixed", "dyn", "nested")
	var parts []string
	kt, vt := "", ""
	join := func(cur, t string) string {
		if cur == "" || cur == t {
			return t
		}
		return "dyn"
	}
	for _, k := range keys {
		kc, ktyp := g.render(k, false)
		var vc, vtyp string
		switch vkind {
		case "mixed":
			vc, vtyp = g.render(g.elemOf(g.pick("int", "string", "bool", "double")), false)
		case "dyn":
			vc, vtyp = fmt.Sprintf("dyn(%s)", g.anyLit()), "dyn"
		case "nested":
			vc, _ = g.render(g.elemOf(g.pick("list", "map")), false)
			vtyp = "other"
		default:
			vc, vtyp = g.render(g.elemOf(vkind), false)
		}
		if d > 0 && g.chance(6) && (vtyp == "int" || vtyp == "string" || vtyp == "bool" || vtyp == "double") {
			vc = g.expr(vtyp, d-1)
		}
		kt, vt = join(kt, ktyp), join(vt, vtyp)
		parts = append(parts, kc+": "+vc)
	}
	return mapSpec{code: "{" + strings.Join(parts, ", ") + "}", kt: kt, vt: vt, keys: keys}
}

// nonConstKey is a map key read from a fact.
func (g *Gen) nonConstKey() elem {
	switch g.r.Intn(6) {
	case 0:
		g.profiles["tool"] = true
		return elem{kind: "raw", s: "tool", typ: "string"}
	case 1:
		return elem{kind: "raw", s: g.pick("lycaon.phase", "lycaon.last_assistant"), typ: "string"}
	case 2:
		return elem{kind: "raw", s: g.pick("lycaon.fruitless_search_run", "lycaon.active_worker_count"), typ: "int"}
	case 3:
		g.profiles["tool"] = true
		return elem{kind: "raw", s: g.pick("tool_args.a", "tool_args.n", `tool_args["s"]`), typ: "dyn"}
	case 4:
		return elem{kind: "raw", s: g.pick("lycaon.workers_idle", "lycaon.tool_is_state"), typ: "bool"}
	}
	g.profiles["tool"] = true
	return elem{kind: "raw", s: `tool_arg_string("a")`, typ: "string"}
}

// mapKey is a key expression that type-checks as an index of m.
func (g *Gen) mapKey(m mapSpec, d int) string {
	if len(m.keys) > 0 && g.chance(2) {
		k := m.keys[g.r.Intn(len(m.keys))]
		c, t := g.render(k, g.chance(2))
		if t != m.kt && m.kt != "dyn" && m.kt != "" {
			c = "dyn(" + c + ")"
		}
		return c
	}
	switch m.kt {
	case "", "dyn":
		return g.pick(g.anyLit(), g.dynOf(d), g.lit("int"), g.lit("string"), g.uintLit())
	case "uint":
		return g.pick(g.uintLit(), "dyn(1)", "dyn(1.0)")
	case "int", "string", "bool", "double":
		if g.chance(4) {
			return "dyn(" + g.anyLit() + ")"
		}
		return g.expr(m.kt, min(d, 1))
	}
	return "dyn(" + g.anyLit() + ")"
}

// valueCmp compares a value of static type vt with something that
// type-checks.
func (g *Gen) valueCmp(vt string) string {
	switch vt {
	case "int", "string", "bool", "double":
		return g.pick("==", "!=") + " " + g.lit(vt)
	case "dyn":
		return g.pick("==", "!=") + " " + g.pick("dyn("+g.anyLit()+")", "1", `"a"`, "true", g.anyLit())
	}
	return g.pick("==", "!=") + " dyn(" + g.anyLit() + ")"
}

func (g *Gen) mapBool(d int) string {
	m := g.mapLit(d)
	switch g.r.Intn(10) {
	case 0, 1:
		if m.vt == "bool" && g.chance(2) {
			return fmt.Sprintf("%s[%s]", m.code, g.mapKey(m, d))
		}
		cmp := g.valueCmp(m.vt)
		return fmt.Sprintf("(%s[%s] %s)", m.code, g.mapKey(m, d), cmp)
	case 2:
		return fmt.Sprintf("(%s in %s)", g.mapKey(m, d), m.code)
	case 3:
		return fmt.Sprintf("has(%s.%s)", m.code, g.pick("a", "b", "x"))
	case 4:
		return fmt.Sprintf("(%s %s %s)", g.pick("size("+m.code+")", m.code+".size()"), g.pick("==", ">", "<"), g.pick("0", "1", "2", "3"))
	case 5:
		other := g.mapLit(d)
		if other.kt == m.kt && other.vt == m.vt && m.kt != "" && m.vt != "other" {
			return fmt.Sprintf("(%s %s %s)", m.code, g.pick("==", "!="), other.code)
		}
		if len(m.keys) > 0 && g.chance(2) {
			// The same keys as numeric cousins, same values.
			return fmt.Sprintf("(dyn(%s) == %s)", m.code, g.cousinMap(m))
		}
		return fmt.Sprintf("(dyn(%s) %s %s)", m.code, g.pick("==", "!="), other.code)
	case 6:
		g.profiles["tool"] = true
		lhs := m.code
		if m.kt != "string" && m.kt != "dyn" && m.kt != "" {
			lhs = "dyn(" + lhs + ")"
		}
		return fmt.Sprintf("(%s %s %s)", lhs, g.pick("==", "!="), g.pick("tool_args", "tool_args.m", "tool_args.a"))
	case 7:
		g.profiles["tool"] = true
		return fmt.Sprintf("(%s != {})", g.pick("tool_args", "tool_args.m", m.code, "dyn("+m.code+")"))
	}
	kt := m.kt
	if kt == "" || kt == "dyn" {
		kt = "dyn"
	}
	if kt == "dyn" || kt == "uint" {
		return g.macro(m.code, "", kt, func(v string) string {
			if kt == "dyn" {
				return g.predicate(v, d)
			}
			return fmt.Sprintf("%s %s %s", v, g.pick("<", "==", "!="), g.uintLit())
		})
	}
	return g.macro(m.code, "", kt, func(v string) string {
		if g.chance(2) {
			return fmt.Sprintf("%s[%s] %s", m.code, v, g.valueCmp(m.vt))
		}
		return g.expr("bool", min(d, 2))
	})
}

// cousinMap renders m's keys as numeric cousins; values are taken from
// m's code unchanged when the map has one entry, else the map is m.
func (g *Gen) cousinMap(m mapSpec) string {
	code := m.code
	for _, k := range m.keys {
		if k.kind != "int" && k.kind != "uint" && k.kind != "double" {
			continue
		}
		from, _ := g.render(k, false)
		to, _ := g.render(k, true)
		code = strings.Replace(code, "{"+from+":", "{"+to+":", 1)
		code = strings.Replace(code, ", "+from+":", ", "+to+":", 1)
	}
	return code
}

// uint.

func (g *Gen) newUint(d int) string {
	g.tag(tagUint)
	switch g.r.Intn(8) {
	case 0, 1:
		return fmt.Sprintf("(%s %s %s)", g.expr("uint", d), g.pick("+", "-", "*", "/", "%"), g.expr("uint", d))
	case 2:
		return fmt.Sprintf("uint(%s)", g.expr("int", d))
	case 3:
		return fmt.Sprintf("uint(%s)", g.pick(g.expr("double", d), g.expr("string", d), g.dynOf(d)))
	case 4:
		return fmt.Sprintf("(%s ? %s : %s)", g.expr("bool", d), g.expr("uint", d), g.expr("uint", d))
	case 5:
		return fmt.Sprintf("[1u, 2u, 18446744073709551615u][%s]", g.pick("0", "1", "2", "3", g.expr("int", d)))
	case 6:
		g.tag(tagDynArith)
		return fmt.Sprintf("(%s %s %s)", g.dynOf(d), g.pick("+", "-", "*", "/", "%"), g.expr("uint", d))
	}
	return g.uintLit()
}

func (g *Gen) uintBool(d int) string {
	g.tag(tagUint)
	switch g.r.Intn(8) {
	case 0, 1:
		return fmt.Sprintf("(%s %s %s)", g.expr("uint", d), g.pick("==", "!=", "<", "<=", ">", ">="), g.expr("uint", d))
	case 2:
		g.tag(tagDynCmp)
		return fmt.Sprintf("(dyn(%s) %s %s)", g.expr("uint", d), g.pick("==", "!=", "<", "<=", ">", ">="), g.expr(g.pick("int", "double"), d))
	case 3:
		g.tag(tagDynCmp)
		return fmt.Sprintf("(%s %s dyn(%s))", g.expr(g.pick("int", "double"), d), g.pick("==", "!=", "<", ">="), g.expr("uint", d))
	case 4:
		return fmt.Sprintf("(%s == uint(%s))", g.expr("uint", d), g.expr("int", d))
	case 5:
		return fmt.Sprintf("(int(%s) %s %s)", g.expr("uint", d), g.pick("==", ">"), g.expr("int", d))
	case 6:
		return fmt.Sprintf("(double(%s) %s %s)", g.expr("uint", d), g.pick("==", "<"), g.lit("double"))
	}
	return fmt.Sprintf("(string(%s) == %s)", g.expr("uint", d), g.pick(`"0"`, `"1"`, `"18446744073709551615"`, g.expr("string", d)))
}

// Int, double, string.

func (g *Gen) newInt(d int) string {
	switch g.r.Intn(10) {
	case 0:
		g.tag(tagDynSize)
		return g.pick("size("+g.dynOf(d)+")", g.dynOf(d)+".size()")
	case 1:
		g.tag(tagDynConv)
		return fmt.Sprintf("int(%s)", g.dynOf(d))
	case 2:
		g.tag(tagDynArith)
		op := g.pick("+", "-", "*", "/", "%")
		if g.chance(2) {
			return fmt.Sprintf("(%s %s %s)", g.dynOf(d), op, g.expr("int", d))
		}
		return fmt.Sprintf("(%s %s %s)", g.expr("int", d), op, g.dynOf(d))
	case 3:
		return g.providerCall("int", d)
	case 4:
		g.tag(tagUint)
		return fmt.Sprintf("int(%s)", g.expr("uint", d))
	case 5:
		return fmt.Sprintf("size(%s)", g.pick(g.mixedList(d), g.mapLit(d).code))
	case 6:
		g.tag(tagToolArg)
		g.profiles["tool"] = true
		return fmt.Sprintf("tool_arg_int(%s)", g.dynOf(d))
	case 7:
		return fmt.Sprintf("int(%s)", g.negZero())
	case 8:
		g.tag(tagMixed)
		return fmt.Sprintf("%s.filter(%s).size()", g.macroRange(d), g.withVar("dyn", func(v string) string { return v + ", " + g.predicate(v, d) }))
	}
	m := g.mapLit(d)
	if m.vt == "int" {
		return fmt.Sprintf("%s[%s]", m.code, g.mapKey(m, d))
	}
	return fmt.Sprintf("size(%s)", m.code)
}

func (g *Gen) newDouble(d int) string {
	switch g.r.Intn(7) {
	case 0, 1:
		return g.negZero()
	case 2:
		return fmt.Sprintf("(1.0 / %s)", g.negZero())
	case 3:
		g.tag(tagDynConv)
		return fmt.Sprintf("double(%s)", g.dynOf(d))
	case 4:
		g.tag(tagDynArith)
		return fmt.Sprintf("(%s %s %s)", g.dynOf(d), g.pick("+", "-", "*", "/"), g.expr("double", d))
	case 5:
		g.tag(tagUint)
		return fmt.Sprintf("double(%s)", g.expr("uint", d))
	}
	return fmt.Sprintf("-(%s)", g.expr("double", d))
}

func (g *Gen) newString(d int) string {
	switch g.r.Intn(8) {
	case 0:
		g.tag(tagDynConv)
		return fmt.Sprintf("string(%s)", g.dynOf(d))
	case 1:
		return fmt.Sprintf("string(%s)", g.pick(g.negZero(), "1.0 / "+g.negZero(), g.expr("double", d)))
	case 2:
		return g.providerCall("string", d)
	case 3:
		g.tag(tagUint)
		return fmt.Sprintf("string(%s)", g.expr("uint", d))
	case 4:
		g.tag(tagDynArith)
		return fmt.Sprintf("(%s + %s)", g.dynOf(d), g.expr("string", d))
	case 5:
		g.tag(tagToolArg)
		g.profiles["tool"] = true
		return fmt.Sprintf("tool_arg_string(%s)", g.dynOf(d))
	case 6:
		g.tag(tagMixed)
		return fmt.Sprintf("%s.map(%s).join(%s)", g.macroRange(d), g.withVar("dyn", func(v string) string { return v + ", string(" + v + ")" }), g.pick(`","`, `""`))
	}
	m := g.mapLit(d)
	if m.vt == "string" {
		return fmt.Sprintf("%s[%s]", m.code, g.mapKey(m, d))
	}
	return g.lit("string")
}

// Numbers at the edges of their types, compared across types.

var edgeNums = []string{"9223372036854775807", "-9223372036854775808", "9223372036854775806", "0", "-1", "1",
	"18446744073709551615u", "9223372036854775808u", "9223372036854775807u", "0u",
	"9.223372036854775807e18", "9223372036854775808.0", "-9.223372036854775808e18", "-9223372036854777856.0", "1.8446744073709552e19",
	"18446744073709549568.0", "-0.0", "0.0", "1.0", "-1.0", "0.5", "1e308", "(0.0/0.0)", "(1.0/0.0)", "(-1.0/0.0)", "4.611686018427388e18"}

func (g *Gen) numEdge(d int) string {
	g.tag(tagNumEdge)
	a, b := g.pick(edgeNums...), g.pick(edgeNums...)
	switch g.r.Intn(7) {
	case 0, 1, 2:
		return fmt.Sprintf("(dyn(%s) %s %s)", a, g.pick("==", "!=", "<", "<=", ">", ">="), b)
	case 3:
		return fmt.Sprintf("(dyn(%s) in [%s, %s])", a, b, g.pick(edgeNums...))
	case 4:
		return fmt.Sprintf("(dyn(%s) in {%s: 1})", a, g.pick("9223372036854775807", "-9223372036854775808", "18446744073709551615u", "0", "1u", `"a"`, "true"))
	case 5:
		return fmt.Sprintf("([dyn(%s)] == [%s])", a, b)
	}
	return fmt.Sprintf("(%s %s dyn(%s))", g.expr(g.pick("int", "uint", "double"), d), g.pick("==", "<", ">="), a)
}

// Conversions at their edges, and doubles whose text shows.

var convStrings = []string{`"0x10"`, `"+1"`, `"1_000"`, `"Infinity"`, `"-inf"`, `"nan"`, `"NaN"`, `"1e400"`, `"-0"`, `" 1"`, `"1 "`,
	`"9223372036854775808"`, `"-9223372036854775809"`, `"18446744073709551616"`, `"18446744073709551615"`, `"1."`, `".5"`, `"1e3"`,
	`"-1"`, `"0"`, `"00"`, `"01"`, `"1.0"`, `"true"`, `"TRUE"`, `"t"`, `"False"`, `"0b1"`, `"1e-400"`, `"4.9e-324"`, `""`}

var fmtDoubles = []string{"1e-7", "0.1", "123456789.0", "1e21", "1e20", "5e-324", "2.5e-5", "1e15", "1e16", "100.0", "1.0", "-0.0",
	"0.30000000000000004", "1.7976931348623157e308", "(0.0/0.0)", "(1.0/0.0)", "(-1.0/0.0)", "9.223372036854775807e18", "1e-300"}

func (g *Gen) convEdge(d int) string {
	g.tag(tagConvEdge)
	switch g.r.Intn(9) {
	case 0:
		return fmt.Sprintf("(int(%s) %s %s)", g.pick(convStrings...), g.pick("==", ">"), g.lit("int"))
	case 1:
		return fmt.Sprintf("(uint(%s) %s %s)", g.pick(convStrings...), g.pick("==", ">"), g.uintLit())
	case 2:
		return fmt.Sprintf("(double(%s) %s %s)", g.pick(convStrings...), g.pick("==", "<", "!="), g.pick(fmtDoubles...))
	case 3:
		return fmt.Sprintf("bool(%s)", g.pick(convStrings...))
	case 4:
		return fmt.Sprintf("(string(%s) == %s)", g.pick(fmtDoubles...), g.pick(`"1e-07"`, `"0.1"`, `"1.23456789e+08"`, `"123456789"`, `"1e+21"`, `"NaN"`, `"+Inf"`, `"-0"`, `"1"`, g.expr("string", d)))
	case 5:
		return fmt.Sprintf("(int(%s) == %s)", g.pick(fmtDoubles...), g.pick("0", "1", "9223372036854775807", "-9223372036854775808", g.expr("int", d)))
	case 6:
		return fmt.Sprintf("(uint(%s) == %s)", g.pick(fmtDoubles...), g.pick("0u", "1u", "18446744073709551615u", g.expr("uint", d)))
	case 7:
		g.profiles["tool"] = true
		return fmt.Sprintf("(string(%s) == %s)", g.pick("tool_args.a", "tool_args.n", "dyn(tool_args.l)", "double(tool_args.s)", "int(tool_args.s)", "uint(tool_args.n)"), g.pick(`"1"`, `"0.5"`, `"-0"`, `"true"`, `"[]"`))
	}
	return fmt.Sprintf("(%s(%s) %s %s)", g.pick("int", "uint", "double", "string"), g.pick(convStrings...), g.pick("==", "!="), g.pick("dyn(1)", "dyn(1u)", "dyn(1.0)", `dyn("1")`, "dyn(0)"))
}

// Long chains.

// likely returns a term that is usually true (or, negated, usually
// false), failing or not as canFail says.
func (g *Gen) likely(canFail bool) string {
	if canFail {
		g.profiles["tool"] = true
		return g.pick(`tool_args.a != "zz"`, `(1 / tool_arg_int("n")) != 12345`, `tool_args.l[0] != "zz"`, "dyn(tool_args.a) != 0.125",
			`int(tool_args.s) != 12345`, `lycaon.turn_tools[0] != "zz"`, `dyn("x")`, "dyn(1)", "tool_args.m.a != 3", "(9223372036854775807 + lycaon.fruitless_search_run) != 0")
	}
	return g.pick("lycaon.fruitless_search_run != 12345", `lycaon.phase != "zz"`, "size(lycaon.turn_tools) >= 0", "true", "!lycaon.workers_idle || true",
		"dyn(1) || true", "lycaon.active_worker_count < 9223372036854775807", `!(lycaon.last_assistant in ["zz"])`)
}

// chain is a long && or || chain of terms that can fail and terms that
// cannot.
func (g *Gen) chain() string {
	g.tag(tagChain)
	n := 50 + g.r.Intn(650)
	op := g.pick("&&", "||")
	terms := make([]string, n)
	env, err := compiler.NewEnv(catalog.Default())
	if err != nil {
		panic(err)
	}
	// Every term is checked and its cost estimated as the compiler does,
	// so that a chain of hundreds is lost neither to one ill-typed term
	// nor to the pack's cost limit.
	budget := uint64(900_000 / n)
	ok := func(t string) bool {
		a, iss := env.Compile(t)
		if iss != nil && iss.Err() != nil {
			return false
		}
		est, err := env.EstimateCost(a, chainSizes{})
		return err == nil && est.Max <= budget
	}
	checked := func(f func() string) string {
		for tries := 0; tries < 20; tries++ {
			if t := f(); ok(t) {
				return t
			}
		}
		return "true"
	}
	for i := range terms {
		var t string
		switch g.r.Intn(8) {
		case 0:
			t = checked(func() string { return g.expr("bool", 1) })
		case 1:
			t = checked(func() string { return g.newBool(0) })
		case 2, 3:
			t = g.likely(true)
		case 4:
			t = g.pick("lycaon.workers_idle", "!lycaon.tool_is_state", "false", "true")
		default:
			t = g.likely(false)
		}
		if op == "||" && !g.chance(5) {
			t = "!(" + t + ")"
		}
		if g.chance(20) {
			t = fmt.Sprintf("(%s %s %s)", t, g.pick("&&", "||"), g.likely(g.chance(2)))
		}
		if !ok(t) {
			t = "lycaon.workers_idle"
		}
		terms[i] = t
	}
	return strings.Join(terms, " "+op+" ")
}

// chainSizes bounds input sizes as the compiler's cost check does (spec
// section 4): strings and dyn values 65,536, lists and maps 1,024; the
// catalog's functions cost 1.
type chainSizes struct{}

func (chainSizes) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	t := n.Type()
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case types.StringKind, types.BytesKind, types.DynKind, types.AnyKind:
		return &cost.SizeEstimate{Min: 0, Max: 65536}
	case types.ListKind, types.MapKind:
		return &cost.SizeEstimate{Min: 0, Max: 1024}
	}
	return nil
}

func (chainSizes) EstimateCallCost(function, overloadID string, target *cost.AstNode, args []cost.AstNode) *cost.CallEstimate {
	if catalog.Default().Function(function) == nil {
		return nil
	}
	return &cost.CallEstimate{CostEstimate: cost.Estimate{Min: 1, Max: 1}, ResultSize: &cost.SizeEstimate{Min: 0, Max: 65536}}
}
