// Package redfa compiles the constant patterns of CEL's `matches` ahead of
// time. CEL's matches is RE2 as Go's regexp.MatchString runs it: an
// unanchored search for any match, parsed with syntax.Perl. A boolean,
// unanchored match needs no submatches, so a DFA is exact; redfa builds it
// from the very program regexp compiles (regexp/syntax: Parse with Perl,
// Simplify, Compile), over the runes as Go decodes them (an invalid byte is
// U+FFFD of width 1), with the empty-width assertions resolved by states
// that remember the previous rune's context (start of text, '\n', word
// character, other) and by the next rune's class, as RE2's DFA does.
//
// [Compile] decides, per pattern, one of:
//   - [Literal]: the pattern is a small set of literals, maybe anchored with
//     ^ and $ (\A, \z), with no case folding and no U+FFFD: string
//     comparisons (strings.Contains, HasPrefix, HasSuffix, ==).
//   - [DFA]: the minimal DFA's tables, for impl.RegexDFA; a literal every
//     match begins with lets the matcher jump with strings.Index, as Go's
//     regexp does.
//   - [Fallback]: Go's regexp, for a pattern that does not parse (the
//     compiler rejects those first) or whose DFA exceeds the bounds
//     (MaxStates, MaxClasses, and 65536 table cells).
//
// The decision is deterministic, and so are the tables.
package redfa

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is how a pattern is matched.
type Kind int

const (
	// Fallback is Go's regexp.
	Fallback Kind = iota
	// Literal is string comparisons with Plan.Literals.
	Literal
	// DFA is impl.RegexDFA with Plan.DFA.
	DFA
)

// Anchor is what a literal is compared with.
type Anchor int

const (
	// Anywhere: strings.Contains.
	Anywhere Anchor = iota
	// Prefix: strings.HasPrefix (the pattern starts with ^ or \A).
	Prefix
	// Suffix: strings.HasSuffix (it ends with $ or \z).
	Suffix
	// Whole: == (both).
	Whole
)

// Plan is how one pattern is matched.
type Plan struct {
	Pattern string
	Kind    Kind
	// Literals and Anchor, for Literal: the pattern matches s when one of
	// the literals is in s where Anchor says. They are sorted, and none
	// is redundant; "" means any s.
	Literals []string
	Anchor   Anchor
	// DFA is the DFA's tables, for DFA.
	DFA *Tables
	// Reason says why a pattern falls back.
	Reason string
}

// Bounds of the literal sets matched with string comparisons: each
// literal of a Contains is a pass over the input, so few of them; the
// others compare a prefix of the input.
const (
	maxContains = 4
	maxAnchored = 16
)

// Compile decides how pattern is matched and builds what that needs.
func Compile(pattern string) *Plan {
	p := &Plan{Pattern: pattern}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		p.Reason = err.Error()
		return p
	}
	re = re.Simplify()
	if lits, anchor, ok := literals(re); ok {
		p.Kind, p.Literals, p.Anchor = Literal, lits, anchor
		return p
	}
	prog, err := syntax.Compile(re)
	if err != nil {
		p.Reason = err.Error()
		return p
	}
	if surrogate(prog) {
		// regexp's one-pass matcher compares a literal prefix after \A as
		// bytes, spelling a surrogate as U+FFFD's: `\A\x{D800}` matches
		// "\uFFFD", which no rune-by-rune reading does.
		p.Reason = "a surrogate code point, which regexp's one-pass matcher reads as U+FFFD"
		return p
	}
	t, err := compileDFA(prog)
	if err != nil {
		p.Reason = err.Error()
		return p
	}
	p.Kind, p.DFA = DFA, t
	return p
}

