package redfa

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
)

var (
	flagPatterns = flag.Int("redfa.patterns", 3000, "random patterns of TestDifferential (raise it for a long run)")
	flagSeed     = flag.Uint64("redfa.seed", 1, "seed of TestDifferential's patterns and inputs")
)

// TestDifferential: on random patterns of the regexp/syntax grammar and
// random inputs with invalid UTF-8, the matcher redfa plans (string
// comparisons, the runtime's DFA over the tables, or regexp) answers what
// regexp.MatchString does. -redfa.patterns and -redfa.seed make longer or
// other runs.
func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(*flagSeed, 23))
	kinds := map[Kind]int{}
	prefixes, asserts := 0, 0
	for n := 0; n < *flagPatterns; {
		pat := genPattern(r, 4)
		re, err := regexp.Compile(pat)
		if err != nil {
			continue
		}
		n++
		p := Compile(pat)
		kinds[p.Kind]++
		if p.Kind == DFA {
			if p.DFA.Prefix != "" {
				prefixes++
			}
			if strings.ContainsAny(pat, `^$\`) {
				asserts++
			}
		}
		m := matcher(p)
		for k := 0; k < 24; k++ {
			s := genInput(r, 12)
			if k >= 20 && p.Kind == DFA && p.DFA.Prefix != "" {
				// Long texts dense in the prefix's bytes: its search goes
				// from the rare byte to the first and to the pair of
				// bytes (runtime/impl's RegexDFA.index).
				s = genDense(r, p.DFA.Prefix, 40+r.IntN(400))
			}
			if k < 2 {
				check(t, p, re, m, s)
				continue
			}
			if got, want := m(s), re.MatchString(s); got != want {
				t.Fatalf("pattern %q (%s): input %q: matched %v, regexp.MatchString %v", pat, p, s, got, want)
			}
		}
	}
	t.Logf("%d patterns: %d DFA (%d with a prefix, %d with assertions or escapes), %d literal, %d fallback",
		*flagPatterns, kinds[DFA], prefixes, asserts, kinds[Literal], kinds[Fallback])
	// The test means something only if most patterns run a DFA.
	if kinds[DFA] < *flagPatterns*3/4 || prefixes == 0 || kinds[Literal] == 0 {
		t.Errorf("the generator is off: kinds %v, %d DFAs with a prefix", kinds, prefixes)
	}
}

// FuzzRegexDFA: for any pattern regexp accepts, and any input, the planned
// matcher answers what regexp.MatchString does. Besides the fuzzed
// pattern, seed draws one from the grammar of TestDifferential, so that
// the fuzzer explores both ways.
func FuzzRegexDFA(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, p := range projectPatterns {
		f.Add(uint64(0), p.pattern, "x")
	}
	for range 40 {
		f.Add(r.Uint64(), genPattern(r, 3), genInput(r, 10))
	}
	f.Fuzz(func(t *testing.T, seed uint64, pat, s string) {
		if len(pat) > 200 || len(s) > 1000 {
			return
		}
		gr := rand.New(rand.NewPCG(seed, 0))
		for _, pat := range []string{pat, genPattern(gr, 4)} {
			re, err := regexp.Compile(pat)
			if err != nil {
				continue
			}
			p := Compile(pat)
			m := matcher(p)
			check(t, p, re, m, s)
			for range 4 {
				in := genInput(gr, 10)
				if got, want := m(in), re.MatchString(in); got != want {
					t.Fatalf("pattern %q (%s): input %q: matched %v, regexp.MatchString %v", pat, p, in, got, want)
				}
			}
		}
	})
}

// projectPatterns are the patterns of the examples, the standard pack and
// the conformance suite, with the plan each gets.
var projectPatterns = []struct {
	pattern string
	plan    string
	yes, no []string
}{
	{`rm\s+-rf\s+/`, `DFA, 10 states, 7 classes, prefix "rm"`,
		[]string{"sudo rm -rf /", "rm  -rf\t/tmp"}, []string{"rm -rf ./build", "rm -r /", "format"}},
	{`\brm\s+-[a-zA-Z]*[rR][a-zA-Z]*\s+(/|~|\$HOME)(\s|$)`, `DFA, 20 states, 14 classes, prefix "rm"`,
		[]string{"rm -rf /", "x; rm -Rf ~ &&", "rm -fr $HOME"}, []string{"farm -rf /", "rm -rf /tmp", "rm -f /"}},
	{`(curl|wget)[^|]*\|\s*(sudo\s+)?(ba|z)?sh\b`, `DFA, 20 states, 19 classes`,
		[]string{"curl -fsSL x | sh", "wget -O- u|sudo  bash", "curl x | zsh"}, []string{"curl x | shell", "curl x > sh", "cat x | sh"}},
	{`git\s+push\b.*(--force\b|-f\b)`, `DFA, 22 states, 17 classes, prefix "git"`,
		[]string{"git push --force", "git push origin main -f"}, []string{"git push origin main", "git pushx -f", "git push"}},
	{`\b(curl|wget|nc)\b`, `DFA, 12 states, 11 classes`,
		[]string{"curl x", "x | nc -l", "(wget)"}, []string{"curly", "sync", "wgets"}},
	{`^https?://(proxy\.golang\.org|pkg\.go\.dev|sum\.golang\.org)/`, `DFA, 37 states, 22 classes`,
		[]string{"https://proxy.golang.org/x", "http://pkg.go.dev/"}, []string{"https://proxy.golang.org.evil/", "x https://pkg.go.dev/"}},
	{`^a+$`, `DFA, 4 states, 2 classes`, []string{"a", "aaa"}, []string{"", "ab", "ba"}},
	{`b`, `literal, strings.Contains`, []string{"abc"}, []string{"ac"}},
	{`^b`, `literal, strings.HasPrefix`, []string{"bc"}, []string{"ab"}},
	{`[0-9]{3}`, `DFA, 5 states, 2 classes`, []string{"a123"}, []string{"12a3"}},
	{`^\p{L}+$`, `DFA, 4 states, 2 classes`, []string{"héllo", "Σ"}, []string{"a1", "", "a\xff"}},
	{`^(yes|no)$`, `literal set of 2, ==`, []string{"yes", "no"}, []string{"yes ", "noo"}},
	{`curl|wget`, `literal set of 2, strings.Contains`, []string{"a wget"}, []string{"cur l"}},
}

// TestProjectPatterns pins the plan of each pattern the project's packs
// use, and checks it on inputs that match and inputs that nearly do.
func TestProjectPatterns(t *testing.T) {
	for _, tc := range projectPatterns {
		t.Run(tc.pattern, func(t *testing.T) {
			p := Compile(tc.pattern)
			if got := p.String(); got != tc.plan {
				t.Errorf("plan %q, want %q", got, tc.plan)
			}
			m, re := matcher(p), regexp.MustCompile(tc.pattern)
			for _, s := range tc.yes {
				if !m(s) || !re.MatchString(s) {
					t.Errorf("%q: matched %v, regexp %v; want true", s, m(s), re.MatchString(s))
				}
			}
			for _, s := range tc.no {
				if m(s) || re.MatchString(s) {
					t.Errorf("%q: matched %v, regexp %v; want false", s, m(s), re.MatchString(s))
				}
			}
		})
	}
}

// TestPlans pins the decisions on the shapes each kind has.
func TestPlans(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `\x{%x}.`, 0x100+i)
		}
		return b.String()
	}
	for _, tc := range []struct{ pattern, plan string }{
		{`abc`, `literal, strings.Contains`},
		{`^abc$`, `literal, ==`},
		{`\Aabc\z`, `literal, ==`},
		{`abc$`, `literal, strings.HasSuffix`},
		{``, `literal, strings.Contains`},
		{`^$`, `literal, ==`},
		{`a[bc]d`, `literal set of 2, strings.Contains`},
		{`^(ab|abc|x)`, `literal set of 2, strings.HasPrefix`}, // abc is redundant
		{`(ab|xaby)`, `literal, strings.Contains`},             // xaby holds ab
		{`a|b|c|d|e`, `DFA, 3 states, 2 classes`},              // five passes: a DFA
		{`(?i)abc`, `DFA, 5 states, 4 classes`},                // folding: no literal
		{`a\x{FFFD}`, `DFA, 4 states, 3 classes, prefix "a"`},  // U+FFFD: invalid bytes too
		{`(?m)^abc`, `DFA, 6 states, 5 classes, prefix "abc"`},
		{`a*`, `DFA, 2 states, 1 class`},   // matches everywhere: the start is "matched"
		{`a\bb`, `DFA, 2 states, 1 class`}, // never matches: the start is "no match possible"
		{`(a|b)*a(a|b){12}`, `regexp (fallback: more than 4000 DFA states)`},
		{many(300), `regexp (fallback: more than 255 rune classes)`},
	} {
		if got := Compile(tc.pattern).String(); got != tc.plan {
			t.Errorf("%q: plan %q, want %q", tc.pattern, got, tc.plan)
		}
	}
}

