// This file owns what `oarc test -cover` reports: per rule of a set, in
// how many fixture steps it fired, failed closed, had an evaluation error
// and was reached, from the answers of the engines that ran (docs/test.md
// defines each).

package harness

import (
	"strings"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/testkit/wire"
)

// SetCoverage is what the fixtures run against one set covered.
type SetCoverage struct {
	// Name is the set's packs' names joined with "+"; Paths what was
	// loaded (pack directories, or a rule file).
	Name  string   `json:"set"`
	Paths []string `json:"paths"`
	// Fixtures counts the fixtures run against the set (valid ones
	// without a rule of their own), Steps the steps evaluated.
	Fixtures int `json:"fixtures"`
	Steps    int `json:"steps"`
	// Invalid counts the set's fixtures that are invalid (and so did
	// not run): a set whose fixtures are all invalid has fixtures.
	Invalid int `json:"invalid,omitempty"`
	// Rules are the set's rules in evaluation order; empty when the set
	// did not load.
	Rules []*RuleCoverage `json:"rules"`

	index map[string]int
}

// RuleCoverage counts, for one rule, the fixture steps in which it did
// what each field names (a step answered by two engines counts once).
type RuleCoverage struct {
	Rule   string `json:"rule"`
	Pack   string `json:"pack"`
	File   string `json:"file"`
	Anchor string `json:"anchor"`
	// Fired: the step lists the rule in codes or monitored.
	Fired int `json:"fired"`
	// FailedClosed: it fired only because it failed closed (an
	// evaluation error of the rule in the same step).
	FailedClosed int `json:"failed_closed"`
	// Errors: the step reports an evaluation error of the rule.
	Errors int `json:"errors"`
	// Reached: the step is at the rule's anchor and no rule before it in
	// evaluation order blocked, so the rule was evaluated.
	Reached int `json:"reached"`
}

// Covered reports whether some step made the rule fire on its condition
// (not by failing closed).
func (r *RuleCoverage) Covered() bool { return r.Fired > r.FailedClosed }

// Status is one word for the rule's coverage: covered, failed-closed (it
// fired only by failing closed), not-fired (reached, never fired) or
// unreached.
func (r *RuleCoverage) Status() string {
	switch {
	case r.Covered():
		return "covered"
	case r.FailedClosed > 0:
		return "failed-closed"
	case r.Reached > 0:
		return "not-fired"
	}
	return "unreached"
}

// Covered counts the covered rules.
func (c *SetCoverage) Covered() int {
	n := 0
	for _, r := range c.Rules {
		if r.Covered() {
			n++
		}
	}
	return n
}

// Percent is the share of the set's rules covered, 100 for a set without
// rules.
func (c *SetCoverage) Percent() float64 {
	if len(c.Rules) == 0 {
		return 100
	}
	return 100 * float64(c.Covered()) / float64(len(c.Rules))
}

func newCoverage(s *compiler.Set, paths []string) *SetCoverage {
	c := &SetCoverage{Paths: append([]string(nil), paths...), Rules: []*RuleCoverage{}, index: map[string]int{}}
	if s == nil {
		return c
	}
	var names []string
	for _, pk := range s.Packs {
		names = append(names, pk.Name)
	}
	c.Name = strings.Join(names, "+")
	for i, r := range s.Rules {
		rc := &RuleCoverage{Rule: r.ID, Anchor: r.Anchor, File: r.File}
		if r.Pack != nil {
			rc.Pack = r.Pack.Name
		}
		c.Rules = append(c.Rules, rc)
		c.index[r.ID] = i
	}
	return c
}

// observe counts one step at anchor from the engines' answers (nil: the
// engine did not run or failed).
func (c *SetCoverage) observe(anchor string, answers ...*wire.Response) {
	var got []*wire.Response
	for _, a := range answers {
		if a != nil {
			got = append(got, a)
		}
	}
	if len(got) == 0 {
		return
	}
	c.Steps++
	for i, r := range c.Rules {
		var fired, failed, errored, reached bool
		for _, a := range got {
			inErrors := false
			for _, e := range a.Errors {
				if e.Rule == r.Rule {
					inErrors = true
				}
			}
			f := contains(a.Codes, r.Rule) || contains(a.Monitored, r.Rule)
			fired = fired || f
			failed = failed || f && (inErrors || contains(a.FailedClosed, r.Rule))
			errored = errored || inErrors
			if r.Anchor == anchor {
				blocker, isRule := c.index[a.Code]
				reached = reached || a.Effect != "block" || !isRule || blocker >= i
			}
		}
		if fired {
			r.Fired++
		}
		if failed {
			r.FailedClosed++
		}
		if errored {
			r.Errors++
		}
		if reached {
			r.Reached++
		}
	}
}
