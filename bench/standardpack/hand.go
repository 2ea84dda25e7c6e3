package standardpack

import (
	"context"
	"regexp"
	"strings"

	"github.com/oarc/oarc/runtime"
)

// This file is the standard pack written by hand: what a good engineer
// would write for these twelve rules without oarc, over the same facts and
// with the same decisions. It is the lower bound the generated code is
// measured against: a switch on the tool, direct field reads, one
// precompiled regular expression, no allocations. It keeps the semantics
// the pack's rules need (evaluation order, block short-circuit, required
// profiles, validators consulted once and only when a detector rule gets
// that far, errors failing closed) and nothing the pack does not use (no
// rule reads or resets counters, so it keeps none).

var handRmRf = regexp.MustCompile(`rm\s+-rf\s+/`)

// handRule is the static part of one rule for EvaluateByHand.
type handRule struct {
	id       string
	effect   runtime.Effect
	profiles runtime.ProfileSet
}

var (
	hLongCommand   = handRule{"LONG_COMMAND", runtime.Warn, runtime.ProfileTool}
	hPlainHTTP     = handRule{"PLAIN_HTTP", runtime.Warn, runtime.ProfileTool}
	hSpecPosture   = handRule{"SPEC_POSTURE_BASH", runtime.Block, runtime.ProfileSession | runtime.ProfileTool}
	hEtcWrite      = handRule{"ETC_WRITE_FORBIDDEN", runtime.Block, runtime.ProfileTool}
	hPayment       = handRule{"PAYMENT_NEEDS_TREASURY", runtime.Block, runtime.ProfileSession | runtime.ProfileTool}
	hRmRf          = handRule{"RM_RF", runtime.Block, runtime.ProfileTool}
	hTriage        = handRule{"TRIAGE_LITE_WRITE_FORBIDDEN", runtime.Block, runtime.ProfileSession | runtime.ProfileTool}
	hUntrusted     = handRule{"UNTRUSTED_EGRESS", runtime.Block, runtime.ProfileContentProvenance | runtime.ProfileTool}
	hRepeatNudge   = handRule{"REPEAT_NUDGE", runtime.Nudge, 0}
	hTooManyTools  = handRule{"TOO_MANY_TOOLS", runtime.Warn, 0}
	hInjection     = handRule{"INJECTION", runtime.Block, runtime.ProfileContentSafety}
	hSecretInArgs  = handRule{"SECRET_IN_ARGS", runtime.Block, runtime.ProfileContentSafety}
	handErrProfile = runtime.Err{Kind: runtime.ErrProfile}
)

// handEval is the state of one EvaluateByHand call.
type handEval struct {
	ctx context.Context
	env *runtime.Env
	occ *runtime.Occurrence
	d   *runtime.Decision
}

// fire records a firing and reports whether evaluation stops (a block).
func (h *handEval) fire(r *handRule) bool {
	d := h.d
	d.Codes = append(d.Codes, r.id)
	if r.effect > d.Effect {
		d.Effect, d.Code = r.effect, r.id
	}
	return r.effect == runtime.Block
}

// check applies a rule's outcome: an unsupplied profile is an error, and
// errors fail closed. It reports whether evaluation stops.
func (h *handEval) check(r *handRule, cond func(*handEval) (bool, runtime.Err)) bool {
	if !h.occ.Profiles.Supplied(r.profiles) {
		h.d.Errors = append(h.d.Errors, runtime.RuleError{Rule: r.id, Err: handErrProfile})
		return h.fire(r)
	}
	ok, err := cond(h)
	if err.Kind != runtime.ErrNone {
		h.d.Errors = append(h.d.Errors, runtime.RuleError{Rule: r.id, Err: err})
		ok = true
	}
	if ok {
		return h.fire(r)
	}
	return false
}

// The conditions of the rules (their `when`).

func longCommand(h *handEval) (bool, runtime.Err) {
	return len(runtime.ToolArgString(h.occ.Facts.ToolArgs, "command")) > 4096, runtime.Err{}
}

