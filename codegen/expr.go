package codegen

import (
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/oarc/oarc/ir"
)

// expr compiles one node; see [fn.val], which records whether it can fail.
func (g *fn) expr(e ir.Expr) value {
	switch n := e.(type) {
	case *ir.Const:
		return constValue(n.Value, n.T)
	case *ir.Fact:
		return g.fact(n)
	case *ir.CounterRead:
		// A counter read fails when the session's store could not be read
		// (spec 5.9).
		return g.method(ir.IntType, "Counter", jen.Lit(g.snaps[snapKey{n.Slot, n.Counter}]))
	case *ir.Var:
		if e := g.readErr(n.Name); e != "" {
			g.check(e)
		}
		return value{code: jen.Id(varName(n.Name)), t: n.T, simple: true}
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
		return g.callOp(n)
	case *evaluated:
		return n.v
	}
	panic("codegen: unexpected node")
}

// evaluated is an operand already compiled into a value, so that an
// operation can be re-dispatched on it.
type evaluated struct {
	ir.Node
	v value
}

func varName(cel string) string { return "oV_" + cel }

// constValue is the Go literal of a constant.
func constValue(v any, t *ir.Type) value {
	c := value{t: t, simple: true, constant: true}
	switch v := v.(type) {
	case nil:
		// A typed nil interface, so that it can be asserted, compared and
		// passed like any dyn.
		c.code = jen.Any().Call(jen.Nil())
	case bool:
		c.code = jen.Lit(v)
	case int64:
		c.code = jen.Lit(v)
	case uint64:
		c.code = jen.Uint64().Call(jen.Op(strconv.FormatUint(v, 10)))
	case float64:
		if v == 0 && math.Signbit(v) {
			// Go's constant -0.0 is +0: make the negative zero at run time.
			c.code = jen.Qual("math", "Copysign").Call(jen.Lit(0), jen.Lit(-1))
		} else {
			c.code = jen.Float64().Call(jen.Op(strconv.FormatFloat(v, 'g', -1, 64)))
		}
	case string:
		c.code = jen.Lit(v)
	case ir.TypeName:
		c.code = implQ("Type").Call(jen.Lit(string(v)))
	default:
		panic("codegen: constant of an unexpected type")
	}
	return c
}

// path is a Go selector path from a root identifier.
func path(root string, fields []string) *jen.Statement {
	s := jen.Id(root)
	for _, f := range fields {
		s = s.Dot(f)
	}
	return s
}

