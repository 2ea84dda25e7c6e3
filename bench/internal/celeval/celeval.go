// Package celeval evaluates a loaded OAR pack with cel-go, the way a careful
// host would without oarc: one cel.Program per rule, planned once from the
// pack's checking environment (compiler.NewEnv) extended with bindings for
// the observation functions, with cel.OptOptimize; a reusable activation
// that reads the occurrence's facts; and the evaluation algorithm of spec
// section 5.1 (order, profiles, selector, detectors, when, on_error,
// monitor, block short-circuit) written plainly.
//
// It is the cel-go side of the standard-pack benchmark. It supports what
// that pack uses: no flow, no transform, no counters (fire_count and friends
// read 0), no provider-backed functions.
package celeval

import (
	"context"
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/interpreter"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/runtime"
)

// Engine evaluates one pack. The programs are shared, but the function
// bindings read the engine's current occurrence, so one Engine serves one
// goroutine at a time.
type Engine struct {
	anchors map[string][]*rule // rules by anchor, in evaluation order
	nDet    int
	// Per-evaluation state, reused.
	act   activation
	dets  []detState
	fired []*rule
}

type rule struct {
	id       string
	effect   runtime.Effect
	monitor  bool
	failOpen bool
	profiles runtime.ProfileSet
	selector []compiler.SelectorClause
	detector string
	detSlot  int
	prg      cel.Program // nil: when is absent (true)
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
	occ *runtime.Occurrence
	det *runtime.Detection
}

func (a *activation) ResolveName(name string) (any, bool) {
	f := &a.occ.Facts
	if a.det != nil {
		switch name {
		case "prompt_injection_score":
			return a.det.PromptInjectionScore(f), true
		case "jailbreak_score":
			return a.det.JailbreakScore(f), true
		case "pii_entities":
			return a.det.PiiEntities(f), true
		case "secret_matches":
			return a.det.SecretMatches(f), true
		}
	}
	switch name {
	case "anchor":
		return a.occ.Anchor, true
	case "fire_count", "breaker_count":
		return int64(0), true
	}
	return f.Get(name)
}

func (a *activation) Parent() interpreter.Activation { return nil }

// New plans every rule of p.
func New(p *compiler.Pack) (*Engine, error) {
	e := &Engine{anchors: map[string][]*rule{}}
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
	env, err := compiler.NewEnv(nil)
	if err != nil {
		return nil, err
	}
	env, err = env.Extend(
		cel.Function("tool_arg_string", cel.Overload("tool_arg_string_string",
			[]*cel.Type{cel.StringType}, cel.StringType,
			str(func(k string) ref.Val { return types.String(runtime.ToolArgString(args(), k)) }))),
		cel.Function("tool_arg_int", cel.Overload("tool_arg_int_string",
			[]*cel.Type{cel.StringType}, cel.IntType,
			str(func(k string) ref.Val { return types.Int(runtime.ToolArgInt(args(), k)) }))),
		cel.Function("tool_arg_bool", cel.Overload("tool_arg_bool_string",
			[]*cel.Type{cel.StringType}, cel.BoolType,
			str(func(k string) ref.Val { return types.Bool(runtime.ToolArgBool(args(), k)) }))),
	)
	if err != nil {
		return nil, fmt.Errorf("celeval: extending the environment: %v", err)
	}
	detSlots := map[string]int{}
	for _, r := range p.Rules {
		if r.Flow != nil || r.Transform != nil {
			return nil, fmt.Errorf("celeval: rule %s: flow and transform are not supported", r.ID)
		}
		eff, _ := runtime.ParseEffect(r.Effect)
		ru := &rule{
			id:       r.ID,
			effect:   eff,
			monitor:  r.Enforcement == "monitor",
			failOpen: r.OnError == "fail_open",
			selector: r.Selector,
			detector: r.Detector,
			detSlot:  -1,
		}
		for _, pr := range r.Profiles {
			ru.profiles |= runtime.ProfileByName(pr)
		}
		if r.Detector != "" {
			s, ok := detSlots[r.Detector]
			if !ok {
				s = len(detSlots)
				detSlots[r.Detector] = s
			}
			ru.detSlot = s
		}
		if r.WhenAST != nil {
			prg, err := env.Program(r.WhenAST, cel.EvalOptions(cel.OptOptimize))
			if err != nil {
				return nil, fmt.Errorf("celeval: rule %s: %v", r.ID, err)
			}
			ru.prg = prg
		}
		e.anchors[r.Anchor] = append(e.anchors[r.Anchor], ru)
	}
	e.nDet = len(detSlots)
	e.dets = make([]detState, e.nDet)
	return e, nil
}

// Evaluate evaluates one occurrence and fills d's Effect, Code, Codes,
// Monitored and Errors.
func (e *Engine) Evaluate(ctx context.Context, env *runtime.Env, occ *runtime.Occurrence, d *runtime.Decision) {
	d.Reset()
	d.Content = occ.Content
	e.act = activation{occ: occ}
	for i := range e.dets {
		e.dets[i] = detState{}
	}
	e.fired = e.fired[:0]
	for _, r := range e.anchors[occ.Anchor] {
		fired, err := e.rule(ctx, env, occ, r)
		if err.Kind != runtime.ErrNone {
			d.Errors = append(d.Errors, runtime.RuleError{Rule: r.id, Err: err})
			fired = !r.failOpen
		}
		if !fired {
			continue
		}
		if r.monitor {
			d.Monitored = append(d.Monitored, r.id)
			continue
		}
		d.Codes = append(d.Codes, r.id)
		e.fired = append(e.fired, r)
		if r.effect == runtime.Block {
			break
		}
	}
	for _, r := range e.fired {
		if r.effect > d.Effect {
			d.Effect = r.effect
		}
	}
	for _, r := range e.fired {
		if r.effect == d.Effect {
			d.Code = r.id
			break
		}
	}
}

// rule evaluates one rule: profiles, selector, detector, when.
func (e *Engine) rule(ctx context.Context, env *runtime.Env, occ *runtime.Occurrence, r *rule) (bool, runtime.Err) {
	if !occ.Profiles.Supplied(r.profiles) {
		return false, runtime.Err{Kind: runtime.ErrProfile}
	}
	for i := range r.selector {
		if !selects(occ, &r.selector[i]) {
			return false, runtime.Err{}
		}
	}
	e.act.det = nil
	if r.detSlot >= 0 {
		st := &e.dets[r.detSlot]
		if !st.done {
			st.done = true
			st.d, st.err = callValidator(ctx, env, occ, r.detector)
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
func selects(occ *runtime.Occurrence, c *compiler.SelectorClause) bool {
	var v any
	if c.Fact == "anchor" {
		v = occ.Anchor
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

func callValidator(ctx context.Context, env *runtime.Env, occ *runtime.Occurrence, id string) (det runtime.Detection, err runtime.Err) {
	var v runtime.Validator
	if env != nil {
		v = env.Validators[id]
	}
	if v == nil {
		return det, runtime.Err{Kind: runtime.ErrDetector, S: id}
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
