// Package reference is the oracle as the test harness drives it: the
// interpreter of package interp (which ships: the rule store runs rules
// through it) behind the runner protocol's types, so that a fixture's
// request is evaluated by both engines alike. The evaluation itself is
// interp's, written from the spec independently of the runtime.
package reference

import (
	"context"
	"errors"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/wire"
)

// Engine evaluates one compilation set.
type Engine struct{ e *interp.Engine }

// Session is the oracle's session (counters, record, provenance graph).
type Session = interp.Session

// NewSession returns an empty session.
func NewSession() *Session { return interp.NewSession() }

// New prepares a set for evaluation.
func New(set *compiler.Set) (*Engine, error) {
	e, err := interp.New(set)
	if err != nil {
		return nil, err
	}
	return &Engine{e}, nil
}

// Re-exported for the tests that build cel-go environments like the
// oracle's.
var (
	HostAdapter    = interp.HostAdapter
	HostValue      = interp.HostValue
	HostElem       = interp.HostElem
	StrictOps      = interp.StrictOps
	CompileStrict  = interp.CompileStrict
	KindOfCelError = interp.KindOfCelError
)

// Evaluate evaluates one occurrence (req.Set and req.Session are ignored;
// s holds the session and may be nil). The request's counters, history,
// nodes and incompleteness are put into the session first.
func (e *Engine) Evaluate(req *wire.Request, s *Session) wire.Response {
	if s == nil {
		s = NewSession()
	}
	for id, c := range req.Counters {
		s.SetCounters(id, c[0], c[1])
	}
	for _, h := range req.History {
		s.AddCallAt(h.Tool, h.Args, h.Code, h.Time)
	}
	for _, n := range req.Nodes {
		s.RecordNode(n)
	}
	if req.Tenant != "" {
		s.SetTenant(req.Tenant)
	}
	if req.Incomplete {
		s.MarkIncomplete()
	}
	if len(req.Check) > 0 {
		occs := make([]*interp.Occurrence, len(req.Check))
		for i := range req.Check {
			occs[i] = occurrence(&req.Check[i])
		}
		ds := e.e.EvaluateCheck(occs, s)
		out := wire.Response{Check: make([]wire.Response, len(ds))}
		for i := range ds {
			out.Check[i] = response(&ds[i])
		}
		return out
	}
	return response(ptr(e.e.Evaluate(occurrence(req), s)))
}

func ptr(d interp.Decision) *interp.Decision { return &d }

// occurrence is the oracle's occurrence of a request.
func occurrence(req *wire.Request) *interp.Occurrence {
	occ := &interp.Occurrence{
		Anchor: req.Anchor, Facts: req.Facts, Profiles: req.Profiles, Content: req.Content, Inputs: req.Inputs, Kept: req.Kept, Batch: req.Batch, Time: req.Time,
		Providers:  map[string]func([]any) (any, error){},
		Validators: map[string]func() (runtime.Detection, error){},
	}
	for fn, answers := range req.Providers {
		occ.Providers[fn] = func(args []any) (any, error) { return wire.Provide(answers, args) }
	}
	for id, d := range req.Detectors {
		occ.Validators[id] = func() (runtime.Detection, error) {
			switch d.Error {
			case "":
				return runtime.Detection{Hit: d.Hit, Facts: d.Facts}, nil
			case "timeout":
				return runtime.Detection{}, context.DeadlineExceeded
			}
			return runtime.Detection{}, errors.New(d.Error)
		}
	}
	return occ
}

// response is a decision in the runner protocol's shape.
func response(d *interp.Decision) wire.Response {
	resp := wire.Response{
		Effect: d.Effect, Code: d.Code, Codes: d.Codes, Monitored: d.Monitored, FailedClosed: d.FailedClosed,
		Errors: []wire.Error{}, Content: d.Content, Rejection: d.Rejection, Banner: d.Banner, Notes: d.Notes, Question: d.Question,
	}
	for _, er := range d.Errors {
		resp.Errors = append(resp.Errors, wire.Error{Rule: er.Rule, Kind: wire.KindName(er.Kind), Message: er.Message})
	}
	return resp
}
