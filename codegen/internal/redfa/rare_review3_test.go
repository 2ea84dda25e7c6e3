package redfa

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestRarePrefixPatterns: DFAs whose literal prefix the matcher looks for
// by a byte other than its first (impl.RegexDFA.Rare) answer what
// regexp.MatchString does, for prefixes of non-ASCII text, of control
// bytes, longer than the 256 bytes rareByte looks at, and on texts where
// the searched byte is dense before the prefix (the hand-over to
// strings.Index), cut at every place.
func TestRarePrefixPatterns(t *testing.T) {
	long := strings.Repeat("ab", 140) + "q" // the rarest byte past the 256th
	patterns := []string{
		`héllo\s+w`,
		`日本語[a-z]+`,
		`xΣ+y`,
		`a\tb\d`,
		`e\x7fz\b`,
		`(?m)^eq[0-9]`,
		`\beq{2}\w`,
		`rm\s+-rf`,
		`e{3}q+$`,
		regexp.QuoteMeta(long) + `[0-9]`,
		regexp.QuoteMeta(strings.Repeat("e", 300)+"zq") + `\d`,
	}
	r := rand.New(rand.NewPCG(3, 3))
	dfas := 0
	for _, pat := range patterns {
		re := regexp.MustCompile(pat)
		p := Compile(pat)
		if p.Kind != DFA {
			continue
		}
		dfas++
		if p.DFA.Prefix == "" {
			t.Errorf("%q: no prefix (%s): the test does not reach the prefix search", pat, p)
			continue
		}
		m := matcher(p)
		prefix := p.DFA.Prefix
		rare := prefix[p.DFA.Rare : p.DFA.Rare+1]
		for k := 0; k < 300; k++ {
			var b strings.Builder
			for b.Len() < 40+r.IntN(600) {
				switch r.IntN(8) {
				case 0:
					b.WriteString(prefix)
				case 1:
					b.WriteString(prefix[:r.IntN(len(prefix))])
				case 2, 3:
					b.WriteString(strings.Repeat(rare, 1+r.IntN(40)))
				case 4:
					b.WriteString("\xff\xe6\x97") // invalid and cut UTF-8
				case 5:
					b.WriteString(prefix[r.IntN(len(prefix)):])
				default:
					b.WriteString(genInput(r, 6))
				}
				if r.IntN(3) == 0 {
					b.WriteString("1 w\n")
				}
			}
			check(t, p, re, m, b.String())
		}
	}
	if dfas < len(patterns)-1 {
		t.Errorf("only %d of %d patterns run a DFA", dfas, len(patterns))
	}
}

// FuzzRarePrefixDFA: FuzzRegexDFA's check from seeds whose patterns
// have a literal prefix searched by a byte other than its first
// (non-ASCII, control bytes, long), and texts dense in that byte.
func FuzzRarePrefixDFA(f *testing.F) {
	f.Add(`héllo\s+w`, strings.Repeat("\xc3", 40)+"héllo w")
	f.Add(`xΣ+y`, "xΣxΣΣ\xceyxΣy")
	f.Add(`a\tb\d`, "a\ta\tb\tb1")
	f.Add(`\beq{2}\w`, strings.Repeat("q", 100)+" eqqx")
	f.Add(`e{3}q+$`, strings.Repeat("eeq", 50)+"eeeq")
	f.Add(regexp.QuoteMeta(strings.Repeat("ab", 140)+"q")+`[0-9]`, strings.Repeat("ab", 300)+"q1")
	f.Fuzz(func(t *testing.T, pat, s string) {
		if len(pat) > 400 || len(s) > 2000 {
			return
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return
		}
		p := Compile(pat)
		check(t, p, re, matcher(p), s)
	})
}
