package impl

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"
)

// span is a region of the content in code points, with the evaluation order
// of the rule that contributed it.
type span struct {
	start, end int
	order      int
	repl       string
}

// DetectorSpans returns a span fact for the i-th enforced firing, of
// transform rule r: the validator's value when the rule got an answer
// from its validator with that fact, else the host's (spec 5.5: a
// validator's facts replace the host's only for a rule that got as far as
// its validator; a rule that failed before it never borrows the answer
// another rule of the occurrence got from the same validator).
func (x *Exec) DetectorSpans(i int, r *Rule, has runtime.DetectorFactSet, host []map[string]any) []map[string]any {
	if l, ok := x.validatorSpans(i, r, has); ok {
		return l
	}
	return host
}

// validatorSpans returns the validator's value of a span fact (has) for
// the i-th enforced firing, of transform rule r, and whether r got an
// answer from its validator with that fact.
func (x *Exec) validatorSpans(i int, r *Rule, has runtime.DetectorFactSet) ([]map[string]any, bool) {
	if has == 0 || !x.answered(i, r) {
		return nil, false
	}
	f := &x.detState(r.DetectorSlot).d.Facts
	if f.Has&has != 0 {
		switch has {
		case runtime.HasSecretMatches:
			return f.SecretMatches, true
		case runtime.HasPiiEntities:
			return f.PiiEntities, true
		}
	}
	return nil, false
}

// LazySpans adds the spans of a span fact that the set reads lazily (oarc
// gen -lazy) for the i-th enforced firing, of transform rule r: the
// validator's value when r got an answer from its validator with the fact
// (has; 0 for a rule without validator), else the host's, which get reads
// (the fact's getter: Env.Lazy's provider once per occurrence, else
// Facts), as the rule's when did. A getter that fails or panics leaves
// the spans unknown: the firing redacts the whole content, as one that
// failed closed with unknown spans does (docs/choices-runtime.md).
// Before, the spans were read from Facts: a rule that fired on the
// provider's match redacted nothing.
func (x *Exec) LazySpans(i int, r *Rule, has runtime.DetectorFactSet, get func() ([]map[string]any, Err)) {
	if l, ok := x.validatorSpans(i, r, has); ok {
		x.AddSpans(i, r, l)
		return
	}
	l, err := lazySpans(get)
	if err.Kind != ErrNone {
		x.wholeSpan(i, r)
		return
	}
	x.AddSpans(i, r, l)
}

// lazySpans calls a span fact's getter; a panic is an error.
func lazySpans(get func() ([]map[string]any, Err)) (l []map[string]any, err Err) {
	defer func() {
		if p := recover(); p != nil {
			l, err = nil, Err{Kind: runtime.ErrPanic, S: "span fact"}
		}
	}()
	return get()
}

// wholeSpan adds a span over the whole content for the i-th enforced
// firing, of transform rule r.
func (x *Exec) wholeSpan(i int, r *Rule) {
	if x.ncp > 0 {
		x.spans = append(x.spans, span{start: 0, end: x.ncp, order: i, repl: r.Replacement})
	}
}

// answered reports whether the rule r of the i-th enforced firing got an
// answer from its validator: it got as far as its validator, and the
// validator neither failed nor timed out (and was registered).
func (x *Exec) answered(i int, r *Rule) bool {
	if x.firedEntry(i)&firedConsulted == 0 {
		return false
	}
	st := x.detState(r.DetectorSlot)
	return st != nil && st.done && st.err.Kind == ErrNone
}

// WholeSpans adds, for the i-th enforced firing, of transform rule r, a
// span over the whole content when the firing happened only because the
// rule failed closed and its spans are unknown, and reports whether it
// did (the caller then adds no other span of the rule). The spans are
// unknown when the rule is a detector rule (detector) that got no answer
// from its validator, or when a profile of its span facts (spanProfiles)
// was not supplied: failing closed must not let the content through
// unredacted because the facts that would say what to redact are missing
// (docs/choices-runtime.md).
func (x *Exec) WholeSpans(i int, r *Rule, detector bool, spanProfiles runtime.ProfileSet) bool {
	if x.firedEntry(i)&firedFailed == 0 {
		return false
	}
	if (!detector || x.answered(i, r)) && x.Profiles.Supplied(spanProfiles) {
		return false
	}
	x.wholeSpan(i, r)
	return true
}

// AddSpans adds the spans of one span fact of the transform rule that
// fired order-th.
func (x *Exec) AddSpans(order int, r *Rule, l []map[string]any) {
	n := int64(x.ncp)
	for _, m := range l {
		s, ok1 := spanInt(m, "start")
		e, ok2 := spanInt(m, "end")
		if !ok1 || !ok2 {
			continue
		}
		s, e = max(s, 0), min(e, n)
		if e <= s {
			continue
		}
		x.spans = append(x.spans, span{start: int(s), end: int(e), order: order, repl: r.Replacement})
	}
}

// spanInt reads an int start or end: a value that dyn values read as a CEL
// int (a Go signed integer of any size, or a json.Number that spells an
// int). Other values do not count (spec 5.6): unsigned integers are CEL
// uints, and 6.0 is a double.
func spanInt(m map[string]any, k string) (int64, bool) {
	if s := scalarOf(m[k]); s.k == kInt {
		return s.i, true
	}
	return 0, false
}

// prepareTransforms readies the span buffers: the content's length in
// code points (invalid bytes count as one code point each, as in CEL's
// size(), and are kept as they are). Offsets are converted to bytes by one
// walk in Rewrite, not by a table per code point: a 1 MB result would
// cost 8 MB of offsets.
func (x *Exec) prepareTransforms() {
	x.ncp = utf8.RuneCountInString(x.Content)
	x.spans = x.spans[:0]
}

// Rewrite rewrites the content with the spans gathered: spans are clipped
// to the content, merged where they overlap or touch, and each merged
// region takes the replacement of the first rule in evaluation order that
// contributed to it.
func (x *Exec) Rewrite() {
	d := x.D
	content := x.Content
	if len(x.spans) == 0 {
		d.Content = content
		return
	}
	spans := x.spans
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].order < spans[j].order
	})
	var b strings.Builder
	b.Grow(len(content))
	// cp is a code point offset and off its byte offset; advance walks
	// them forward together (spans are sorted, so once in all).
	cp, off := 0, 0
	advance := func(to int) int {
		for cp < to {
			_, size := utf8.DecodeRuneInString(content[off:])
			off += size
			cp++
		}
		return off
	}
	prev := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		j := i + 1
		for ; j < len(spans) && spans[j].start <= cur.end; j++ {
			cur.end = max(cur.end, spans[j].end)
			if spans[j].order < cur.order {
				cur.order, cur.repl = spans[j].order, spans[j].repl
			}
		}
		start := advance(cur.start)
		b.WriteString(content[prev:start])
		b.WriteString(cur.repl)
		d.Redactions = append(d.Redactions, runtime.Redaction{Start: int64(cur.start), End: int64(cur.end), Replacement: cur.repl})
		prev = advance(cur.end)
		i = j
	}
	b.WriteString(content[prev:])
	d.Content = b.String()
}
