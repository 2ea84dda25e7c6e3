// This file owns `oarc vet`: checks of a set that loads without errors for
// rules that are valid but cannot do what their author meant. Every finding
// is a warning with a stable code (OAR_VET_*), positioned in the rule file:
//
//   - OAR_VET_NEVER: the rule's condition can never hold (a selector that
//     contradicts its when, a when that folds to false, contradictory
//     clauses of one conjunction, a flow longer than its window);
//   - OAR_VET_UNREACHABLE: an earlier enforced block at the same anchor
//     fires whenever the rule's selector matches, so the rule never fires;
//   - OAR_VET_DYN_COMPARE: an ordering comparison of a dyn value that fails
//     at run time for every value the dyn can hold;
//   - OAR_VET_NO_TITLE: an enforced block or warn (or an enforcing
//     deny_by_default) without copy.title.
//   - OAR_VET_MISSING_ARG, OAR_VET_ARG_INT, OAR_VET_ARG_STRING: the rule
//     reads a tool argument in a way that misjudges some calls (an absent
//     argument that fails the rule closed, a number with a fraction that
//     tool_arg_int reads as 0, a JSON number that tool_arg_string reads as
//     ""); vetargs.go.
//
// The analyses decide only what they can prove: "can never hold" is
// cel-go's own partial evaluation of the when, with every fact unknown
// except those the selector or the when's own conjunction pins to a finite
// set of values, so a warning is never a guess. docs/vet.md explains each
// code with an example.

package compiler

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
)

// maxVetCombos bounds the assignments of pinned facts a rule's when is
// evaluated under; past it only the facts pinned to one value are bound.
const maxVetCombos = 256

// Vet runs the checks of `oarc vet` on a set loaded without errors and
// returns its warnings, sorted. A set with load errors is not analysed (it
// returns nothing): fix the errors first.
func Vet(s *Set) Diagnostics {
	if s == nil {
		return nil
	}
	v := &vetter{set: s, files: map[string]*vetFile{}}
	if v.env = vetEnv(s.Catalog); v.env == nil {
		return nil
	}
	never := map[*Rule]bool{}
	for _, r := range s.Rules {
		never[r] = v.rule(r)
	}
	for i, r := range s.Rules {
		// What never fires anyway is not also reported as shadowed.
		if !never[r] {
			v.unreachable(i, r)
		}
	}
	for _, pk := range s.Packs {
		v.denyTitle(pk)
	}
	v.diags.Sort()
	return dedupe(v.diags)
}

type vetter struct {
	set   *Set
	env   *cel.Env
	files map[string]*vetFile
	diags Diagnostics
}

// vetFile is a rule file parsed again for positions: its root mapping and
// the offset map of its when.
type vetFile struct {
	src  *source
	root *yaml.Node
	when *whenSource
}

// file returns the parsed rule file of r (nil parts when it cannot be
// read again).
func (v *vetter) file(r *Rule) *vetFile {
	if f, ok := v.files[r.File]; ok {
		return f
	}
	f := &vetFile{}
	v.files[r.File] = f
	text, ok := ruleSource(r)
	if !ok {
		return f
	}
	f.src = newSource(r.File, text)
	var doc yaml.Node
	if yaml.Unmarshal(text, &doc) == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		f.root = doc.Content[0]
	}
	if n := f.value("when"); n != nil && r.When != "" {
		m := &scalarMap{start: f.src.pos(n)}
		if len(r.When) <= maxWhenLen {
			m = f.src.mapScalar(n)
		}
		f.when = &whenSource{text: r.When, m: m, src: f.src, diags: &v.diags}
	}
	return f
}

// ruleSource finds the text of r's file among its pack's sources (what was
// loaded), else reads it.
func ruleSource(r *Rule) ([]byte, bool) {
	if r.Pack != nil {
		for _, s := range r.Pack.Sources {
			if filepath.Join(r.Pack.Dir, filepath.FromSlash(s.Path)) == r.File || r.Pack.Dir == r.File && s.Path == filepath.Base(r.File) {
				return s.Content, true
			}
		}
	}
	text, err := os.ReadFile(r.File)
	return text, err == nil
}

// key returns the key node of a top-level field, nil if absent.
func (f *vetFile) key(name string) *yaml.Node {
	if f == nil || f.root == nil {
		return nil
	}
	for i := 0; i+1 < len(f.root.Content); i += 2 {
		if f.root.Content[i].Value == name {
			return f.root.Content[i]
		}
	}
	return nil
}

// value returns the value node of a top-level field, nil if absent.
func (f *vetFile) value(name string) *yaml.Node {
	if f == nil || f.root == nil {
		return nil
	}
	for i := 0; i+1 < len(f.root.Content); i += 2 {
		if f.root.Content[i].Value == name {
			return f.root.Content[i+1]
		}
	}
	return nil
}

