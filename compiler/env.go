// This file owns the CEL side of the front end: the checking environment
// derived from the catalog, and the checks of one rule's `when` (syntax,
// types, unknown names, profiles read, portability, counter references,
// constant regular expressions, cost) plus the hand-off to the lowering.

package compiler

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/overloads"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/compiler/internal/lower"
)

// DefaultMaxCost is the default limit of a rule's estimated worst-case CEL
// cost (spec section 4).
const DefaultMaxCost = 1_000_000

// Size bounds the cost estimator assumes for inputs (spec section 4).
const (
	maxListSize   = 1024
	maxStringSize = 65536
)

// maxWhenLen bounds the text of a `when` handed to cel-go, so that a
// pathological input cannot make checking take unbounded time.
const maxWhenLen = 100_000

// CELType maps a catalog type to its cel-go type.
func CELType(t catalog.Type) *cel.Type {
	switch t {
	case catalog.String:
		return cel.StringType
	case catalog.Int:
		return cel.IntType
	case catalog.Bool:
		return cel.BoolType
	case catalog.Double:
		return cel.DoubleType
	case catalog.ListString:
		return cel.ListType(cel.StringType)
	case catalog.MapStringDyn:
		return cel.MapType(cel.StringType, cel.DynType)
	case catalog.ListMapStringDyn:
		return cel.ListType(cel.MapType(cel.StringType, cel.DynType))
	}
	return cel.DynType
}

// OverloadID is the overload id of a catalog function: its CEL name
// followed by its parameter types (tool_arg_string_string).
func OverloadID(fn *catalog.Function) string {
	id := fn.CELName
	for _, p := range fn.Params {
		id += "_" + strings.NewReplacer("(", "_", ")", "", ", ", "_").Replace(p.String())
	}
	return id
}

// FunctionOverload declares a catalog function for cel-go.
func FunctionOverload(fn *catalog.Function) cel.EnvOption {
	params := make([]*cel.Type, len(fn.Params))
	for i, p := range fn.Params {
		params[i] = CELType(p)
	}
	return cel.Function(fn.CELName, cel.Overload(OverloadID(fn), params, CELType(fn.Result)))
}

var envs sync.Map // *catalog.Catalog -> *envResult

type envResult struct {
	once sync.Once
	env  *cel.Env
	err  error
}

// NewEnv returns the CEL checking environment of a catalog (nil: the
// default): every catalog fact as a variable under its CEL name, every
// catalog function as a global function with overload id [OverloadID], the
// standard library and the strings extension. The environment holds
// declarations only; it is built once per catalog and shared (a *cel.Env is
// safe for concurrent use).
func NewEnv(cat *catalog.Catalog) (*cel.Env, error) {
	if cat == nil {
		cat = catalog.Default()
	}
	v, _ := envs.LoadOrStore(cat, &envResult{})
	r := v.(*envResult)
	r.once.Do(func() {
		opts := []cel.EnvOption{ext.Strings()}
		for _, f := range cat.Facts {
			opts = append(opts, cel.Variable(f.CELName, CELType(f.Type)))
		}
		for _, fn := range cat.Functions {
			opts = append(opts, FunctionOverload(fn))
		}
		r.env, r.err = cel.NewEnv(opts...)
	})
	return r.env, r.err
}

// whenSource is the text of a `when` and its map into the YAML file.
type whenSource struct {
	text  string
	m     *scalarMap
	src   *source
	diags *Diagnostics
	offs  *textOffsets // built on first use
}

// report adds a diagnostic at byte offset off of the expression.
func (w *whenSource) report(off int, sev Severity, code, format string, args ...any) {
	p := w.m.position(off)
	*w.diags = append(*w.diags, Diagnostic{Pos: p, Severity: sev, Code: code,
		Message: fmt.Sprintf(format, args...), Source: w.src.line(p.Line)})
}

// offsets returns the offset converter of the expression, built once: a
// `when` with thousands of nodes or errors must not rescan the text for
// each.
func (w *whenSource) offsets() *textOffsets {
	if w.offs == nil {
		w.offs = newTextOffsets(w.text)
	}
	return w.offs
}

// byteOffset converts a code point offset of the expression to a byte
// offset.
func (w *whenSource) byteOffset(cp int) int {
	return w.offsets().byteOffset(cp)
}