func (g *fn) fact(n *ir.Fact) value {
	switch n.Source {
	case ir.FromAnchor:
		return value{code: jen.Id("oX").Dot("Anchor"), t: n.T, simple: true}
	case ir.FromDetector:
		// The validator's value when it supplied one, else the host's.
		name := n.Field[len(n.Field)-1]
		if g.pk.lazy[n.Name] {
			// The host's through the fact's getter, as a policy rule
			// reads it, only when the validator did not supply it.
			num := g.pk.lazyGetter(n.Name, n.T, n.Field)
			r, e := g.newTmp(), g.newTmp()
			g.emit(jen.List(jen.Id(r), jen.Id(e)).Op(":=").Add(implQ("DetectedLazy")).Call(jen.Id("oD"), rt("Has"+name), jen.Id("oD").Dot("Facts").Dot(name), jen.Id("oX").Dot("oLazy"+strconv.Itoa(num))))
			g.check(e)
			return value{code: jen.Id(r), t: n.T, simple: true}
		}
		g.facts = true
		return value{code: implQ("Detected").Call(jen.Id("oD"), rt("Has"+name), jen.Id("oD").Dot("Facts").Dot(name), path("oF", n.Field)), t: n.T}
	case ir.FromProvenance:
		// Computed once per occurrence, at the first read; unknown
		// provenance is an error at the read (spec 5.7).
		sc := g.method(nil, "Provenance")
		return value{code: jen.Add(sc.code).Dot(n.Field[0]), t: n.T, simple: true}
	case ir.FromTenant:
		return value{code: jen.Id("oX").Dot("S").Dot("Tenant").Call(), t: n.T}
	case ir.FromContent:
		// The occurrence's content as the host gave it, also after a
		// transform rewrote it (spec 5.13).
		return value{code: jen.Id("oX").Dot("Content"), t: n.T, simple: true}
	case ir.FromBatch:
		return value{code: jen.Id("oX").Dot("BatchTools").Call(), t: n.T}
	case ir.FromNodes:
		// Computed at most once per occurrence, at the first read; it may
		// allocate (spec 5.11). Unknown provenance is an error at the read.
		return g.method(n.T, "ProvenanceNodes")
	case ir.FromKept:
		// Kept by the engine (spec 5.10): read from the session's record
		// once per occurrence; an error when it cannot be read.
		switch n.Kept {
		case ir.KeptFingerprint:
			return g.method(n.T, "Fingerprint")
		case ir.KeptCodeRejectTotal:
			return g.method(n.T, "CodeRejectTotal", jen.Lit(g.codes[g.rule.ID]), jen.Lit(g.rule.ID))
		}
		// The occurrence's override of the fact, when it has one, is read
		// without the record.
		kf := map[ir.Kept][2]string{
			ir.KeptRepeatCount:       {"KeptRepeatCount", "RepeatCount"},
			ir.KeptRecentToolNames:   {"KeptRecentToolNames", "RecentToolNames"},
			ir.KeptSameCodeRejectRun: {"KeptSameCodeRejectRun", "SameCodeRun"},
		}[n.Kept]
		k := g.method(nil, "KeptFact", rt(kf[0]))
		return value{code: jen.Add(k.code).Dot(kf[1]), t: n.T, simple: true}
	}
	if g.pk.lazy[n.Name] && n.Source == ir.FromFacts {
		// An expensive fact the host supplies lazily (Options.Lazy): read
		// once per occurrence, an error at the read.
		return g.method(n.T, "oLazy"+strconv.Itoa(g.pk.lazyGetter(n.Name, n.T, n.Field)))
	}
	g.facts = true
	return value{code: path("oF", n.Field), t: n.T, simple: true}
}

// lazyGetter returns the number of the getter of a fact the set reads
// lazily (its oLazyN method), made at the first read.
func (pk *packGen) lazyGetter(name string, t *ir.Type, field []string) int {
	num, ok := pk.lazyNum[name]
	if !ok {
		pk.lazyFacts = append(pk.lazyFacts, &ir.Fact{Node: ir.Node{T: t}, Name: name, Source: ir.FromFacts, Field: field})
		num = len(pk.lazyFacts)
		pk.lazyNum[name] = num
	}
	return num
}

// method emits `r, e := oX.name(args...)` with its error check.
func (g *fn) method(t *ir.Type, name string, args ...jen.Code) value {
	r, e := g.newTmp(), g.newTmp()
	g.emit(jen.List(jen.Id(r), jen.Id(e)).Op(":=").Id("oX").Dot(name).Call(args...))
	g.check(e)
	return value{code: jen.Id(r), t: t, simple: true}
}

