package runtime

import (
	"errors"
	"strings"
)

// Option configures an evaluator when a host binds its Env (the generated
// New of a compilation set).
type Option func(*Config)

// Config is what the options of an evaluator set. Generated code reads it;
// hosts use the With... options.
type Config struct {
	// Recorder receives a decision record per occurrence (nil: none).
	Recorder Recorder
	// RuleStore holds rules written at run time (nil: none; spec 12).
	RuleStore RuleStore
}

// MissingError reports, when an evaluator is bound, the validators and
// providers that the rules of the compilation set use and the Env does not
// have. The evaluator is usable all the same: a rule that reaches a missing
// one has an evaluation error (its on_error applies).
type MissingError struct {
	Validators []string // validator ids, sorted
	Providers  []string // functions by CEL name, sorted
}

func (e *MissingError) Error() string {
	var parts []string
	if len(e.Validators) > 0 {
		parts = append(parts, "validators not registered: "+strings.Join(e.Validators, ", "))
	}
	if len(e.Providers) > 0 {
		parts = append(parts, "providers missing: "+strings.Join(e.Providers, ", "))
	}
	return "oarc: " + strings.Join(parts, "; ")
}

// ErrBadCall is wrapped by the error of Evaluate called on a nil
// evaluator (one not made by New), or with a nil occurrence or decision.
// A non-nil decision then blocks, with an error of kind
// [ErrInvalidArgument]: a host's mistake never allows.
var ErrBadCall = errors.New("oarc: bad call of Evaluate")

// ErrLazyIgnored is wrapped by the error of a set's New given an Env whose
// Lazy has a provider for a fact the set reads from the occurrence's
// Facts, not lazily (it was generated without oarc gen -lazy for the
// fact; tool and tool_args are never read lazily): the rules would read
// the fact's zero value, not the provider's answer, so New makes no
// evaluator. Generate the set with -lazy for the fact, or fill it in
// Facts and leave the provider out of this set's Env.
var ErrLazyIgnored = errors.New("oarc: a lazy provider of the Env is for a fact this set reads from Facts")

// ErrUnknownAnchor is returned by an evaluation whose occurrence's anchor
// is not an anchor of the catalog (the zero Anchor, or a value no constant
// has). Such an occurrence is never allowed: its decision is a block with
// an error of kind [ErrAnchor].
var ErrUnknownAnchor = errors.New("oarc: the occurrence's anchor is not an anchor of the catalog")

// ErrCheckAnchors is wrapped by the error of EvaluateCheck given
// occurrences at different anchors: a check is a list of occurrences at
// one anchor (spec 5.11). Nothing is then evaluated or applied, and every
// decision blocks with an error of kind [ErrInvalidArgument].
var ErrCheckAnchors = errors.New("oarc: the occurrences of a check are at different anchors")