// lineColOffset converts cel-go's line (1-based) and column (0-based, code
// points) into a byte offset of the expression.
func (w *whenSource) lineColOffset(line, col int) int {
	return w.offsets().lineColOffset(line, col)
}

// read is one use of a catalog fact or function in a rule.
type read struct {
	name    string // CEL name
	profile string // standard tier only
	host    bool   // not portable: a host or oarc entry
	tier    catalog.Tier
	fn      bool
	pos     Pos
	off     int // byte offset in `when`, -1 elsewhere
}

// nonPortable reports whether an entry of the tier is not OAR's: -portable
// forbids host entries and oarc's own (spec 5.7).
func nonPortable(t catalog.Tier) bool { return t == catalog.Host || t == catalog.Oarc }

// checkWhen parses and checks r.When, fills r.WhenAST and r.WhenIR, and
// returns the catalog names the expression reads.
func (l *packLoader) checkWhen(r *Rule, w *whenSource) []read {
	if len(w.text) > maxWhenLen {
		w.report(0, Error, CodeCELSyntax, "when is %d bytes long; the limit is %d", len(w.text), maxWhenLen)
		return nil
	}
	env, err := NewEnv(l.cat)
	if err != nil {
		w.report(0, Error, CodeCELType, "internal error: CEL environment: %v", err)
		return nil
	}
	parsed, iss := env.Parse(w.text)
	if iss != nil && iss.Err() != nil {
		// Later syntax errors are mostly the parser recovering from the
		// first one: report the first only, explained (celsyntax.go).
		off, msg := explainSyntax(w, iss.Errors())
		w.report(off, Error, CodeCELSyntax, "%s", msg)
		return nil
	}
	checked, iss := env.Check(parsed)
	if iss != nil && iss.Err() != nil {
		skipTo := -1
		macros := extMacroUses(parsed, w)
		w.reportMacros(macros)
		for _, e := range iss.Errors() {
			off := w.lineColOffset(e.Location.Line(), e.Location.Column())
			if off <= skipTo || inMacro(macros, off) || strings.Contains(e.Message, "!error!") {
				// cel-go's !error! type is that of an expression whose
				// own error was reported: this one follows from it.
				continue
			}
			if m := undeclaredRE.FindStringSubmatch(e.Message); m != nil {
				name := m[1]
				// cel-go points at the '.' of a selection or the '(' of a
				// call: move to the start of the name.
				if i := strings.LastIndex(w.text[:min(len(w.text), off+len(name))], name); i >= 0 && i <= off {
					off = i
				}
				// An unknown host function lycaon.f(..) is reported by
				// cel-go as 'lycaon' and then 'f': report it once, whole.
				// So is a call in another namespace CEL does not know
				// (foo.f(..), the sets extension's sets.contains(..)),
				// whose follow-on errors are about 'f' or cel-go's
				// !error! type; a macro on an unknown name (x.exists(..))
				// stays a reference to the name.
				if i := strings.LastIndexByte(name, '.'); i > 0 && env.HasFunction(name[i+1:]) && suggestName(l.cat, name[:i]) != "" &&
					strings.HasPrefix(w.text[off:], name) && strings.HasPrefix(strings.TrimLeft(w.text[off+len(name):], " \t\r\n"), "(") {
					// cel-go names a method CEL declares called on an
					// unknown qualified name as one function
					// (lycaon.tool_args.size()): the unknown name is the
					// receiver, which is near a catalog name.
					name = name[:i]
				}
				if strings.HasPrefix(w.text[off:], name+".") {
					end := off + len(name) + 1
					for end < len(w.text) && isIdentByte(w.text[end]) {
						end++
					}
					rest := strings.TrimLeft(w.text[end:], " \t\r\n")
					fn := w.text[off+len(name)+1 : end]
					if name == l.cat.Host {
						name = w.text[off:end]
						skipTo = end + 1
					} else if fn != "" && strings.HasPrefix(rest, "(") && !celMacroNames[fn] && (!env.HasFunction(fn) || suggestName(l.cat, name) == "") {
						// Unless it is a method CEL declares called on
						// a misspelt fact (toool.startsWith(..),
						// lycaon.tool_args.size()): the unknown name is
						// then the receiver, reported with the fact it
						// was meant to be.
						name = w.text[off:end]
						skipTo = len(w.text) - len(rest)
					}
				}
				if l.cat.Fact(name) != nil && strings.HasSuffix(strings.TrimRight(w.text[:off], " \t\r\n"), "has(") {
					// has(lycaon.x): cel-go reads the operand as a field
					// x of a variable lycaon, which does not exist; the
					// host fact is a variable of its own, always present.
					w.report(off, Error, CodeUnknownFact, "has() cannot test the host fact %s: it is a variable, not a field of %s, and is always present (an absent fact reads as its zero value); test its value instead", name, l.cat.Host)
					continue
				}
				msg := fmt.Sprintf("undeclared reference to '%s'", name)
				suggest := suggestName(l.cat, name)
				if rest := strings.TrimLeft(w.text[min(len(w.text), off+len(name)):], " \t\r\n"); strings.HasPrefix(rest, "(") {
					// A call (x.contain(..)): the name is a function's,
					// not a fact's.
					suggest = suggestFunction(l.cat, env, name)
				}
				if suggest != "" {
					msg += fmt.Sprintf(" (did you mean '%s'?)", suggest)
				}
				w.report(off, Error, CodeUnknownFact, "%s", msg)
				continue
			}
			code, msg := classifyCheckError(l.cat, env, e.Message)
			w.report(off, Error, code, "%s", msg)
		}
		return nil
	}
	if t := checked.OutputType(); !t.IsExactType(types.BoolType) {
		hint := ""
		if t.IsExactType(types.DynType) {
			hint = " (compare the value explicitly, e.g. `... == true`)"
		}
		w.report(0, Error, CodeCELType, "when must be of type bool, got %s%s", t, hint)
		return nil
	}
	// What cel-go checks but cannot evaluate (it cannot plan the program,
	// e.g. an index by a null key) has no semantics to compile to.
	if _, err := env.Program(checked); err != nil {
		w.report(0, Error, CodeUnsupported, "cel-go cannot evaluate this condition: %v", err)
		return nil
	}
	r.WhenAST = checked
	native := checked.NativeRep()
	reads := l.whenReads(native, w)
	l.checkCalls(native, w)
	l.checkCost(env, checked, w, r)

	before := len(*w.diags)
	irExpr, problems := lowerWhen(checked, lower.Options{Catalog: l.cat, Self: r.ID, Slots: l.slots, Detector: r.Kind == "detector"})
	r.WhenIR = irExpr
	for _, p := range problems {
		pos := w.m.position(p.Offset)
		dup := false
		for _, d := range (*w.diags)[:before] {
			// The checks above report a problem at the start of the
			// expression it is about; the lowering may point elsewhere
			// in it (the + of a computed fire_count_of argument): the
			// same message is the same problem.
			if d.Code == p.Code && (d.Pos == pos || d.Message == p.Message) {
				dup = true
			}
		}
		if !dup {
			w.report(p.Offset, Error, p.Code, "%s", p.Message)
		}
	}
	return reads
}