func (g *fn) observe(n *ir.Observe) value {
	args := make([]jen.Code, len(n.Args))
	for i, a := range n.Args {
		if p := n.Params[i]; a.Type().Is(ir.KDyn) && !p.Is(ir.KDyn) {
			// cel-go dispatches the function on the argument's dynamic
			// type: one of another type is "no such overload" naming the
			// function, as for an operator's guard (call.go).
			v := g.bind(g.val(a))
			desc := g.pk.hoist(g.rule, "oGuard", "guard "+p.String(), guardDesc(p), nil)
			g.emit(jen.If(jen.Op("!").Add(implQ("Assignable")).Call(v.code, desc.code)).Block(
				jen.Return(g.zero(), implQ("NoSuchOverload").Call(jen.Lit(n.Func)))))
			g.b.exits++
			args[i] = g.bind(g.valAs(&evaluated{Node: ir.Node{T: a.Type(), Off: a.Offset()}, v: v}, p)).code
			continue
		}
		args[i] = g.bind(g.valAs(a, n.Params[i])).code
	}
	if n.Builtin.ReadsTime() {
		// The occurrence's time and the session's record (spec 5.13): a
		// bad window or zone, a record that dropped calls in the window or
		// a store that keeps no times is an error at the call.
		name := map[ir.Builtin]string{ir.CallsWithin: "CallsWithin", ir.ToolCallsWithin: "ToolCallsWithin",
			ir.LocalHour: "LocalHour", ir.LocalWeekday: "LocalWeekday"}[n.Builtin]
		return g.method(n.T, name, args...)
	}
	if n.Builtin != ir.NotBuiltin {
		fn := map[ir.Builtin]string{ir.ToolArgString: "ToolArgString", ir.ToolArgInt: "ToolArgInt", ir.ToolArgBool: "ToolArgBool",
			ir.URLHost: "URLHost", ir.URLScheme: "URLScheme", ir.URLPort: "URLPort", ir.URLPath: "URLPath"}[n.Builtin]
		if !n.Builtin.ReadsToolArgs() {
			// A URL that does not parse, without a scheme or a host, or
			// with a port that is no decimal int, is an error (spec 5.11).
			return g.call(n.T, fn, args...)
		}
		g.facts = true
		// An argument the runtime cannot read is an error, never a zero.
		return g.call(n.T, fn, append([]jen.Code{path("oF", n.ToolArgs)}, args...)...)
	}
	call := append([]jen.Code{jen.Op("&").Id("oX").Dot("Exec"), jen.Id("oX").Dot("ev").Dot("env").Dot("Providers").Dot(n.Provider),
		jen.Lit(n.Func), jen.Id("oX").Dot("occ")}, args...)
	return g.call(n.T, "Provide"+strconv.Itoa(len(n.Args)), call...)
}

// logic compiles && (and) and || with cel-go's semantics: the terms in
// order; a term that is false (true for ||) decides; otherwise the first
// error (a non-bool term is a no-such-overload error); otherwise true
// (false). The code is flat, whatever the number of terms.
func (g *fn) logic(terms []ir.Expr, and bool) value {
	ts := make([]term, len(terms))
	fails := false
	for i, t := range terms {
		ts[i] = g.term(t, ir.BoolType)
		fails = fails || ts[i].err != ""
	}
	r := g.newTmp()
	// open tests that no term has decided yet; decides that term v does.
	open := func() *jen.Statement {
		if and {
			return jen.Id(r)
		}
		return jen.Op("!").Id(r)
	}
	decides := func(v value) *jen.Statement {
		if and {
			return jen.Add(not(v).code)
		}
		return jen.Add(v.code)
	}
	if !fails {
		// Nothing can fail: plain short-circuit evaluation, each term
		// computed only while the ones before it did not decide.
		for _, s := range ts[0].stmts {
			g.emit(s)
		}
		g.emit(jen.Id(r).Op(":=").Add(ts[0].val.code))
		for _, t := range ts[1:] {
			g.emit(jen.If(open()).Block(append(t.stmts, jen.Id(r).Op("=").Add(t.val.code))...))
		}
		return value{code: jen.Id(r), t: ir.BoolType, simple: true}
	}
	e := g.newTmp()
	g.emit(jen.Id(r).Op(":=").Lit(and))
	g.emit(jen.Var().Id(e).Add(rt("Err")))
	for _, t := range ts {
		var body []jen.Code
		body = append(body, t.stmts...)
		decide := jen.If(decides(t.val)).Block(jen.Id(r).Op("=").Lit(!and))
		if t.err == "" {
			body = append(body, decide)
		} else {
			body = append(body, jen.If(errSet(t.err)).Block(
				jen.If(jen.Id(e).Dot("Kind").Op("==").Lit(0)).Block(jen.Id(e).Op("=").Id(t.err)),
			).Else().Add(decide))
		}
		g.emit(jen.If(open()).Block(body...))
	}
	g.emit(jen.If(open().Op("&&").Add(errSet(e))).Block(jen.Return(g.zero(), jen.Id(e))))
	g.b.exits++
	return value{code: jen.Id(r), t: ir.BoolType, simple: true}
}