// at returns the position of the first of the fields present, else the
// rule's own position.
func (v *vetter) at(r *Rule, fields ...string) Pos {
	f := v.file(r)
	for _, name := range fields {
		if k := f.key(name); k != nil && f.src != nil {
			return f.src.pos(k)
		}
	}
	return r.Pos
}

func (v *vetter) warn(p Pos, code, format string, args ...any) {
	v.diags = append(v.diags, Diagnostic{Pos: p, Severity: Warning, Code: code, Message: fmt.Sprintf(format, args...)})
}

// warnWhen reports at code point offset cp of r's when (with its source
// line and a caret), or at the when when positions are not known.
func (v *vetter) warnWhen(r *Rule, cp int, code, format string, args ...any) {
	if w := v.file(r).when; w != nil {
		w.report(w.byteOffset(cp), Warning, code, format, args...)
		return
	}
	p := r.WhenPos
	if p.Line == 0 {
		p = r.Pos
	}
	v.warn(p, code, format, args...)
}

// rule runs the checks of one rule and reports whether it found that the
// rule can never fire.
func (v *vetter) rule(r *Rule) bool {
	v.noTitle(r)
	v.dynCompare(r)
	v.missingArg(r)
	v.nodeField(r)
	v.argInt(r)
	v.argString(r)
	v.urlPrefix(r)
	return v.flowWindow(r) || v.never(r)
}

// noTitle: an enforced block or warn is shown to the agent as a rejection
// built from copy, and rendered into the prompt only with a title.
func (v *vetter) noTitle(r *Rule) {
	if r.Enforcement != "enforce" || r.Effect != "block" && r.Effect != "warn" || strings.TrimSpace(r.Copy.Title) != "" {
		return
	}
	what := "has no copy"
	if v.file(r).key("copy") != nil {
		what = "has no copy.title"
	}
	v.warn(v.at(r, "copy", "effect"), CodeVetNoTitle,
		"%s is an enforced %s but %s: the agent sees a rejection with only its code, and the rule is left out of the rendered prompt (add copy: {title: ...})", r.ID, r.Effect, what)
}

// denyTitle is noTitle for a pack's enforcing deny_by_default.
func (v *vetter) denyTitle(pk *Pack) {
	d := pk.DenyByDefault
	if d == nil || d.Monitor || strings.TrimSpace(d.Copy.Title) != "" {
		return
	}
	v.warn(d.Pos, CodeVetNoTitle, "deny_by_default %s blocks but has no copy.title: the agent sees a rejection with only its code (add copy: {title: ...})", d.Code)
}

// flowWindow: a flow of n steps matches n distinct entries of the window,
// so a window shorter than the sequence never holds. Without within the
// window is the session's record, MaxFlowWithin entries (spec 5.4).
func (v *vetter) flowWindow(r *Rule) bool {
	fl := r.Flow
	if fl == nil {
		return false
	}
	within, why := fl.Within, fmt.Sprintf("within: %d", fl.Within)
	if within == 0 {
		within, why = MaxFlowWithin, fmt.Sprintf("the session keeps %d", MaxFlowWithin)
	}
	if within >= len(fl.Steps) {
		return false
	}
	p := fl.Pos
	if p.Line == 0 {
		p = v.at(r, "flow")
	}
	v.warn(p, CodeVetNever, "%s can never fire: its flow has %d steps but looks at only the last %d tool calls (%s)", r.ID, len(fl.Steps), within, why)
	return true
}

// --- OAR_VET_DYN_COMPARE -------------------------------------------------

// A runtime kind of a CEL value, for what a dyn may hold.
type valueKind uint16

const (
	kNull valueKind = 1 << iota
	kBool
	kInt
	kUint
	kDouble
	kString
	kList
	kMap
	kOther // a type value, or anything the analysis does not follow

	// kJSON is what a value decoded from JSON may be (ints and doubles
	// both, spec section 8).
	kJSON = kNull | kBool | kInt | kDouble | kString | kList | kMap
)

var kindNames = []struct {
	k    valueKind
	name string
}{{kNull, "null"}, {kBool, "bool"}, {kInt, "int"}, {kUint, "uint"}, {kDouble, "double"}, {kString, "string"}, {kList, "list"}, {kMap, "map"}}

func (k valueKind) String() string {
	var parts []string
	for _, n := range kindNames {
		if k&n.k != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ", ")
}