// lowerWhen is the lowering; tests replace it to exercise the reporting of
// its problems independently of what it supports.
var lowerWhen = lower.When

// celMacroNames are the receiver-style macros of CEL's standard library.
var celMacroNames = map[string]bool{"all": true, "exists": true, "exists_one": true, "map": true, "filter": true}

var undeclaredRE = regexp.MustCompile(`^undeclared reference to '([^']*)'`)

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

var noOverloadRE = regexp.MustCompile(`^found no matching overload for '([^']*)'`)

// classifyCheckError maps a cel-go checker message to a stable code and a
// message with a did-you-mean where one helps.
func classifyCheckError(cat *catalog.Catalog, env *cel.Env, msg string) (string, string) {
	if m := noOverloadRE.FindStringSubmatch(msg); m != nil && !env.HasFunction(m[1]) {
		out := fmt.Sprintf("unknown function '%s'", m[1])
		if s := suggestFunction(cat, env, m[1]); s != "" {
			out += fmt.Sprintf(" (did you mean '%s'?)", s)
		}
		return CodeUnknownFact, out
	}
	return CodeCELType, msg
}

// suggestName proposes a catalog name for an unknown identifier: the host
// spelling of a bare host name first, else the closest catalog name.
func suggestName(cat *catalog.Catalog, name string) string {
	if h := cat.HostSpelling(name); h != "" {
		return h
	}
	if b := cat.BareSpelling(name); b != "" {
		return b
	}
	var names []string
	for _, f := range cat.Facts {
		names = append(names, f.CELName)
	}
	for _, fn := range cat.Functions {
		names = append(names, fn.CELName)
	}
	return closest(name, names)
}