// TestClassesPure: every rune of a class is matched by exactly the rune
// instructions that match the class's representative, and has its
// context, so the DFA may read classes instead of runes.
func TestClassesPure(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	pats := []string{`(?i)kSσ\x{212a}ǅ`, `[\p{L}\d]\pN\p{Greek}[^\x{FFFD}]`, `(?i)[a-zé-ü]\w\W\s\S.`, `(?s).\x{D800}[\x{10000}-\x{10FFFF}]`}
	for range 200 {
		pats = append(pats, genPattern(r, 3))
	}
	for _, pat := range pats {
		re, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			continue
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			t.Fatal(err)
		}
		cl, err := newClasses(prog)
		if err != nil {
			t.Fatal(err)
		}
		runes := []rune{unicode.MaxRune}
		for c := rune(0); c < 0x3000; c++ {
			runes = append(runes, c)
		}
		for range 2000 {
			runes = append(runes, r.Int32N(unicode.MaxRune+1))
		}
		for _, c := range runes {
			k := cl.of(c)
			rep := cl.rep[k]
			if ctxOf(c) != ctxOf(rep) {
				t.Fatalf("%q: %U and its class's %U differ in context", pat, c, rep)
			}
			for pc := range prog.Inst {
				i := &prog.Inst[pc]
				switch i.Op {
				case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
					if matchRune(i, c) != matchRune(i, rep) {
						t.Fatalf("%q: instruction %d (%v) tells %U from its class's %U", pat, pc, i, c, rep)
					}
				}
			}
		}
	}
}

