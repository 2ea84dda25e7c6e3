// Package celeval evaluates a loaded compilation set with cel-go, the way a
// careful host would without oarc: one cel.Program per rule, planned once
// from the set's checking environment (compiler.Set.Env) extended with
// bindings for the observation functions, with cel.OptOptimize; validators
// resolved once, when the engine is built, into slots; rules indexed by
// anchor in a slice; a reusable activation that reads the occurrence's
// facts; and the evaluation algorithm of spec section 5.1 (order; the
// selector first, its clauses combining like CEL's &&, then the other
// required profiles; detectors; when; on_error; monitor; block
// short-circuit) written plainly.
//
// It is the cel-go side of the benchmark packs. It supports what those
// packs use: no flow, no transform, no counters (fire_count and friends
// read 0), no provider-backed functions.
package celeval

import (
	"context"
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"

	"github.com/oarc/oarc/bench/internal/handrecord"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/impl"
)

// Engine evaluates one compilation set with one bound Env. The programs are
// shared, but the function bindings read the engine's current occurrence,
// so one Engine serves one goroutine at a time.
type Engine struct {
	anchors    [][]*rule          // rules by anchor, in evaluation order
	validators []lycaon.Validator // by detector slot, resolved once
	detIDs     []string
	// Session keeps the record of tool calls (spec 5.10) that
	// lycaon.repeat_count is read from, as the generated code's session
	// does: a fresh in-process session unless the caller sets one.
	Session *runtime.Session
	// Per-evaluation state, reused.
	act   activation
	dets  []detState
	fired []*rule
}

type rule struct {
	runtime.Rule
	profiles runtime.ProfileSet
	selector []clause
	detSlot  int
	prg      cel.Program // nil: when is absent (true)
}

// clause is a selector clause and the profile of its fact (0: none).
type clause struct {
	compiler.SelectorClause
	profile runtime.ProfileSet
}

type detState struct {
	done bool
	d    runtime.Detection
	err  runtime.Err
}

// activation resolves CEL names to the facts of the current occurrence;
// while a detector rule is evaluated, det holds its validator's answer,
// whose facts replace the host's.
type activation struct {
	ctx context.Context
	e   *Engine
	d   *runtime.Decision
	occ *lycaon.Occurrence
	det *runtime.Detection
}

func (a *activation) ResolveName(name string) (any, bool) {
	f := &a.occ.Facts
	if d := a.det; d != nil {
		switch name {
		case "prompt_injection_score":
			if d.Facts.Has&runtime.HasPromptInjectionScore != 0 {
				return d.Facts.PromptInjectionScore, true
			}
		case "jailbreak_score":
			if d.Facts.Has&runtime.HasJailbreakScore != 0 {
				return d.Facts.JailbreakScore, true
			}
		case "pii_entities":
			if d.Facts.Has&runtime.HasPiiEntities != 0 {
				return d.Facts.PiiEntities, true
			}
		case "secret_matches":
			if d.Facts.Has&runtime.HasSecretMatches != 0 {
				return d.Facts.SecretMatches, true
			}
		}
	}
	switch name {
	case "anchor":
		return a.occ.Anchor.String(), true
	case "fire_count", "breaker_count":
		return int64(0), true
	case "lycaon.repeat_count":
		// Kept by the engine (spec 5.10).
		n, err := handrecord.RepeatCount(a.ctx, a.e.Session, a.d, a.occ.Facts.Tool, a.occ.Facts.ToolArgs, a.occ.Kept)
		if err.Kind != runtime.ErrNone {
			return types.NewErr("%s", err.Error()), true
		}
		return n, true
	}
	return f.Get(name)
}

func (a *activation) Parent() interpreter.Activation { return nil }

