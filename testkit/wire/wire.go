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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/oarc/oarc/runtime"
)

func init() {
	gob.Register([]any{})
	gob.Register(map[string]any{})
	gob.Register([]string{})
	gob.Register([]map[string]any{})
	gob.Register(ProviderFailure(""))
	// Host values outside the dyn representation that the differential
	// tests put in dyn facts (the runtime reads them by the rule of
	// docs/cel-semantics.md).
	gob.Register(json.Number(""))
	gob.Register(map[string]string{})
	gob.Register(map[string]int64{})
	gob.Register(map[int64]string{})
	gob.Register(map[string]float64{})
	gob.Register(map[int64]any{})
	gob.Register(map[float64]any{})
}

// Request is one occurrence to evaluate.
type Request struct {
	Set int // index into the runner's compilation sets
	// Session names the session; a new name starts a new session.
	Session string
	// Counters are set on the session before evaluating (rule id -> fire,
	// breaker).
	Counters map[string][2]int64
	// History is recorded into the session's record of tool calls before
	// evaluating (spec 5.10), oldest first.
	History []HistoryCall
	// Kept replaces engine-kept facts for this occurrence's rules, by bare
	// name (a fixture's facts that the engine keeps, spec 5.10).
	Kept map[string]any
	// Tenant is the session's tenant (spec 5.11), given with the session's
	// first request.
	Tenant string
	// Time is the occurrence's time (spec 5.13; zero: the clock's).
	Time time.Time
	// Batch are the tools of the check the occurrence belongs to (nil:
	// evaluated alone).
	Batch []string
	// Check, when not empty, makes the request a check (spec 5.11): its
	// actions, evaluated as one check in the request's session (whose
	// counters, history, nodes, incompleteness and tenant the outer
	// request gives); the outer request's own occurrence is then not
	// evaluated. Each action gives its occurrence (anchor, facts,
	// profiles, content, inputs, kept facts) and its host environment
	// (detectors, providers, deadline).
	Check  []Request
	Anchor string
	// Facts by CEL name, as Go values of their types.
	Facts    map[string]any
	Profiles runtime.ProfileSet
	Content  string
	// Nodes are recorded into the session before evaluating; Incomplete
	// marks it incomplete; Inputs are the occurrence's provenance inputs.
	Nodes      []runtime.Node
	Incomplete bool
	Inputs     []string
	Detectors  map[string]Detector
	// Providers: function CEL name -> argument -> result (bool, string,
	// int64, ...). A function absent from the map has no provider; a
	// listed function answers an absent argument with the zero value. The
	// argument key of a function of several (or non-string) arguments is
	// the compact JSON array of the arguments.
	Providers map[string]map[string]any
	// Deadline evaluates the occurrence under a context with a deadline
	// (an hour away): validators and providers are then called bound to
	// it, on goroutines of their own. Without it the context never ends.
	Deadline bool
	// NegativeZero names the detector facts ("detector:<id>:<fact>") that
	// hold -0.0: gob leaves out struct fields that compare equal to zero,
	// so the sign would be lost on the way.
	NegativeZero []string
}

var negZero = math.Copysign(0, -1)

func isNegZero(f float64) bool { return f == 0 && math.Signbit(f) }

