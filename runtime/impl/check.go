// This file owns checks (spec 5.11): several occurrences at one anchor
// evaluated as one step. Every action reads the session as it was before
// the check, because no action's updates are applied until every action's
// rules are done; then the updates of all actions, in index order, go to
// the store in one Store.Apply.

package impl

import (
	"context"
	"fmt"

	"github.com/oarc/oarc/runtime"
)

// Check is the state of one check. Generated code keeps it on its stack
// (the buffers live inside it, so that a check of up to 8 actions whose
// updates fit in 64 counter updates allocates nothing) and passes it to
// the evaluation of each action. Nothing holds a pointer to it: an Exec
// only copies from it (InCheck) and Add copies an Exec's updates into it.
type Check struct {
	tools  [8]string
	toolsX []string
	ntools int

	ups  [64]runtime.CounterUpdate
	upsX []runtime.CounterUpdate // every update, once more than len(ups)
	nups int

	calls  [8]runtime.Call
	callsX []runtime.Call // every call, once more than len(calls)
	ncalls int
	// s is the session of the check (nil: no updates to apply).
	s *runtime.Session
}

// Tool adds the tool of the check's next action (batch_tools). Generated
// code calls it for every action, in order, before evaluating any.
func (c *Check) Tool(tool string) { push(c.tools[:], &c.toolsX, &c.ntools, tool) }

// push adds v after the *n values held in inline, or, once inline is
// full, in *spill (which then holds every value).
func push[T any](inline []T, spill *[]T, n *int, v T) {
	switch {
	case *spill != nil:
		*spill = append(*spill, v)
	case *n < len(inline):
		inline[*n] = v
	default:
		*spill = append(append(make([]T, 0, 2*len(inline)), inline...), v)
	}
	*n++
}

// held is the n values push added: spill, else the first n of inline.
func held[T any](inline, spill []T, n int) []T {
	if spill != nil {
		return spill
	}
	return inline[:n]
}

// InCheck makes the occurrence an action of the check c: batch_tools is
// the check's tools, and its updates wait for EndCheck (generated code
// calls Add after Finish). Generated code calls it right after Begin.
func (x *Exec) InCheck(c *Check) {
	x.inCheck = true
	d := x.D
	d.BatchTools = append(d.BatchTools[:0], held(c.tools[:], c.toolsX, c.ntools)...)
}

// Add takes the updates of an action whose rules are done (after Finish):
// its counter updates and its entry in the session's record, after those
// of the actions before it.
func (c *Check) Add(x *Exec) {
	if x.S == nil {
		return
	}
	c.s = x.S
	var buf [16]runtime.CounterUpdate
	for _, u := range x.appendUpdates(buf[:0]) {
		push(c.ups[:], &c.upsX, &c.nups, u)
	}
	var call runtime.Call
	if x.recordedCall(&call) {
		push(c.calls[:], &c.callsX, &c.ncalls, call)
	}
}

// EndCheck applies the check's updates, in index order, as one atomic
// step (one Store.Apply). Updates that could not be applied are reported
// as a single evaluation reports them: an error (no rule) in the
// decision, here in the decision of every action of the check, since
// the check's updates are one step whose outcome each of them shares.
func EndCheck(c *Check, ctx context.Context, ds []runtime.Decision) {
	if ctx == nil {
		ctx = context.Background()
	}
	if c.s == nil || c.nups == 0 && c.ncalls == 0 {
		return
	}
	e, failed := apply(ctx, c.s, held(c.ups[:], c.upsX, c.nups), held(c.calls[:], c.callsX, c.ncalls))
	if !failed {
		return
	}
	e.S = "the check's " + e.S
	for i := range ds {
		ds[i].Errors = append(ds[i].Errors, runtime.RuleError{Err: e})
	}
}

// BadCheck makes the decisions of an EvaluateCheck called on a nil
// evaluator or with as many decisions as occurrences (each decision
// blocks) and returns the error wrapping runtime.ErrBadCall.
func BadCheck(nilEvaluator bool, occs int, ds []runtime.Decision) error {
	msg := fmt.Sprintf("%d occurrences and %d decisions", occs, len(ds))
	if nilEvaluator {
		msg = "a nil *Evaluator: make one with New"
	}
	blockAll(ds, "EvaluateCheck with "+msg)
	return fmt.Errorf("%w: EvaluateCheck with %s", runtime.ErrBadCall, msg)
}

// MixedCheck makes the decisions of a check whose occurrences are not all
// at one anchor (the first is at first, the i-th at other): nothing is
// evaluated or applied, and every decision blocks with an error of kind
// ErrInvalidArgument. It returns the error wrapping
// runtime.ErrCheckAnchors.
func MixedCheck(ds []runtime.Decision, i int, first, other string) error {
	msg := fmt.Sprintf("occurrence 0 is at %s, occurrence %d at %s", first, i, other)
	blockAll(ds, "a check at several anchors: "+msg)
	return fmt.Errorf("%w: %s", runtime.ErrCheckAnchors, msg)
}

// blockAll makes every decision a block with one error of kind
// ErrInvalidArgument saying why: a check that is not evaluated.
func blockAll(ds []runtime.Decision, why string) {
	for i := range ds {
		d := &ds[i]
		d.Reset()
		d.Effect = runtime.Block
		d.Errors = append(d.Errors, runtime.RuleError{Err: Err{Kind: runtime.ErrInvalidArgument, S: why}})
	}
}
