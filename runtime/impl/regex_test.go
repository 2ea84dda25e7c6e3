package impl

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// The search for a DFA's literal prefix by its rarest byte must find what
// strings.Index finds: the first occurrence, whatever byte of the prefix
// it looks for, wherever the text ends, and after it goes on by windows. (The DFA as a whole is tested against regexp in
// codegen/internal/redfa.)

// checkIndex fails unless every Rare of p finds in s what strings.Index
// finds.
func checkIndex(t *testing.T, p, s string) {
	t.Helper()
	want := strings.Index(s, p)
	for r := range min(len(p), 256) {
		d := RegexDFA{Prefix: p, Rare: uint8(r)}
		for _, dense := range []uint8{0, 1, 2} {
			if got, _ := d.index(s, dense); got != want {
				t.Fatalf("prefix %q, Rare %d, dense %v: index in %q = %d, strings.Index %d", p, r, dense, s, got, want)
			}
		}
	}
}

func TestIndexPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 1))
	const alphabet = "rmab"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		p := word(1 + r.IntN(4))
		var s string
		switch r.IntN(4) {
		case 0: // short texts: the prefix at either end, or cut off
			s = word(r.IntN(10))
		case 1: // the searched byte everywhere: the hand-over to strings.Index
			s = strings.Repeat(p[len(p)-1:], r.IntN(300)) + word(r.IntN(8))
		case 2: // near misses then maybe the prefix
			s = strings.Repeat(p[:len(p)-1]+"x", r.IntN(100)) + word(r.IntN(6))
		default:
			s = word(r.IntN(400))
		}
		checkIndex(t, p, s)
	}
	// The prefix at every offset around the windows' edges, after enough
	// misses for the search to go by windows.
	for _, p := range []string{"rm", "git", "r", strings.Repeat("xy", 16) + "z", strings.Repeat("x", 40)} {
		fill := strings.Repeat(p[:len(p)-1]+"q", 300/len(p)+1)
		for pos := 0; pos < 300; pos++ {
			checkIndex(t, p, fill[:pos]+p+fill)
			checkIndex(t, p, fill[:pos]+p[:len(p)-1])
		}
	}
	// Texts longer than the pair search's 256 bytes, dense in the rare
	// byte, in the pair's other byte, in both (never side by side), or in
	// neither, with the prefix (or its start) anywhere or nowhere: each
	// hand-over from one search to the next.
	for _, p := range []string{"rm", "git", "abc", "xyzzy"} {
		for rare := range len(p) {
			b := rare
			if b == 0 {
				b = len(p) - 1
			}
			o := 0 // the byte searched after the rare one, when that is not the first
			if rare == 0 {
				o = b
			}
			fills := []string{
				string(p[rare]) + " ",
				string(p[o]) + " ",
				string(p[rare]) + " " + string(p[o]) + " ",
				string(p[o]) + string(p[rare]) + " ",
				" .",
			}
			for _, fill := range fills {
				for range 30 {
					n := 257 + r.IntN(1500)
					text := strings.Repeat(fill, n/len(fill)+1)[:n]
					pos := r.IntN(n)
					checkIndex(t, p, text)
					checkIndex(t, p, text[:pos]+p+text[pos:])
					checkIndex(t, p, text[:pos]+p[:len(p)-1])
					checkIndex(t, p, text[:pos]+p[:len(p)-1]+text[pos:]+p)
				}
			}
		}
	}
	// A longer prefix than 256 bytes keeps Rare within it.
	long := strings.Repeat("ab", 200) + "m"
	checkIndex(t, long, strings.Repeat("ab", 300)+"m")
}

// FuzzIndexPrefix: for any prefix and text, each Rare finds what
// strings.Index does.
func FuzzIndexPrefix(f *testing.F) {
	f.Add("rm", "farm -rf / rm")
	f.Add("git", "gi gt git")
	f.Add("mm", strings.Repeat("m", 200)+"mm")
	f.Fuzz(func(t *testing.T, p, s string) {
		if p == "" || len(p) > 300 || len(s) > 4096 {
			return
		}
		checkIndex(t, p, s)
	})
}

// pairNextNaive is pairNext by its definition.
func pairNextNaive(s string, b int, c0, cb byte) int {
	for i := 0; i+b < len(s); i++ {
		if s[i] == c0 && s[i+b] == cb {
			return i
		}
	}
	return -1
}

// checkPairNext fails unless pairNext (the vector search on amd64) and
// pairNextGeneric answer what the definition does.
func checkPairNext(t *testing.T, s string, b int, c0, cb byte) {
	t.Helper()
	want := pairNextNaive(s, b, c0, cb)
	if got := pairNext(s, b, c0, cb); got != want {
		t.Fatalf("pairNext(%q, %d, %q, %q) = %d, want %d", s, b, c0, cb, got, want)
	}
	if got := pairNextGeneric(s, b, c0, cb); got != want {
		t.Fatalf("pairNextGeneric(%q, %d, %q, %q) = %d, want %d", s, b, c0, cb, got, want)
	}
}

// TestPairNext: every length of text up to a few blocks, every distance,
// the pair at every offset (first, last, straddling a block, cut by the
// end), bytes of every value (the SWAR test's high bit, zero bytes), and
// texts that end where the memory after them is not readable.
func TestPairNext(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 4))
	bytesOf := []byte{0, 1, 'r', 'm', 0x7f, 0x80, 0xfe, 0xff}
	for n := range 70 {
		for b := 1; b <= n+1 && b < 40; b++ {
			for range 8 {
				c0, cb := bytesOf[r.IntN(len(bytesOf))], bytesOf[r.IntN(len(bytesOf))]
				buf := make([]byte, n)
				for i := range buf {
					buf[i] = bytesOf[r.IntN(len(bytesOf))]
				}
				checkPairNext(t, string(buf), b, c0, cb)
				for pos := 0; pos+b < n; pos += 1 + r.IntN(3) {
					x := make([]byte, n)
					for i := range x {
						x[i] = c0 ^ 0x20 // neither byte
						if x[i] == cb {
							x[i] ^= 0x41
						}
					}
					x[pos], x[pos+b] = c0, cb
					checkPairNext(t, string(x), b, c0, cb)
				}
			}
		}
	}
	// A text at the very end of a mapping: a read past it would fault.
	page := pageEnd(t)
	for n := range 48 {
		// The bytes in place: string(page[...]) would search a copy.
		s := unsafe.String(unsafe.SliceData(page[len(page)-n:]), n)
		for b := 1; b < 20; b++ {
			checkPairNext(t, s, b, 'q', 'q')
			checkPairNext(t, s, b, 0, 0)
		}
	}
}

// FuzzPairNext: any text, distance and bytes.
func FuzzPairNext(f *testing.F) {
	f.Add("farm -rf / rm", 1, byte('r'), byte('m'))
	f.Add(strings.Repeat("gi", 40)+"git", 2, byte('g'), byte('t'))
	f.Fuzz(func(t *testing.T, s string, b int, c0, cb byte) {
		if b <= 0 || b > 1<<16 {
			return
		}
		checkPairNext(t, s, b, c0, cb)
	})
}
