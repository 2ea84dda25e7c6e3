// This file owns the evaluation of a rule store's rules (spec 12) inside
// a generated evaluator's decision: after the compiled rules of the
// anchor, with the same on_error, monitor, effects, counters, session
// record and provenance. Generated code takes this path only when the
// host gave a store (runtime.WithRuleStore); its Exec then lives on the
// heap, since the store's interpreter reads it through an interface.

package impl

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/oarc/oarc/runtime"
)

// LiveHost is what generated code answers for a store's rules: the facts
// the host fills (through the catalog's Env.Lazy for facts the set reads
// lazily), the providers of the catalog's functions and its validators,
// by name.
type LiveHost interface {
	LiveFact(name string) (any, Err)
	LiveProvide(fn string, args []any) (any, Err)
	LiveDetect(id string) (*runtime.Detection, Err)
}

// liveTimes is implemented by the runtime.LiveRules of an anchor whose
// store rules may call calls_within or tool_calls_within: the record is
// then read with the calls' times. A store that does not implement it
// gets the times only when a compiled rule of the anchor reads them.
type liveTimes interface {
	ReadsCallTimes() bool
}

// liveState is an evaluation's state for a store's rules.
type liveState struct {
	host  LiveHost
	rules runtime.LiveRules // nil: no store rule at the anchor
	list  []runtime.LiveRule
	codes []string
	// base and codeBase are the indexes of the store's first counter key
	// and first code in the occurrence's snapshot and history query.
	base, codeBase int
	fired          []int // the enforced firings, by index in list
	evaluated      int
	blocked        bool
	dets           map[string]*DetState
	env            liveEnv
}

// CheckRuleStore returns the error of a rule store checked against
// another compilation set than the one of digest (nil store: none).
func CheckRuleStore(st runtime.RuleStore, digest string) error {
	if st == nil {
		return nil
	}
	if d := st.Digest(); d != digest {
		return fmt.Errorf("%w: the store's set is %s, the evaluator's %s (open the store with the set that compiler.Load returns, without errors, for every pack the evaluator was generated from: the -pack directories of its oarc gen)", runtime.ErrRuleStoreSet, d, digest)
	}
	return nil
}

// LazyIgnored is the error of New given lazy providers for the facts
// named (CEL names), which the set reads from Facts (runtime.ErrLazyIgnored).
func LazyIgnored(facts []string) error {
	return fmt.Errorf("%w: %s (generate the set with oarc gen -lazy for them, except tool and tool_args, which are never lazy; or fill them in Facts and set no lazy provider)", runtime.ErrLazyIgnored, strings.Join(facts, ", "))
}

// LazyOthers returns the providers set in lazy (a catalog's LazyFacts
// value) other than those of the facts a set reads lazily (read, Go field
// paths such as "SessionPosture" or "Acme.Readonly"), each named
// "Lazy.PATH". A rule store's rules read every other fact from Facts, so
// New refuses them (runtime.ErrLazyIgnored) when the set has a store.
func LazyOthers(lazy any, read ...string) []string {
	var out []string
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := v.Field(i)
			path := prefix + t.Field(i).Name
			switch f.Kind() {
			case reflect.Struct:
				walk(f, path+".")
			case reflect.Func:
				if !f.IsNil() && !slices.Contains(read, path) {
					out = append(out, "Lazy."+path)
				}
			}
		}
	}
	if v := reflect.ValueOf(lazy); v.Kind() == reflect.Struct {
		walk(v, "")
	}
	return out
}