func plainHTTP(h *handEval) (bool, runtime.Err) {
	return strings.HasPrefix(runtime.ToolArgString(h.occ.Facts.ToolArgs, "url"), "http://"), runtime.Err{}
}

func specPosture(h *handEval) (bool, runtime.Err) {
	f := &h.occ.Facts
	if f.SessionPosture != "spec" {
		return false, runtime.Err{}
	}
	for _, t := range f.Lycaon.TurnTools {
		if t == "curl" {
			return true, runtime.Err{}
		}
	}
	return false, runtime.Err{}
}

func etcWrite(h *handEval) (bool, runtime.Err) {
	return strings.HasPrefix(runtime.ToolArgString(h.occ.Facts.ToolArgs, "path"), "/etc/"), runtime.Err{}
}

func payment(h *handEval) (bool, runtime.Err) {
	for _, r := range h.occ.Facts.PrincipalRoles {
		if r == "treasury" {
			return false, runtime.Err{}
		}
	}
	return true, runtime.Err{}
}

func rmRf(h *handEval) (bool, runtime.Err) {
	return handRmRf.MatchString(runtime.ToolArgString(h.occ.Facts.ToolArgs, "command")), runtime.Err{}
}

func triage(h *handEval) (bool, runtime.Err) {
	f := &h.occ.Facts
	return f.SessionPosture == "spec" && f.Lycaon.ToolIsState, runtime.Err{}
}

func untrusted(h *handEval) (bool, runtime.Err) {
	return h.occ.Facts.ContentContainsUntrusted, runtime.Err{}
}

func repeatNudge(h *handEval) (bool, runtime.Err) {
	return h.occ.Facts.Lycaon.RepeatCount >= 3, runtime.Err{}
}

func tooManyTools(h *handEval) (bool, runtime.Err) {
	ly := &h.occ.Facts.Lycaon
	return len(ly.TurnTools) > 20 && !ly.WorkersIdle, runtime.Err{}
}

func injection(h *handEval) (bool, runtime.Err) {
	det, err := h.validate("injection.v1")
	if err.Kind != runtime.ErrNone || !det.Hit {
		return false, err
	}
	return det.PromptInjectionScore(&h.occ.Facts) > 0.7, runtime.Err{}
}

func secretInArgs(h *handEval) (bool, runtime.Err) {
	det, err := h.validate("secrets.v1")
	if err.Kind != runtime.ErrNone || !det.Hit {
		return false, err
	}
	var first runtime.Err
	for _, m := range det.SecretMatches(&h.occ.Facts) {
		v, ok := m["score"]
		if !ok {
			if first.Kind == runtime.ErrNone {
				first = runtime.Err{Kind: runtime.ErrNoSuchKey, S: "score"}
			}
			continue
		}
		switch s := v.(type) {
		case float64:
			if s > 0.8 {
				return true, runtime.Err{}
			}
		case int64:
			if s > 0 { // an int score above 0.8 is at least 1
				return true, runtime.Err{}
			}
		default:
			if first.Kind == runtime.ErrNone {
				first = runtime.Err{Kind: runtime.ErrNoSuchOverload}
			}
		}
	}
	return false, first
}

// handAllProfiles are the profiles the pack's rules require.
const handAllProfiles = runtime.ProfileSession | runtime.ProfileTool | runtime.ProfileContentSafety | runtime.ProfileContentProvenance

