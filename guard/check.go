package guard

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/oarc/oarc/runtime"
)

// CheckSet is a [Set] that evaluates checks (spec 5.11): the sets `oarc
// gen -guard` writes implement it.
type CheckSet interface {
	Set
	// EvaluateCheck evaluates os, at one anchor, as one check, one
	// decision each in ds.
	EvaluateCheck(ctx context.Context, os []Occurrence, s *runtime.Session, ds []runtime.Decision) error
}

// CallSpec is one tool call of a model turn, as [Conn.Check] takes it.
type CallSpec struct {
	// ID is the JSON-RPC request id, for decision records (nil: none).
	ID json.RawMessage
	// Name is the tool's name on the server; Args its raw arguments (JSON;
	// absent or null is an empty map).
	Name string
	Args json.RawMessage
}

// Check evaluates tool.pre_invoke for the tool calls of one model turn
// as one check (spec 5.11): every call reads the session as it was before
// the turn and batch_tools names every call's tool, in order; the turn's
// updates are applied as one step. It returns one [Call] per call, in
// order, as [Conn.Begin] would: a call whose [Call.Blocked] is not nil
// must not be forwarded; the others are, each finished with
// [Call.Finish]. A blocked call does not block the others unless a rule
// says so. A call the guard cannot read (its arguments, the session's
// provenance) is blocked with [CodeGuard] and left out of the check; a
// set that cannot evaluate checks, or a check that fails, blocks every
// call with CodeGuard. Check never panics.
func (c *Conn) Check(ctx context.Context, calls []CallSpec) (ks []*Call) {
	ks = make([]*Call, len(calls))
	for i, cs := range calls {
		ks[i] = &Call{c: c, id: cs.ID}
	}
	defer func() {
		if r := recover(); r != nil {
			for _, k := range ks {
				k.fail(fmt.Errorf("internal error: %v", r))
			}
		}
	}()
	if len(calls) == 0 || !c.g.info.Has(PreInvoke) {
		for i, cs := range calls {
			ks[i] = c.Begin(ctx, cs.ID, cs.Name, cs.Args)
		}
		return ks
	}
	cset, ok := c.g.set.(CheckSet)
	if !ok {
		for _, k := range ks {
			k.fail(fmt.Errorf("the compilation set cannot evaluate checks (regenerate it with oarc gen -guard)"))
		}
		return ks
	}
	var head []string
	if c.opts.AllInputs {
		in, err := c.head(ctx)
		if err != nil {
			for _, k := range ks {
				k.fail(fmt.Errorf("cannot read the session's provenance: %v", err))
			}
			return ks
		}
		head = in
	}
	server := c.Server()
	var in []*Call
	var occs []Occurrence
	for i, cs := range calls {
		k := ks[i]
		k.server = server
		k.occ = Occurrence{Tool: Qualified(server.ID, cs.Name), ServerID: server.ID, ToolName: cs.Name,
			ServerConfigured: server.Configured, ServerEnabled: server.Enabled}
		if c.opts.AllInputs {
			k.occ.Inputs = head
		} else {
			k.occ.Inputs = Inputs(ctx)
		}
		m, err := runtime.DecodeToolArgs(cs.Args)
		if err != nil {
			k.fail(err)
			continue
		}
		if err := foldedNames(m); err != nil {
			// As Begin: a server may read either name.
			k.fail(err)
			continue
		}
		k.occ.Args = m
		k.occ.Anchor = PreInvoke
		k.occ.Profiles = runtime.ProfileTool | runtime.ProfileMcp | c.opts.Profiles
		in = append(in, k)
		occs = append(occs, k.occ)
	}
	if len(in) == 0 {
		return ks
	}
	ds := make([]runtime.Decision, len(in))
	// The MCP functions the guard answers read the call from the context
	// (bindings.go): every call of a check has the connection's server,
	// and before the call no binding has matched (false, zeros), so one
	// call stands for them all, as Begin's eval puts each call there.
	ctx = context.WithValue(ctx, callKey{}, &Call{c: c, server: server})
	if err := cset.EvaluateCheck(ctx, occs, c.session, ds); err != nil {
		for _, k := range in {
			k.fail(fmt.Errorf("evaluating a check at %s: %v", PreInvoke, err))
		}
		return ks
	}
	for i, k := range in {
		k.d = ds[i]
		k.decided(ctx)
	}
	return ks
}