func (g *fn) cond(n *ir.Cond) value {
	c := g.bind(g.valAs(n.C, ir.BoolType))
	r := g.newTmp()
	var tv, ev value
	then := g.child(func() { tv = g.valAs(n.Then, n.T) })
	els := g.child(func() { ev = g.valAs(n.Else, n.T) })
	g.emit(jen.Var().Id(r).Add(repOf(n.T).goType()))
	g.emit(jen.If(c.code).Block(g.nested(then, jen.Id(r).Op("=").Add(tv.code))...).
		Else().Block(g.nested(els, jen.Id(r).Op("=").Add(ev.code))...))
	return value{code: jen.Id(r), t: n.T, simple: true}
}

// lookup emits a string-keyed map lookup with CEL's missing-key error.
func (g *fn) lookup(m, key value, valT *ir.Type) value {
	v := g.mapGet(m, key)
	if repOf(valT) == repDyn {
		v = g.read(v)
	}
	return g.narrow(v, valT)
}

func (g *fn) sel(n *ir.Select) value {
	x := g.bind(g.val(n.X))
	field := value{code: jen.Lit(n.Field), t: ir.StringType, simple: true, constant: true}
	if x.rep() == repStrMap {
		if n.Test {
			r := g.newTmp()
			g.emit(jen.List(jen.Id("_"), jen.Id(r)).Op(":=").Add(x.code).Index(field.code))
			return value{code: jen.Id(r), t: ir.BoolType, simple: true}
		}
		return g.lookup(x, field, n.T)
	}
	if n.Test {
		return g.call(ir.BoolType, "HasDyn", box(x).code, field.code)
	}
	return g.conv(g.call(ir.DynType, "SelectDyn", box(x).code, field.code), n.T)
}

func (g *fn) index(n *ir.Index) value {
	v, _ := g.indexOf(n, false)
	return v
}

// keyFirst reports whether x[k] evaluates its key before x's value is
// read: x is a dyn value selected or indexed out of a container and k is
// not a constant. cel-go resolves such an x without converting the host
// value it holds, evaluates k, and converts the value only when it applies
// k: `tool_args.m[tool_args.n]`, m a value that cannot be read and n
// absent, is n's "no such key", not m's reading error.
func keyFirst(n *ir.Index) bool {
	if _, ok := n.I.(*ir.Const); ok || repOf(n.X.Type()) != repDyn {
		return false
	}
	switch x := n.X.(type) {
	case *ir.Select:
		return !x.Test
	case *ir.Index:
		return true
	}
	return false
}

// indexOf compiles n. With unread set (n is the x of a keyFirst index),
// the value it yields is read but the read's error is not checked: it
// returns the Err's name for the caller to check, after its key.
func (g *fn) indexOf(n *ir.Index, unread bool) (value, string) {
	var x value
	pending := ""
	if keyFirst(n) {
		x, pending = g.keyFirstX(n.X)
	} else {
		x = g.bind(g.val(n.X))
	}
	xt, it := n.X.Type(), n.I.Type()
	i := g.bind(g.val(n.I))
	if pending != "" {
		g.check(pending)
	}
	switch {
	case xt.Is(ir.KList) && it.Is(ir.KInt):
		r := g.call(xt.Elem, "IndexList", x.code, i.code)
		if x.rep() == repList {
			r.t = ir.DynType
			if repOf(n.T) == repDyn {
				if unread {
					return g.readUnchecked(r)
				}
				r = g.read(r)
			}
		}
		return g.conv(r, n.T), ""
	case x.rep() == repStrMap && it.Is(ir.KString):
		if unread {
			return g.lookupUnread(x, i)
		}
		return g.lookup(x, i, n.T), ""
	}
	if unread {
		return g.readUnchecked(g.call(ir.DynType, "IndexDynRaw", box(x).code, box(i).code))
	}
	return g.conv(g.call(ir.DynType, "IndexDyn", box(x).code, box(i).code), n.T), ""
}

// keyFirstX compiles the x of a keyFirst index (a select or an index) up to
// the read of the value it yields, whose Err's name it returns unchecked.
func (g *fn) keyFirstX(e ir.Expr) (value, string) {
	if n, ok := e.(*ir.Index); ok {
		return g.indexOf(n, true)
	}
	n := e.(*ir.Select)
	x := g.bind(g.val(n.X))
	field := value{code: jen.Lit(n.Field), t: ir.StringType, simple: true, constant: true}
	if x.rep() == repStrMap {
		return g.lookupUnread(x, field)
	}
	return g.readUnchecked(g.call(ir.DynType, "SelectDynRaw", box(x).code, field.code))
}