// New plans every rule of s (compiled against the default catalog) and
// binds env's validators. Validators the rules name and env lacks are not
// an error here: a rule that reaches one has an evaluation error.
func New(s *compiler.Set, env lycaon.Env) (*Engine, error) {
	e := &Engine{Session: runtime.NewSession("celeval")}
	args := func() map[string]any { return e.act.occ.Facts.ToolArgs }
	str := func(f func(string) ref.Val) cel.OverloadOpt {
		return cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(types.String)
			if !ok {
				return types.NewErr("no such overload")
			}
			return f(string(s))
		})
	}
	cat := s.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	base := s.Env
	if base == nil {
		var err error
		if base, err = compiler.NewEnv(cat); err != nil {
			return nil, err
		}
	}
	// or is the value, or the error of an argument the runtime cannot read.
	or := func(v ref.Val, e impl.Err) ref.Val {
		if !e.Ok() {
			return types.NewErr("%s", e.Error())
		}
		return v
	}
	cenv, err := base.Extend(
		cel.Function("tool_arg_string", cel.Overload("tool_arg_string_string",
			[]*cel.Type{cel.StringType}, cel.StringType,
			str(func(k string) ref.Val { s, e := impl.ToolArgString(args(), k); return or(types.String(s), e) }))),
		cel.Function("tool_arg_int", cel.Overload("tool_arg_int_string",
			[]*cel.Type{cel.StringType}, cel.IntType,
			str(func(k string) ref.Val { i, e := impl.ToolArgInt(args(), k); return or(types.Int(i), e) }))),
		cel.Function("tool_arg_bool", cel.Overload("tool_arg_bool_string",
			[]*cel.Type{cel.StringType}, cel.BoolType,
			str(func(k string) ref.Val { b, e := impl.ToolArgBool(args(), k); return or(types.Bool(b), e) }))),
	)
	if err != nil {
		return nil, fmt.Errorf("celeval: extending the environment: %v", err)
	}
	detSlots := map[string]int{}
	for _, r := range s.Rules {
		if r.Flow != nil || r.Transform != nil {
			return nil, fmt.Errorf("celeval: rule %s: flow and transform are not supported", r.ID)
		}
		a, ok := lycaon.ParseAnchor(r.Anchor)
		if !ok {
			return nil, fmt.Errorf("celeval: rule %s: anchor %s is not in the lycaon catalog", r.ID, r.Anchor)
		}
		eff, _ := runtime.ParseEffect(r.Effect)
		ru := &rule{
			Rule: runtime.Rule{
				ID:       r.ID,
				Pack:     r.Pack.Name,
				Anchor:   r.Anchor,
				Effect:   eff,
				Monitor:  r.Enforcement == "monitor",
				FailOpen: r.OnError == "fail_open",
			},
			detSlot: -1,
		}
		for _, c := range r.Selector {
			cl := clause{SelectorClause: c}
			if f := cat.Fact(c.Fact); f != nil {
				cl.profile = runtime.ProfileByName(f.Profile)
			}
			ru.selector = append(ru.selector, cl)
		}
		for _, pr := range r.Profiles {
			ru.profiles |= runtime.ProfileByName(pr)
		}
		if r.Detector != "" {
			s, ok := detSlots[r.Detector]
			if !ok {
				s = len(detSlots)
				detSlots[r.Detector] = s
				e.detIDs = append(e.detIDs, r.Detector)
				e.validators = append(e.validators, env.Validators[r.Detector])
			}
			ru.detSlot = s
		}
		if r.WhenAST != nil {
			prg, err := cenv.Program(r.WhenAST, cel.EvalOptions(cel.OptOptimize))
			if err != nil {
				return nil, fmt.Errorf("celeval: rule %s: %v", r.ID, err)
			}
			ru.prg = prg
		}
		for int(a) >= len(e.anchors) {
			e.anchors = append(e.anchors, nil)
		}
		e.anchors[a] = append(e.anchors[a], ru)
	}
	e.dets = make([]detState, len(e.validators))
	return e, nil
}

// Evaluate evaluates one occurrence and fills d's Effect, Code, Rule,
// Codes, Monitored, FailedClosed, Errors and Content.
func (e *Engine) Evaluate(ctx context.Context, occ *lycaon.Occurrence, d *runtime.Decision) error {
	if ctx == nil {
		ctx = context.Background()
	}
	d.Reset()
	if !occ.Anchor.Valid() {
		d.Effect = runtime.Block
		d.Errors = append(d.Errors, runtime.RuleError{Err: runtime.Err{Kind: runtime.ErrAnchor, N: int64(occ.Anchor)}})
		return runtime.ErrUnknownAnchor
	}
	d.Content = occ.Content
	if int(occ.Anchor) >= len(e.anchors) || len(e.anchors[occ.Anchor]) == 0 {
		return nil
	}
	e.act = activation{ctx: ctx, e: e, d: d, occ: occ}
	for i := range e.dets {
		e.dets[i] = detState{}
	}
	e.fired = e.fired[:0]
	for _, r := range e.anchors[occ.Anchor] {
		fired, err := e.rule(ctx, occ, r)
		failed := err.Kind != runtime.ErrNone
		if failed {
			d.Errors = append(d.Errors, runtime.RuleError{Rule: r.ID, Err: err})
			fired = !r.FailOpen
		}
		if !fired {
			continue
		}
		if r.Monitor {
			d.Monitored = append(d.Monitored, r.ID)
			continue
		}
		if failed {
			d.FailedClosed = append(d.FailedClosed, r.ID)
		}
		d.Codes = append(d.Codes, r.ID)
		d.Firings = append(d.Firings, runtime.Firing{Rule: &r.Rule, FailedClosed: failed})
		e.fired = append(e.fired, r)
		if r.Effect == runtime.Block {
			break
		}
	}
	for _, r := range e.fired {
		if r.Effect > d.Effect {
			d.Effect = r.Effect
		}
	}
	for _, r := range e.fired {
		if r.Effect == d.Effect {
			d.Code, d.Rule = r.ID, &r.Rule
			break
		}
	}
	if occ.Anchor == lycaon.ToolPreInvoke {
		handrecord.Record(ctx, e.Session, d, occ.Facts.Tool, occ.Facts.ToolArgs)
	}
	return nil
}