// staticKinds are the runtime kinds a value of static type t has; for dyn,
// every JSON kind and more.
func staticKinds(t *ir.Type) valueKind {
	switch {
	case t == nil:
		return kJSON | kUint | kOther
	case t.Kind == ir.KNull:
		return kNull
	case t.Kind == ir.KBool:
		return kBool
	case t.Kind == ir.KInt:
		return kInt
	case t.Kind == ir.KUint:
		return kUint
	case t.Kind == ir.KDouble:
		return kDouble
	case t.Kind == ir.KString:
		return kString
	case t.Kind == ir.KList:
		return kList
	case t.Kind == ir.KMap:
		return kMap
	case t.Kind == ir.KType:
		return kOther
	}
	return kJSON | kUint | kOther
}

// kindsOf are the runtime kinds e may evaluate to. A dyn read from facts
// (a tool argument, a field of a span) holds a JSON value; a dyn(x) holds
// what x holds; anything else dyn is taken to hold anything.
func kindsOf(e ir.Expr) valueKind {
	if e == nil {
		return kJSON | kUint | kOther
	}
	if !e.Type().Is(ir.KDyn) {
		return staticKinds(e.Type())
	}
	switch x := e.(type) {
	case *ir.Const:
		if x.Value == nil {
			return kNull
		}
	case *ir.Select:
		if !x.Test {
			return kJSON
		}
	case *ir.Index:
		return kJSON
	case *ir.Call:
		if x.Op == ir.OpDyn && len(x.Args) == 1 {
			return kindsOf(x.Args[0])
		}
	case *ir.Cond:
		return kindsOf(x.Then) | kindsOf(x.Else)
	}
	return kJSON | kUint | kOther
}

// orders reports whether cel-go orders some value of kinds a against some
// value of kinds b (numbers across int, uint and double; strings; bools).
func orders(a, b valueKind) bool {
	const num = kInt | kUint | kDouble
	return a&num != 0 && b&num != 0 || a&b&kString != 0 || a&b&kBool != 0
}

var orderingOps = map[ir.Op]string{ir.OpLt: "<", ir.OpLe: "<=", ir.OpGt: ">", ir.OpGe: ">="}

// dynCompare reports ordering comparisons with a dyn operand that no value
// the operands can hold makes succeed: cel-go has no overload for the
// pair, so the comparison errors on every evaluation.
func (v *vetter) dynCompare(r *Rule) {
	// The source text of the comparisons, by the offset of their operator
	// (the offset the lowering gives the IR call).
	texts := map[int][3]string{}
	if r.WhenAST != nil {
		a := r.WhenAST.NativeRep()
		info := a.SourceInfo()
		o := v.offsets(r)
		ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
			if e.Kind() != ast.CallKind || len(e.AsCall().Args()) != 2 {
				return
			}
			if rg, ok := info.GetOffsetRange(e.ID()); ok {
				args := e.AsCall().Args()
				texts[int(rg.Start)] = [3]string{exprText(r, info, e, o), exprText(r, info, args[0], o), exprText(r, info, args[1], o)}
			}
		}))
	}
	ir.Walk(r.WhenIR, func(e ir.Expr) bool {
		c, ok := e.(*ir.Call)
		if !ok || !c.Op.Ordering() || len(c.Args) != 2 {
			return true
		}
		a, b := c.Args[0], c.Args[1]
		if !a.Type().Is(ir.KDyn) && !b.Type().Is(ir.KDyn) {
			return true
		}
		ka, kb := kindsOf(a), kindsOf(b)
		if ka&kOther != 0 || kb&kOther != 0 || orders(ka, kb) {
			return true
		}
		t, ok := texts[c.Offset()]
		if !ok || t[0] == "" {
			t = [3]string{"this " + orderingOps[c.Op] + " comparison", "its left operand", "its right operand"}
		} else {
			t[0] = "`" + t[0] + "`"
		}
		v.warnWhen(r, c.Offset(), CodeVetDynCompare,
			"%s fails at run time whatever the host sends: %s %s and %s %s, and CEL orders only numbers with numbers, strings with strings and bools with bools, so the rule %s",
			t[0], t[1], describeKinds(a, ka), t[2], describeKinds(b, kb), onErrorOutcome(r))
		return true
	})
}

// describeKinds says what an operand holds, after its text.
func describeKinds(e ir.Expr, k valueKind) string {
	switch {
	case k == kJSON:
		return "holds any JSON value (null, bool, number, string, list or map)"
	case e.Type().Is(ir.KDyn):
		return "holds a dyn of " + k.String()
	case k == kNull:
		return "is null"
	case k == kInt || k == kUint:
		return "is an " + k.String()
	}
	return "is a " + k.String()
}

// onErrorOutcome says what an evaluation error does to r.
func onErrorOutcome(r *Rule) string {
	if r.OnError == "fail_open" {
		return "fails open: it never fires"
	}
	return "fails closed on every evaluation that gets there"
}

