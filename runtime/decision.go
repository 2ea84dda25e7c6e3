package runtime

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// RuleError is an evaluation error of one rule (Rule is "" for an error of
// the occurrence itself, such as an unapplied session update).
type RuleError struct {
	Rule string
	Err  Err
	// Allow says that the rule is an enforced allow rule: its failure can
	// leave an action off a deny-by-default allowlist (spec 5.8), which
	// the rejection then says. A monitored allow rule allows nothing
	// whether or not it fails, so its failure is no reason to name.
	Allow bool
}

// Decision is the outcome of one occurrence. Reuse one Decision per
// goroutine: its slices keep their capacity, so evaluation does not
// allocate. They are valid until the next evaluation into the Decision.
// Do not copy a Decision to evaluate into both: a copy shares the
// original's buffers, so that an evaluation into one overwrites what the
// other holds (and two goroutines evaluating into copies race). To keep
// a decision's contents past the next evaluation, copy the fields
// needed (slices.Clone) or use another Decision.
type Decision struct {
	Effect Effect
	// Code is the blocking rule, else the first enforced firing whose
	// effect is the decision, else "".
	Code string
	// Rule describes the rule behind Code, nil if none.
	Rule  *Rule
	Codes []string // every enforced firing, in evaluation order
	// Firings describe the enforced firings of Codes, one each, in the
	// same order: the rule (the pack's deny-by-default code as a rule) and
	// whether it fired only by failing closed. Banner and Notes are built
	// from them.
	Firings   []Firing
	Monitored []string // every monitored firing
	// FailedClosed lists the firings that happened only because their rule
	// could not be evaluated and fails closed, in evaluation order.
	FailedClosed []string
	Errors       []RuleError // every evaluation error
	// Content is the rewritten content when Effect is Transform or Ask (an
	// approved ask goes ahead with what the transforms rewrote), else the
	// occurrence's content unchanged.
	Content string
	// Redactions are the merged regions the transform replaced (spec 5.6),
	// in content order, in code points of the occurrence's content: for a
	// host that keeps the content in several pieces (the MCP guard writes
	// a tool result's text back into each of its units, spec 11) and
	// rewrites each piece itself. Empty when nothing was replaced.
	Redactions []Redaction
	// Provenance holds the provenance facts of the occurrence (spec 5.7),
	// when a rule read one.
	Provenance Scope
	// Kept holds the session facts the engine keeps (spec 5.10) as the
	// occurrence's rules read them, when a rule read one.
	Kept KeptFacts
	// BatchTools is batch_tools (spec 5.11), when a rule read it: the tools
	// of the check the occurrence belongs to, in order (its own tool when
	// it was evaluated alone).
	BatchTools []string
	// ProvenanceNodes is provenance_nodes (spec 5.11), when a rule read it.
	ProvenanceNodes []map[string]any
}

// Reset clears the decision for reuse, keeping its buffers.
//
// It writes only the fields that are not already empty: a decision reused
// for occurrences that fire nothing stays empty, and a store of a pointer
// into a decision on the heap costs a write barrier check each (this is
// most of the cost of an occurrence at an anchor without rules).
// TestResetEveryField keeps it complete.
func (d *Decision) Reset() {
	if d.empty() {
		return
	}
	if d.Effect != Allow {
		d.Effect = Allow
	}
	if d.Code != "" {
		d.Code = ""
	}
	if d.Rule != nil {
		d.Rule = nil
	}
	truncate(&d.Codes)
	truncate(&d.Firings)
	truncate(&d.Monitored)
	truncate(&d.FailedClosed)
	truncate(&d.Errors)
	if d.Content != "" {
		d.Content = ""
	}
	truncate(&d.Redactions)
	p := &d.Provenance
	truncate(&p.Tools)
	truncate(&p.Origins)
	truncate(&p.TrustTiers)
	truncate(&p.Labels)
	if p.WantNodes {
		p.WantNodes = false
	}
	truncate(&p.Nodes)
	d.Kept.reset()
	truncate(&d.BatchTools)
	if d.ProvenanceNodes != nil {
		d.ProvenanceNodes = nil
	}
}

