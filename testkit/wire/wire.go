// Package wire is the protocol between the oarc test harness and the runner
// program it builds around generated packages: a gob stream of [Request]s on
// the runner's stdin and [Response]s on its stdout. It is not internal
// because the runner lives in a module of its own; it imports only the
// runtime, like generated code.
//
// Values cross the wire as the runtime's own Go values (gob keeps int64 and
// float64 apart, NaN, and strings that are not valid UTF-8), so the runner
// evaluates exactly the facts the harness parsed.
package wire

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/oarc/oarc/runtime"
)

func init() {
	gob.Register([]any{})
	gob.Register(map[string]any{})
}

// Request is one occurrence to evaluate.
type Request struct {
	Pack int // index into the runner's packs
	// Session names the session; a new name starts a new session.
	Session string
	// Counters are set on the session before evaluating (rule id -> fire,
	// breaker).
	Counters  map[string][2]int64
	Anchor    string
	Facts     runtime.Facts
	Profiles  runtime.ProfileSet
	Content   string
	Detectors map[string]Detector
	// Providers: function CEL name -> argument -> result (bool, string,
	// int64). A function absent from the map has no provider; a listed
	// function answers an absent argument with the zero value.
	Providers map[string]map[string]any
	// NegativeZero names the double facts (and "detector:<id>:<fact>"
	// detector facts) that hold -0.0: gob leaves out struct fields that
	// compare equal to zero, so the sign would be lost on the way.
	NegativeZero []string
}

var negZero = math.Copysign(0, -1)

func isNegZero(f float64) bool { return f == 0 && math.Signbit(f) }

// MarkNegativeZeros fills NegativeZero; the harness calls it before
// sending a request.
func (r *Request) MarkNegativeZeros() {
	r.NegativeZero = nil
	if isNegZero(r.Facts.PromptInjectionScore) {
		r.NegativeZero = append(r.NegativeZero, "prompt_injection_score")
	}
	if isNegZero(r.Facts.JailbreakScore) {
		r.NegativeZero = append(r.NegativeZero, "jailbreak_score")
	}
	for id, d := range r.Detectors {
		if isNegZero(d.Facts.PromptInjectionScore) {
			r.NegativeZero = append(r.NegativeZero, "detector:"+id+":prompt_injection_score")
		}
		if isNegZero(d.Facts.JailbreakScore) {
			r.NegativeZero = append(r.NegativeZero, "detector:"+id+":jailbreak_score")
		}
	}
}

func (r *Request) restoreNegativeZeros() {
	for _, n := range r.NegativeZero {
		switch n {
		case "prompt_injection_score":
			r.Facts.PromptInjectionScore = negZero
		case "jailbreak_score":
			r.Facts.JailbreakScore = negZero
		default:
			parts := strings.SplitN(n, ":", 3)
			if len(parts) != 3 {
				continue
			}
			d := r.Detectors[parts[1]]
			if parts[2] == "prompt_injection_score" {
				d.Facts.PromptInjectionScore = negZero
			} else {
				d.Facts.JailbreakScore = negZero
			}
			r.Detectors[parts[1]] = d
		}
	}
}

// Detector is a validator's canned answer.
type Detector struct {
	Hit   bool
	Facts runtime.DetectorFacts
	Error string // "timeout": the validator times out; other: it fails
}

// Response is a decision, in the shape both engines report.
type Response struct {
	Effect    string   `json:"decision"`
	Code      string   `json:"code"`
	Codes     []string `json:"codes"`
	Monitored []string `json:"monitored"`
	Errors    []Error  `json:"errors"`
	Content   string   `json:"content,omitempty"`
	// Fatal is set when the runner itself failed (a panic escaped).
	Fatal string `json:"fatal,omitempty"`
}

