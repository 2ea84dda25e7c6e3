package impl

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The prefix search by a byte other than the first, on prefixes of
// non-ASCII bytes (UTF-8 lead and continuation bytes, invalid bytes),
// prefixes longer than the 256 bytes Rare can name, and texts dense in
// the searched byte before the prefix appears (the hand-over to
// strings.Index at every distance): every Rare finds what strings.Index
// finds.
func TestIndexPrefixBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 3))
	alphabets := []string{"é日\xff\x80a", "\xc3\xa9\xe6\x97\xa5", "ab\x00\x7f"}
	word := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 3000 {
		alphabet := alphabets[r.IntN(len(alphabets))]
		p := word(alphabet, 1+r.IntN(6))
		if r.IntN(8) == 0 {
			p = word(alphabet, 250+r.IntN(20)) // past what Rare can name
		}
		c := p[r.IntN(len(p))]
		var s string
		switch r.IntN(4) {
		case 0: // the searched byte everywhere, then the prefix
			s = strings.Repeat(string(c), r.IntN(600)) + p + word(alphabet, r.IntN(4))
		case 1: // near misses: the prefix with its last byte changed
			s = strings.Repeat(p[:len(p)-1]+string(c+1), r.IntN(50)) + word(alphabet, r.IntN(8))
		case 2: // the prefix cut at the end of the text
			s = word(alphabet, r.IntN(40)) + p[:r.IntN(len(p))]
		default:
			s = word(alphabet, r.IntN(700))
		}
		checkIndex(t, p, s)
	}
}