// profileErr is the error of a required profile that was not supplied.
func profileErr(p, req runtime.ProfileSet) runtime.Err {
	missing := req &^ p
	for i, n := range runtime.ProfileNames {
		if missing&(1<<i) != 0 {
			return runtime.Err{Kind: runtime.ErrProfile, S: n}
		}
	}
	return runtime.Err{Kind: runtime.ErrProfile}
}

// rule evaluates one rule: selector, profiles, detector, when.
func (e *Engine) rule(ctx context.Context, occ *lycaon.Occurrence, r *rule) (bool, runtime.Err) {
	// The selector's clauses combine like &&: a false clause absorbs the
	// error of a clause on a fact whose profile was not supplied.
	var selErr runtime.Err
	for i := range r.selector {
		c := &r.selector[i]
		if !occ.Profiles.Supplied(c.profile) {
			if selErr.Kind == runtime.ErrNone {
				selErr = profileErr(occ.Profiles, c.profile)
			}
			continue
		}
		if !selects(occ, &c.SelectorClause) {
			return false, runtime.Err{}
		}
	}
	if selErr.Kind != runtime.ErrNone {
		return false, selErr
	}
	if !occ.Profiles.Supplied(r.profiles) {
		return false, profileErr(occ.Profiles, r.profiles)
	}
	e.act.det = nil
	if r.detSlot >= 0 {
		st := &e.dets[r.detSlot]
		if !st.done {
			st.done = true
			st.d, st.err = callValidator(ctx, e.validators[r.detSlot], occ, e.detIDs[r.detSlot])
		}
		if st.err.Kind != runtime.ErrNone {
			return false, st.err
		}
		if !st.d.Hit {
			return false, runtime.Err{}
		}
		e.act.det = &st.d
	}
	if r.prg == nil {
		return true, runtime.Err{}
	}
	out, _, err := r.prg.Eval(&e.act)
	if err != nil {
		return false, runtime.Err{Kind: runtime.ErrInvalidArgument, S: err.Error()}
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, runtime.Err{Kind: runtime.ErrNoSuchOverload}
	}
	return bool(b), runtime.Err{}
}

// selects reports whether the selector clause holds.
func selects(occ *lycaon.Occurrence, c *compiler.SelectorClause) bool {
	var v any
	if c.Fact == "anchor" {
		v = occ.Anchor.String()
	} else {
		v, _ = occ.Facts.Get(c.Fact)
	}
	switch x := v.(type) {
	case []string:
		for _, s := range x {
			for _, w := range c.Values {
				if w == any(s) {
					return true
				}
			}
		}
		return false
	default:
		for _, w := range c.Values {
			if w == x {
				return true
			}
		}
		return false
	}
}

func callValidator(ctx context.Context, v lycaon.Validator, occ *lycaon.Occurrence, id string) (det runtime.Detection, err runtime.Err) {
	if v == nil {
		return det, runtime.Err{Kind: runtime.ErrNotRegistered, S: id}
	}
	if ctx.Err() != nil {
		return det, runtime.Err{Kind: runtime.ErrCanceled, S: id}
	}
	defer func() {
		if recover() != nil {
			det, err = runtime.Detection{}, runtime.Err{Kind: runtime.ErrDetector, S: id}
		}
	}()
	d, e := v(ctx, occ)
	if e != nil {
		return runtime.Detection{}, runtime.Err{Kind: runtime.ErrDetector, S: id}
	}
	return d, runtime.Err{}
}
