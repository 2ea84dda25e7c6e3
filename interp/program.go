// Package interp evaluates OAR rules with cel-go, straight from a loaded
// [compiler.Set]: each rule's `when` is checked again from its source
// text and planned as a cel-go program, and a rule is evaluated in the
// order of spec 5.1 (selector, profiles, flow, validator, when).
//
// It is the slow path of oarc, and it ships: the rule store (package
// rulestore, spec 12) runs the rules an agent writes at run time through
// it, inside a generated evaluator's decision. It is also the oracle the
// generated code is tested against ([Engine], which testkit/reference
// wraps for the test harness), so it is written from the spec,
// independently of runtime/impl: it shares with the runtime only plain
// types (error kinds, nodes, detections, profile sets).
//
// A [Rule] reads the occurrence through an [Input]: the oracle's own
// session ([Engine], [Session]) or, in the rule store, the generated
// evaluator's state. Functions of the catalog are bound late, per
// evaluation, so that one set of programs serves concurrent evaluations.
package interp

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/decls"
	"cel.dev/cel-go/common/functions"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/runtime"
)

// Error is an evaluation error of one rule: its kind, and the message
// cel-go (or, for the kinds cel-go does not have, oarc) gives.
type Error struct {
	Kind runtime.ErrKind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Input is what a rule reads of the occurrence it is evaluated on. The
// core facts (anchor, fire_count, breaker_count) and the detector facts a
// validator supplied are the Rule's business; everything else comes from
// here. An implementation answers for one occurrence at a time and keeps
// what must be read once (counters as one snapshot, each validator's
// answer).
type Input interface {
	// Anchor is the occurrence's anchor id.
	Anchor() string
	// Profiles are the profiles the host supplied (0: all of them).
	Profiles() runtime.ProfileSet
	// Fact returns the value of a fact of the catalog by CEL name: one
	// the host fills (as a Go value of its type; absent: its zero), one
	// the engine keeps (code_reject_total is the rule r's), or a
	// provenance fact. An error is the read's (a store that cannot be
	// read, provenance that cannot be known).
	Fact(r *compiler.Rule, name string) (any, *Error)
	// Counter returns a counter of the rule with the given id as it was
	// when the occurrence began.
	Counter(rule string, c runtime.Counter) (int64, *Error)
	// Provide answers a provider-backed function of the catalog (the
	// tool_arg_* functions read tool_args instead). A nil value with no
	// error is the zero value of the function's result.
	Provide(fn string, args []any) (any, *Error)
	// Detect consults a validator, at most once per occurrence.
	Detect(validator string) (*runtime.Detection, *Error)
}

// Env is the cel-go environment rules are checked and planned in: the
// catalog's, with the host-value adapter, the strict ==, != and in, and
// the catalog's functions bound late (per evaluation).
type Env struct {
	cat *catalog.Catalog
	env *cel.Env
	fns map[string]*catalog.Function
}

// NewEnv builds the evaluation environment of a loaded set's catalog:
// the declarations of the set's checking environment (compiler.NewEnv:
// the catalog's facts, the strings extension), with the catalog's
// functions bound late. It is built anew rather than extended from the
// checking environment because cel-go keeps an overload's first
// declaration when a late-bound one of the same signature is added.
func NewEnv(set *compiler.Set) (*Env, error) {
	cat := set.Catalog
	e := &Env{cat: cat, fns: map[string]*catalog.Function{}}
	opts := []cel.EnvOption{ext.Strings()}
	for _, f := range cat.Facts {
		opts = append(opts, cel.Variable(f.CELName, compiler.CELType(f.Type)))
	}
	for _, fn := range cat.Functions {
		e.fns[fn.CELName] = fn
		params := make([]*cel.Type, len(fn.Params))
		for i, t := range fn.Params {
			params[i] = compiler.CELType(t)
		}
		fnOpts := []cel.FunctionOpt{cel.Overload(compiler.OverloadID(fn), params, compiler.CELType(fn.Result), cel.LateFunctionBinding())}
		if takesAggregate(fn) {
			// Without cel-go's runtime type guard, which reads the first
			// element of a list argument and the first entry, in Go's
			// iteration order, of a map argument: passing a value to a
			// function reads none of what it holds (docs/cel-semantics.md,
			// "Host values"). ResolveFunction checks the scalar
			// arguments, and that a list or a map is one, as the guard
			// did.
			fnOpts = append(fnOpts, decls.DisableTypeGuards(true))
		}
		opts = append(opts, cel.Function(fn.CELName, fnOpts...))
	}
	// Host values are read by the rule of docs/cel-semantics.md, and ==,
	// != and in walk them strictly (host.go).
	opts = append(opts, cel.CustomTypeAdapter(HostAdapter))
	opts = append(opts, StrictOps()...)
	env, err := cel.NewEnv(opts...)
	if err != nil {
		return nil, fmt.Errorf("interp: the environment: %v", err)
	}
	e.env = env
	return e, nil
}

// Catalog is the catalog of the environment.
func (e *Env) Catalog() *catalog.Catalog { return e.cat }

// Rule is a rule ready to evaluate.
type Rule struct {
	// R is the loaded rule.
	R   *compiler.Rule
	env *Env
	prg cel.Program // nil when the rule has no when
}

// Compile plans a loaded rule. Its `when` is checked again from the
// source text rather than planned from the compiler's AST, so that the
// evaluation does not depend on what the front end did to it.
func (e *Env) Compile(r *compiler.Rule) (*Rule, error) {
	out := &Rule{R: r, env: e}
	if r.WhenAST == nil {
		return out, nil
	}
	checked, iss := CompileStrict(e.env, r.When)
	if iss != nil && iss.Err() != nil {
		return nil, fmt.Errorf("interp: rule %s: %v", r.ID, iss.Err())
	}
	prg, err := e.env.Program(checked)
	if err != nil {
		return nil, fmt.Errorf("interp: rule %s: %v", r.ID, err)
	}
	out.prg = prg
	return out, nil
}

// Eval evaluates the rule on an occurrence in the order of spec 5.1: the
// selector (its clauses combine like CEL's &&: an unsupplied profile's
// error is absorbed by a false clause), the rest of its profiles, flow,
// the validator of a detector rule, when. It reports whether the
// condition holds, the validator's answer (a detector rule that got
// that far), and the evaluation error, if any. It does not apply on_error
// or the effect: that is the caller's (the decision's) business.
func (r *Rule) Eval(in Input) (fired bool, det *runtime.Detection, err *Error) {
	defer func() {
		// cel-go and the host's values are not trusted never to panic
		// (spec 6): the rule fails, its on_error decides.
		// The validator's answer, if the rule got one before the panic,
		// stays: the spans of a transform rule that fails closed are
		// known once its validator answered.
		if p := recover(); p != nil {
			fired, err = false, &Error{runtime.ErrPanic, fmt.Sprint(p)}
		}
	}()
	cat := r.env.cat
	a := &activation{in: in, r: r}
	var selErr *Error
	for _, c := range r.R.Selector {
		if p := cat.Fact(c.Fact).Profile; p != "" && !Supplied(in.Profiles(), p) {
			if selErr == nil {
				selErr = profileErr(p)
			}
			continue
		}
		v, _ := a.value(c.Fact)
		if e := a.panic(); e != nil {
			return false, nil, e
		}
		if e := errOf(v); e != nil {
			// A fact that cannot be read: the clause's error, which a
			// false clause absorbs.
			if selErr == nil {
				selErr = e
			}
			continue
		}
		if !clause(c, v) {
			return false, nil, nil
		}
	}
	if selErr != nil {
		return false, nil, selErr
	}
	// The first missing profile in the spec's order of profiles (the
	// runtime's bit order), not as written: the error names the same
	// profile in both engines (docs/choices-runtime.md).
	for _, p := range runtime.ProfileNames {
		if slices.Contains(r.R.Profiles, p) && !Supplied(in.Profiles(), p) {
			return false, nil, profileErr(p)
		}
	}
	// A profile outside the runtime's list (none that the loader admits)
	// fails closed all the same.
	for _, p := range r.R.Profiles {
		if !Supplied(in.Profiles(), p) {
			return false, nil, profileErr(p)
		}
	}
	if r.R.Flow != nil {
		v, _ := a.value(cat.Host + ".recent_tool_names")
		if e := a.panic(); e != nil {
			return false, nil, e
		}
		if e := errOf(v); e != nil {
			return false, nil, e
		}
		names, _ := v.([]string)
		if !flowHolds(names, r.R.Flow) {
			return false, nil, nil
		}
	}
	if r.R.Kind == "detector" {
		d, e := in.Detect(r.R.Detector)
		if e != nil {
			return false, nil, e
		}
		if d == nil || !d.Hit {
			return false, nil, nil
		}
		det, a.det = d, d
	}
	if r.prg == nil {
		return true, det, nil
	}
	out, _, evalErr := r.prg.Eval(a)
	if e := a.panic(); e != nil {
		return false, det, e
	}
	if evalErr != nil {
		var ie *Error
		if errors.As(evalErr, &ie) {
			return false, det, ie
		}
		return false, det, celError(evalErr.Error())
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, det, &Error{runtime.ErrNoSuchOverload, fmt.Sprintf("when gave %v, not a bool", out)}
	}
	return bool(b), det, nil
}

// activation is what one rule's program reads: the facts through the
// input, and the catalog's functions, bound for this evaluation.
type activation struct {
	in  Input
	r   *Rule
	det *runtime.Detection // the validator's answer, for a detector rule
	// panicked names the provider or fact whose read panicked during
	// the rule's evaluation ("provider f", "fact x"), "" if none: cel-go
	// turns a panic into an error value, which an operator or a false
	// selector clause could absorb; a panic ends the rule's evaluation
	// instead, and fails it closed whatever its on_error (spec 6).
	panicked string
}

// panic is the error of the rule once a read panicked, else nil.
func (a *activation) panic() *Error {
	if a.panicked == "" {
		return nil
	}
	return &Error{runtime.ErrPanic, "panic: " + a.panicked}
}

var _ interpreter.FunctionActivation = (*activation)(nil)

// ResolveName implements interpreter.Activation. A fact that holds the
// host's values (tool_args, spans) is handed over as a cel-go value whose
// elements are read by HostElem: cel-go reads the elements of a Go map or
// list it is given with its environment's adapter, which must take the
// values cel-go makes as they are.
func (a *activation) ResolveName(name string) (any, bool) {
	v, ok := a.value(name)
	switch v.(type) {
	case map[string]any, []map[string]any:
		return HostValue(HostAdapter, v), ok
	}
	return v, ok
}

// Parent implements interpreter.Activation.
func (a *activation) Parent() interpreter.Activation { return nil }

// value reads a fact: a core fact of the rule, a detector fact the
// validator supplied, else the input's. A read error is a CEL error
// value wrapping the *Error, so that its kind survives the evaluation.
func (a *activation) value(name string) (any, bool) {
	wrap := func(v any, e *Error) (any, bool) {
		if e != nil {
			return types.WrapErr(e), true
		}
		return v, true
	}
	switch name {
	case "anchor":
		return a.in.Anchor(), true
	case "fire_count":
		return wrap(a.in.Counter(a.r.R.ID, runtime.Fire))
	case "breaker_count":
		return wrap(a.in.Counter(a.r.R.ID, runtime.Breaker))
	}
	if d := a.det; d != nil && d.Facts.Has != 0 {
		df := d.Facts
		switch {
		case name == "prompt_injection_score" && df.Has&runtime.HasPromptInjectionScore != 0:
			return df.PromptInjectionScore, true
		case name == "jailbreak_score" && df.Has&runtime.HasJailbreakScore != 0:
			return df.JailbreakScore, true
		case name == "pii_entities" && df.Has&runtime.HasPiiEntities != 0:
			return df.PiiEntities, true
		case name == "secret_matches" && df.Has&runtime.HasSecretMatches != 0:
			return df.SecretMatches, true
		}
	}
	if a.r.env.cat.Fact(name) == nil {
		return nil, false
	}
	return wrap(a.fact(name))
}

// fact reads a fact through the input, noting a panic (see
// activation.panicked): cel-go would turn a panic in a variable's read
// into an "internal error" of kind invalid_argument, which a fail_open
// rule, or an operator, would absorb.
func (a *activation) fact(name string) (v any, e *Error) {
	defer func() {
		if p := recover(); p != nil {
			a.panicked = "fact " + name
			v, e = nil, &Error{runtime.ErrPanic, "panic: fact " + name}
		}
	}()
	return a.in.Fact(a.r.R, name)
}

// ResolveFunction implements interpreter.FunctionActivation: the
// catalog's functions for this evaluation.
func (a *activation) ResolveFunction(name string) (functions.LateBoundOp, bool) {
	fn, ok := a.r.env.fns[name]
	if !ok {
		return nil, false
	}
	want := fn.Params
	return func(_ string, args ...ref.Val) ref.Val {
		if len(args) != len(want) {
			return types.NewErr("no such overload")
		}
		for i, v := range args {
			if !fits(v, want[i]) {
				if takesAggregate(fn) {
					// What cel-go's guard, off for this function, says.
					return types.NewErr("no such overload: %s", fn.CELName)
				}
				return types.NewErr("no such overload")
			}
		}
		return a.call(fn, args)
	}, true
}

// takesAggregate reports whether fn has a list or map parameter.
func takesAggregate(fn *catalog.Function) bool {
	for _, t := range fn.Params {
		switch t {
		case catalog.String, catalog.Int, catalog.Bool, catalog.Double:
		default:
			return true
		}
	}
	return false
}

// call answers a catalog function.
func (a *activation) call(fn *catalog.Function, args []ref.Val) ref.Val {
	str := func(v ref.Val) string { s, _ := v.(types.String); return string(s) }
	switch fn.CELName {
	case "fire_count_of", "breaker_count_of":
		c := runtime.Fire
		if fn.CELName == "breaker_count_of" {
			c = runtime.Breaker
		}
		n, e := a.in.Counter(str(args[0]), c)
		if e != nil {
			return types.WrapErr(e)
		}
		return types.Int(n)
	case "tool_arg_string", "tool_arg_bool", "tool_arg_int":
		v, _ := a.value("tool_args")
		if e := errOf(v); e != nil {
			return types.WrapErr(e)
		}
		m, _ := v.(map[string]any)
		switch fn.CELName {
		case "tool_arg_string":
			return toolArgString(m, str(args[0]))
		case "tool_arg_bool":
			return toolArgBool(m, str(args[0]))
		}
		return toolArgInt(m, str(args[0]))
	case "url_host", "url_scheme", "url_port", "url_path":
		return urlPart(fn.CELName, str(args[0]))
	}
	native := make([]any, len(args))
	for i, v := range args {
		x, ok := providerArg(v, fn.Params[i])
		if !ok {
			// A list or map the rule built that is not of the parameter's
			// type all through (dyn(["a", 1]) for a list(string)): no
			// provider can take it, as the generated code's conversion
			// (impl.AsStrings, AsMap, AsMapList) says.
			return types.NewErr("no such overload")
		}
		native[i] = x
	}
	v, e := a.provide(fn.CELName, native)
	if e != nil {
		return types.WrapErr(e)
	}
	if v == nil {
		return zeroOf(fn.Result)
	}
	return HostAdapter.NativeToValue(v)
}

// providerArg is the Go value a provider receives for an argument of catalog
// type t, as the generated code passes it: an int is an int64, a
// list(string) a []string, a map(string, dyn) a map[string]any and a
// list(map(string, dyn)) a []map[string]any, whose dyn values are in the
// runtime's representation (nil, bool, int64, uint64, float64, string,
// []byte, []any, map[string]any). A value the host gave (a fact) is
// passed as it is; a value CEL built (a literal, a list of facts) is
// converted from cel-go's, which a provider cannot read and whose JSON,
// the key of a fixture's answer, is not the arguments'.
func providerArg(v ref.Val, t catalog.Type) (any, bool) {
	native := v.Value()
	switch t {
	case catalog.Int:
		if n, ok := v.(types.Int); ok {
			return int64(n), true
		}
	case catalog.ListString:
		if _, ok := native.([]string); ok {
			return native, true
		}
		if l, ok := v.(traits.Lister); ok {
			out := make([]string, 0, listSize(l))
			for i := range listSize(l) {
				s, ok := l.Get(types.Int(i)).(types.String)
				if !ok {
					return nil, false
				}
				out = append(out, string(s))
			}
			return out, true
		}
	case catalog.MapStringDyn:
		return dynMap(v)
	case catalog.ListMapStringDyn:
		if _, ok := native.([]map[string]any); ok {
			return native, true
		}
		if l, ok := v.(traits.Lister); ok {
			out := make([]map[string]any, 0, listSize(l))
			for i := range listSize(l) {
				m, ok := dynMap(l.Get(types.Int(i)))
				mm, isMap := m.(map[string]any)
				if !ok || !isMap {
					return nil, false
				}
				out = append(out, mm)
			}
			return out, true
		}
	}
	return native, true
}

func listSize(l traits.Lister) int {
	n, _ := l.Size().(types.Int)
	return int(n)
}

// dynMap is a map(string, dyn) value as a map[string]any (see providerArg).
func dynMap(v ref.Val) (any, bool) {
	native := v.Value()
	if _, ok := native.(map[string]any); ok {
		return native, true
	}
	m, ok := native.(map[ref.Val]ref.Val)
	if !ok {
		// Not a map CEL built: a host's value, passed as it is, or (an
		// element of a list) not a map at all.
		_, isMapper := v.(traits.Mapper)
		return native, isMapper
	}
	out := make(map[string]any, len(m))
	for k, e := range m {
		s, ok := k.(types.String)
		if !ok {
			// A key no map(string, dyn) has.
			return nil, false
		}
		out[string(s)] = dynGo(e)
	}
	return out, true
}

// dynGo is a dyn value CEL built, in the runtime's representation (see
// hostArg); a value the host gave is passed as it is.
func dynGo(v ref.Val) any {
	switch x := v.(type) {
	case types.Null:
		return nil
	case types.Int:
		return int64(x)
	}
	native := v.Value()
	switch n := native.(type) {
	case []ref.Val:
		out := make([]any, len(n))
		for i, e := range n {
			out[i] = dynGo(e)
		}
		return out
	case map[ref.Val]ref.Val:
		if m, ok := dynMap(v); ok {
			return m
		}
	}
	return native
}

// provide calls the input's provider, noting a panic (see
// activation.panicked).
func (a *activation) provide(fn string, args []any) (v any, e *Error) {
	defer func() {
		if p := recover(); p != nil {
			a.panicked = "provider " + fn
			v, e = nil, &Error{runtime.ErrPanic, "panic: provider " + fn}
		}
	}()
	return a.in.Provide(fn, args)
}

// errOf returns the *Error a value read through [activation.value]
// carries, or a CEL error as one.
func errOf(v any) *Error {
	ce, ok := v.(*types.Err)
	if !ok {
		return nil
	}
	var ie *Error
	if errors.As(ce, &ie) {
		return ie
	}
	return celError(ce.Error())
}

// fits reports whether a cel-go value has the catalog type of a parameter.
func fits(v ref.Val, t catalog.Type) bool {
	switch t {
	case catalog.String:
		_, ok := v.(types.String)
		return ok
	case catalog.Int:
		_, ok := v.(types.Int)
		return ok
	case catalog.Bool:
		_, ok := v.(types.Bool)
		return ok
	case catalog.Double:
		_, ok := v.(types.Double)
		return ok
	case catalog.ListString, catalog.ListMapStringDyn:
		// A list, whose elements are not read here (see takesAggregate).
		return v.Type().TypeName() == types.ListType.TypeName()
	case catalog.MapStringDyn:
		return v.Type().TypeName() == types.MapType.TypeName()
	}
	return true
}

func zeroOf(t catalog.Type) ref.Val {
	switch t {
	case catalog.Bool:
		return types.False
	case catalog.String:
		return types.String("")
	case catalog.Int:
		return types.Int(0)
	case catalog.Double:
		return types.Double(0)
	}
	return HostAdapter.NativeToValue(ZeroFact(t))
}

// ZeroFact is the value of an absent fact of type t (spec 3).
func ZeroFact(t catalog.Type) any {
	switch t {
	case catalog.String:
		return ""
	case catalog.Int:
		return int64(0)
	case catalog.Bool:
		return false
	case catalog.Double:
		return 0.0
	case catalog.ListString:
		return []string{}
	case catalog.MapStringDyn:
		return map[string]any{}
	case catalog.ListMapStringDyn:
		return []map[string]any{}
	}
	return nil
}

// msgNoProvider starts the error of a function without a provider; it is
// not one of cel-go's.
const msgNoProvider = "no provider registered for "

// NoProvider is the error of a function the host has no provider for.
func NoProvider(fn string) *Error { return &Error{runtime.ErrNoProvider, msgNoProvider + fn} }

// profileErr is the error of an unsupplied profile.
func profileErr(p string) *Error {
	return &Error{runtime.ErrProfile, "profile not supplied: " + p}
}

func celError(msg string) *Error {
	switch {
	case strings.HasPrefix(msg, msgNoProvider):
		return &Error{runtime.ErrNoProvider, msg}
	case strings.HasPrefix(msg, "provenance: "):
		return &Error{runtime.ErrProvenance, msg}
	case strings.HasPrefix(msg, "code_reject_total: "):
		// The session's record could not count the pair: what the
		// store holds is incomplete (spec 5.10).
		return &Error{runtime.ErrStore, msg}
	}
	return &Error{KindOfCelError(msg), msg}
}

// KindOfCelError maps a cel-go evaluation error message to the runtime's
// error kind.
func KindOfCelError(msg string) runtime.ErrKind {
	switch {
	case strings.HasPrefix(msg, "no such key"):
		return runtime.ErrNoSuchKey
	case strings.HasPrefix(msg, "index out of bounds"):
		return runtime.ErrIndexOutOfRange
	case strings.HasPrefix(msg, "index out of range"):
		return runtime.ErrStringIndex
	case msg == "division by zero":
		return runtime.ErrDivideByZero
	case msg == "modulus by zero":
		return runtime.ErrModulusByZero
	case msg == "integer overflow":
		return runtime.ErrIntOverflow
	case msg == "unsigned integer overflow":
		return runtime.ErrUintOverflow
	case strings.HasPrefix(msg, "no such overload"), strings.HasPrefix(msg, "found no matching overload"):
		return runtime.ErrNoSuchOverload
	case strings.HasPrefix(msg, "type conversion error"):
		return runtime.ErrConversion
	}
	return runtime.ErrInvalidArgument
}

// Supplied reports whether profile p counts as supplied in set (the zero
// set: every profile).
func Supplied(set runtime.ProfileSet, p string) bool {
	if set == 0 {
		return true
	}
	return set&runtime.ProfileByName(p) != 0
}

// clause reports whether a selector clause holds for the fact's value v.
func clause(c compiler.SelectorClause, v any) bool {
	if l, ok := v.([]string); ok {
		for _, x := range l {
			for _, w := range c.Values {
				if w == any(x) {
					return true
				}
			}
		}
		return false
	}
	for _, w := range c.Values {
		if w == v {
			return true
		}
	}
	return false
}

// flowHolds matches the flow's steps in order against the recent tool
// names (the last Within of them), with or without gaps.
func flowHolds(names []string, f *compiler.Flow) bool {
	if f.Within > 0 && len(names) > f.Within {
		names = names[len(names)-f.Within:]
	}
	in := func(s string, step []string) bool {
		for _, x := range step {
			if x == s {
				return true
			}
		}
		return false
	}
	if f.Contiguous {
		for start := 0; start+len(f.Steps) <= len(names); start++ {
			all := true
			for j, step := range f.Steps {
				if !in(names[start+j], step) {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
		return false
	}
	// With gaps: a recursive search over every choice, kept obviously
	// correct rather than greedy.
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if j == len(f.Steps) {
			return true
		}
		for k := i; k < len(names); k++ {
			if in(names[k], f.Steps[j]) && match(k+1, j+1) {
				return true
			}
		}
		return false
	}
	return match(0, 0)
}