// lookupUnread is lookup of a dyn value, read without the read's check:
// it returns the Err's name.
func (g *fn) lookupUnread(m, key value) (value, string) {
	return g.readUnchecked(g.mapGet(m, key))
}

// mapGet is m[key] of a string-keyed map of host values, the value as the
// host gave it: a key m does not hold is NoSuchKey.
func (g *fn) mapGet(m, key value) value {
	r, ok := g.newTmp(), g.newTmp()
	g.emit(jen.List(jen.Id(r), jen.Id(ok)).Op(":=").Add(m.code).Index(key.code))
	g.emit(jen.If(jen.Op("!").Id(ok)).Block(jen.Return(g.zero(), implQ("NoSuchKey").Call(key.code))))
	g.b.exits++
	return value{code: jen.Id(r), t: ir.DynType, simple: true}
}

// readUnchecked reads v (impl.Read) and returns the value and the name of
// the read's Err, which the caller checks.
func (g *fn) readUnchecked(v value) (value, string) {
	r, e := g.newTmp(), g.newTmp()
	g.emit(jen.List(jen.Id(r), jen.Id(e)).Op(":=").Add(implQ("Read")).Call(v.code))
	return value{code: jen.Id(r), t: ir.DynType, simple: true}, e
}

func (g *fn) list(n *ir.List) value {
	et := n.T.Elem
	r := repOf(n.T)
	elems := make([]jen.Code, len(n.Elems))
	constant := true
	for i, el := range n.Elems {
		v := g.valAs(el, et)
		if r == repList {
			v = box(v)
		}
		constant = constant && v.constant
		elems[i] = v.code
	}
	lit := jen.Add(r.goType()).Values(elems...)
	if constant {
		return g.pk.hoist(g.rule, "oList", ir.String(n), lit, n.T)
	}
	return value{code: lit, t: n.T}
}

// mapLit compiles a map literal. Entries are evaluated in order, key then
// value; a later entry with an equal key replaces an earlier one, as in
// cel-go. String-keyed maps are Go maps; others are runtime.AnyMap values,
// which keep cel-go's key semantics (numeric keys of different types are
// different keys).
func (g *fn) mapLit(n *ir.Map) value {
	r := repOf(n.T)
	keyT := n.T.Key
	if r == repStrMap {
		keyT = ir.StringType
	}
	keys := make([]value, len(n.Keys))
	vals := make([]value, len(n.Keys))
	constant := true
	for i := range n.Keys {
		keys[i] = g.bind(g.valAs(n.Keys[i], keyT))
		vals[i] = g.bind(box(g.valAs(n.Values[i], n.T.Val)))
		constant = constant && keys[i].constant && vals[i].constant
	}
	if r == repAnyMap {
		args := make([]jen.Code, 0, 2*len(keys))
		for i := range keys {
			args = append(args, box(keys[i]).code, vals[i].code)
		}
		lit := implQ("NewAnyMap").Call(args...)
		if constant {
			return g.pk.hoist(g.rule, "oMap", ir.String(n), lit, n.T)
		}
		return value{code: lit, t: n.T}
	}
	// Distinct constant keys make a Go map literal; anything else is
	// assigned in order, so that a repeated key keeps the later value.
	distinct := constant
	seen := map[string]bool{}
	for i := range n.Keys {
		c, ok := n.Keys[i].(*ir.Const)
		if !ok {
			distinct = false
			break
		}
		s, isStr := c.Value.(string)
		if !isStr || seen[s] {
			distinct = false
			break
		}
		seen[s] = true
	}
	if distinct {
		entries := make([]jen.Code, len(keys))
		for i := range keys {
			entries[i] = jen.Add(keys[i].code).Op(":").Add(vals[i].code)
		}
		lit := jen.Map(jen.String()).Any().Values(entries...)
		if len(keys) > 0 {
			return g.pk.hoist(g.rule, "oMap", ir.String(n), lit, n.T)
		}
		return value{code: lit, t: n.T}
	}
	m := g.newTmp()
	g.emit(jen.Id(m).Op(":=").Make(jen.Map(jen.String()).Any(), jen.Lit(len(keys))))
	for i := range keys {
		g.emit(jen.Id(m).Index(keys[i].code).Op("=").Add(vals[i].code))
	}
	return value{code: jen.Id(m), t: n.T, simple: true}
}