// Live sets an evaluation up for a rule store: the store's rules at the
// anchor, the counters and block counts they read (in the occurrence's
// one snapshot), and the session's record, which the session then keeps
// whatever the compiled rules read (spec 5.9), as it keeps every
// counter. Generated code calls it after Begin, Call, History, Snapshot
// and Validators, before the rules run.
func Live(x *Exec, st runtime.RuleStore, h LiveHost) {
	ls := &liveState{host: h}
	ls.env.x = x
	x.live = ls
	x.record = true
	lr := st.Live(x.Anchor)
	var keys []runtime.CounterKey
	var codes []string
	if lr != nil {
		ls.rules, ls.list = lr, lr.Rules()
		keys, codes = lr.Keys(), lr.Codes()
		ls.codes = codes
	}
	if len(keys) > 0 {
		ls.base = len(x.keys)
		all := make([]runtime.CounterKey, 0, len(x.keys)+len(keys))
		x.keys = append(append(all, x.keys...), keys...)
		x.nsnap = len(x.keys)
	}
	// The record is read with the counters, whoever reads it first.
	ls.codeBase = len(x.query.Codes)
	// The calls' times, when a compiled rule (through Times) or a store's
	// rule reads windows of calls (spec 5.13).
	q := runtime.HistoryQuery{Tool: x.tool, LastTool: !x.atCall, Names: true, Times: x.query.Times}
	if t, ok := lr.(liveTimes); ok && t.ReadsCallTimes() {
		q.Times = true
	}
	q.Codes = append(append(make([]string, 0, len(x.query.Codes)+len(codes)), x.query.Codes...), codes...)
	x.hist, x.query = true, q
}

// RunLive evaluates the store's rules of the anchor, after the compiled
// ones: not at all when an enforced compiled rule blocked (a block ends
// the occurrence, spec 5.1).
func RunLive(x *Exec) {
	ls := x.live
	if ls == nil || ls.rules == nil {
		return
	}
	if _, blocked := x.AllowedBy(); blocked {
		return
	}
	for i := range ls.list {
		ls.evaluated = i + 1
		ok, err := evalLive(ls.rules, i, &ls.env)
		if (ok || err.Kind != ErrNone) && x.doneLive(i, ok, err) {
			return
		}
	}
}

// evalLive evaluates one store rule; a panic that escapes the store is
// an error of the rule, which then fails closed (spec 6).
func evalLive(lr runtime.LiveRules, i int, env runtime.LiveEnv) (ok bool, err Err) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, Err{Kind: runtime.ErrPanic, S: fmt.Sprint(p)}
		}
	}()
	return lr.Eval(i, env)
}

// doneLive applies the outcome of store rule i as Done does for a
// compiled rule; a panic fails closed whatever its on_error.
func (x *Exec) doneLive(i int, fired bool, err Err) bool {
	ls := x.live
	r := &ls.list[i]
	d := x.D
	failed := err.Kind != ErrNone
	if failed {
		fired = !r.FailOpen || err.Kind == runtime.ErrPanic
		d.Errors = append(d.Errors, runtime.RuleError{Rule: r.ID, Err: err, Allow: r.Effect == runtime.Allow && !r.Monitor})
	}
	if !fired {
		return false
	}
	if failed {
		d.FailedClosed = append(d.FailedClosed, r.ID)
	}
	if r.Monitor {
		d.Monitored = append(d.Monitored, r.ID)
		return false
	}
	d.Codes = append(d.Codes, r.ID)
	d.Firings = append(d.Firings, runtime.Firing{Rule: &r.Rule, FailedClosed: failed})
	ls.fired = append(ls.fired, i)
	if r.Effect == runtime.Block {
		ls.blocked = true
		return true
	}
	return false
}

// ObserveLive hands the decision to the store's trials, which count
// sessions by their (tenant, id) pair: the session's store key.
func ObserveLive(x *Exec) {
	if ls := x.live; ls != nil && ls.rules != nil && !runtime.IsPreview(x.Ctx) {
		ls.rules.Observe(x.S.Key(), ls.evaluated, x.D)
	}
}

// DetectLive consults a validator for a store's rule, at most once per
// occurrence (spec 5.5), bound to the context's deadline as a compiled
// rule's validator is. A validator a compiled rule of the anchor names
// keeps its answer in that rule's slot, which the store's rules share:
// the compiled rule may have consulted it already, and the store's rules
// are in the same decision (spec 12).
func DetectLive[O any](x *Exec, id string, v func(context.Context, *O) (runtime.Detection, error), occ *O) (*runtime.Detection, Err) {
	ls := x.live
	st := ls.dets[id]
	if st == nil {
		// Looked up once per validator and occurrence, not per store rule.
		if st = x.compiledDet(id); st == nil {
			st = &DetState{}
		}
		if ls.dets == nil {
			ls.dets = map[string]*DetState{}
		}
		ls.dets[id] = st
	}
	if !st.done {
		st.done = true
		st.err = callValidator(x, id, v, occ, &st.d)
	}
	if st.err.Kind != ErrNone {
		return nil, st.err
	}
	return &st.d, Err{}
}

