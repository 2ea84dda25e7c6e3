package runtime

import (
	"context"
	"errors"
)

// RuleStore is a store of rules an agent writes for itself at run time
// (spec 12), as an evaluator runs them: package rulestore implements it,
// and a host passes one to a generated New with [WithRuleStore]. Its rules
// are in force at once, through an interpreter, after the compiled rules
// of their anchor and in the same decision, records and counters:
// candidates in monitor, active rules enforced. The interface keeps what
// an evaluator links small: it names only the runtime's types.
type RuleStore interface {
	// Digest is the digest of the compilation set the store checked its
	// rules against: an evaluator of another set refuses the store.
	Digest() string
	// Live returns the store's rules in force at an anchor, as they stand
	// (nil: none). What it returns never changes: a change of the store
	// makes new LiveRules, so an evaluation sees one version throughout.
	Live(anchor string) LiveRules
}

// LiveRules are a rule store's rules at one anchor, ready to evaluate
// (built once per store change, not per occurrence).
type LiveRules interface {
	// Rules describe the rules in evaluation order (kind rank, then id).
	Rules() []LiveRule
	// Keys are the counters the rules read: the evaluator reads them in
	// the occurrence's one snapshot, and [LiveEnv.Counter] answers them
	// by index in this list.
	Keys() []CounterKey
	// Codes are the ids of the rules that read code_reject_total:
	// [LiveEnv.CodeRejectTotal] answers them by index in this list.
	Codes() []string
	// Eval evaluates the condition of rule i (selector, profiles, flow,
	// validator, when): whether it holds, or the evaluation error. The
	// evaluator applies on_error, monitor and the effect.
	Eval(i int, env LiveEnv) (bool, Err)
	// Observe receives the decision of an occurrence once it is made, and
	// how many of the rules were evaluated (an enforced block ends an
	// occurrence): the store's trials count from it. The decision is
	// valid only during the call.
	Observe(session string, evaluated int, d *Decision)
}

// LiveRule is a rule of a store as an evaluator applies it: Monitor is
// set for a candidate, whatever its document says, and clear for an
// active rule; Pack is "store".
type LiveRule struct {
	Rule
	// Fire is the key of the rule's fire counter (a store's rules keep
	// their counters, read or not); Increment and Reset those its
	// on_fire names.
	Fire      CounterKey
	Increment []CounterKey
	Reset     []CounterKey
}

// LiveEnv is what a store's rule reads of the occurrence it is evaluated
// on, from the evaluator: the same facts, session state, providers and
// validators as the compiled rules, read once per occurrence. It is valid
// only during [LiveRules.Eval].
type LiveEnv interface {
	// Context is the evaluation's context.
	Context() context.Context
	// Profiles are the profiles the host supplied.
	Profiles() ProfileSet
	// Fact reads a fact the host fills, by CEL name (a fact the set reads
	// lazily through the catalog's Env.Lazy), or one the engine knows:
	// batch_tools, tenant, content and provenance_nodes (spec 5.11,
	// 5.13), as compiled rules read them. An unknown name is nil.
	Fact(name string) (any, Err)
	// Kept returns the session facts the engine keeps (spec 5.10) and
	// Fingerprint tool_args_fingerprint; CodeRejectTotal the count of
	// Codes()[i].
	Kept() (*KeptFacts, Err)
	// KeptFact returns them for a read of the one fact f: the occurrence's
	// override of f, when it has one, without the session's record (spec
	// 5.10), as compiled rules read it.
	KeptFact(f KeptFactSet) (*KeptFacts, Err)
	Fingerprint() (string, Err)
	CodeRejectTotal(i int) (int64, Err)
	// Provenance returns the provenance facts of the occurrence.
	Provenance() (*Scope, Err)
	// Counter returns Keys()[i] as the occurrence's snapshot holds it.
	Counter(i int) (int64, Err)
	// Provide calls the host's provider of a catalog function.
	Provide(fn string, args []any) (any, Err)
	// Detect consults a validator (at most once per occurrence for the
	// store's rules).
	Detect(validator string) (*Detection, Err)
}

// WithRuleStore makes an evaluator run a rule store's rules (spec 12).
// With a store, the session keeps every counter, the record of tool calls
// and the provenance the store's rules may read, whatever the compiled
// rules read (spec 5.9); an evaluator without one pays nothing for it.
func WithRuleStore(s RuleStore) Option {
	return func(c *Config) { c.RuleStore = s }
}

// ErrRuleStoreSet is wrapped by the error of New given a rule store that
// checked its rules against another compilation set: its rules' ids,
// references and facts are not known to hold for this one.
var ErrRuleStoreSet = errors.New("oarc: the rule store was opened for another compilation set")