// --- OAR_VET_NEVER --------------------------------------------------------

var vetEnvs sync.Map // *catalog.Catalog -> *vetEnvResult

type vetEnvResult struct {
	once sync.Once
	env  *cel.Env
}

// vetEnv is the catalog's CEL environment with every catalog function
// answering "unknown": partial evaluation then folds what does not depend
// on the occurrence and leaves the rest unknown.
func vetEnv(cat *catalog.Catalog) *cel.Env {
	if cat == nil {
		cat = catalog.Default()
	}
	x, _ := vetEnvs.LoadOrStore(cat, &vetEnvResult{})
	res := x.(*vetEnvResult)
	res.once.Do(func() {
		unknown := func(...ref.Val) ref.Val { return types.NewUnknown(0, nil) }
		opts := []cel.EnvOption{ext.Strings()}
		for _, f := range cat.Facts {
			opts = append(opts, cel.Variable(f.CELName, CELType(f.Type)))
		}
		for _, fn := range cat.Functions {
			params := make([]*cel.Type, len(fn.Params))
			for i, p := range fn.Params {
				params[i] = CELType(p)
			}
			opts = append(opts, cel.Function(fn.CELName, cel.Overload(OverloadID(fn), params, CELType(fn.Result), cel.FunctionBinding(unknown))))
		}
		env, err := cel.NewEnv(opts...)
		if err == nil {
			res.env = env
		}
	})
	return res.env
}

// pinned is what a rule's selector and its when's top-level conjunction
// say about one scalar fact whenever the when holds: the values it may
// have (nil: any), and for an int fact the interval it lies in.
type pinned struct {
	fact   *catalog.Fact
	values []any // string, int64 or bool; nil means unconstrained
	// why names what constrained the values, for messages.
	why    []string
	lo, hi int64
	// ivWhy names the comparisons that bound the interval.
	ivWhy []string
	off   int // code point offset of the first atom in the when, -1 if none
	// list is the selector clause on a list(string) fact, whose values
	// are not pinned (the fact holds a list) but cover other selectors.
	list *SelectorClause
}

func (p *pinned) restrict(vals []any, why string, off int) {
	if p.off < 0 {
		p.off = off
	}
	p.why = append(p.why, why)
	if p.values == nil {
		p.values = dedupeValues(vals)
		return
	}
	var keep []any
	for _, x := range p.values {
		if containsValue(vals, x) {
			keep = append(keep, x)
		}
	}
	if keep == nil {
		keep = []any{}
	}
	p.values = keep
}

func dedupeValues(vals []any) []any {
	out := []any{}
	for _, x := range vals {
		if !containsValue(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func containsValue(vals []any, x any) bool {
	for _, y := range vals {
		if y == x {
			return true
		}
	}
	return false
}

// constraints collects what the selector and the when's conjunction pin.
func (v *vetter) constraints(r *Rule) map[string]*pinned { return v.pins(r, true) }

// pins collects what the selector pins and, with when, what the when's
// conjunction pins.
func (v *vetter) pins(r *Rule, when bool) map[string]*pinned {
	cat := v.set.Catalog
	out := map[string]*pinned{}
	get := func(f *catalog.Fact) *pinned {
		p := out[f.CELName]
		if p == nil {
			p = &pinned{fact: f, lo: math.MinInt64, hi: math.MaxInt64, off: -1}
			out[f.CELName] = p
		}
		return p
	}
	for _, cl := range r.Selector {
		f := cat.Fact(cl.Fact)
		if f != nil && f.Type == catalog.ListString {
			get(f).list = &cl
			continue
		}
		if f == nil || !scalarFact(f) {
			continue
		}
		get(f).restrict(cl.Values, fmt.Sprintf("selector %s: %s", f.CELName, showValues(cl.Values)), -1)
	}
	// The core fact anchor is the rule's own anchor.
	if f := cat.Fact("anchor"); f != nil && f.Type == catalog.String {
		get(f).restrict([]any{r.Anchor}, "the rule's anchor "+r.Anchor, -1)
	}
	if r.WhenAST == nil || !when {
		return out
	}
	a := r.WhenAST.NativeRep()
	local := localRefs(a.Expr())
	refs := a.ReferenceMap()
	info := a.SourceInfo()
	offOf := func(e ast.Expr) int { start, _ := exprRange(info, e); return start }
	factOf := func(e ast.Expr) *catalog.Fact {
		if local[e.ID()] {
			return nil
		}
		ref, ok := refs[e.ID()]
		if !ok || ref.Name == "" || ref.Value != nil {
			return nil
		}
		if e.Kind() != ast.IdentKind && e.Kind() != ast.SelectKind {
			return nil
		}
		f := cat.Fact(ref.Name)
		if f == nil || !scalarFact(f) {
			return nil
		}
		return f
	}
	text := func(e ast.Expr) string { return exprText(r, info, e, v.offsets(r)) }
	for _, t := range conjuncts(a.Expr()) {
		v.atom(t, factOf, offOf, text, get)
	}
	return out
}

// exprRange is the range of code points e spans in the source. cel-go
// records only each node's own token (the operator of a call, the dot of
// a selection, the parenthesis of a function call), so take the union
// over the node and everything under it, widened to names and closing
// brackets by exprText.
func exprRange(info *ast.SourceInfo, e ast.Expr) (int, int) {
	start, stop := -1, -1
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		rg, ok := info.GetOffsetRange(x.ID())
		if !ok {
			return
		}
		s, t := int(rg.Start), int(rg.Stop)
		switch x.Kind() {
		case ast.IdentKind:
			// A qualified name (lycaon.x) is one identifier after
			// checking, whose range is its last dot.
			if name := x.AsIdent(); t-s == 1 && strings.Contains(name, ".") {
				dot := strings.LastIndex(name, ".")
				s -= utf8.RuneCountInString(name[:dot])
				t = s + utf8.RuneCountInString(name)
			}
		case ast.SelectKind:
			t = s + 1 + utf8.RuneCountInString(x.AsSelect().FieldName())
		case ast.CallKind:
			c := x.AsCall()
			if fn := c.FunctionName(); !c.IsMemberFunction() && fn != "" && fn[0] != '_' && fn[0] != '@' && fn != operators.LogicalNot && fn != operators.Negate {
				s -= utf8.RuneCountInString(fn)
			}
		}
		if start < 0 || s < start {
			start = s
		}
		if t > stop {
			stop = t
		}
	}))
	return max(start, 0), stop
}