// compiledDet returns the answer slot of validator id when a compiled
// rule of the occurrence's anchor names it, else nil.
func (x *Exec) compiledDet(id string) *DetState {
	for i := range x.Rules {
		if r := &x.Rules[i]; r.Detector == id && r.Anchor == x.Anchor {
			return x.detState(r.DetectorSlot)
		}
	}
	return nil
}

// liveEnv is the runtime.LiveEnv of an evaluation with a store.
type liveEnv struct{ x *Exec }

func (e *liveEnv) Context() context.Context        { return e.x.Ctx }
func (e *liveEnv) Profiles() runtime.ProfileSet    { return e.x.Profiles }
func (e *liveEnv) Kept() (*runtime.KeptFacts, Err) { return e.x.Kept() }
func (e *liveEnv) KeptFact(f runtime.KeptFactSet) (*runtime.KeptFacts, Err) {
	return e.x.KeptFact(f)
}
func (e *liveEnv) Fingerprint() (string, Err)        { return e.x.Fingerprint() }
func (e *liveEnv) Provenance() (*runtime.Scope, Err) { return e.x.Provenance() }
func (e *liveEnv) Counter(i int) (int64, Err)        { return e.x.Counter(e.x.live.base + i) }

// Provide calls a catalog function: the time functions (spec 5.13) are
// the engine's, answered as for a compiled rule; any other is the
// host's provider.
func (e *liveEnv) Provide(fn string, args []any) (any, Err) {
	switch fn {
	case "calls_within":
		if n, ok := timeArgs(args, 1); ok {
			return e.x.CallsWithin(n)
		}
	case "tool_calls_within":
		if n, ok := timeArgs(args, 2); ok {
			if tool, ok := args[0].(string); ok {
				return e.x.ToolCallsWithin(tool, n)
			}
		}
	case "local_hour", "local_weekday":
		if len(args) == 1 {
			if zone, ok := args[0].(string); ok {
				if fn == "local_hour" {
					return e.x.LocalHour(zone)
				}
				return e.x.LocalWeekday(zone)
			}
		}
	default:
		return e.x.live.host.LiveProvide(fn, args)
	}
	// The checker admits only the catalog's signatures.
	return nil, Err{Kind: runtime.ErrNoSuchOverload, S: fn}
}

// timeArgs checks a window function's arity and returns its window, its
// last argument.
func timeArgs(args []any, arity int) (int64, bool) {
	if len(args) != arity {
		return 0, false
	}
	n, ok := args[arity-1].(int64)
	return n, ok
}
func (e *liveEnv) Detect(id string) (*runtime.Detection, Err) {
	return e.x.live.host.LiveDetect(id)
}

// Fact reads a fact by CEL name: batch_tools, tenant, content and
// provenance_nodes, which the engine knows (spec 5.11, 5.13), else
// through the generated code.
func (e *liveEnv) Fact(name string) (any, Err) {
	switch name {
	case "provenance_nodes":
		// As a compiled rule reads it: the scope's nodes, or the error
		// of the provenance facts.
		nodes, err := e.x.ProvenanceNodes()
		if err.Kind != runtime.ErrNone {
			return nil, err
		}
		return nodes, Err{}
	case "content":
		// As the host gave it, also after a transform rewrote it, as a
		// compiled rule reads it.
		return e.x.Content, Err{}
	case "batch_tools":
		return e.x.BatchTools(), Err{}
	case "tenant":
		if e.x.S == nil {
			return "", Err{}
		}
		return e.x.S.Tenant(), Err{}
	}
	return e.x.live.host.LiveFact(name)
}

func (e *liveEnv) CodeRejectTotal(i int) (int64, Err) {
	ls := e.x.live
	if i < 0 || i >= len(ls.codes) {
		return 0, Err{Kind: runtime.ErrInvalidArgument, S: "code_reject_total: no such code"}
	}
	return e.x.CodeRejectTotal(ls.codeBase+i, ls.codes[i])
}
