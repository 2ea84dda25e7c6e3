package redfa

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestPrefixSearchLongDense: DFAs with a literal prefix answer what
// regexp.MatchString does on texts past the 256 bytes that go straight to
// the pair search, dense in the prefix's bytes and in near misses of it
// (the prefix followed by what the rest of the pattern rejects), so that
// one match runs many searches of the prefix, from every phase (the rare
// byte, the first byte, the pair) and with what the previous searches
// learnt of the bytes' frequency, with a match (or the prefix and a tail
// the pattern rejects) at a random place and at the end. It fails when
// the first byte's or the pair search starts one byte after where the
// previous one stopped.
func TestPrefixSearchLongDense(t *testing.T) {
	patterns := []string{
		`rm\s+-rf\s+/`,
		`git\s+push\s.*--force`,
		`(?i)curl\s[^|]*\|\s*sh\b`,
		`é日+x`,
		`\bchmod\s+777\b`,
		`ab(c|d)+e$`,
	}
	r := rand.New(rand.NewPCG(5, 6))
	dfas := 0
	for _, pat := range patterns {
		re := regexp.MustCompile(pat)
		p := Compile(pat)
		if p.Kind != DFA || p.DFA.Prefix == "" || len(p.DFA.Prefix) < 2 {
			continue
		}
		dfas++
		t.Logf("%q prefix %q rare %d", pat, p.DFA.Prefix, p.DFA.Rare)
		m := matcher(p)
		prefix := p.DFA.Prefix
		rare := prefix[p.DFA.Rare : p.DFA.Rare+1]
		units := []string{
			rare + " ", prefix[:1] + " ", prefix[:1] + rare, prefix + " ", prefix + "\n",
			prefix[:len(prefix)-1] + " ", strings.Repeat(rare, 3) + prefix[:1],
		}
		for range 60 {
			var b strings.Builder
			n := 257 + r.IntN(3000)
			for b.Len() < n {
				b.WriteString(units[r.IntN(len(units))])
				if r.IntN(40) == 0 {
					b.WriteString(genInput(r, 4))
				}
			}
			s := b.String()
			check(t, p, re, m, s)
			// A match, if the pattern has one of the prefix with a tail,
			// inside the dense text (where the searches hand over) and at
			// its end.
			for _, tail := range []string{"  -rf /", " push x --force", " | sh", "日x", " 777", "ce"} {
				for range 4 {
					k := r.IntN(len(s))
					in := s[:k] + prefix + tail + " " + s[k:]
					if got, want := m(in), re.MatchString(in); got != want {
						t.Fatalf("pattern %q: input %q: matched %v, regexp.MatchString %v", pat, in, got, want)
					}
				}
				check(t, p, re, m, s+prefix+tail)
			}
		}
	}
	if dfas < 4 {
		t.Errorf("only %d of %d patterns run a DFA with a prefix of two bytes or more", dfas, len(patterns))
	}
}