// EvaluateByHand evaluates the standard pack by hand-written code and fills
// d's Effect, Code, Codes and Errors.
func EvaluateByHand(ctx context.Context, env *runtime.Env, occ *runtime.Occurrence, d *runtime.Decision) {
	d.Reset()
	if occ.Anchor != "tool.pre_invoke" {
		return
	}
	h := handEval{ctx: ctx, env: env, occ: occ, d: d}
	if !occ.Profiles.Supplied(handAllProfiles) {
		// A rule whose profile is missing fails closed before its
		// selector is looked at: take the slow path, rule by rule.
		slow := h
		slow.strict()
		return
	}
	// Every profile is supplied: no rule can fail on one, and a rule
	// whose selector does not match is skipped without a look.
	if ok, _ := longCommand(&h); ok && h.fire(&hLongCommand) {
		return
	}
	switch occ.Facts.Tool {
	case "http_fetch":
		if ok, _ := plainHTTP(&h); ok && h.fire(&hPlainHTTP) {
			return
		}
		if occ.Facts.ContentContainsUntrusted && h.fire(&hUntrusted) {
			return
		}
	case "bash":
		if ok, _ := specPosture(&h); ok && h.fire(&hSpecPosture) {
			return
		}
		if ok, _ := rmRf(&h); ok && h.fire(&hRmRf) {
			return
		}
		if occ.Facts.ContentContainsUntrusted && h.fire(&hUntrusted) {
			return
		}
	case "write", "edit":
		if ok, _ := etcWrite(&h); ok && h.fire(&hEtcWrite) {
			return
		}
		if ok, _ := triage(&h); ok && h.fire(&hTriage) {
			return
		}
	case "disburse_payment":
		if ok, _ := payment(&h); ok && h.fire(&hPayment) {
			return
		}
	}
	if occ.Facts.Lycaon.RepeatCount >= 3 && h.fire(&hRepeatNudge) {
		return
	}
	if ok, _ := tooManyTools(&h); ok && h.fire(&hTooManyTools) {
		return
	}
	if ok, err := injection(&h); h.done(&hInjection, ok, err) {
		return
	}
	ok, err := secretInArgs(&h)
	h.done(&hSecretInArgs, ok, err)
}

// done applies the outcome of a rule that can fail: errors fail closed.
// It reports whether evaluation stops.
func (h *handEval) done(r *handRule, ok bool, err runtime.Err) bool {
	if err.Kind != runtime.ErrNone {
		h.d.Errors = append(h.d.Errors, runtime.RuleError{Rule: r.id, Err: err})
		ok = true
	}
	return ok && h.fire(r)
}

// strict evaluates the rules one by one in order, each checking its
// profiles before its selector.
func (h *handEval) strict() {
	tool := h.occ.Facts.Tool
	sel := func(r *handRule, ok bool, cond func(*handEval) (bool, runtime.Err)) bool {
		if !h.occ.Profiles.Supplied(r.profiles) || ok {
			return h.check(r, cond)
		}
		return false
	}
	_ = sel(&hLongCommand, true, longCommand) ||
		sel(&hPlainHTTP, tool == "http_fetch", plainHTTP) ||
		sel(&hSpecPosture, tool == "bash", specPosture) ||
		sel(&hEtcWrite, tool == "write" || tool == "edit", etcWrite) ||
		sel(&hPayment, tool == "disburse_payment", payment) ||
		sel(&hRmRf, tool == "bash", rmRf) ||
		sel(&hTriage, tool == "write" || tool == "edit", triage) ||
		sel(&hUntrusted, tool == "bash" || tool == "http_fetch", untrusted) ||
		sel(&hRepeatNudge, true, repeatNudge) ||
		sel(&hTooManyTools, true, tooManyTools) ||
		sel(&hInjection, true, injection) ||
		sel(&hSecretInArgs, true, secretInArgs)
}

// validate calls a validator (each is named by one rule of this pack, so
// it is called at most once per occurrence).
func (h *handEval) validate(id string) (det runtime.Detection, err runtime.Err) {
	v := h.env.Validators[id]
	if v == nil {
		return det, runtime.Err{Kind: runtime.ErrDetector, S: id}
	}
	if h.ctx.Err() != nil {
		return det, runtime.Err{Kind: runtime.ErrCanceled, S: id}
	}
	d, e := v(h.ctx, h.occ)
	if e != nil {
		return det, runtime.Err{Kind: runtime.ErrDetector, S: id}
	}
	return d, runtime.Err{}
}