// Error is one evaluation error of a rule.
type Error struct {
	Rule    string `json:"rule"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

var kindNames = map[runtime.ErrKind]string{
	runtime.ErrNoSuchKey:       "no_such_key",
	runtime.ErrIndexOutOfRange: "index_out_of_range",
	runtime.ErrDivideByZero:    "divide_by_zero",
	runtime.ErrModulusByZero:   "modulus_by_zero",
	runtime.ErrIntOverflow:     "int_overflow",
	runtime.ErrNoSuchOverload:  "no_such_overload",
	runtime.ErrConversion:      "conversion",
	runtime.ErrInvalidArgument: "invalid_argument",
	runtime.ErrNoProvider:      "no_provider",
	runtime.ErrProvider:        "provider",
	runtime.ErrProfile:         "profile",
	runtime.ErrDetector:        "detector",
	runtime.ErrCanceled:        "canceled",
	runtime.ErrPanic:           "panic",
}

// KindName is the stable name of an error kind, as both engines report it.
func KindName(k runtime.ErrKind) string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind%d", k)
}

// FromDecision converts a runtime decision.
func FromDecision(d *runtime.Decision) Response {
	r := Response{
		Effect:    d.Effect.String(),
		Code:      d.Code,
		Codes:     append([]string{}, d.Codes...),
		Monitored: append([]string{}, d.Monitored...),
		Errors:    []Error{},
		Content:   d.Content,
	}
	for _, e := range d.Errors {
		r.Errors = append(r.Errors, Error{Rule: e.Rule, Kind: KindName(e.Err.Kind), Message: e.Err.Error()})
	}
	return r
}

// Env builds the host environment of a request: validators and providers
// answering from the canned data.
func Env(req *Request) *runtime.Env {
	env := &runtime.Env{Validators: map[string]runtime.Validator{}}
	for id, d := range req.Detectors {
		d := d
		env.Validators[id] = func(ctx context.Context, _ *runtime.Occurrence) (runtime.Detection, error) {
			switch d.Error {
			case "":
				return runtime.Detection{Hit: d.Hit, Facts: d.Facts}, nil
			case "timeout":
				return runtime.Detection{}, context.DeadlineExceeded
			}
			return runtime.Detection{}, errors.New(d.Error)
		}
	}
	p := &env.Providers
	for name, answers := range req.Providers {
		answers := answers
		b := func(_ *runtime.Facts, arg string) (bool, error) { v, _ := answers[arg].(bool); return v, nil }
		s := func(_ *runtime.Facts, arg string) (string, error) { v, _ := answers[arg].(string); return v, nil }
		i := func(_ *runtime.Facts, arg string) (int64, error) { v, _ := answers[arg].(int64); return v, nil }
		switch name {
		case "path_outside_scope":
			p.PathOutsideScope = b
		case "lycaon.source_includes":
			p.LycaonSourceIncludes = b
		case "mcp_server_configured_for":
			p.McpServerConfiguredFor = b
		case "mcp_server_enabled_for":
			p.McpServerEnabledFor = b
		case "mcp_has_field":
			p.McpHasField = b
		case "mcp_field_bool":
			p.McpFieldBool = b
		case "mcp_field_string":
			p.McpFieldString = s
		case "mcp_field_int":
			p.McpFieldInt = i
		case "lycaon.host_resource_status_for":
			p.LycaonHostResourceStatusFor = s
		case "lycaon.host_resource_policy_for":
			p.LycaonHostResourcePolicyFor = s
		}
	}
	return env
}

// Serve answers requests from r on w until r ends: the runner's main loop.
func Serve(packs []*runtime.Pack, r io.Reader, w io.Writer) error {
	dec := gob.NewDecoder(r)
	enc := gob.NewEncoder(w)
	sessions := make([]session, len(packs))
	var d runtime.Decision
	for {
		var req Request
		if err := dec.Decode(&req); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		req.restoreNegativeZeros()
		resp := serveOne(packs, sessions, &req, &d)
		if err := enc.Encode(&resp); err != nil {
			return err
		}
	}
}

// session is the current session of one pack.
type session struct {
	name string
	s    *runtime.Session
}

func serveOne(packs []*runtime.Pack, sessions []session, req *Request, d *runtime.Decision) (resp Response) {
	defer func() {
		if p := recover(); p != nil {
			resp = Response{Fatal: fmt.Sprintf("panic: %v", p)}
		}
	}()
	if req.Pack < 0 || req.Pack >= len(packs) {
		return Response{Fatal: fmt.Sprintf("no pack %d", req.Pack)}
	}
	pk := packs[req.Pack]
	ss := &sessions[req.Pack]
	if ss.s == nil || ss.name != req.Session {
		ss.name, ss.s = req.Session, pk.NewSession()
	}
	for id, c := range req.Counters {
		slot := pk.Slot(id)
		if slot < 0 {
			return Response{Fatal: fmt.Sprintf("counters: no rule %s in the pack", id)}
		}
		ss.s.Set(slot, runtime.Fire, c[0])
		ss.s.Set(slot, runtime.Breaker, c[1])
	}
	occ := &runtime.Occurrence{Anchor: req.Anchor, Facts: req.Facts, Profiles: req.Profiles, Content: req.Content}
	pk.Evaluate(context.Background(), Env(req), occ, ss.s, d)
	return FromDecision(d)
}
