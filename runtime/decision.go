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
}

// Decision is the outcome of one occurrence. Reuse one Decision per
// goroutine: its slices keep their capacity, so evaluation does not
// allocate. They are valid until the next evaluation into the Decision.
type Decision struct {
	Effect Effect
	// Code is the blocking rule, else the first enforced firing whose
	// effect is the decision, else "".
	Code string
	// Rule describes the rule behind Code, nil if none.
	Rule      *Rule
	Codes     []string // every enforced firing, in evaluation order
	Monitored []string // every monitored firing
	// FailedClosed lists the firings that happened only because their rule
	// could not be evaluated and fails closed, in evaluation order.
	FailedClosed []string
	Errors       []RuleError // every evaluation error
	// Content is the rewritten content when Effect is Transform, else the
	// occurrence's content unchanged.
	Content string
	// Provenance holds the provenance facts of the occurrence (spec 5.7),
	// when a rule read one.
	Provenance Scope
}

// Reset clears the decision for reuse, keeping its buffers.
func (d *Decision) Reset() {
	d.Effect = Allow
	d.Code = ""
	d.Rule = nil
	d.Codes = d.Codes[:0]
	d.Monitored = d.Monitored[:0]
	d.FailedClosed = d.FailedClosed[:0]
	d.Errors = d.Errors[:0]
	d.Content = ""
	p := &d.Provenance
	p.Tools, p.Origins, p.TrustTiers, p.Labels = p.Tools[:0], p.Origins[:0], p.TrustTiers[:0], p.Labels[:0]
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
	if e, ok := d.failedClosed(); ok {
		var b strings.Builder
		b.WriteString("This rule could not be evaluated")
		if msg := e.Error(); msg != "" {
			b.WriteString(" (")
			writeOneLine(&b, msg)
			b.WriteString(")")
		}
		b.WriteString("; it applies because it fails closed.\n")
		b.WriteString(text)
		return b.String()
	}
	return text
}

// RejectionText builds the rejection text of a rule: the title, then the
// What, Cause, Why, Fix and Instead lines (each "Label: text", empty ones
// left out), then "Code: <ID>". Each copy text is put on one line: every
// line break in it (CR LF as one, LF, CR, VT, FF, NEL U+0085, LINE
// SEPARATOR U+2028, PARAGRAPH SEPARATOR U+2029) becomes a space, and each
// byte of invalid UTF-8, every other control character but the tab (NUL,
// ESC, DEL, C1) and every invisible format character (Unicode Cf: zero
// width, bidirectional controls, tag characters, soft hyphen, BOM) becomes
// U+FFFD (so that no decoder finds a line break in it either, and nothing
// invisible reaches the agent, spec 5.1). A title that would read as a code line (it starts,
// after white space, with "code:" in any case) is labelled "Title: ". So
// the last line is the only one that starts with "Code:", whatever the copy
// says, for readers that split on any line break.
func RejectionText(r *Rule) string {
	var b strings.Builder
	line := func(label, s string) {
		if s == "" {
			return
		}
		if label == "" && looksLikeCode(s) {
			label = "Title"
		}
		if label != "" {
			b.WriteString(label)
			b.WriteString(": ")
		}
		writeOneLine(&b, s)
		b.WriteByte('\n')
	}
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
// UTF-8 made U+FFFD (see RejectionText).
func writeOneLine(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '\r':
				if i+1 < len(s) && s[i+1] == '\n' {
					i++
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
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString("\uFFFD")
		case r == '\u0085' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r):
			// The C1 controls, and the invisible format characters (zero
			// width, bidirectional controls, tag characters, soft
			// hyphen, BOM): nothing invisible reaches the agent.
			b.WriteString("\uFFFD")
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// HiddenRune reports whether r is a character copy text may not carry to
// an agent: a control character other than tab and the line breaks (which
// become spaces), or an invisible format character (Unicode category Cf).
// Every text built from copy (the rejection, the rendered context) shows
// such a character as U+FFFD (spec 5.1); oarc check warns about them.
func HiddenRune(r rune) bool {
	switch r {
	case '\t', '\n', '\r', '\v', '\f', 0x85:
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// looksLikeCode reports whether s, once on one line, starts with "code:"
// in any case after white space (or line breaks, which become spaces).
func looksLikeCode(s string) bool {
	s = strings.TrimLeftFunc(s, unicode.IsSpace) // U+0085, U+2028, U+2029 included
	return len(s) >= 5 && strings.EqualFold(s[:5], "code:")
}