func suggestFunction(cat *catalog.Catalog, env *cel.Env, name string) string {
	if h := cat.HostSpelling(name); h != "" {
		return h
	}
	if b := cat.BareSpelling(name); b != "" {
		return b
	}
	var names []string
	for _, fn := range cat.Functions {
		names = append(names, fn.CELName)
	}
	for n := range env.Functions() {
		if !strings.HasPrefix(n, "@") && !strings.HasPrefix(n, "_") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return closest(name, names)
}

// whenReads lists the catalog facts and functions the expression uses, in
// source order, and reports non-portable uses under -portable.
func (l *packLoader) whenReads(a *ast.AST, w *whenSource) []read {
	cat := l.cat
	byOverload := map[string]*catalog.Function{}
	for _, fn := range cat.Functions {
		byOverload[OverloadID(fn)] = fn
	}
	info := a.SourceInfo()
	local := localRefs(a.Expr())
	var out []read
	for id, ref := range a.ReferenceMap() {
		if local[id] {
			// A comprehension variable named like a fact reads the
			// variable, not the fact.
			continue
		}
		off := 0
		if r, ok := info.GetOffsetRange(id); ok {
			off = w.byteOffset(int(r.Start))
		}
		if f := cat.Fact(ref.Name); ref.Name != "" && f != nil {
			// cel-go places a qualified name (lycaon.x) at its last '.':
			// point at the name.
			foff := off
			if i := strings.LastIndex(w.text[:min(len(w.text), off+len(f.CELName))], f.CELName); i >= 0 && i <= off {
				foff = i
			}
			out = append(out, read{name: f.CELName, profile: f.Profile, host: nonPortable(f.Tier), tier: f.Tier, pos: w.m.position(foff), off: foff})
		}
		for _, o := range ref.OverloadIDs {
			if fn := byOverload[o]; fn != nil {
				// cel-go places a call at its '(': point at the name.
				foff := off
				if i := strings.LastIndex(w.text[:min(len(w.text), off)], fn.CELName); i >= 0 && strings.TrimSpace(w.text[i+len(fn.CELName):off]) == "" {
					foff = i
				}
				out = append(out, read{name: fn.CELName, profile: fn.Profile, host: nonPortable(fn.Tier), tier: fn.Tier, fn: true, pos: w.m.position(foff), off: foff})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].off != out[j].off {
			return out[i].off < out[j].off
		}
		return out[i].name < out[j].name
	})
	if l.opts.Portable {
		for _, r := range out {
			if !r.host {
				continue
			}
			what := "fact"
			if r.fn {
				what = "function"
			}
			w.report(r.off, Error, CodeUnknownFact, "%s %s '%s' is not portable (-portable forbids host and oarc facts and functions)", r.tier, what, r.name)
		}
	}
	return out
}

// localRefs returns the ids of the identifiers that name a comprehension
// variable (the macro's variable or its accumulator) in scope, so that a
// variable named like a fact does not count as reading the fact.
func localRefs(root ast.Expr) map[int64]bool {
	out := map[int64]bool{}
	var scope []string
	inScope := func(name string) bool {
		for i := len(scope) - 1; i >= 0; i-- {
			if scope[i] == name {
				return true
			}
		}
		return false
	}
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		switch e.Kind() {
		case ast.IdentKind:
			if inScope(e.AsIdent()) {
				out[e.ID()] = true
			}
		case ast.SelectKind:
			walk(e.AsSelect().Operand())
		case ast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target())
			}
			for _, a := range c.Args() {
				walk(a)
			}
		case ast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x)
			}
		case ast.MapKind:
			for _, ent := range e.AsMap().Entries() {
				walk(ent.AsMapEntry().Key())
				walk(ent.AsMapEntry().Value())
			}
		case ast.StructKind:
			for _, f := range e.AsStruct().Fields() {
				walk(f.AsStructField().Value())
			}
		case ast.ComprehensionKind:
			c := e.AsComprehension()
			walk(c.IterRange())
			walk(c.AccuInit())
			n := len(scope)
			scope = append(scope, c.AccuVar(), c.IterVar())
			if c.HasIterVar2() {
				scope = append(scope, c.IterVar2())
			}
			walk(c.LoopCondition())
			walk(c.LoopStep())
			walk(c.Result())
			scope = scope[:n]
		}
	}
	walk(root)
	return out
}

