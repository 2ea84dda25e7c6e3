// This file owns the checks of `oarc vet` on how a rule reads the tool's
// arguments, where the value it reads is not the one the host sent:
//
//   - OAR_VET_MISSING_ARG: `tool_args.x` is an error when the call has no
//     argument x, so a rule that fails closed fires on every such call;
//   - OAR_VET_ARG_INT: tool_arg_int reads a number with a fraction as 0, so
//     a comparison of it with a bound lets such a number past the rule;
//   - OAR_VET_ARG_STRING: tool_arg_string reads a JSON number as "", so a
//     comparison of it with a number written as a string misses numbers.

package compiler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
)

// argReader is the checked when of a rule, for the checks of this file.
type argReader struct {
	v     *vetter
	r     *Rule
	info  *ast.SourceInfo
	refs  map[int64]*ast.ReferenceInfo
	local map[int64]bool
}

func (v *vetter) argReader(r *Rule) *argReader {
	if r.WhenAST == nil || v.set.Catalog.Fact("tool_args") == nil {
		return nil
	}
	a := r.WhenAST.NativeRep()
	return &argReader{v: v, r: r, info: a.SourceInfo(), refs: a.ReferenceMap(), local: localRefs(a.Expr())}
}

// isArgs reports whether e is the fact tool_args (not a comprehension
// variable of that name).
func (g *argReader) isArgs(e ast.Expr) bool {
	if e.Kind() != ast.IdentKind || g.local[e.ID()] {
		return false
	}
	ref, ok := g.refs[e.ID()]
	return ok && ref.Name == "tool_args" && ref.Value == nil
}

// selected returns the argument that e reads from tool_args by a field
// selection (not a has() test) or an index by a string literal.
func (g *argReader) selected(e ast.Expr) (string, bool) {
	switch e.Kind() {
	case ast.SelectKind:
		s := e.AsSelect()
		if !s.IsTestOnly() && g.isArgs(s.Operand()) {
			return s.FieldName(), true
		}
	case ast.CallKind:
		c := e.AsCall()
		if c.FunctionName() == operators.Index && !c.IsMemberFunction() && len(c.Args()) == 2 && g.isArgs(c.Args()[0]) {
			if s, ok := stringLit(c.Args()[1]); ok {
				return s, true
			}
		}
	}
	return "", false
}

// argCall returns the argument name of a call fn("name") of a catalog
// function (a string literal argument).
func (g *argReader) argCall(e ast.Expr, fn string) (string, bool) {
	if e.Kind() != ast.CallKind {
		return "", false
	}
	c := e.AsCall()
	if c.IsMemberFunction() || c.FunctionName() != fn || len(c.Args()) != 1 {
		return "", false
	}
	if ref, ok := g.refs[e.ID()]; ok && ref.Name != "" && ref.Name != fn {
		return "", false
	}
	return stringLit(c.Args()[0])
}

func stringLit(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}

func intLit(e ast.Expr) (int64, bool) {
	if e.Kind() != ast.LiteralKind {
		return 0, false
	}
	n, ok := e.AsLiteral().(types.Int)
	return int64(n), ok
}

// start is the code point offset where e begins in the when.
func (g *argReader) start(e ast.Expr) int {
	s, _ := exprRange(g.info, e)
	return s
}

func (g *argReader) text(e ast.Expr) string {
	return exprText(g.r, g.info, e, g.v.offsets(g.r))
}

var celIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// argExpr is how a rule reads argument name of tool_args, and argTest how
// it tests that the call has it.
func argExpr(name string) string {
	if celIdent.MatchString(name) && !celReserved[name] {
		return "tool_args." + name
	}
	return "tool_args[" + strconv.Quote(name) + "]"
}

func argTest(name string) string {
	if celIdent.MatchString(name) && !celReserved[name] {
		return "has(tool_args." + name + ")"
	}
	return strconv.Quote(name) + " in tool_args"
}

// --- OAR_VET_MISSING_ARG ---------------------------------------------------