// empty reports whether the decision is as Reset leaves it, in one test
// of all its fields (lengths and numbers or-ed together): the common case
// of a decision reused after an occurrence that fired nothing.
func (d *Decision) empty() bool {
	p, k := &d.Provenance, &d.Kept
	h := &k.History
	l, t := &h.Last, &h.Times
	n := int64(d.Effect) | int64(len(d.Code)) | int64(len(d.Codes)) | int64(len(d.Firings)) |
		int64(len(d.Monitored)) | int64(len(d.FailedClosed)) | int64(len(d.Errors)) | int64(len(d.Content)) |
		int64(len(d.Redactions)) | int64(len(p.Tools)) | int64(len(p.Origins)) | int64(len(p.TrustTiers)) |
		int64(len(p.Labels)) | int64(len(p.Nodes)) | int64(len(d.BatchTools)) |
		int64(len(k.Fingerprint)) | k.RepeatCount | int64(len(k.RecentToolNames)) | k.SameCodeRun |
		h.Calls | int64(len(h.Tools)) | h.Run | h.CodeRun | h.LastRepeat | h.LastCodeRun |
		int64(len(h.Totals)) | int64(len(h.TotalsKnown)) |
		int64(len(l.Tool)) | int64(len(l.Code)) | l.Time | int64(len(t.At)) | int64(len(t.Tools)) | t.DroppedAt
	return n == 0 && d.Rule == nil && d.ProvenanceNodes == nil && !p.WantNodes && !k.Read &&
		!l.HasFingerprint && l.Fingerprint == (Fingerprint{}) && !t.Kept && !t.Dropped &&
		cap(k.RecentToolNames) == cap(k.names)
}

// truncate empties *s, keeping its buffer, and writes nothing when it is
// already empty (see [Decision.Reset]).
func truncate[T any](s *[]T) {
	if len(*s) != 0 {
		*s = (*s)[:0]
	}
}

// Redaction is one merged region of a transform: the code points [Start,
// End) of the original content were replaced by Replacement.
type Redaction struct {
	Start, End  int64
	Replacement string
}

// Firing is one enforced firing of an occurrence.
type Firing struct {
	Rule         *Rule
	FailedClosed bool
}

// Banner is the text of every enforced warn firing (spec 5.1), for the
// host to append to the tool's output (the call goes ahead unless the
// decision blocks): one part per firing, in evaluation order, parts
// separated by a blank line (see [Decision.Notes] for a part's layout).
// It is "" when no warn fired.
func (d *Decision) Banner() string { return d.parts(Warn) }

// Notes is the text of every enforced nudge firing (spec 5.1), for the
// host to queue as a user-role note for the agent's next prompt, whatever
// the decision. Each part is, on lines of their own: for a firing that
// failed closed, the line the rejection starts with ("This rule could not
// be evaluated (why); it applies because it fails closed."); the rule's
// title (its id when it has none); "Fix: ..." and "Instead: ..." when the
// copy has them; and "Code: <ID>". Copy text is sanitised as in the
// rejection. Parts are separated by a blank line; "" when no nudge fired.
func (d *Decision) Notes() string { return d.parts(Nudge) }

