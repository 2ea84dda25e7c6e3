// This file owns the matcher of the constant patterns of `matches` that
// oarc gen compiled ahead of time into a DFA (codegen/internal/redfa builds
// the tables; docs/cel-semantics.md says which patterns get one).

package impl

import (
	"math/bits"
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
	var dense uint8 // how many of Prefix's searched bytes are frequent in s: see index
	for {
		if st < skip {
			switch st {
			case 0:
				return true
			case dead:
				return false
			}
			var j int
			j, dense = d.index(s[i:], dense)
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
// strings.Index answers, but faster in the text agents send. It looks for
// Prefix's byte at Rare (the one the generator expects rarest) with
// strings.IndexByte, a vector search, and compares the prefix around each
// one it finds; where that byte turns out frequent it goes on in the same
// way with the prefix's first byte (what Go's regexp looks for, so that a
// text in which the two differ in frequency costs no more than there),
// and where both are frequent with [pairIndex], which looks for the two at
// once. It says how many of the two it found frequent (dense), and the
// matcher's next search of the rest of its text starts there. A text of
// at most 256 bytes, where one call of IndexByte costs about as much as
// the whole pair search, goes to pairIndex at once. A prefix of one byte
// is strings.IndexByte's.
func (d *RegexDFA) index(s string, dense uint8) (int, uint8) {
	p, r := d.Prefix, int(d.Rare)
	if len(p) < 2 || r >= len(p) {
		return strings.Index(s, p), dense
	}
	b := r // the pair is p[0] and p[b]: the rare byte, else the last
	if b == 0 {
		b = len(p) - 1
	}
	if dense >= 2 || len(s) <= 256 {
		return pairIndex(s, 0, p, b), dense
	}
	j, next := 0, 0
	if dense == 0 {
		if j, next = byteIndex(s, 0, p, r); next < 0 {
			return j, 0
		}
	}
	if r != 0 { // then by the first byte
		if j, next = byteIndex(s, next, p, 0); next < 0 {
			return j, 1
		}
	}
	return pairIndex(s, next, p, b), 2
}

// byteIndex is the offset in s of the first occurrence of p that starts
// at from or after, or -1, found by looking for p[k] with
// strings.IndexByte; or, when p[k] turns out frequent (more than 4 misses,
// and one per 64 bytes: then a call of IndexByte costs more than the
// bytes it skips), next: p does not start before next, where a search of
// another kind goes on (next is -1 otherwise).
func byteIndex(s string, from int, p string, k int) (j, next int) {
	c := p[k]
	misses := 0
	for i := from + k; i < len(s); {
		o := strings.IndexByte(s[i:], c)
		if o < 0 {
			return -1, -1
		}
		i += o // s[i] is p[k]: p may start at i-k
		st := i - k
		if len(s)-st < len(p) {
			return -1, -1
		}
		if s[st:st+len(p)] == p {
			return st, -1
		}
		i++
		if misses++; misses > 4+(i-from)/64 {
			return -1, st + 1
		}
	}
	return -1, -1
}

// pairIndex is the offset in s of the first occurrence of p (of at least
// two bytes) that starts at from or after, or -1. [pairNext] finds the
// offsets where p[0] and p[b] (0 < b < len(p)) are both in place, many at
// a time, and p is compared only there: Go's strings.Index, by contrast,
// compares a short p at every offset one at a time (amd64) or stops at
// every occurrence of p[0] (elsewhere).
func pairIndex(s string, from int, p string, b int) int {
	c0, cb := p[0], p[b]
	for i := from; i < len(s); {
		j := pairNext(s[i:], b, c0, cb)
		if j < 0 {
			return -1
		}
		st := i + j
		if len(s)-st < len(p) {
			return -1 // later candidates start later still
		}
		if s[st:st+len(p)] == p {
			return st
		}
		i = st + 1
	}
	return -1
}

// pairNextGeneric is [pairNext] in Go: eight offsets at a time, a word of
// s and the word b bytes further, whose exclusive or with c0 and cb
// repeated has a zero byte exactly where both are in place.
func pairNextGeneric(s string, b int, c0, cb byte) int {
	const ones, lows = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	if b <= 0 {
		return -1 // no pair, as the assembly answers
	}
	w0, wb := uint64(c0)*ones, uint64(cb)*ones
	i := 0
	// len(s)-i-8 >= b, not len(s)-i >= b+8, which overflows for a b near
	// the largest int.
	for ; len(s)-i-8 >= b; i += 8 {
		z := (load8(s[i:i+8]) ^ w0) | (load8(s[i+b:i+b+8]) ^ wb)
		// The high bit of each byte of z that is zero, and of no other
		// (no carry crosses a byte: each sum is at most 0xfe).
		if m := ^((z&lows + lows) | z | lows); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i+b < len(s); i++ {
		if s[i] == c0 && s[i+b] == cb {
			return i
		}
	}
	return -1
}

// load8 is the first 8 bytes of s as a little-endian word (one load where
// the compiler combines them).
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
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
