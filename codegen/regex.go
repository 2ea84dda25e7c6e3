package codegen

import (
	"github.com/oarc/oarc/codegen/internal/redfa"
	"github.com/oarc/oarc/ir"
)

// RegexReport says how the generated code matches one constant pattern of
// `matches` (see docs/cel-semantics.md): compiled ahead of time, as string
// comparisons or a DFA, or with Go's regexp, and why.
type RegexReport struct {
	Rule    string // the rule's id
	Pattern string
	// Compiled is false for a pattern matched with Go's regexp.
	Compiled bool
	// How is the decision in words: "literal, strings.Contains", "literal
	// set of 2, ==", "DFA, 10 states, 7 classes, prefix \"rm\"", "regexp
	// (fallback: more than 4000 DFA states)".
	How string
}

// Regexes reports how [Generate] matches each constant pattern of the
// rules of s: per rule in the set's order, each pattern once, in the order
// of the when.
func Regexes(s *ir.Set) []RegexReport {
	plans := map[string]*redfa.Plan{}
	var out []RegexReport
	for _, r := range s.Rules {
		seen := map[string]bool{}
		ir.Walk(r.When, func(e ir.Expr) bool {
			c, ok := e.(*ir.Call)
			if !ok || c.Op != ir.OpMatches || len(c.Args) != 2 {
				return true
			}
			k, ok := c.Args[1].(*ir.Const)
			if !ok {
				return true
			}
			pat, ok := k.Value.(string)
			if !ok || seen[pat] {
				return true
			}
			seen[pat] = true
			p := plans[pat]
			if p == nil {
				p = redfa.Compile(pat)
				plans[pat] = p
			}
			out = append(out, RegexReport{Rule: r.ID, Pattern: pat, Compiled: p.Kind != redfa.Fallback, How: p.String()})
			return true
		})
	}
	return out
}