// missingArg reports the reads of tool_args.x that nothing guards, in a
// rule that fails closed. A read is guarded where the call is known to
// have the argument: an operand of && beside has(tool_args.x) (or "x" in
// tool_args), whichever side (CEL's false && error is false), an operand
// of || beside !has(..), a branch of ?: whose condition tests it.
//
// An allow is not reported: an allow that fired only by failing closed
// allows nothing (spec 5.8).
func (v *vetter) missingArg(r *Rule) {
	if r.OnError == "fail_open" || r.Effect == "allow" {
		return
	}
	g := v.argReader(r)
	if g == nil {
		return
	}
	reported := map[string]bool{}
	var walk func(e ast.Expr, guarded map[string]bool)
	walk = func(e ast.Expr, guarded map[string]bool) {
		if name, ok := g.selected(e); ok && !guarded[name] && !reported[name] {
			reported[name] = true
			v.warnWhen(r, g.start(e), CodeVetMissingArg,
				"`%s` is an error when the call has no argument %q, and %s fails closed: it fires (%s) on every call without it; test it first, `%s && ...`, or read it with tool_arg_string(%q) (or tool_arg_int, tool_arg_bool), which reads an absent argument as \"\" (0, false)",
				g.text(e), name, r.ID, firingName(r), argTest(name), name)
		}
		switch e.Kind() {
		case ast.SelectKind:
			walk(e.AsSelect().Operand(), guarded)
		case ast.CallKind:
			c := e.AsCall()
			args := c.Args()
			switch fn := c.FunctionName(); {
			case fn == operators.LogicalAnd && len(args) == 2:
				walk(args[0], union(guarded, g.present(args[1], true)))
				walk(args[1], union(guarded, g.present(args[0], true)))
				return
			case fn == operators.LogicalOr && len(args) == 2:
				walk(args[0], union(guarded, g.present(args[1], false)))
				walk(args[1], union(guarded, g.present(args[0], false)))
				return
			case fn == operators.Conditional && len(args) == 3:
				walk(args[0], guarded)
				walk(args[1], union(guarded, g.present(args[0], true)))
				walk(args[2], union(guarded, g.present(args[0], false)))
				return
			}
			if c.IsMemberFunction() {
				walk(c.Target(), guarded)
			}
			for _, a := range args {
				walk(a, guarded)
			}
		case ast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x, guarded)
			}
		case ast.MapKind:
			for _, ent := range e.AsMap().Entries() {
				walk(ent.AsMapEntry().Key(), guarded)
				walk(ent.AsMapEntry().Value(), guarded)
			}
		case ast.ComprehensionKind:
			c := e.AsComprehension()
			for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
				walk(x, guarded)
			}
		}
	}
	walk(r.WhenAST.NativeRep().Expr(), nil)
}

// present returns the arguments the call has whenever e is true (when
// is true) or false (when is false).
func (g *argReader) present(e ast.Expr, when bool) map[string]bool {
	if e.Kind() == ast.SelectKind {
		if s := e.AsSelect(); s.IsTestOnly() && g.isArgs(s.Operand()) && when {
			return map[string]bool{s.FieldName(): true}
		}
		return nil
	}
	if e.Kind() != ast.CallKind {
		return nil
	}
	c := e.AsCall()
	args := c.Args()
	switch fn := c.FunctionName(); {
	case fn == operators.In && len(args) == 2 && when && g.isArgs(args[1]):
		if s, ok := stringLit(args[0]); ok {
			return map[string]bool{s: true}
		}
	case fn == operators.LogicalNot && len(args) == 1:
		return g.present(args[0], !when)
	case fn == operators.LogicalAnd && len(args) == 2:
		// True: both are; false: either may be.
		if when {
			return union(g.present(args[0], true), g.present(args[1], true))
		}
		return intersect(g.present(args[0], false), g.present(args[1], false))
	case fn == operators.LogicalOr && len(args) == 2:
		if when {
			return intersect(g.present(args[0], true), g.present(args[1], true))
		}
		return union(g.present(args[0], false), g.present(args[1], false))
	}
	return nil
}

