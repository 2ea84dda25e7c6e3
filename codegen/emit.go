package codegen

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/oarc/oarc/ir"
)

// The emitter.
//
// Expressions are compiled into Go statements appended to the current
// block, and a [value]: the Go expression that holds the result, with its
// static type. Evaluation inside a region (the rule function, or an
// immediately called func literal) is strict: an error returns from the
// region with the region's zero value. CEL's error-absorbing constructs
// (&&, ||, all, exists) compile every operand as a [term] of its own: the
// operand is emitted into a fresh block under a region of its own, and the
// block counts the error exits emitted into it. Whether an operand can fail
// is that count, known where its code was made and nowhere else; an operand
// with no exits is placed inline, one with exits is wrapped in a func
// literal whose error the combinator absorbs as cel-go does.
//
// Generated identifiers all start with "o" and an upper-case letter; CEL
// variables become "oV_name"; nothing a rule author writes can collide with
// them.

// rep is the Go representation of the values of a static type.
type rep uint8

const (
	repDyn     rep = iota // any
	repBool               // bool
	repInt                // int64
	repUint               // uint64
	repDouble             // float64
	repString             // string
	repType               // runtime.Type
	repStrings            // []string
	repMaps               // []map[string]any
	repList               // []any
	repStrMap             // map[string]any
	repAnyMap             // *runtime.AnyMap: a map whose keys need not be strings
)

// repOf is the representation of values of static type t. Only lists whose
// elements the runtime reads natively get typed slices; every other list is
// []any, because values that came through dyn keep whatever dynamic type
// they had, as in cel-go.
func repOf(t *ir.Type) rep {
	switch t.Kind {
	case ir.KBool:
		return repBool
	case ir.KInt:
		return repInt
	case ir.KUint:
		return repUint
	case ir.KDouble:
		return repDouble
	case ir.KString:
		return repString
	case ir.KType:
		return repType
	case ir.KList:
		switch {
		case t.Elem.Is(ir.KString):
			return repStrings
		case isDynMap(t.Elem):
			return repMaps
		}
		return repList
	case ir.KMap:
		if t.Key.Is(ir.KString) {
			return repStrMap
		}
		return repAnyMap
	}
	return repDyn
}

func isDynMap(t *ir.Type) bool {
	return t.Is(ir.KMap) && t.Key.Is(ir.KString) && t.Val.Is(ir.KDyn)
}

// goType is the Go type of the representation.
func (r rep) goType() jen.Code {
	switch r {
	case repBool:
		return jen.Bool()
	case repInt:
		return jen.Int64()
	case repUint:
		return jen.Uint64()
	case repDouble:
		return jen.Float64()
	case repString:
		return jen.String()
	case repType:
		return implQ("Type")
	case repStrings:
		return jen.Index().String()
	case repMaps:
		return jen.Index().Map(jen.String()).Any()
	case repList:
		return jen.Index().Any()
	case repStrMap:
		return jen.Map(jen.String()).Any()
	case repAnyMap:
		return jen.Op("*").Add(implQ("AnyMap"))
	}
	return jen.Any()
}

// zero is the zero value of the representation.
func (r rep) zero() jen.Code {
	switch r {
	case repBool:
		return jen.False()
	case repInt, repUint, repDouble:
		return jen.Lit(0)
	case repString, repType:
		return jen.Lit("")
	}
	return jen.Nil()
}

// asFunc is the runtime function that narrows a dyn to the representation,
// with cel-go's dispatch errors.
func (r rep) asFunc() string {
	switch r {
	case repBool:
		return "AsBool"
	case repInt:
		return "AsInt"
	case repUint:
		return "AsUint"
	case repDouble:
		return "AsDouble"
	case repString:
		return "AsString"
	case repStrings:
		return "AsStrings"
	case repMaps:
		return "AsMapList"
	case repList:
		return "AsAnyList"
	case repStrMap:
		return "AsMap"
	case repAnyMap:
		return "AsAnyMap"
	}
	return ""
}