// TestDeterministic: the same pattern gets the same tables.
func TestDeterministic(t *testing.T) {
	for _, tc := range projectPatterns {
		a, b := Compile(tc.pattern), Compile(tc.pattern)
		if fmt.Sprintf("%+v", a.DFA) != fmt.Sprintf("%+v", b.DFA) || a.String() != b.String() {
			t.Errorf("%q: two compilations differ", tc.pattern)
		}
	}
}

// TestSurrogateRangeIsNotFFFD: a class of surrogates (which no input
// decodes to) and U+FFFD (which every invalid byte is) are different rune
// sets, even though string() spells both U+FFFD.
func TestSurrogateRangeIsNotFFFD(t *testing.T) {
	for _, pat := range []string{`[\x{D800}-\x{DFFF}]a|\x{FFFD}`, `\x{FFFD}|[\x{D800}-\x{DFFF}]a`} {
		p := Compile(pat)
		if p.Kind != DFA {
			t.Fatalf("%q: %s, want a DFA", pat, p)
		}
		re, m := regexp.MustCompile(pat), matcher(p)
		for _, s := range []string{"\xff", "x\ufffd", "\xed\xa0\x80a", "a"} {
			if m(s) != re.MatchString(s) {
				t.Errorf("%q on %q: matched %v, regexp.MatchString %v", pat, s, m(s), re.MatchString(s))
			}
		}
	}
}

// TestSurrogateLiteralFallsBack: regexp's one-pass matcher compares the
// literal after \A as bytes, a surrogate spelt as U+FFFD, so `\A\x{D800}`
// matches "\uFFFD" (no other of its matchers would): such patterns keep
// regexp, to answer as it does.
func TestSurrogateLiteralFallsBack(t *testing.T) {
	for _, pat := range []string{`\A\x{D800}`, `^\x{DFFF}x`, `a\x{D800}`} {
		p := Compile(pat)
		re, m := regexp.MustCompile(pat), matcher(p)
		for _, s := range []string{"\ufffd", "\ufffdx", "a\ufffd", "\xed\xa0\x80"} {
			if m(s) != re.MatchString(s) {
				t.Errorf("%q (%s) on %q: matched %v, regexp.MatchString %v", pat, p, s, m(s), re.MatchString(s))
			}
		}
	}
}

// TestRareByte: the matcher looks for the prefix's byte expected rarest,
// the first of them on a tie, within the first 256 bytes.
func TestRareByte(t *testing.T) {
	for _, c := range []struct {
		prefix string
		want   uint8
	}{
		{"", 0}, {"r", 0}, {"rm", 1}, {"git", 0}, {"sudo", 1}, {"curl", 1}, {"ee", 0}, {"e\x01", 1},
		{"aé", 1}, {strings.Repeat("e", 300) + "Z", 0},
	} {
		if got := rareByte(c.prefix); got != c.want {
			t.Errorf("rareByte(%q) = %d, want %d", c.prefix, got, c.want)
		}
	}
}
