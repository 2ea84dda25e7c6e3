// Package handrecord is what a hand-written evaluator does for the session
// facts the engine keeps (spec 5.10) when its rules read repeat_count: it
// reads the session's record of tool calls (one read of the store, the
// fingerprint of the arguments) and records each call with its blocking
// code, through the same runtime.Store the generated code uses, so that
// the benchmark compares equal work.
package handrecord

import (
	"context"

	"github.com/oarc/oarc/runtime"
)

// RepeatCount is lycaon.repeat_count of a tool.pre_invoke occurrence with
// tool and args, read into d.Kept (or the occurrence's override).
func RepeatCount(ctx context.Context, s *runtime.Session, d *runtime.Decision, tool string, args map[string]any, o *runtime.KeptOverride) (int64, runtime.Err) {
	if o != nil && o.Has&runtime.KeptRepeatCount != 0 {
		return o.RepeatCount, runtime.Err{}
	}
	k := &d.Kept
	c := runtime.Call{Tool: tool}
	var err error
	if c.Fingerprint, err = k.ComputeFingerprint(args); err == nil {
		c.HasFingerprint = true
	}
	if s != nil {
		// A Snapshot handed to a store behind an interface is on the heap;
		// the in-process store is called directly, as generated code does.
		if st, ok := s.Store().(*runtime.MemStore); ok {
			snap := runtime.Snapshot{History: &k.History}
			err = st.Read(ctx, s.Key(), &snap)
		} else {
			err = s.Store().Read(ctx, s.Key(), &runtime.Snapshot{History: &k.History})
		}
		if err != nil {
			return 0, runtime.Err{Kind: runtime.ErrStore, S: err.Error()}
		}
	}
	k.Derive(true, &c)
	return k.RepeatCount, runtime.Err{}
}

// Record records the call after the occurrence's rules, with its blocking
// code; a failure is reported in d.Errors, as the generated code does.
func Record(ctx context.Context, s *runtime.Session, d *runtime.Decision, tool string, args map[string]any) {
	if s == nil {
		return
	}
	var calls [1]runtime.Call
	c := &calls[0]
	c.Tool = tool
	var err error
	if c.Fingerprint, err = d.Kept.ComputeFingerprint(args); err == nil {
		c.HasFingerprint = true
	}
	if d.Effect == runtime.Block {
		c.Code = d.Code
	}
	if st, ok := s.Store().(*runtime.MemStore); ok {
		u := runtime.Update{Calls: calls[:]}
		err = st.Apply(ctx, s.Key(), &u)
	} else {
		err = s.Store().Apply(ctx, s.Key(), &runtime.Update{Calls: []runtime.Call{*c}})
	}
	if err != nil {
		d.Errors = append(d.Errors, runtime.RuleError{Err: runtime.Err{Kind: runtime.ErrStore, S: err.Error()}})
	}
}