// value is the result of emitting an expression: the Go expression that
// holds it and its static type (from which its Go type follows).
type value struct {
	code jen.Code
	t    *ir.Type
	// simple values may be repeated without being evaluated twice: a
	// name, a field path, a constant.
	simple bool
	// constant values are built from literals only (Go constants, or
	// package variables holding constant data), so a composite literal of
	// them can be hoisted to a package variable.
	constant bool
	// fails reports whether the statements emitted for the value contain
	// an error exit of the enclosing region.
	fails bool
	// negates is the bool value this one is the negation of (its code is
	// !negates.code), so that negating it again gives that value back
	// instead of !!x.
	negates *value
}

func (v value) rep() rep { return repOf(v.t) }

// not is the negation of the bool value v: v's operand when v is itself a
// negation, else !v (v must be a simple operand or a parenthesised or
// call expression, as the code of every bool value is).
func not(v value) value {
	if v.negates != nil {
		return *v.negates
	}
	return value{code: jen.Op("!").Add(v.code), t: ir.BoolType, fails: v.fails, negates: &v}
}

// block is a sequence of statements being generated, with the number of
// error exits (returns of an Err from the region) among them.
type block struct {
	stmts []jen.Code
	exits int
}

// fn generates one Go function: a rule, or a part of one.
type fn struct {
	pk    *packGen
	rule  *ir.Rule
	b     *block
	zeros []jen.Code // zero values of the regions being generated, innermost last
	tmp   int
	// facts is set when the code reads the occurrence's facts (oF).
	facts bool
	snaps map[snapKey]int
	// codes numbers the rules of the anchor that read code_reject_total.
	codes map[string]int
	// unread holds, per comprehension variable in scope (innermost last),
	// the name of the Err of reading the element it is bound to, or "" when
	// the element needs no check: an element of a dyn range may be a host
	// value the runtime cannot read, which is an error where the variable
	// is used (cel-go binds the variable to the error).
	unread map[string][]string
}

// read reads a dyn value v taken out of a container that may hold host
// values (impl.Read), with the error exit of an unsupported one: cel-go
// converts a value there.
func (g *fn) read(v value) value {
	return g.call(v.t, "Read", v.code)
}

// readErr is the Err name of the variable's element check, or "".
func (g *fn) readErr(name string) string {
	if s := g.unread[name]; len(s) > 0 {
		return s[len(s)-1]
	}
	return ""
}

func (g *fn) newTmp() string {
	g.tmp++
	return "oT" + strconv.Itoa(g.tmp)
}

// emit appends a statement to the current block.
func (g *fn) emit(c jen.Code) { g.b.stmts = append(g.b.stmts, c) }

func (g *fn) zero() jen.Code { return g.zeros[len(g.zeros)-1] }

// check emits the error exit for the Err named e.
func (g *fn) check(e string) {
	g.emit(jen.If(jen.Id(e).Dot("Kind").Op("!=").Lit(0)).Block(jen.Return(g.zero(), jen.Id(e))))
	g.b.exits++
}

// child runs gen with a fresh current block and returns that block; the
// caller places its statements.
func (g *fn) child(gen func()) *block {
	outer := g.b
	g.b = &block{}
	gen()
	b := g.b
	g.b = outer
	return b
}

// nested returns the statements of a child block placed inside a Go block
// of the current region (an if or for body): its exits are the current
// block's.
func (g *fn) nested(b *block, tail ...jen.Code) []jen.Code {
	g.b.exits += b.exits
	return append(b.stmts, tail...)
}

// call emits `r, e := fn(args...)` with its error check and returns r.
func (g *fn) call(t *ir.Type, fn string, args ...jen.Code) value {
	r, e := g.newTmp(), g.newTmp()
	g.emit(jen.List(jen.Id(r), jen.Id(e)).Op(":=").Add(implQ(fn)).Call(args...))
	g.check(e)
	return value{code: jen.Id(r), t: t, simple: true}
}