// exprText is the source text of e in r's when, on one line.
func exprText(r *Rule, info *ast.SourceInfo, e ast.Expr, o *textOffsets) string {
	start, stop := exprRange(info, e)
	a, b := o.byteOffset(start), o.byteOffset(stop)
	if a >= b || b > len(r.When) {
		return ""
	}
	b = closeBrackets(r.When, a, b)
	return strings.Join(strings.Fields(r.When[a:b]), " ")
}

// closeBrackets extends text[a:b] to the brackets it leaves open (outside
// string literals).
func closeBrackets(text string, a, b int) int {
	depth := 0
	var quote byte
	for i := a; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
		if i >= b-1 && depth <= 0 && quote == 0 {
			return i + 1
		}
	}
	return b
}

func (v *vetter) offsets(r *Rule) *textOffsets {
	if w := v.file(r).when; w != nil {
		return w.offsets()
	}
	return newTextOffsets(r.When)
}

// atom reads one conjunct of the when: `f == lit`, `lit == f`, `f in
// [lits]`, a bool fact `f` or `!f`, and for an int fact `f < lit` and the
// other orderings.
func (v *vetter) atom(t ast.Expr, factOf func(ast.Expr) *catalog.Fact, offOf func(ast.Expr) int, text func(ast.Expr) string, get func(*catalog.Fact) *pinned) {
	if f := factOf(t); f != nil && f.Type == catalog.Bool {
		get(f).restrict([]any{true}, "`"+text(t)+"`", offOf(t))
		return
	}
	if t.Kind() != ast.CallKind {
		return
	}
	c := t.AsCall()
	args := c.Args()
	if c.IsMemberFunction() {
		return
	}
	switch fn := c.FunctionName(); {
	case fn == operators.LogicalNot && len(args) == 1:
		if f := factOf(args[0]); f != nil && f.Type == catalog.Bool {
			get(f).restrict([]any{false}, "`"+text(t)+"`", offOf(t))
		}
	case fn == operators.Equals && len(args) == 2:
		for _, side := range [][2]ast.Expr{{args[0], args[1]}, {args[1], args[0]}} {
			if f := factOf(side[0]); f != nil {
				if val, ok := literalOf(side[1], f.Type); ok {
					get(f).restrict([]any{val}, "`"+text(t)+"`", offOf(t))
					return
				}
			}
		}
	case fn == operators.In && len(args) == 2:
		f := factOf(args[0])
		if f == nil || args[1].Kind() != ast.ListKind {
			return
		}
		var vals []any
		for _, el := range args[1].AsList().Elements() {
			val, ok := literalOf(el, f.Type)
			if !ok {
				return
			}
			vals = append(vals, val)
		}
		get(f).restrict(vals, "`"+text(t)+"`", offOf(t))
	case (fn == operators.Less || fn == operators.LessEquals || fn == operators.Greater || fn == operators.GreaterEquals) && len(args) == 2:
		for i, side := range [][2]ast.Expr{{args[0], args[1]}, {args[1], args[0]}} {
			f := factOf(side[0])
			if f == nil || f.Type != catalog.Int {
				continue
			}
			val, ok := literalOf(side[1], catalog.Int)
			if !ok {
				continue
			}
			n := val.(int64)
			op := fn
			if i == 1 {
				op = mirror[op]
			}
			p := get(f)
			if p.off < 0 {
				p.off = offOf(t)
			}
			switch op {
			case operators.Less:
				if n == math.MinInt64 {
					p.hi, p.lo = math.MinInt64, math.MaxInt64 // empty
				} else {
					p.hi = min(p.hi, n-1)
				}
			case operators.LessEquals:
				p.hi = min(p.hi, n)
			case operators.Greater:
				if n == math.MaxInt64 {
					p.hi, p.lo = math.MinInt64, math.MaxInt64
				} else {
					p.lo = max(p.lo, n+1)
				}
			case operators.GreaterEquals:
				p.lo = max(p.lo, n)
			}
			p.ivWhy = append(p.ivWhy, "`"+text(t)+"`")
			return
		}
	}
}