// checkCalls checks the counter references of fire_count_of and
// breaker_count_of and compiles constant regular expressions.
func (l *packLoader) checkCalls(a *ast.AST, w *whenSource) {
	info := a.SourceInfo()
	offOf := func(e ast.Expr) int {
		if e.Kind() == ast.CallKind {
			// An operator's position is its token's: point at the
			// start of the whole expression ("(" + "a", 60 * 60 * 25).
			start, _ := exprRange(info, e)
			return w.byteOffset(start)
		}
		if r, ok := info.GetOffsetRange(e.ID()); ok {
			return w.byteOffset(int(r.Start))
		}
		return 0
	}
	ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() != ast.CallKind {
			return
		}
		call := e.AsCall()
		args := call.Args()
		switch fn := call.FunctionName(); {
		case (fn == "fire_count_of" || fn == "breaker_count_of") && !call.IsMemberFunction() && len(args) == 1:
			arg := args[0]
			if arg.Kind() != ast.LiteralKind {
				w.report(offOf(arg), Error, CodeRef, "the argument of %s must be a string literal naming a rule of the pack", fn)
				return
			}
			id, ok := arg.AsLiteral().Value().(string)
			if !ok || !l.ruleIDs[id] {
				msg := fmt.Sprintf("%s names %s, which is not a rule of the pack", fn, arg.AsLiteral())
				if s := closest(id, sortedKeys(l.ruleIDs)); s != "" && ok {
					msg += fmt.Sprintf(" (did you mean '%s'?)", s)
				}
				w.report(offOf(arg), Error, CodeRef, "%s", msg)
			}
		case fn == "matches":
			var pat ast.Expr
			switch {
			case call.IsMemberFunction() && len(args) == 1:
				pat = args[0]
			case !call.IsMemberFunction() && len(args) == 2:
				pat = args[1]
			default:
				return
			}
			s, ok := constString(pat)
			if !ok {
				return
			}
			if _, err := regexp.Compile(s); err != nil {
				w.report(offOf(pat), Error, CodeCELType, "invalid regular expression: %v", err)
			}
		case !call.IsMemberFunction() && (fn == "calls_within" && len(args) == 1 || fn == "tool_calls_within" && len(args) == 2):
			n := args[len(args)-1]
			if v, ok := constInt(n); ok && (v < 1 || v > maxWindow) {
				w.report(offOf(n), Error, CodeValue, "the window of %s must be between 1 and %d seconds (24 hours), got %d", fn, maxWindow, v)
			}
		case !call.IsMemberFunction() && (fn == "local_hour" || fn == "local_weekday") && len(args) == 1:
			z := args[0]
			if s, ok := constString(z); ok {
				if err := checkZone(s); err != nil {
					w.report(offOf(z), Error, CodeValue, "%s: %v", fn, err)
				}
			}
		}
	}))
}

// constInt is the value of an int expression made of literals and
// arithmetic alone (60 * 60 * 25): a constant for spec 5.13's window, as
// a rule author reads it. An operation cel-go would fail (overflow,
// division by zero) is not a constant: it is an error at run time.
func constInt(e ast.Expr) (int64, bool) {
	switch e.Kind() {
	case ast.LiteralKind:
		v, ok := e.AsLiteral().Value().(int64)
		return v, ok
	case ast.CallKind:
	default:
		return 0, false
	}
	c := e.AsCall()
	args := c.Args()
	if c.IsMemberFunction() {
		return 0, false
	}
	if c.FunctionName() == operators.Negate && len(args) == 1 {
		v, ok := constInt(args[0])
		if !ok || v == math.MinInt64 {
			return 0, false
		}
		return -v, true
	}
	if len(args) != 2 {
		return 0, false
	}
	a, ok1 := constInt(args[0])
	b, ok2 := constInt(args[1])
	if !ok1 || !ok2 {
		return 0, false
	}
	switch c.FunctionName() {
	case operators.Add:
		r := a + b
		return r, (r > a) == (b > 0) || b == 0
	case operators.Subtract:
		r := a - b
		return r, (r < a) == (b > 0) || b == 0
	case operators.Multiply:
		if a == 0 || b == 0 {
			return 0, true
		}
		r := a * b
		return r, r/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
	case operators.Divide:
		if b == 0 || a == math.MinInt64 && b == -1 {
			return 0, false
		}
		return a / b, true
	case operators.Modulo:
		if b == 0 || a == math.MinInt64 && b == -1 {
			return 0, false
		}
		return a % b, true
	}
	return 0, false
}

