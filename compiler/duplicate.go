// This file owns the duplicate-rule check (OAR_DUPLICATE): the dedup guard
// of a rule store (seed 001), as a warning of oarc check.

package compiler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// checkDuplicates warns, at the later rule (in evaluation order), when two
// rules of the set fire on the same occurrences by construction: the same
// anchor, the same selector (the same facts with the same values, in any
// order), the same `when` once its white space is normalised
// ([NormalizeWhen]), and the same flow and detector, which are part of
// the condition too. The effect and the copy do not count: two rules with
// one condition are one rule, or a conflict, either way worth a look.
// Left out: rules of files with errors, with a when that does not check
// or with a duplicate id, and rules
// with no condition at all (no selector, when, flow or detector), which
// fire on every occurrence of their anchor and differ, when there are
// several, by what they do (counters, effects). It is a warning: the set
// still loads.
func (l *packLoader) checkDuplicates() {
	file := map[*Rule]*ruleFile{}
	for _, f := range l.files {
		if f.rule != nil {
			file[f.rule] = f
		}
	}
	ids := map[string]int{}
	for _, r := range l.set.Rules {
		ids[r.ID]++
	}
	first := map[string]*ruleFile{}
	for _, r := range l.set.Rules {
		f := file[r]
		if f == nil || f.errs > 0 || !f.idValid || r.ID == "" || ids[r.ID] > 1 || r.When != "" && r.WhenAST == nil {
			continue
		}
		if len(r.Selector) == 0 && r.When == "" && r.Flow == nil && r.Detector == "" {
			continue // no condition: it fires on every occurrence of its anchor
		}
		key := conditionKey(r)
		prev, ok := first[key]
		if !ok {
			first[key] = f
			continue
		}
		pos := f.idPos
		same := "anchor"
		for _, p := range []struct {
			has  bool
			what string
		}{{len(r.Selector) > 0, "selector"}, {r.Flow != nil, "flow"}, {r.Detector != "", "detector"}} {
			if p.has {
				same += ", " + p.what
			}
		}
		if r.When != "" {
			pos = r.WhenPos
			same += " and when (white space aside)"
		} else {
			same += ", and no when"
		}
		l.diags = append(l.diags, Diagnostic{Pos: pos, Severity: Warning, Code: CodeDuplicate,
			Message: fmt.Sprintf("rule %s duplicates %s (%s): the same %s; keep one", r.ID, prev.rule.ID, prev.src.name, same)})
	}
}

// conditionKey is a rule's condition, canonical: equal keys fire on the
// same occurrences.
func conditionKey(r *Rule) string {
	var b strings.Builder
	b.WriteString(strconv.Quote(r.Anchor))
	clauses := make([]string, 0, len(r.Selector))
	for _, c := range r.Selector {
		vals := make([]string, 0, len(c.Values))
		for _, v := range c.Values {
			vals = append(vals, fmt.Sprintf("%T:%#v", v, v))
		}
		slices.Sort(vals)
		clauses = append(clauses, strconv.Quote(c.Fact)+"="+strings.Join(slices.Compact(vals), ","))
	}
	slices.Sort(clauses)
	b.WriteString("\x00selector:" + strings.Join(clauses, ";"))
	b.WriteString("\x00when:" + NormalizeWhen(r.When))
	if fl := r.Flow; fl != nil {
		fmt.Fprintf(&b, "\x00flow:%d,%t", fl.Within, fl.Contiguous)
		for _, step := range fl.Steps {
			alts := slices.Clone(step)
			slices.Sort(alts)
			b.WriteString("|" + strings.Join(alts, ","))
		}
	}
	b.WriteString("\x00detector:" + r.Detector)
	return b.String()
}

// NormalizeWhen is the text of a CEL expression with its layout taken
// out: every run of white space becomes one space between two word
// characters (letters, digits, _), where it separates tokens, and nothing
// elsewhere; // comments go; both ends are trimmed. The inside of string
// and bytes literals ('...', "...", their triple-quoted and raw forms) is
// left untouched. Two expressions that check and normalise alike are the
// same tokens, so the same expression.
func NormalizeWhen(s string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			space = true
			i++
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			space = true
			continue
		}
		if space && b.Len() > 0 && isIdentByte(c) {
			if out := b.String(); isIdentByte(out[len(out)-1]) {
				b.WriteByte(' ')
			}
		}
		space = false
		if c != '\'' && c != '"' {
			b.WriteByte(c)
			i++
			continue
		}
		end := literalEnd(s, i)
		b.WriteString(s[i:end])
		i = end
	}
	return b.String()
}

// literalEnd returns the index just past the string literal whose opening
// quote is at s[i] (the end of s when it is not closed).
func literalEnd(s string, i int) int {
	q := s[i]
	raw := isRawPrefix(s, i)
	delim := string(q)
	if strings.HasPrefix(s[i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	for j := i + len(delim); j < len(s); j++ {
		if s[j] == '\\' && !raw {
			j++
			continue
		}
		if strings.HasPrefix(s[j:], delim) {
			return j + len(delim)
		}
	}
	return len(s)
}

// isRawPrefix reports whether the quote at s[i] opens a raw literal: r or R
// right before it, itself at the start of a token or after a bytes prefix.
func isRawPrefix(s string, i int) bool {
	if i == 0 || s[i-1] != 'r' && s[i-1] != 'R' {
		return false
	}
	k := i - 2
	if k >= 0 && (s[k] == 'b' || s[k] == 'B') {
		k--
	}
	return k < 0 || !isIdentByte(s[k])
}