func union(a, b map[string]bool) map[string]bool {
	if len(b) == 0 {
		return a
	}
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func intersect(a, b map[string]bool) map[string]bool {
	var out map[string]bool
	for k := range a {
		if b[k] {
			if out == nil {
				out = map[string]bool{}
			}
			out[k] = true
		}
	}
	return out
}

// firingName says what a firing of r is.
func firingName(r *Rule) string {
	if r.Enforcement == "monitor" {
		return "monitored " + r.Effect
	}
	return r.Effect
}

// --- OAR_VET_ARG_INT and OAR_VET_ARG_STRING -------------------------------

// comparisons are the operators the argument checks read, with their
// mirror image (a op b is b mirror a).
var comparisons = map[string]string{
	operators.Less: operators.Greater, operators.Greater: operators.Less,
	operators.LessEquals: operators.GreaterEquals, operators.GreaterEquals: operators.LessEquals,
	operators.Equals: operators.Equals, operators.NotEquals: operators.NotEquals,
}

// visitPolarity calls fn on every node of e with its polarity: known when
// the path from the root goes only through !, && and || (neg: under an
// odd number of !), so that e being true pushes the when toward true
// (false when neg).
func visitPolarity(e ast.Expr, neg, known bool, fn func(e ast.Expr, neg, known bool)) {
	fn(e, neg, known)
	switch e.Kind() {
	case ast.SelectKind:
		visitPolarity(e.AsSelect().Operand(), false, false, fn)
	case ast.CallKind:
		c := e.AsCall()
		switch name := c.FunctionName(); {
		case name == operators.LogicalNot && len(c.Args()) == 1:
			visitPolarity(c.Args()[0], !neg, known, fn)
			return
		case name == operators.LogicalAnd || name == operators.LogicalOr:
			for _, a := range c.Args() {
				visitPolarity(a, neg, known, fn)
			}
			return
		}
		if c.IsMemberFunction() {
			visitPolarity(c.Target(), false, false, fn)
		}
		for _, a := range c.Args() {
			visitPolarity(a, false, false, fn)
		}
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			visitPolarity(x, false, false, fn)
		}
	case ast.MapKind:
		for _, ent := range e.AsMap().Entries() {
			visitPolarity(ent.AsMapEntry().Key(), false, false, fn)
			visitPolarity(ent.AsMapEntry().Value(), false, false, fn)
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			visitPolarity(x, false, false, fn)
		}
	}
}

// argIntCompare matches tool_arg_int("name") op c, either way round, and
// returns it as name, op, c.
func (g *argReader) argIntCompare(e ast.Expr) (string, string, int64, bool) {
	if e.Kind() != ast.CallKind {
		return "", "", 0, false
	}
	c := e.AsCall()
	mir, ok := comparisons[c.FunctionName()]
	if !ok || c.IsMemberFunction() || len(c.Args()) != 2 {
		return "", "", 0, false
	}
	a, b := c.Args()[0], c.Args()[1]
	if name, ok := g.argCall(a, "tool_arg_int"); ok {
		if n, ok := intLit(b); ok {
			return name, c.FunctionName(), n, true
		}
	}
	if name, ok := g.argCall(b, "tool_arg_int"); ok {
		if n, ok := intLit(a); ok {
			return name, mir, n, true
		}
	}
	return "", "", 0, false
}

func compareNum(x float64, op string, c float64) bool {
	switch op {
	case operators.Less:
		return x < c
	case operators.LessEquals:
		return x <= c
	case operators.Greater:
		return x > c
	case operators.GreaterEquals:
		return x >= c
	case operators.Equals:
		return x == c
	}
	return x != c
}

// argInt reports comparisons tool_arg_int("x") op c that a number with a
// fraction gets past. tool_arg_int reads such a number as 0 (spec 3), so
// the comparison gives 0 op c where the author meant d op c. It matters
// in one direction: where the comparison being true makes the rule fire
// (a block, warn, ... that should fire on d but reads 0), or being true
// makes an allow rule allow (an allow that should not allow d). Reported
// when 0 op c lets the call through and, for some d with a fraction, d op
// c would not (the warning shows one), and only where the comparison's
// polarity in the when is known (reached through !, && and || only). An allow rule
// whose when has a top-level conjunct on the same argument that is false
// at 0 (tool_arg_int("x") > 0) never allows a number read as 0, and is not
// reported.
func (v *vetter) argInt(r *Rule) {
	g := v.argReader(r)
	if g == nil {
		return
	}
	allow := r.Effect == "allow"
	root := r.WhenAST.NativeRep().Expr()
	closedAtZero := map[string]bool{}
	for _, t := range conjuncts(root) {
		if name, op, c, ok := g.argIntCompare(t); ok && !compareNum(0, op, float64(c)) {
			closedAtZero[name] = true
		}
	}
	reported := map[string]bool{}
	visitPolarity(root, false, true, func(e ast.Expr, neg, known bool) {
		name, op, c, ok := g.argIntCompare(e)
		if !ok || !known || reported[name] || allow && closedAtZero[name] {
			return
		}
		// want is the value of the comparison that lets a call through
		// the rule: false for a rule that fires on it, true for an allow,
		// the other way round under a negation.
		want := allow == !neg
		if compareNum(0, op, float64(c)) != want {
			return
		}
		// A number with a fraction that the comparison, read as it is,
		// would stop.
		var d float64
		found := false
		for _, x := range []float64{float64(c) + 0.5, float64(c) - 0.5, 0.5} {
			if compareNum(x, op, float64(c)) == !want {
				d, found = x, true
				break
			}
		}
		if !found {
			return
		}
		reported[name] = true
		cmp := g.text(e)
		ds := strconv.FormatFloat(d, 'f', -1, 64)
		v.warnWhen(r, g.start(e), CodeVetArgInt,
			"tool_arg_int(%q) is 0 when the argument is a number with a fraction, so `%s` is %t for %s where it should be %t, and %s lets a call with {%q: %s} through; compare the number itself, `%s %s %d`, which compares ints and doubles alike (test %s first: a missing argument is then an error)",
			name, cmp, compareNum(0, op, float64(c)), ds, compareNum(d, op, float64(c)), r.ID, name, ds, argExpr(name), opText[op], c, argTest(name))
	})
}

