package runtime

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a region of the content in code points, with the evaluation order
// of the rule that contributed it.
type span struct {
	start, end int
	order      int
	repl       string
}

// spanFacts returns the value of a span fact for a rule: the validator's
// value when the rule consulted one that supplied it, else the host's.
func (x *Exec) spanFacts(r *Rule, name string) []map[string]any {
	if r.DetectorSlot >= 0 && r.DetectorSlot < len(x.D.det) {
		st := &x.D.det[r.DetectorSlot]
		if st.gen == x.D.gen && st.err.Kind == ErrNone {
			switch {
			case name == "secret_matches" && st.d.Facts.Has&HasSecretMatches != 0:
				return st.d.Facts.SecretMatches
			case name == "pii_entities" && st.d.Facts.Has&HasPiiEntities != 0:
				return st.d.Facts.PiiEntities
			}
		}
	}
	v, _ := x.F.Get(name)
	l, _ := v.([]map[string]any)
	return l
}

// spanInt reads an int start or end (a json.Number counts when it spells an
// int); other types do not count.
func spanInt(m map[string]any, k string) (int64, bool) {
	switch v := m[k].(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case json.Number:
		if s := numberScalar(v); s.k == kInt {
			return s.i, true
		}
	}
	return 0, false
}

// applyTransforms rewrites the content with the spans of every enforced
// transform firing: spans are clipped to the content, merged where they
// overlap or touch, and each merged region takes the replacement of the
// first rule in evaluation order that contributed to it.
func (x *Exec) applyTransforms() {
	d := x.D
	content := x.Occ.Content
	// offs[i] is the byte offset of code point i; invalid bytes count as one
	// code point each, as in CEL's size(), and are kept as they are.
	d.offs = d.offs[:0]
	for i := range content {
		d.offs = append(d.offs, i)
	}
	n := int64(len(d.offs))
	d.offs = append(d.offs, len(content))
	d.spans = d.spans[:0]
	for order, r := range d.fired {
		if r.Effect != Transform {
			continue
		}
		for _, name := range r.Redact {
			for _, m := range x.spanFacts(r, name) {
				s, ok1 := spanInt(m, "start")
				e, ok2 := spanInt(m, "end")
				if !ok1 || !ok2 {
					continue
				}
				s, e = max(s, 0), min(e, n)
				if e <= s {
					continue
				}
				d.spans = append(d.spans, span{start: int(s), end: int(e), order: order, repl: r.Replacement})
			}
		}
	}
	if len(d.spans) == 0 {
		d.Content = content
		return
	}
	sort.Slice(d.spans, func(i, j int) bool {
		if d.spans[i].start != d.spans[j].start {
			return d.spans[i].start < d.spans[j].start
		}
		return d.spans[i].order < d.spans[j].order
	})
	var b strings.Builder
	b.Grow(len(content))
	pos := 0
	for i := 0; i < len(d.spans); {
		cur := d.spans[i]
		j := i + 1
		for ; j < len(d.spans) && d.spans[j].start <= cur.end; j++ {
			cur.end = max(cur.end, d.spans[j].end)
			if d.spans[j].order < cur.order {
				cur.order, cur.repl = d.spans[j].order, d.spans[j].repl
			}
		}
		b.WriteString(content[d.offs[pos]:d.offs[cur.start]])
		b.WriteString(cur.repl)
		pos = cur.end
		i = j
	}
	b.WriteString(content[d.offs[pos]:])
	d.Content = b.String()
}

// Rejection is the text shown to an agent for the decision: the deciding
// rule's copy, and always "Code: <ID>" on its own line so that agents can
// branch on the code. It is "" when no rule decided.
func (d *Decision) Rejection() string {
	if d.Rule == nil {
		return ""
	}
	return RejectionText(d.Rule)
}

// RejectionText builds the rejection text of a rule: the title, then the
// What, Cause, Why, Fix and Instead lines (each "Label: text", empty ones
// left out), then "Code: <ID>". Each copy text is put on one line: every
// line break in it (CR LF as one, LF, CR, VT, FF, NEL U+0085, LINE
// SEPARATOR U+2028, PARAGRAPH SEPARATOR U+2029) becomes a space, and each
// byte of invalid UTF-8 becomes U+FFFD (so that no decoder finds a line
// break in it either). A title that would read as a code line (it starts,
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
			default:
				b.WriteByte(c)
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
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// looksLikeCode reports whether s, once on one line, starts with "code:"
// in any case after white space (or line breaks, which become spaces).
func looksLikeCode(s string) bool {
	s = strings.TrimLeftFunc(s, unicode.IsSpace) // U+0085, U+2028, U+2029 included
	return len(s) >= 5 && strings.EqualFold(s[:5], "code:")
}