// constString is the value of a string expression made of literals and
// concatenation alone ("(" + "a"): a constant pattern or zone name.
func constString(e ast.Expr) (string, bool) {
	switch e.Kind() {
	case ast.LiteralKind:
		v, ok := e.AsLiteral().Value().(string)
		return v, ok
	case ast.CallKind:
		c := e.AsCall()
		if args := c.Args(); !c.IsMemberFunction() && c.FunctionName() == operators.Add && len(args) == 2 {
			a, ok1 := constString(args[0])
			b, ok2 := constString(args[1])
			return a + b, ok1 && ok2
		}
	}
	return "", false
}

// checkCost rejects a `when` whose estimated worst-case cost is above its
// limit (spec 4): the -max-cost flag, else its pack's max_cost, else the
// default. The error points at the costliest sub-expression and names the
// max_cost that would admit the rule.
func (l *packLoader) checkCost(env *cel.Env, a *cel.Ast, w *whenSource, r *Rule) {
	limit, from := l.opts.MaxCost, "-max-cost"
	if limit == 0 && r.Pack != nil && r.Pack.MaxCost != 0 {
		limit, from = r.Pack.MaxCost, "the pack's max_cost"
	}
	if limit == 0 {
		limit, from = DefaultMaxCost, "the default limit"
	}
	est, err := env.EstimateCost(a, sizeEstimator{cat: l.cat})
	if err != nil {
		w.report(0, Error, CodeCost, "cannot estimate the cost of when: %v", err)
		return
	}
	if est.Max <= limit {
		return
	}
	start, stop, partCost, found := costliest(env, a, l.cat, limit, est.Max)
	where, off := "", 0
	if found {
		off = w.byteOffset(start)
		part := strings.Join(strings.Fields(w.text[off:closeBrackets(w.text, off, w.byteOffset(stop))]), " ")
		if len(part) > 80 {
			part = part[:77] + "..."
		}
		where = fmt.Sprintf("; the costliest part is `%s` (%d)", part, partCost)
	}
	w.report(off, Error, CodeCost, "estimated worst-case cost of when is %d, above %s %d%s (lists are assumed to hold up to %d elements and strings %d bytes: gate the rule with a selector, bound what it iterates, or set max_cost: %d in pack.yaml to admit it)",
		est.Max, from, limit, where, maxListSize, maxStringSize, est.Max)
}

// costliest descends from the root of a to the smallest sub-expression
// whose own estimated cost is above limit, taking the costliest child at
// each step, and returns its range (code points) and its cost. When no
// sub-expression is above limit on its own, it is the root's costliest
// child (found false only for a root without children), unless the root
// is a call whose own cost, rootCost less its arguments', is above that
// child's: then the root itself (`s.matches(p)` costs in the call, not in
// `p`).
func costliest(env *cel.Env, a *cel.Ast, cat *catalog.Catalog, limit, rootCost uint64) (start, stop int, c uint64, found bool) {
	native := a.NativeRep()
	info := native.SourceInfo()
	estimate := func(e ast.Expr) (uint64, bool) {
		sub := ast.NewCheckedAST(ast.NewAST(e, info), native.TypeMap(), native.ReferenceMap())
		pb, err := ast.ToProto(sub)
		if err != nil {
			return 0, false
		}
		est, err := env.EstimateCost(cel.CheckedExprToAst(pb), sizeEstimator{cat: cat})
		if err != nil {
			return 0, false
		}
		return est.Max, true
	}
	cur := native.Expr()
	var curCost uint64
	for {
		var best ast.Expr
		var bestCost, sum uint64
		for _, c := range children(cur) {
			n, ok := estimate(c)
			if ok {
				sum += min(n, math.MaxUint64-sum) // saturating
			}
			if ok && n > bestCost {
				best, bestCost = c, n
			}
		}
		// Below the root, descend only into a part above the limit on
		// its own; at the root, take the costliest part even when none
		// is (a rule just above its limit): spec 4 points at the
		// sub-expression that costs the most, not at the whole when,
		// unless the root's own work costs more than any part of it.
		if best == nil || bestCost <= limit && found {
			break
		}
		// A call's own work is its cost less its arguments'; a
		// comprehension's is its parts' repeated, so its costliest part
		// (what it repeats) is the one to name.
		if !found && bestCost <= limit && cur.Kind() == ast.CallKind && rootCost-min(rootCost, sum) > bestCost {
			cur, curCost, found = native.Expr(), rootCost, true
			break
		}
		cur, curCost, found = best, bestCost, true
		if bestCost <= limit {
			break
		}
	}
	if !found {
		return 0, 0, 0, false
	}
	start, stop = exprRange(info, cur)
	return start, stop, curCost, stop > start
}

