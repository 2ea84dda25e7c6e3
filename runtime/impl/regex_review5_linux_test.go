package impl

import (
	"strings"
	"testing"
	"unsafe"
)

// inPlace is the n bytes of page from off as a string that shares their
// memory.
func inPlace(page []byte, off, n int) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&page[off], n)
}

// TestPairNextGuardedPages: pairNext, pairNextGeneric and the prefix
// search read no byte outside their text: texts of every length up to 80
// that end at the last byte before an unreadable page or start at the
// first byte after one, every distance up to 70, with no pair (the whole
// text is scanned), the pair at the last candidate offset, and the pair
// at the first.
func TestPairNextGuardedPages(t *testing.T) {
	page := guardedPage(t, 'q')
	size := len(page)
	for n := 0; n <= 80; n++ {
		for b := 1; b <= 70; b++ {
			for _, off := range []int{size - n, 0} {
				for layout := range 3 {
					for i := range page[:n] {
						page[i], page[size-1-i] = 'q', 'q'
					}
					s := inPlace(page, off, n)
					c0, cb := byte('x'), byte('y')
					switch layout {
					case 1: // the pair at the last candidate
						if n > b {
							page[off+n-1-b], page[off+n-1] = c0, cb
						}
					case 2: // the pair at the first
						if n > b {
							page[off], page[off+b] = c0, cb
						}
					}
					checkPairNext(t, s, b, c0, cb)
					checkPairNext(t, s, b, 'q', 'q')
					// The prefix search, from every entry point, over the
					// same memory: a prefix of b+1 bytes from x to y.
					p := "x" + string(make([]byte, b-1)) + "y"
					for i := 1; i < b; i++ {
						p = p[:i] + "q" + p[i+1:]
					}
					want := strings.Index(s, p)
					for r := range min(len(p)+1, 256) {
						d := RegexDFA{Prefix: p, Rare: uint8(r)}
						for dense := range uint8(3) {
							if got, _ := d.index(s, dense); got != want {
								t.Fatalf("n %d, off %d, prefix %q, Rare %d, dense %d: index = %d, want %d", n, off, p, r, dense, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// FuzzPairNextGuarded: FuzzPairNext's check on the fuzzer's text copied
// to the end of a page followed by an unreadable one and to the start of
// a page preceded by one, so that a read outside the text faults.
func FuzzPairNextGuarded(f *testing.F) {
	f.Add("farm -rf / rm", 1, byte('r'), byte('m'))
	f.Add(strings.Repeat("gi", 40)+"git", 2, byte('g'), byte('t'))
	f.Add(strings.Repeat("\x00", 33), 17, byte(0), byte(0))
	page := guardedPage(f, 'q')
	f.Fuzz(func(t *testing.T, s string, b int, c0, cb byte) {
		if b <= 0 || len(s) > len(page) {
			return
		}
		end := len(page) - len(s)
		copy(page[end:], s)
		checkPairNext(t, inPlace(page, end, len(s)), b, c0, cb)
		copy(page, s)
		checkPairNext(t, inPlace(page, 0, len(s)), b, c0, cb)
	})
}