// comprehension compiles the macros. all and exists absorb errors like
// && and ||; exists_one, filter and map are strict.
func (g *fn) comprehension(n *ir.Comprehension) value {
	rng := g.bind(g.val(n.Range))
	v := varName(n.Var)
	// loop returns the loop statement over the range, binding the
	// variable, with the statements body emits inside it. Setup (the
	// range of a dyn) is emitted before it.
	loop := func(body func()) jen.Code {
		var head []jen.Code
		var bind func()
		// readErr names the Err of reading the bound element, when it is
		// a dyn that may be a host value.
		var readErr string
		rt := n.Range.Type()
		switch {
		case rt.Is(ir.KList) && rng.rep() != repList:
			head = []jen.Code{jen.List(jen.Id("_"), jen.Id(v)).Op(":=").Range().Add(rng.code)}
		case rt.Is(ir.KList):
			el := g.newTmp()
			head = []jen.Code{jen.List(jen.Id("_"), jen.Id(el)).Op(":=").Range().Add(rng.code)}
			bind = func() {
				if repOf(rt.Elem) == repDyn {
					readErr = g.newTmp()
					g.emit(jen.List(jen.Id(v), jen.Id(readErr)).Op(":=").Add(implQ("Read")).Call(jen.Id(el)))
					return
				}
				x := g.narrow(value{code: jen.Id(el), t: ir.DynType, simple: true}, rt.Elem)
				g.emit(jen.Id(v).Op(":=").Add(x.code))
			}
		case rng.rep() == repStrMap:
			// The keys sorted (impl.SortedKeys), in an array of the
			// rule's frame while they fit.
			buf, keys := g.newTmp(), g.newTmp()
			g.emit(jen.Var().Id(buf).Index(jen.Lit(16)).String())
			g.emit(jen.Id(keys).Op(":=").Add(implQ("SortedKeys")).Call(rng.code, jen.Id(buf).Index(jen.Empty(), jen.Lit(0))))
			head = []jen.Code{jen.List(jen.Id("_"), jen.Id(v)).Op(":=").Range().Id(keys)}
		default:
			l := g.call(ir.DynType, "RangeDyn", box(rng).code)
			i := g.newTmp()
			head = []jen.Code{jen.Id(i).Op(":=").Lit(0), jen.Id(i).Op("<").Add(l.code).Dot("Len").Call(), jen.Id(i).Op("++")}
			bind = func() {
				el := value{code: jen.Add(l.code).Dot("At").Call(jen.Id(i)), t: ir.DynType}
				if repOf(rt.Iter()) == repDyn {
					readErr = g.newTmp()
					g.emit(jen.List(jen.Id(v), jen.Id(readErr)).Op(":=").Add(implQ("Read")).Call(el.code))
					return
				}
				g.emit(jen.Id(v).Op(":=").Add(g.narrow(el, rt.Iter()).code))
			}
		}
		inner := g.child(func() {
			if bind != nil {
				bind()
			}
			g.emit(jen.Id("_").Op("=").Id(v))
			if readErr != "" {
				g.emit(jen.Id("_").Op("=").Id(readErr))
			}
			if g.unread == nil {
				g.unread = map[string][]string{}
			}
			g.unread[n.Var] = append(g.unread[n.Var], readErr)
			body()
			g.unread[n.Var] = g.unread[n.Var][:len(g.unread[n.Var])-1]
		})
		return jen.For(head...).Block(g.nested(inner)...)
	}
	switch n.Macro {
	case ir.All, ir.Exists:
		and := n.Macro == ir.All
		r, e := g.newTmp(), g.newTmp()
		g.emit(jen.Id(r).Op(":=").Lit(and))
		absorbs := false
		stmt := loop(func() {
			{
				t := g.term(n.Pred, ir.BoolType)
				for _, s := range t.stmts {
					g.emit(s)
				}
				cond := jen.Add(t.val.code)
				if and {
					cond = jen.Add(not(t.val).code)
				}
				decide := jen.If(cond).Block(jen.Id(r).Op("=").Lit(!and), jen.Break())
				if t.err == "" {
					g.emit(decide)
					return
				}
				absorbs = true
				g.emit(jen.If(errSet(t.err)).Block(
					jen.If(jen.Id(e).Dot("Kind").Op("==").Lit(0)).Block(jen.Id(e).Op("=").Id(t.err)),
				).Else().Add(decide))
			}
		})
		if absorbs {
			g.emit(jen.Var().Id(e).Add(rt("Err")))
		}
		g.emit(stmt)
		if absorbs {
			open := jen.Id(r)
			if !and {
				open = jen.Op("!").Id(r)
			}
			g.emit(jen.If(open.Op("&&").Add(errSet(e))).Block(jen.Return(g.zero(), jen.Id(e))))
			g.b.exits++
		}
		return value{code: jen.Id(r), t: ir.BoolType, simple: true}
	}
	// exists_one, filter, map: cel-go iterates every element (their loop
	// condition is constant true) and keeps the error in the accumulator:
	// a predicate error replaces it (the ternary's condition comes first),
	// while appending to an accumulator that is already an error keeps the
	// old error. So the last predicate error wins, and a transform error
	// counts only while no error is held.
	resT := n.T
	if n.Macro == ir.ExistsOne {
		resT = ir.BoolType
	}
	acc, e := g.newTmp(), g.newTmp()
	if n.Macro == ir.ExistsOne {
		g.emit(jen.Id(acc).Op(":=").Lit(0))
	} else {
		g.emit(jen.Id(acc).Op(":=").Add(repOf(resT).goType()).Values())
	}
	held := false
	stmt := loop(func() {
		{
			if n.Pred != nil {
				t := g.term(n.Pred, ir.BoolType)
				for _, s := range t.stmts {
					g.emit(s)
				}
				if t.err != "" {
					held = true
					g.emit(jen.If(errSet(t.err)).Block(jen.Id(e).Op("=").Id(t.err), jen.Continue()))
				}
				g.emit(jen.If(not(t.val).code).Block(jen.Continue()))
			}
			switch n.Macro {
			case ir.ExistsOne:
				g.emit(jen.Id(acc).Op("++"))
			case ir.Filter:
				if re := g.readErr(n.Var); re != "" {
					// Appending an element cel-go could not read is an
					// error of the step, kept like a transform error.
					held = true
					g.emit(jen.If(errSet(re)).Block(
						jen.If(jen.Id(e).Dot("Kind").Op("==").Lit(0)).Block(jen.Id(e).Op("=").Id(re)),
						jen.Continue()))
				}
				item := g.conv(value{code: jen.Id(v), t: n.Range.Type().Iter(), simple: true}, resT.Elem)
				if repOf(resT) == repList {
					item = box(item)
				}
				g.emit(jen.Id(acc).Op("=").Append(jen.Id(acc), item.code))
			case ir.MapMacro:
				t := g.term(n.Body, resT.Elem)
				for _, s := range t.stmts {
					g.emit(s)
				}
				if t.err != "" {
					held = true
					g.emit(jen.If(errSet(t.err)).Block(
						jen.If(jen.Id(e).Dot("Kind").Op("==").Lit(0)).Block(jen.Id(e).Op("=").Id(t.err)),
						jen.Continue()))
				}
				item := t.val
				if repOf(resT) == repList {
					item = box(item)
				}
				g.emit(jen.Id(acc).Op("=").Append(jen.Id(acc), item.code))
			}
		}
	})
	if held {
		g.emit(jen.Var().Id(e).Add(rt("Err")))
	}
	g.emit(stmt)
	if held {
		g.emit(jen.If(errSet(e)).Block(jen.Return(g.zero(), jen.Id(e))))
		g.b.exits++
	}
	if n.Macro == ir.ExistsOne {
		return value{code: jen.Parens(jen.Id(acc).Op("==").Lit(1)), t: ir.BoolType}
	}
	return value{code: jen.Id(acc), t: resT, simple: true}
}
