// This file owns the matcher of the constant patterns of `matches` that
// oarc gen compiled ahead of time into a DFA (codegen/internal/redfa builds
// the tables; docs/cel-semantics.md says which patterns get one).

package impl

import (
	"strings"
	"unicode/utf8"
)

// RegexDFA is a constant pattern of `matches` compiled by the generator
// into a deterministic automaton: MatchString(s) is what
// regexp.MatchString(pattern, s) answers (RE2's unanchored search, as Go
// runs it). The automaton reads s rune by rune as Go's regexp decodes it,
// an invalid byte being U+FFFD of width 1, and each rune by its class: the
// runes every instruction of the pattern treats alike. The empty-width
// assertions (^ $ \A \z \b \B) are resolved by the states, which remember
// what they need of the previous rune, and by the class of the next.
//
// The tables are constant data of the generated package: a match
// allocates nothing and costs one table step per rune. A RegexDFA is only
// read, so it is safe for concurrent use.
type RegexDFA struct {
	// ASCII is the class of each ASCII byte.
	ASCII [128]uint8
	// Lo and Class give the class of the other runes: runes from Lo[i] to
	// Lo[i+1]-1 (the last to unicode.MaxRune) are of class Class[i].
	// Lo[0] is utf8.RuneSelf. An invalid byte is of U+FFFD's class.
	Lo    []rune
	Class []uint8
	// Trans is the transition table. A state is the index of its row,
	// rows being Stride wide: the classes, then a last column for the end
	// of the text. Trans[s+c] is the state after s reads a rune of class
	// c; Trans[s+Stride-1] is 0 if the pattern matches at the end of the
	// text from s. State 0 is "matched", state Stride "no match possible".
	Trans  []uint16
	Stride uint16
	// Start is the state at the start of the text.
	Start uint16
	// Skip: the states s with 2*Stride <= s < Skip are those of an
	// unanchored search with no match in progress. Every match begins with
	// Prefix (not empty when Skip > 2*Stride), so from such a state the
	// matcher jumps to the next occurrence of Prefix, and continues in
	// Resume's state for the byte before it: [0] another byte, [1] '\n',
	// [2] an ASCII word byte ([0-9A-Za-z_]). A byte found by strings.Index
	// is where Go's decoder starts a rune (Prefix is valid UTF-8 and
	// begins with no continuation byte), so the jump loses nothing.
	Skip   uint16
	Prefix string
	// Rare is the offset in Prefix of the byte the matcher looks for with
	// strings.IndexByte, the one the generator expects rarest in text.
	Rare   uint8
	Resume [3]uint16
}

// MatchString reports whether s contains a match of the pattern.
func (d *RegexDFA) MatchString(s string) bool {
	trans, ascii := d.Trans, &d.ASCII
	skip, dead := uint(d.Skip), uint(d.Stride)
	st := uint(d.Start)
	i := 0
	for {
		if st < skip {
			switch st {
			case 0:
				return true
			case dead:
				return false
			}
			j := d.index(s[i:])
			if j < 0 {
				return false
			}
			if j > 0 {
				i += j
				st = uint(d.Resume[prevContext(s[i-1])])
			}
		}
		if i >= len(s) {
			break
		}
		var c uint8
		if b := s[i]; b < utf8.RuneSelf {
			c = ascii[b]
			i++
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			c = d.classOf(r)
			i += w
		}
		st = uint(trans[st+uint(c)])
	}
	return trans[st+dead-1] == 0
}

// index is the offset in s of the first occurrence of Prefix, or -1, as
// strings.Index answers, but faster in the text agents send: it looks for
// Prefix's byte at Rare (the one the generator expects rarest) with
// strings.IndexByte and compares the prefix around each one it finds.
// Where that byte turns out frequent (more than 4 misses, and one per 64
// bytes: then a call of IndexByte costs more than a vector scan of the
// bytes it skips) it searches the rest in windows of 64 bytes, in which
// strings.Index compares at every offset with vector instructions (amd64)
// instead of stopping at every occurrence of the prefix's first byte. A
// text of at most 64 bytes, and a prefix longer than [windowPrefix], are
// left to strings.Index.
func (d *RegexDFA) index(s string) int {
	p, r := d.Prefix, int(d.Rare)
	if len(s) <= 64 || len(p) > windowPrefix || r >= len(p) {
		// A short text is one window already.
		return strings.Index(s, p)
	}
	c := p[r]
	misses := 0
	for i := r; i < len(s); {
		o := strings.IndexByte(s[i:], c)
		if o < 0 {
			return -1
		}
		i += o // s[i] is p[r]: p may start at i-r
		st := i - r
		if len(s)-st < len(p) {
			return -1
		}
		if s[st:st+len(p)] == p {
			return st
		}
		i++
		if misses++; misses > 4+i/64 {
			return windowIndex(s, st+1, p)
		}
	}
	return -1
}

// windowPrefix is the longest prefix index searches in windows: windows
// of 64 bytes, overlapping by len(p)-1, so that each holds every
// occurrence that starts in it (amd64's brute force, which strings.Index
// runs on a text of at most 64 bytes, takes needles of up to 31 bytes, 63
// with AVX2).
const windowPrefix = 31

// windowIndex is the offset in s of the first occurrence of p at from or
// after, or -1. Each window starts at the next occurrence of p's first
// byte, so that a text without it costs no more than strings.Index; when
// that byte is dense too (the windows skipped fewer than 8 bytes each)
// strings.Index takes the rest, which then switches to its vector search
// of the whole text (one call instead of one per window).
func windowIndex(s string, from int, p string) int {
	skipped := 0
	for n, i := 0, from; len(s)-i >= len(p); n, i = n+1, i+64-len(p)+1 {
		o := strings.IndexByte(s[i:], p[0])
		if o < 0 {
			return -1
		}
		i += o
		if skipped += o; n >= 4 && skipped < 8*n {
			if j := strings.Index(s[i:], p); j >= 0 {
				return i + j
			}
			return -1
		}
		if len(s)-i < len(p) {
			return -1
		}
		if j := strings.Index(s[i:min(i+64, len(s))], p); j >= 0 {
			return i + j
		}
	}
	return -1
}

// classOf is the class of a rune of utf8.RuneSelf or above.
func (d *RegexDFA) classOf(r rune) uint8 {
	lo, hi := 0, len(d.Lo)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if d.Lo[m] <= r {
			lo = m
		} else {
			hi = m
		}
	}
	return d.Class[lo]
}

// prevContext is the index into RegexDFA.Resume for the byte before a
// jump: what the assertions can see of the rune it ends (a byte of
// utf8.RuneSelf or above ends a rune that is neither '\n' nor a word rune).
func prevContext(b byte) int {
	switch {
	case b == '\n':
		return 1
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '_':
		return 2
	}
	return 0
}