// String describes the decision in a line, for oarc gen -v.
func (p *Plan) String() string {
	switch p.Kind {
	case Literal:
		fn := [...]string{Anywhere: "strings.Contains", Prefix: "strings.HasPrefix", Suffix: "strings.HasSuffix", Whole: "=="}[p.Anchor]
		if len(p.Literals) == 1 {
			return "literal, " + fn
		}
		return fmt.Sprintf("literal set of %d, %s", len(p.Literals), fn)
	case DFA:
		s := fmt.Sprintf("DFA, %d states, %d class", p.DFA.States(), p.DFA.Classes())
		if p.DFA.Classes() != 1 {
			s += "es"
		}
		if p.DFA.Prefix != "" {
			s += ", prefix " + strconv.Quote(p.DFA.Prefix)
		}
		return s
	}
	return "regexp (fallback: " + p.Reason + ")"
}

// literals returns the literal set re is, if it is one: an alternation of
// literals (after the parser's factoring, a tree of concatenations,
// alternations and small classes), between optional \A and \z.
func literals(re *syntax.Regexp) ([]string, Anchor, bool) {
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	var anchor Anchor
	if len(parts) > 0 && parts[0].Op == syntax.OpBeginText {
		anchor, parts = Prefix, parts[1:]
	}
	if len(parts) > 0 && parts[len(parts)-1].Op == syntax.OpEndText {
		anchor, parts = anchor|Suffix, parts[:len(parts)-1]
	}
	max := maxAnchored
	if anchor == Anywhere {
		max = maxContains
	}
	set := []string{""}
	for _, part := range parts {
		sub, ok := expand(part, max)
		if !ok {
			return nil, 0, false
		}
		if set, ok = cross(set, sub, max); !ok {
			return nil, 0, false
		}
	}
	return reduce(set, anchor), anchor, true
}

// expand is the set of strings re matches, if it is a set of at most max
// literals none of which holds U+FFFD (which an invalid byte of the input
// also matches) or folds case.
func expand(re *syntax.Regexp, max int) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if !plain(r) || re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(r) != r {
				return nil, false
			}
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= rune(max) {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if !plain(r) || len(out) == max {
					return nil, false
				}
				out = append(out, string(r))
			}
		}
		return out, len(out) > 0
	case syntax.OpCapture:
		return expand(re.Sub[0], max)
	case syntax.OpConcat:
		set := []string{""}
		for _, sub := range re.Sub {
			s, ok := expand(sub, max)
			if !ok {
				return nil, false
			}
			if set, ok = cross(set, s, max); !ok {
				return nil, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := expand(sub, max)
			if !ok || len(out)+len(s) > max {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	}
	return nil, false
}

// cross is every string of a followed by one of b, if there are at most
// max.
func cross(a, b []string, max int) ([]string, bool) {
	if len(a)*len(b) > max {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out, true
}

// reduce sorts set and drops the literals another makes redundant: for
// Contains one that holds another, for HasPrefix (HasSuffix) one that
// starts (ends) with another, and duplicates.
func reduce(set []string, anchor Anchor) []string {
	covers := map[Anchor]func(s, t string) bool{
		Anywhere: strings.Contains, Prefix: strings.HasPrefix, Suffix: strings.HasSuffix,
		Whole: func(s, t string) bool { return s == t },
	}[anchor]
	var out []string
	for i, s := range set {
		keep := true
		for j, t := range set {
			// Of equal literals, keep the first.
			if j != i && covers(s, t) && (s != t || j < i) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// surrogate is whether a rune instruction of p is a single surrogate.
func surrogate(p *syntax.Prog) bool {
	for k := range p.Inst {
		i := &p.Inst[k]
		if r, ok := single(i); ok && (i.Op == syntax.InstRune || i.Op == syntax.InstRune1) && utf8.RuneLen(r) < 0 {
			return true
		}
	}
	return false
}

// plain is whether a rune of a pattern matches exactly the bytes of its
// UTF-8 encoding: not U+FFFD (which each invalid byte of the input is too)
// and not a surrogate (which no input decodes to, but whose string is
// U+FFFD's).
func plain(r rune) bool { return r != utf8.RuneError && utf8.ValidRune(r) }