// bind stores a value in a fresh variable unless it is simple, so that it
// is evaluated once, where it stands.
func (g *fn) bind(v value) value {
	if v.simple {
		return v
	}
	t := g.newTmp()
	g.emit(jen.Id(t).Op(":=").Add(v.code))
	// The temp holds the value now: negating it must read the temp, not
	// the operand the value negated (the temp would be unused).
	v.code, v.simple, v.negates = jen.Id(t), true, nil
	return v
}

// val compiles e and records whether its code can fail.
func (g *fn) val(e ir.Expr) value {
	before := g.b.exits
	v := g.expr(e)
	v.fails = v.fails || g.b.exits > before
	return v
}

// valAs compiles e and converts it to static type t.
func (g *fn) valAs(e ir.Expr, t *ir.Type) value {
	before := g.b.exits
	v := g.conv(g.val(e), t)
	v.fails = v.fails || g.b.exits > before
	return v
}

// box converts a value to a dyn (any).
func box(v value) value {
	if v.rep() == repDyn {
		return v
	}
	return value{code: jen.Any().Call(v.code), t: ir.DynType, simple: v.simple, constant: v.constant, fails: v.fails}
}

// narrow converts a dyn value to static type t, checking its dynamic type
// the way cel-go's overload dispatch does.
func (g *fn) narrow(v value, t *ir.Type) value {
	r := repOf(t)
	if r == repDyn {
		v.t = t
		return v
	}
	return g.call(t, r.asFunc(), v.code)
}

// conv makes v usable where static type to is expected.
func (g *fn) conv(v value, to *ir.Type) value {
	from, want := v.rep(), repOf(to)
	switch {
	case from == want:
		v.t = to
		return v
	case want == repDyn:
		b := box(v)
		b.t = to
		return b
	case from == repDyn:
		return g.narrow(v, to)
	}
	// A static type to another representation: only list and map element
	// types can differ (list(string) where list(dyn) is expected).
	return g.narrow(box(v), to)
}

// term is an operand of an error-absorbing construct, emitted as a region
// of its own.
type term struct {
	// stmts compute the operand; the caller places them where the operand
	// is evaluated.
	stmts []jen.Code
	val   value
	// err names the operand's Err, "" when nothing in it can fail.
	err string
}

// term compiles e, converted to t, as an operand region: an error inside
// it does not leave the enclosing region. When its code has no error exit
// its statements are placed inline; otherwise they are wrapped in a func
// literal returning (value, runtime.Err).
func (g *fn) term(e ir.Expr, t *ir.Type) term {
	var v value
	g.zeros = append(g.zeros, repOf(t).zero())
	b := g.child(func() { v = g.valAs(e, t) })
	g.zeros = g.zeros[:len(g.zeros)-1]
	if b.exits == 0 {
		return term{stmts: b.stmts, val: v}
	}
	r, errv := g.newTmp(), g.newTmp()
	body := append(b.stmts, jen.Return(v.code, rtErrNone()))
	stmt := jen.List(jen.Id(r), jen.Id(errv)).Op(":=").Func().Params().
		Params(repOf(t).goType(), rt("Err")).Block(body...).Call()
	return term{stmts: []jen.Code{stmt}, val: value{code: jen.Id(r), t: t, simple: true}, err: errv}
}

func rt(name string) *jen.Statement { return jen.Qual(RuntimePath, name) }

func rtErrNone() *jen.Statement { return rt("Err").Values() }

// errSet is `e.Kind != 0`.
func errSet(e string) *jen.Statement { return jen.Id(e).Dot("Kind").Op("!=").Lit(0) }

// snapKey names one counter an anchor's rules read.
type snapKey struct {
	slot    int
	counter ir.Counter
}

func (k snapKey) String() string { return fmt.Sprintf("%d.%s", k.slot, k.counter) }
