package impl

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPairNextAnyDistance: pairNext (SSE2 on amd64, Go under purego and
// elsewhere) and pairNextGeneric answer -1, without a panic, for every
// distance at or past the text's end, up to the largest int, where
// i+b+8 overflows; and the definition's answer at the distances just
// inside it.
func TestPairNextAnyDistance(t *testing.T) {
	for n := range 40 {
		s := strings.Repeat("a", n)
		for _, b := range []int{n - 1, n, n + 1, n + 7, n + 8, math.MaxInt >> 31, math.MaxInt >> 1,
			math.MaxInt - 16, math.MaxInt - 8, math.MaxInt - 7, math.MaxInt - 1, math.MaxInt} {
			if b <= 0 {
				continue
			}
			checkPairNext(t, s, b, 'a', 'a')
			checkPairNext(t, s, b, 'a', 'b')
		}
	}
	// A distance of zero or less is no pair: -1 from both, and nothing
	// read before the text (a b of -1 would otherwise find "ab" reversed).
	for _, b := range []int{0, -1, -8, -17, math.MinInt} {
		for _, s := range []string{"", "ba", strings.Repeat("ba", 40)} {
			if got := pairNext(s, b, 'a', 'b'); got != -1 {
				t.Errorf("pairNext(%q, %d) = %d, want -1", s, b, got)
			}
			if got := pairNextGeneric(s, b, 'a', 'b'); got != -1 {
				t.Errorf("pairNextGeneric(%q, %d) = %d, want -1", s, b, got)
			}
		}
	}
}

// checkIndexAllRare is checkIndex for every Rare a table can hold,
// including those at or past the prefix's end (strings.Index's case).
func checkIndexAllRare(t *testing.T, p, s string) {
	t.Helper()
	want := strings.Index(s, p)
	for r := range 256 {
		d := RegexDFA{Prefix: p, Rare: uint8(r)}
		for dense := range uint8(3) {
			if got, _ := d.index(s, dense); got != want {
				t.Fatalf("prefix %q, Rare %d, dense %d: index in %q = %d, strings.Index %d", p, r, dense, s, got, want)
			}
		}
	}
}

// TestIndexHandOver: texts past 256 bytes made of a unit repeated (dense
// in one, two or three of the prefix's bytes, pairs in place at distances
// that miss), the prefix or a cut prefix at every place near the 16-byte
// blocks' ends and the text's end, prefixes with bytes of every kind: the
// hand-overs from the rare byte's search to the first byte's to the pair
// search, and the pair search's block and tail, find what strings.Index
// finds for every Rare and dense.
func TestIndexHandOver(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	prefixes := []string{"ab", "aab", "aba", "abcab", "\xff\x80", "é日", "a\x00b", "zzzzzzzzzzzzzzzzzq",
		strings.Repeat("ab", 10) + "c", strings.Repeat("xy", 150) + "z"}
	for _, p := range prefixes {
		units := []string{p[:1], p[:len(p)-1], p[len(p)-1:] + p[:1], p[1:] + " ", p[:1] + " " + p[len(p)-1:]}
		for range 60 {
			u := units[r.IntN(len(units))]
			n := 200 + r.IntN(800)
			text := strings.Repeat(u, n/len(u)+1)[:n]
			pos := n - r.IntN(40)
			if r.IntN(2) == 0 {
				pos = r.IntN(n)
			}
			checkIndexAllRare(t, p, text)
			checkIndexAllRare(t, p, text[:pos]+p)
			checkIndexAllRare(t, p, text[:pos]+p+text[pos:])
			checkIndexAllRare(t, p, text[:pos]+p[:len(p)-1])
			checkIndexAllRare(t, p, text[:pos]+p[:len(p)-1]+text[pos:])
		}
	}
}

// FuzzIndexRepeated: a prefix in a long text of a repeated unit (which
// random texts rarely are: those reach the searches' hand-overs), at a
// place the fuzzer picks, for every Rare and dense.
func FuzzIndexRepeated(f *testing.F) {
	f.Add("rm", "r ", 300, "rm", 17)
	f.Add("git", "g t", 500, "gi", 200)
	f.Add("é日", "\xc3", 400, "é", 399)
	f.Fuzz(func(t *testing.T, p, unit string, reps int, mid string, pos int) {
		if p == "" || len(p) > 300 || unit == "" || reps < 0 || reps*len(unit) > 4000 {
			return
		}
		text := strings.Repeat(unit, reps)
		pos = min(max(pos, 0), len(text))
		checkIndexAllRare(t, p, text[:pos]+mid+text[pos:])
	})
}