// MarkNegativeZeros fills NegativeZero; the harness calls it before
// sending a request.
func (r *Request) MarkNegativeZeros() {
	for i := range r.Check {
		r.Check[i].MarkNegativeZeros()
	}
	r.NegativeZero = nil
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

// Context returns the context the occurrence is evaluated with (see
// Deadline).
func (r *Request) Context() (context.Context, context.CancelFunc) {
	if r.Deadline {
		return context.WithTimeout(context.Background(), time.Hour)
	}
	return context.Background(), func() {}
}

// Detector is a validator's canned answer.
type Detector struct {
	Hit   bool
	Facts runtime.DetectorFacts
	// Error: "timeout": the validator times out; "panic": it panics;
	// other: it fails.
	Error string
}

// Validator answers as the canned detector d.
func (d Detector) Validator() func(context.Context) (runtime.Detection, error) {
	return func(context.Context) (runtime.Detection, error) {
		switch d.Error {
		case "":
			return runtime.Detection{Hit: d.Hit, Facts: d.Facts}, nil
		case "timeout":
			return runtime.Detection{}, context.DeadlineExceeded
		case "panic":
			panic("wire: a validator that panics")
		}
		return runtime.Detection{}, errors.New(d.Error)
	}
}

// ProviderFailure, as the answer of a provider in Request.Providers, makes
// the call fail: "timeout" returns context.DeadlineExceeded, "panic"
// panics, any other text is the error. Fixtures cannot give one (spec
// section 8); the session differential does.
type ProviderFailure string

// Provide answers a provider call as the canned answers say (see Answer
// and ProviderFailure).
func Provide(answers map[string]any, args []any) (any, error) {
	v := Answer(answers, args)
	f, ok := v.(ProviderFailure)
	if !ok {
		return v, nil
	}
	switch f {
	case "timeout":
		return nil, context.DeadlineExceeded
	case "panic":
		panic("wire: a provider that panics")
	}
	return nil, errors.New(string(f))
}

// Answer returns a provider's canned answer to args (nil: the zero value
// of the function's result).
func Answer(answers map[string]any, args []any) any {
	key := ""
	if s, ok := args[0].(string); ok && len(args) == 1 {
		key = s
	} else {
		b, _ := json.Marshal(args)
		key = string(b)
	}
	return answers[key]
}

// HistoryCall is a call of a fixture's history: its tool, arguments and
// blocking code ("" when it was not blocked).
type HistoryCall struct {
	Tool string
	Args map[string]any
	Code string
	Time time.Time // zero: none
}

// Response is a decision, in the shape both engines report.
type Response struct {
	Effect       string   `json:"decision"`
	Code         string   `json:"code"`
	Codes        []string `json:"codes"`
	Monitored    []string `json:"monitored"`
	FailedClosed []string `json:"failed_closed"`
	Errors       []Error  `json:"errors"`
	Content      string   `json:"content,omitempty"`
	// Rejection is the text shown to the agent (Decision.Rejection).
	Rejection string `json:"rejection,omitempty"`
	// Banner and Notes are the texts of the warn and nudge firings
	// (Decision.Banner, Decision.Notes).
	Banner string `json:"banner,omitempty"`
	Notes  string `json:"notes,omitempty"`
	// Question is what a person is asked for an ask decision
	// (Decision.Question, spec 5.12).
	Question string `json:"question,omitempty"`
	// Check holds the decisions of a check's actions, in order (the
	// response's own fields are then empty).
	Check []Response `json:"check,omitempty"`
	// Fatal is set when the runner itself failed (a panic escaped).
	Fatal string `json:"fatal,omitempty"`
}

// Error is one evaluation error of a rule.
type Error struct {
	Rule    string `json:"rule"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// KindName is the stable name of an error kind, as both engines report it.
func KindName(k runtime.ErrKind) string { return k.String() }

// FromDecision converts a runtime decision.
func FromDecision(d *runtime.Decision) Response {
	r := Response{
		Effect:       d.Effect.String(),
		Code:         d.Code,
		Codes:        append([]string{}, d.Codes...),
		Monitored:    append([]string{}, d.Monitored...),
		FailedClosed: append([]string{}, d.FailedClosed...),
		Errors:       []Error{},
		Content:      d.Content,
		Rejection:    d.Rejection(),
		Banner:       d.Banner(),
		Notes:        d.Notes(),
		Question:     d.Question(),
	}
	for _, e := range d.Errors {
		r.Errors = append(r.Errors, Error{Rule: e.Rule, Kind: KindName(e.Err.Kind), Message: e.Err.Error()})
	}
	return r
}

// Set is one compiled set as the runner drives it. The runner's main,
// written by the harness for the set's catalog, implements it.
type Set interface {
	// Evaluate builds the occurrence and the Env of req and evaluates it;
	// an error is a request the set cannot express (a fact of the wrong
	// type), not an evaluation error.
	Evaluate(req *Request, s *runtime.Session, d *runtime.Decision) error
	// CounterKey returns the store key of a rule's counter.
	CounterKey(rule string, c runtime.Counter) (runtime.CounterKey, bool)
}

// CheckSet is a Set that evaluates checks (spec 5.11): the runner's
// sets implement it.
type CheckSet interface {
	Set
	// EvaluateCheck evaluates reqs, the actions of one check, in s, one
	// decision each in ds.
	EvaluateCheck(reqs []Request, s *runtime.Session, ds []runtime.Decision) error
}

// Serve answers requests from r on w until r ends: the runner's main loop.
// Its sessions live in the process.
func Serve(sets []Set, r io.Reader, w io.Writer) error {
	return ServeSessions(sets, r, w, func(id string) *runtime.Session { return runtime.NewSession(id) })
}

// ServeSessions is Serve with sessions made by newSession: a runner whose
// sessions live in a session store (spec 5.9).
func ServeSessions(sets []Set, r io.Reader, w io.Writer, newSession func(id string) *runtime.Session) error {
	dec := gob.NewDecoder(r)
	enc := gob.NewEncoder(w)
	sessions := make([]session, len(sets))
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
		resp := serveOne(sets, sessions, &req, &d, newSession)
		if err := enc.Encode(&resp); err != nil {
			return err
		}
	}
}

// session is the current session of one set.
type session struct {
	name string
	s    *runtime.Session
}

func serveOne(sets []Set, sessions []session, req *Request, d *runtime.Decision, newSession func(string) *runtime.Session) (resp Response) {
	defer func() {
		if p := recover(); p != nil {
			resp = Response{Fatal: fmt.Sprintf("panic: %v", p)}
		}
	}()
	if req.Set < 0 || req.Set >= len(sets) {
		return Response{Fatal: fmt.Sprintf("no set %d", req.Set)}
	}
	set := sets[req.Set]
	ss := &sessions[req.Set]
	ctx := context.Background()
	if ss.s == nil || ss.name != req.Session {
		ss.name, ss.s = req.Session, newSession(req.Session)
		if req.Tenant != "" {
			ss.s = ss.s.InTenant(req.Tenant)
		}
	}
	if err := SetCounters(ctx, ss.s, set.CounterKey, req.Counters); err != nil {
		return Response{Fatal: err.Error()}
	}
	if err := SetHistory(ctx, ss.s, req.History); err != nil {
		return Response{Fatal: err.Error()}
	}
	for _, n := range req.Nodes {
		if err := ss.s.Record(ctx, n); err != nil {
			return Response{Fatal: "record: " + err.Error()}
		}
	}
	if req.Incomplete {
		if err := ss.s.MarkIncomplete(ctx); err != nil {
			return Response{Fatal: "mark incomplete: " + err.Error()}
		}
	}
	if len(req.Check) > 0 {
		cs, ok := set.(CheckSet)
		if !ok {
			return Response{Fatal: fmt.Sprintf("set %d does not evaluate checks", req.Set)}
		}
		for i := range req.Check {
			req.Check[i].restoreNegativeZeros()
		}
		ds := make([]runtime.Decision, len(req.Check))
		if err := cs.EvaluateCheck(req.Check, ss.s, ds); err != nil {
			return Response{Fatal: err.Error()}
		}
		out := Response{Check: make([]Response, len(ds))}
		for i := range ds {
			out.Check[i] = FromDecision(&ds[i])
		}
		return out
	}
	if err := set.Evaluate(req, ss.s, d); err != nil {
		return Response{Fatal: err.Error()}
	}
	return FromDecision(d)
}

// SetHistory records calls into the session's record of tool calls, as
// the engine records tool.pre_invoke occurrences (a fixture's history).
func SetHistory(ctx context.Context, s *runtime.Session, calls []HistoryCall) error {
	if len(calls) == 0 {
		return nil
	}
	var u runtime.Update
	var buf []byte
	for _, c := range calls {
		rc := runtime.Call{Tool: c.Tool, Code: c.Code}
		if !c.Time.IsZero() {
			rc.Time = runtime.CallTime(runtime.UnixNanos(c.Time))
		}
		fp, b, err := runtime.ArgsFingerprint(buf, c.Args)
		buf = b
		rc.Fingerprint, rc.HasFingerprint = fp, err == nil
		u.Calls = append(u.Calls, rc)
	}
	return s.Store().Apply(ctx, s.Key(), &u)
}

// SetCounters sets counters of a session by rule id (fixtures' counters):
// each counter is reset, then incremented to its value. A rule outside
// the set has no counters a rule can read (spec 5.3): its are skipped.
func SetCounters(ctx context.Context, s *runtime.Session, key func(string, runtime.Counter) (runtime.CounterKey, bool), counters map[string][2]int64) error {
	var ups []runtime.CounterUpdate
	for id, c := range counters {
		for i, cnt := range []runtime.Counter{runtime.Fire, runtime.Breaker} {
			k, ok := key(id, cnt)
			if !ok {
				continue
			}
			ups = append(ups, runtime.CounterUpdate{Key: k, Reset: true})
			for range c[i] {
				ups = append(ups, runtime.CounterUpdate{Key: k})
			}
		}
	}
	if len(ups) == 0 {
		return nil
	}
	return runtime.ApplyCounters(ctx, s.Store(), s.Key(), ups)
}