// children are the direct sub-expressions of e whose costs count.
func children(e ast.Expr) []ast.Expr {
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		out := append([]ast.Expr{}, c.Args()...)
		if c.IsMemberFunction() {
			out = append(out, c.Target())
		}
		return out
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		return []ast.Expr{c.IterRange(), c.LoopStep(), c.LoopCondition()}
	case ast.SelectKind:
		return []ast.Expr{e.AsSelect().Operand()}
	case ast.ListKind:
		return e.AsList().Elements()
	}
	return nil
}

// sizeEstimator bounds the inputs the way spec section 4 says: lists and
// maps at most 1,024 elements, strings at most 65,536 bytes.
type sizeEstimator struct{ cat *catalog.Catalog }

func (sizeEstimator) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	if isNodeLabels(n.Path()) {
		return &cost.SizeEstimate{Min: 0, Max: maxNodeLabels}
	}
	return sizeOf(n.Type())
}

// maxNodeLabels is how many labels one provenance node holds at most: the
// runtime's per-node limit (runtime.DefaultLabelLimit; a store refuses a
// node with more, TestNodeLabelLimit keeps the two equal). A node's
// labels are a list inside a list fact, not a list fact of 1,024: bounded
// so, spec 5.11's own example (provenance_nodes.exists(n, ... &&
// "confidential" in n.labels ...)) is within the default limit.
const maxNodeLabels = 256

// isNodeLabels reports whether path, as cel-go's estimator names an
// expression, is the labels of an element of provenance_nodes.
func isNodeLabels(path []string) bool {
	return len(path) == 3 && path[0] == "provenance_nodes" && path[1] == "@items" && path[2] == "labels"
}

func sizeOf(t *types.Type) *cost.SizeEstimate {
	if t == nil {
		return nil
	}
	var s cost.SizeEstimate
	switch t.Kind() {
	case types.StringKind, types.BytesKind:
		s = cost.SizeEstimate{Min: 0, Max: maxStringSize}
	case types.ListKind, types.MapKind:
		s = cost.SizeEstimate{Min: 0, Max: maxListSize}
	case types.DynKind, types.AnyKind:
		// A dyn value (an element of tool_args, a span map's field) may be
		// a string, list or map: bound it by the larger of their limits,
		// else cel-go assumes it unbounded and every rule that reads
		// tool_args.x would exceed any limit.
		s = cost.SizeEstimate{Min: 0, Max: maxStringSize}
	default:
		return nil
	}
	return &s
}

func (e sizeEstimator) EstimateCallCost(function, overloadID string, target *cost.AstNode, args []cost.AstNode) *cost.CallEstimate {
	// `in` over a dyn (a node's labels, an element of tool_args): a value
	// that `in` searches is a list or a map, so it holds at most 1,024
	// elements, not the 65,536 a dyn string may (spec section 4).
	if (overloadID == overloads.InList || overloadID == overloads.InMap) && len(args) == 2 {
		if t := args[1].Type(); t != nil && (t.Kind() == types.DynKind || t.Kind() == types.AnyKind) {
			max := uint64(maxListSize)
			if isNodeLabels(args[1].Path()) {
				max = maxNodeLabels
			}
			if overloadID == overloads.InMap {
				max = 1
			}
			return &cost.CallEstimate{CostEstimate: cost.Estimate{Min: 1, Max: max}}
		}
	}
	cat := e.cat
	fn := cat.Function(function)
	if fn == nil || overloadID != OverloadID(fn) {
		return nil
	}
	// Catalog functions are lookups: constant cost; their result is a
	// value of bounded size.
	ce := &cost.CallEstimate{CostEstimate: cost.Estimate{Min: 1, Max: 1}}
	ce.ResultSize = sizeOf(CELType(fn.Result))
	return ce
}

// closest is [catalog.Closest].
func closest(name string, candidates []string) string { return catalog.Closest(name, candidates) }

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