var opText = map[string]string{
	operators.Less: "<", operators.LessEquals: "<=", operators.Greater: ">", operators.GreaterEquals: ">=",
	operators.Equals: "==", operators.NotEquals: "!=",
}

// jsonNumber is the grammar of a JSON number (RFC 8259).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// argString reports comparisons of tool_arg_string("x") with a string
// literal that spells a JSON number, and tool_arg_string("x") in a list of
// literals one of which does: the author expects the argument to hold a
// number, and when the host sends it as a JSON number tool_arg_string
// reads "" (spec 3). Whatever the polarity, the comparison then judges
// "" instead of the number.
func (v *vetter) argString(r *Rule) {
	g := v.argReader(r)
	if g == nil {
		return
	}
	reported := map[string]bool{}
	ast.PreOrderVisit(r.WhenAST.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() != ast.CallKind {
			return
		}
		c := e.AsCall()
		args := c.Args()
		if c.IsMemberFunction() || len(args) != 2 {
			return
		}
		var name, lit string
		found := false
		fn := c.FunctionName()
		switch _, cmp := comparisons[fn]; {
		case cmp:
			for _, side := range [][2]ast.Expr{{args[0], args[1]}, {args[1], args[0]}} {
				n, ok := g.argCall(side[0], "tool_arg_string")
				s, lok := stringLit(side[1])
				if ok && lok && jsonNumber.MatchString(s) {
					name, lit, found = n, s, true
					break
				}
			}
		case fn == operators.In && args[1].Kind() == ast.ListKind:
			n, ok := g.argCall(args[0], "tool_arg_string")
			if !ok {
				return
			}
			for _, el := range args[1].AsList().Elements() {
				if s, ok := stringLit(el); ok && jsonNumber.MatchString(s) {
					name, lit, found = n, s, true
					break
				}
			}
		}
		if !found || reported[name] {
			return
		}
		reported[name] = true
		fix := fmt.Sprintf("read it with string(%s), which is %q for %s and for %q alike", argExpr(name), lit, lit, lit)
		switch {
		case fn == operators.Less || fn == operators.LessEquals || fn == operators.Greater || fn == operators.GreaterEquals:
			fix = fmt.Sprintf("compare it as a number, double(%s), which reads %s and %q alike (strings order by their bytes: \"10\" < \"9\")", argExpr(name), lit, lit)
		case celString(lit) != lit:
			// string() of the number spells it otherwise (-1e3 is
			// "-1000"): compare numbers.
			fix = fmt.Sprintf("compare it as a number, double(%s), which reads %s and %q alike", argExpr(name), lit, lit)
		}
		v.warnWhen(r, g.start(e), CodeVetArgString,
			"`%s` compares the argument %q with a number written as a string, but tool_arg_string(%q) is \"\" when the host sends it as a JSON number ({%q: %s}), so the rule then judges \"\" instead; if it may be a number, %s (test %s first: a missing argument is then an error)",
			g.text(e), name, name, name, lit, fix, argTest(name))
	}))
}

// celString is what CEL's string() gives for the number a host decodes
// from the JSON number s: an int when s has no fraction or exponent and
// fits, else a double, which cel-go formats with %g.
func celString(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%g", f)
}
