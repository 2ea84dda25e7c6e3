package validators

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// This file owns the conversion of byte offsets into code-point offsets.
//
// Spans in detector facts count code points (spec 5.6), the way CEL's
// size() and the runtime's transform do: each valid UTF-8 sequence is one
// code point and each byte that is not part of one counts as one code point
// of its own (Go's `for i := range s` visits exactly these positions). Go's
// strings, regexp and bytes packages answer in byte offsets, so a host's
// validator needs this conversion before it answers.

// CodePoints converts byte offsets of one text into code-point offsets. It
// keeps a cursor, so converting many offsets in increasing order costs one
// pass over the text in all; an offset before the cursor costs the distance
// back to it. The zero value converts offsets of the empty text; use
// [NewCodePoints].
//
// Offsets outside [0, len(text)] are clamped to it. An offset that falls
// inside a multi-byte code point (after its first byte) is not a position
// in code points: [CodePoints.Floor] gives the code point that contains it
// and [CodePoints.Ceil] the one after, so [CodePoints.Span] widens a byte
// range to the whole code points it touches and a redaction never leaves
// half a character behind.
type CodePoints struct {
	text string
	b    int // a code-point boundary of text
	n    int // the number of code points before b
}

// NewCodePoints returns a converter for offsets of text.
func NewCodePoints(text string) *CodePoints {
	return &CodePoints{text: text}
}

// Len is the number of code points of the text.
func (c *CodePoints) Len() int64 {
	return c.Floor(len(c.text))
}

// Floor is the code-point offset of byte offset off, or, for an offset
// inside a multi-byte code point, the offset of that code point.
func (c *CodePoints) Floor(off int) int64 {
	b, _ := c.boundary(off)
	return int64(c.move(b))
}

// Ceil is the code-point offset of byte offset off, or, for an offset
// inside a multi-byte code point, the offset of the code point after it.
func (c *CodePoints) Ceil(off int) int64 {
	b, inside := c.boundary(off)
	n := c.move(b)
	if inside {
		n++
	}
	return int64(n)
}

// Span converts the byte range [start, end) to code points: start by
// [CodePoints.Floor], end by [CodePoints.Ceil].
func (c *CodePoints) Span(start, end int) (int64, int64) {
	return c.Floor(start), c.Ceil(end)
}

// boundary clamps off to the text and moves it back to the first byte of
// the code point it falls in; inside says whether it had to.
func (c *CodePoints) boundary(off int) (int, bool) {
	s := c.text
	off = max(0, min(off, len(s)))
	// Only a valid multi-byte sequence can contain an offset: an invalid
	// byte is a code point of its own. Such a sequence starts at the
	// nearest byte before off that is not a continuation byte (a lead
	// byte is never inside another sequence, so it is a boundary), at most
	// utf8.UTFMax-1 bytes back.
	for j := off - 1; j >= 0 && j >= off-(utf8.UTFMax-1); j-- {
		if !utf8.RuneStart(s[j]) {
			continue
		}
		if _, size := utf8.DecodeRuneInString(s[j:]); size > 1 && j+size > off {
			return j, true
		}
		break
	}
	return off, false
}

// move puts the cursor on boundary b and returns the code points before it.
// Counting between two boundaries agrees with counting from the start: a
// decode that starts on a boundary meets the same sequences.
func (c *CodePoints) move(b int) int {
	switch {
	case b > c.b:
		c.n += utf8.RuneCountInString(c.text[c.b:b])
	case b < c.b:
		if b < c.b-b {
			c.n = utf8.RuneCountInString(c.text[:b]) // nearer from the start
		} else {
			c.n -= utf8.RuneCountInString(c.text[b:c.b])
		}
	}
	c.b = b
	return c.n
}

// Spans converts byte ranges [start, end) of text into code-point ranges,
// as [CodePoints.Span] does, in one pass over the text whatever the order
// of the ranges. Each result may be given to a detector fact entry as
// start and end (see [Entry]).
func Spans(text string, byteRanges [][2]int) [][2]int64 {
	out := make([][2]int64, len(byteRanges))
	// Visit the 2k offsets in increasing order, so the cursor only moves
	// forward: one pass over the text, plus the sort.
	order := make([]int, 2*len(byteRanges))
	for i := range order {
		order[i] = i
	}
	at := func(i int) int { return byteRanges[i/2][i%2] }
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(at(a), at(b)) })
	c := NewCodePoints(text)
	for _, i := range order {
		if i%2 == 0 {
			out[i/2][0] = c.Floor(at(i))
		} else {
			out[i/2][1] = c.Ceil(at(i))
		}
	}
	return out
}

// Entry is one entry of a span fact (secret_matches, pii_entities) in the
// shape the runtime reads (spec 5.6): int start and end in code points,
// with the kind and the score.
func Entry(start, end int64, kind string, score float64) map[string]any {
	return map[string]any{"start": start, "end": end, "kind": kind, "score": score}
}