func (d *Decision) parts(eff Effect) string {
	n := 0
	for _, f := range d.Firings {
		if f.Rule != nil && f.Rule.Effect == eff {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	var b strings.Builder
	for _, f := range d.Firings {
		if f.Rule == nil || f.Rule.Effect != eff {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if f.FailedClosed {
			d.writeFailedClosed(&b, f.Rule.ID)
		}
		r := f.Rule
		if !blank(r.Copy.Title) {
			writeLine(&b, "", r.Copy.Title)
		} else {
			b.WriteString(r.ID)
			b.WriteByte('\n')
		}
		writeLine(&b, "Fix", r.Copy.Fix)
		writeLine(&b, "Instead", r.Copy.Instead)
		b.WriteString("Code: ")
		b.WriteString(r.ID)
	}
	return b.String()
}

// writeFailedClosed writes the line that says rule id could not be
// evaluated, with the error that made it fire.
func (d *Decision) writeFailedClosed(b *strings.Builder, id string) {
	b.WriteString("This rule could not be evaluated")
	for _, e := range d.Errors {
		if e.Rule == id {
			if msg := e.Err.Error(); msg != "" {
				b.WriteString(" (")
				writeOneLine(b, msg)
				b.WriteString(")")
			}
			break
		}
	}
	b.WriteString("; it applies because it fails closed.\n")
}

// blank reports a copy text that is empty or only white space: it says
// nothing, so it is left out as in the rendered context (impl.Render
// leaves such a title, fix or instead out); a blank title leaves the
// rule untitled.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// writeLine writes one copy line ("Label: text"; the title unlabelled
// unless it reads as a code line), or nothing for a blank text: a
// labelled line with nothing after its label tells an agent nothing.
func writeLine(b *strings.Builder, label, s string) {
	if blank(s) {
		return
	}
	if label == "" && looksLikeCode(s) {
		label = "Title"
	}
	if label != "" {
		b.WriteString(label)
		b.WriteString(": ")
	}
	writeOneLine(b, s)
	b.WriteByte('\n')
}

// failedClosed returns the error that made the deciding rule fire, when it
// fired only by failing closed.
func (d *Decision) failedClosed() (Err, bool) {
	if d.Rule == nil {
		return Err{}, false
	}
	for _, id := range d.FailedClosed {
		if id != d.Rule.ID {
			continue
		}
		for _, e := range d.Errors {
			if e.Rule == id {
				return e.Err, true
			}
		}
		return Err{}, true
	}
	return Err{}, false
}

// Rejection is the text shown to an agent for the decision: the deciding
// rule's copy, and always "Code: <ID>" on its own line so that agents can
// branch on the code. It is "" when no rule decided.
//
// When the deciding rule fired only because it could not be evaluated (it
// fails closed), the text starts with a line that says so and why, so that
// an agent is never told it broke a rule it did not break.
func (d *Decision) Rejection() string {
	if d.Rule == nil {
		// A block no rule decided: the occurrence could not be evaluated
		// at all (an anchor the catalog does not have).
		for _, e := range d.Errors {
			if e.Rule == "" && d.Effect == Block {
				var b strings.Builder
				b.WriteString("The guardrails could not evaluate this action (")
				writeOneLine(&b, e.Err.Error())
				b.WriteString("); it is blocked.")
				return b.String()
			}
		}
		return ""
	}
	text := RejectionText(d.Rule)
	if _, ok := d.failedClosed(); ok {
		var b strings.Builder
		d.writeFailedClosed(&b, d.Rule.ID)
		b.WriteString(text)
		return b.String()
	}
	if d.Rule.DenyByDefault {
		// An allowlist's block: an allow rule that could not be evaluated
		// may be why the action is not on it (spec 5.8: an allow that
		// failed never allows). Say so, rule by rule, before the copy.
		var b strings.Builder
		for _, e := range d.Errors {
			if !e.Allow {
				continue
			}
			b.WriteString("The allow rule ")
			b.WriteString(e.Rule)
			b.WriteString(" could not be evaluated")
			if msg := e.Err.Error(); msg != "" {
				b.WriteString(" (")
				writeOneLine(&b, msg)
				b.WriteString(")")
			}
			b.WriteString(", so it did not allow this action.\n")
		}
		if b.Len() > 0 {
			b.WriteString(text)
			return b.String()
		}
	}
	return text
}

// Question is the text a host puts to a person when the decision is [Ask]
// (spec 5.12): a line saying that the action needs a person's approval,
// then the rejection of the first ask firing (its copy, ending "Code:
// <ID>"). It is "" for any other decision. The host goes ahead only on an
// explicit yes; no answer, a timeout, a refusal or no way to ask blocks
// the action with [Decision.Rejection].
func (d *Decision) Question() string {
	if d.Effect != Ask || d.Rule == nil {
		return ""
	}
	return askLine + d.Rejection()
}

// Unasked is the rejection of an [Ask] decision that no person could be
// asked about (a host or client with no way to ask, spec 5.12): a line
// saying that approval was needed and could not be asked, then the
// rejection. It is "" for any other decision.
func (d *Decision) Unasked() string {
	if d.Effect != Ask || d.Rule == nil {
		return ""
	}
	return unaskedLine + d.Rejection()
}

// The first lines of [Decision.Question] and [Decision.Unasked]; the
// reference interpreter writes the same words (spec 5.12 asks for the
// meaning, the harness compares the texts).
const (
	askLine     = "This action needs a person's approval before it runs.\n"
	unaskedLine = "This action needs a person's approval, and no person could be asked; it is blocked.\n"
)

// RejectionText builds the rejection text of a rule: the title, then the
// What, Cause, Why, Fix and Instead lines (each "Label: text", empty ones
// left out), then "Code: <ID>". Each copy text is put on one line: every
// line break in it (CR LF as one, LF, CR, VT, FF, NEL U+0085, LINE
// SEPARATOR U+2028, PARAGRAPH SEPARATOR U+2029) becomes a space, and each
// byte of invalid UTF-8, every other control character but the tab (NUL,
// ESC, DEL, C1) and every other invisible character ([HiddenRune]: Unicode
// Cf, such as zero width, bidirectional controls, tag characters, soft
// hyphen, BOM; the Hangul fillers; variation selectors, but for U+FE0E and
// U+FE0F directly after a visible character) becomes U+FFFD (so that no
// decoder finds a line break in it either, and nothing invisible reaches
// the agent, spec 5.1). A title that would read as a code line (it
// starts, after white space, with "code:" in any case) is labelled
// "Title: ". So
// the last line is the only one that starts with "Code:", whatever the copy
// says, for readers that split on any line break.
func RejectionText(r *Rule) string {
	var b strings.Builder
	line := func(label, s string) { writeLine(&b, label, s) }
	line("", r.Copy.Title)
	line("What", r.Copy.What)
	line("Cause", r.Copy.Cause)
	line("Why", r.Copy.Why)
	line("Fix", r.Copy.Fix)
	line("Instead", r.Copy.Instead)
	b.WriteString("Code: ")
	b.WriteString(r.ID)
	return b.String()
}

// writeOneLine writes s with its line breaks made spaces and its invalid
// UTF-8 and invisible characters made U+FFFD (see RejectionText).
func writeOneLine(b *strings.Builder, s string) {
	prev := rune(-1) // the rune before, as s has it
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++
					c = '\n'
				}
				b.WriteByte(' ')
			case '\n', '\v', '\f':
				b.WriteByte(' ')
			case '\t':
				b.WriteByte(c)
			default:
				if c < ' ' || c == 0x7f {
					// NUL, ESC and the other controls: nothing invisible
					// in the text the agent reads.
					b.WriteString("\uFFFD")
				} else {
					b.WriteByte(c)
				}
			}
			prev = rune(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString("\uFFFD")
		case r == '\u0085' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case HiddenAfter(prev, r):
			// The C1 controls, the format characters (zero width,
			// bidirectional controls, tag characters, soft hyphen, BOM),
			// the other default-ignorable characters (Hangul fillers, the
			// combining grapheme joiner) and the variation selectors but
			// a presentation selector after a visible character:
			// nothing invisible reaches the agent.
			b.WriteString("\uFFFD")
		default:
			b.WriteString(s[i : i+n])
		}
		prev = r
		i += n
	}
}

// looksLikeCode reports whether s, once on one line, starts with "code:"
// in any case after white space (or line breaks, which become spaces).
func looksLikeCode(s string) bool {
	s = strings.TrimLeftFunc(s, unicode.IsSpace) // U+0085, U+2028, U+2029 included
	return len(s) >= 5 && strings.EqualFold(s[:5], "code:")
}
