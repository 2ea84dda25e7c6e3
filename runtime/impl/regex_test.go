package impl

import (
	"math/rand/v2"
	"strings"
	"testing"
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
		if got := d.index(s); got != want {
			t.Fatalf("prefix %q, Rare %d: index in %q = %d, strings.Index %d", p, r, s, got, want)
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