var mirror = map[string]string{
	operators.Less: operators.Greater, operators.Greater: operators.Less,
	operators.LessEquals: operators.GreaterEquals, operators.GreaterEquals: operators.LessEquals,
}

// literalOf returns the value of a literal of the fact type t.
func literalOf(e ast.Expr, t catalog.Type) (any, bool) {
	if e.Kind() != ast.LiteralKind {
		return nil, false
	}
	switch x := e.AsLiteral().(type) {
	case types.String:
		return string(x), t == catalog.String
	case types.Int:
		return int64(x), t == catalog.Int
	case types.Bool:
		return bool(x), t == catalog.Bool
	}
	return nil, false
}

// conjuncts flattens the top-level && of e.
func conjuncts(e ast.Expr) []ast.Expr {
	if e.Kind() == ast.CallKind {
		c := e.AsCall()
		if c.FunctionName() == operators.LogicalAnd && !c.IsMemberFunction() {
			var out []ast.Expr
			for _, a := range c.Args() {
				out = append(out, conjuncts(a)...)
			}
			return out
		}
	}
	return []ast.Expr{e}
}

// scalarFact reports whether f is a fact whose value can be pinned: a
// string, int or bool of the occurrence (not one derived by the session).
func scalarFact(f *catalog.Fact) bool {
	return f.Tier != catalog.Oarc && (f.Type == catalog.String || f.Type == catalog.Int || f.Type == catalog.Bool)
}

func showValues(vals []any) string {
	var parts []string
	for _, x := range vals {
		if s, ok := x.(string); ok {
			parts = append(parts, fmt.Sprintf("%q", s))
		} else {
			parts = append(parts, fmt.Sprint(x))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// outcome is what partial evaluation of a when under one assignment says.
type outcome int

const (
	outUnknown outcome = iota // depends on what is not known
	outTrue
	outFalse
	outError
)

// evalWhen partially evaluates r's when with the facts of bind known and
// every other fact unknown.
func (v *vetter) evalWhen(r *Rule, prg cel.Program, bind map[string]any) (outcome, string) {
	var patterns []*cel.AttributePatternType
	for _, f := range v.set.Catalog.Facts {
		if _, ok := bind[f.CELName]; !ok {
			patterns = append(patterns, cel.AttributePattern(f.CELName))
		}
	}
	act, err := cel.PartialVars(bind, patterns...)
	if err != nil {
		return outUnknown, ""
	}
	out, _, err := prg.Eval(act)
	switch {
	case out == nil:
		if err != nil {
			return outError, err.Error()
		}
		return outUnknown, ""
	case types.IsUnknown(out):
		return outUnknown, ""
	case types.IsError(out):
		return outError, fmt.Sprint(out)
	case out == types.True:
		return outTrue, ""
	case out == types.False:
		return outFalse, ""
	}
	return outUnknown, ""
}

// program is r's when as a partial-evaluation program, nil if none.
func (v *vetter) program(r *Rule) cel.Program {
	if r.WhenAST == nil {
		return nil
	}
	prg, err := v.env.Program(r.WhenAST, cel.EvalOptions(cel.OptPartialEval))
	if err != nil {
		return nil
	}
	return prg
}

// assignments enumerates the assignments of the pinned facts the when
// reads (the facts with a finite set of values), at most maxVetCombos of
// them; with more, only the facts pinned to one value are bound.
func assignments(pins map[string]*pinned, reads map[string]bool) []map[string]any {
	var names []string
	for name, p := range pins {
		if len(p.values) > 0 && reads[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	total := 1
	for _, n := range names {
		total *= len(pins[n].values)
		if total > maxVetCombos {
			break
		}
	}
	if total > maxVetCombos {
		var single []string
		for _, n := range names {
			if len(pins[n].values) == 1 {
				single = append(single, n)
			}
		}
		names = single
	}
	out := []map[string]any{{}}
	for _, n := range names {
		var next []map[string]any
		for _, b := range out {
			for _, val := range pins[n].values {
				c := map[string]any{}
				for k, x := range b {
					c[k] = x
				}
				c[n] = val
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// readsOf are the catalog facts a rule's when reads, by CEL name.
func readsOf(r *Rule) map[string]bool {
	out := map[string]bool{}
	if r.WhenAST == nil {
		return out
	}
	a := r.WhenAST.NativeRep()
	local := localRefs(a.Expr())
	for id, ref := range a.ReferenceMap() {
		if !local[id] && ref.Name != "" {
			out[ref.Name] = true
		}
	}
	return out
}

// never reports a rule whose condition can never hold.
func (v *vetter) never(r *Rule) bool {
	pins := v.constraints(r)
	// A fact pinned to no value at all: the selector and the conjunction
	// (or two clauses of the conjunction) contradict each other.
	var names []string
	for n := range pins {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := pins[n]
		if p.values != nil && len(p.values) == 0 {
			v.reportNever(r, p.off, "%s can never fire: %s cannot both hold", r.ID, strings.Join(p.why, " and "))
			return true
		}
		if p.lo > p.hi {
			v.reportNever(r, p.off, "%s can never fire: no int satisfies %s", r.ID, strings.Join(p.ivWhy, " and "))
			return true
		}
		if p.values != nil && len(p.ivWhy) > 0 {
			in := false
			for _, x := range p.values {
				if n, ok := x.(int64); ok && n >= p.lo && n <= p.hi {
					in = true
				}
			}
			if !in {
				v.reportNever(r, p.off, "%s can never fire: %s and %s cannot both hold", r.ID, strings.Join(p.why, " and "), strings.Join(p.ivWhy, " and "))
				return true
			}
		}
	}
	// The rule's own counters are 0 in a session until it fires (only its
	// enforced firings count them up; resets only lower them): a when
	// that needs one above 0 can never let it fire the first time.
	for _, n := range []string{"fire_count", "breaker_count"} {
		p := pins[n]
		if p == nil {
			continue
		}
		why := append(append([]string{}, p.why...), p.ivWhy...)
		if len(why) > 0 && (p.lo > 0 || p.hi < 0 || p.values != nil && !containsValue(p.values, int64(0))) {
			v.reportNever(r, p.off, "%s can never fire: it needs %s, but its own %s is 0 in a new session until it fires (only its own enforced firings count it up); use fire_count_of(\"OTHER_ID\") for another rule's, or tool_calls_within to count calls", r.ID, strings.Join(why, " and "), n)
			return true
		}
	}
	prg := v.program(r)
	if prg == nil {
		return false
	}
	binds := assignments(pins, readsOf(r))
	errs := 0
	var errMsg string
	for _, b := range binds {
		switch o, msg := v.evalWhen(r, prg, b); o {
		case outTrue, outUnknown:
			return false
		case outError:
			errs++
			errMsg = msg
		}
	}
	bound := describeBinds(pins, binds)
	switch {
	case errs == 0:
		off, what := v.falseConjunct(r, binds)
		v.reportNever(r, off, "%s can never fire: %s is false%s", r.ID, what, bound)
	case errs == len(binds):
		v.reportNever(r, 0, "the when of %s never holds: it fails on every evaluation%s (%s), so the rule %s", r.ID, bound, errMsg, onErrorOutcome(r))
	default:
		v.reportNever(r, 0, "the when of %s never holds: it is false or fails%s (%s); the rule fires only by failing closed", r.ID, bound, errMsg)
	}
	return true
}

// falseConjunct finds the first conjunct of r's when that is false under
// every assignment, for the message and the caret; else the whole when.
func (v *vetter) falseConjunct(r *Rule, binds []map[string]any) (int, string) {
	a := r.WhenAST.NativeRep()
	terms := conjuncts(a.Expr())
	if len(terms) < 2 {
		return 0, "its when"
	}
	for _, t := range terms {
		sub := ast.NewCheckedAST(ast.NewAST(t, a.SourceInfo()), a.TypeMap(), a.ReferenceMap())
		prg, err := v.env.PlanProgram(sub, cel.EvalOptions(cel.OptPartialEval))
		if err != nil {
			continue
		}
		all := true
		for _, b := range binds {
			if o, _ := v.evalWhen(r, prg, b); o != outFalse {
				all = false
				break
			}
		}
		if all {
			start, _ := exprRange(a.SourceInfo(), t)
			return start, "`" + exprText(r, a.SourceInfo(), t, v.offsets(r)) + "`"
		}
	}
	return 0, "its when"
}

func (v *vetter) reportNever(r *Rule, off int, format string, args ...any) {
	if off < 0 || r.WhenAST == nil {
		v.warn(v.at(r, "when", "selector", "id"), CodeVetNever, format, args...)
		return
	}
	v.warnWhen(r, off, CodeVetNever, format, args...)
}

// describeBinds says what the when was evaluated under.
func describeBinds(pins map[string]*pinned, binds []map[string]any) string {
	if len(binds) == 0 || len(binds[0]) == 0 {
		return " whatever the facts"
	}
	var names []string
	for n := range binds[0] {
		if n != "anchor" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return " whatever the facts"
	}
	sort.Strings(names)
	var parts []string
	single := true
	for _, n := range names {
		vals := pins[n].values
		if len(vals) == 1 {
			parts = append(parts, n+" == "+showValues(vals))
		} else {
			single = false
			parts = append(parts, n+" in "+showValues(vals))
		}
	}
	if single {
		return " whenever " + strings.Join(parts, " && ")
	}
	return " for each " + strings.Join(parts, " and each ")
}

// --- OAR_VET_UNREACHABLE --------------------------------------------------

// unreachable reports rule b when an earlier rule a at its anchor blocks
// (enforced) whenever b could fire: a has no flow, no validator, a when
// that holds for every value b pins, a selector that covers b's, and fails
// closed or requires no profile (so a missing profile blocks too instead of
// letting b run). What b's when pins counts only when b fails open: a rule
// that fails closed fires on an error before its when is evaluated (a
// missing profile, a failed validator), whatever the facts its when tests.
func (v *vetter) unreachable(bi int, b *Rule) {
	bpins := v.pins(b, b.OnError == "fail_open")
	for ai := 0; ai < bi; ai++ {
		a := v.set.Rules[ai]
		if a.Anchor != b.Anchor || a.Effect != "block" || a.Enforcement != "enforce" || a.Flow != nil || a.Kind == "detector" {
			continue
		}
		if a.OnError != "fail_closed" && len(a.Profiles) > 0 {
			continue
		}
		if !covers(a, bpins, v.set.Catalog) {
			continue
		}
		if !v.alwaysTrue(a, bpins) {
			continue
		}
		why := "it has no when"
		if a.When != "" {
			why = "its when holds whenever this rule could fire"
		}
		sel := "no selector"
		if len(a.Selector) > 0 {
			sel = "a selector that covers this rule's"
		}
		v.warn(v.at(b, "selector", "when", "id"), CodeVetUnreachable,
			"%s is never reached: %s, evaluated before it at %s, blocks first whenever this rule could fire (%s and %s)", b.ID, a.ID, a.Anchor, sel, why)
		return
	}
}

// covers reports whether every clause of a's selector holds whenever b's
// selector matches and b's when holds: b pins the fact to values all among
// the clause's values.
func covers(a *Rule, bpins map[string]*pinned, cat *catalog.Catalog) bool {
	for _, cl := range a.Selector {
		p := bpins[cl.Fact]
		switch {
		case cl.Type == catalog.ListString:
			// b must select on the same list fact with values among a's.
			if !listCovered(cl, p) {
				return false
			}
		case p == nil || p.values == nil:
			return false
		default:
			for _, x := range p.values {
				if !containsValue(cl.Values, x) {
					return false
				}
			}
		}
	}
	return true
}

// listCovered is covers for a clause on a list(string) fact, which b's
// pins do not describe: b's rule must carry a clause on the same fact.
func listCovered(cl SelectorClause, p *pinned) bool {
	if p == nil || p.list == nil {
		return false
	}
	for _, x := range p.list.Values {
		if !containsValue(cl.Values, x) {
			return false
		}
	}
	return true
}

// alwaysTrue reports whether a's when holds (concretely true) for every
// assignment b's pins allow; a rule without a when always holds.
func (v *vetter) alwaysTrue(a *Rule, bpins map[string]*pinned) bool {
	if a.WhenAST == nil {
		return a.When == ""
	}
	prg := v.program(a)
	if prg == nil {
		return false
	}
	for _, b := range assignments(bpins, readsOf(a)) {
		if o, _ := v.evalWhen(a, prg, b); o != outTrue {
			return false
		}
	}
	return true
}
