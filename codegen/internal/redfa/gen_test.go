package redfa

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/oarc/oarc/runtime/impl"
)

// The random patterns and inputs of the differential tests and the fuzz
// target. Patterns follow the regexp/syntax grammar, biased towards what
// is hard for a DFA to get exactly right: classes (Perl, POSIX, Unicode,
// negated), repetition (greedy and lazy, counted), case folding, (?s),
// (?m), anchors and word boundaries; their runes and the inputs' share an
// alphabet with case-folding partners (k K U+212A, s S U+017F), word and
// non-word runes, '\n', U+FFFD and, in the inputs, invalid UTF-8.

// patAtoms are the leaves of random patterns.
var patAtoms = []string{
	"a", "b", "c", "k", "s", "x", "A", "K", "S", "_", "0", "9", " ", "-", "/", "é", "É", "ß", "σ", "Σ", "ς",
	"\u212a", "\u017f", "\ufffd", `\x{FFFD}`, `\n`, `\t`, `\.`, `\|`, `\$`, `\\`, `\x00`, `\x{10FFFF}`, `[\x{D7FF}-\x{E000}]`,
	".", ".", `\d`, `\D`, `\w`, `\W`, `\s`, `\S`, `\pL`, `\PL`, `\p{Lu}`, `\p{Greek}`, `\p{Nd}`, `\PN`,
	"[abc]", "[^abc]", "[a-z]", "[^a-z]", "[A-Za-z0-9_]", "[^\\n]", "[\\x00-\\x{10FFFF}]", "[é-ü]", `[\p{L}\d]`,
	"[[:alpha:]]", "[[:^space:]]", "[[:word:]]", `[^\x{FFFD}]`, `[\x{FFFD}a]`, "[kK]", "[^ks]", `[\s\S]`,
	"^", "$", `\A`, `\z`, `\b`, `\B`, `\b`, `\B`, "^", "$",
}

var patFlags = []string{"(?i)", "(?s)", "(?m)", "(?U)", "(?is)", "(?im)", "(?ms)", "(?-s)", "(?i-s)", "(?m-i)"}

// genPattern is a random pattern (syntactically valid most of the time;
// callers skip the rest).
func genPattern(r *rand.Rand, depth int) string {
	if depth <= 0 || depth < 4 && r.IntN(10) < 3 {
		return patAtoms[r.IntN(len(patAtoms))]
	}
	sub := func() string { return genPattern(r, depth-1) }
	switch r.IntN(12) {
	case 0, 1, 2:
		n := 2 + r.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(sub())
		}
		return b.String()
	case 3, 4:
		n := 2 + r.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = sub()
		}
		return "(?:" + strings.Join(parts, "|") + ")"
	case 5, 6:
		ops := []string{"*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,3}", "{2,}", "{3}?", "{0}"}
		return "(?:" + sub() + ")" + ops[r.IntN(len(ops))]
	case 7:
		return "(" + sub() + ")"
	case 8:
		return patFlags[r.IntN(len(patFlags))] + sub()
	case 9:
		fl := patFlags[r.IntN(len(patFlags))]
		return "(" + fl[1:len(fl)-1] + ":" + sub() + ")"
	case 10:
		words := []string{"curl", "wget", "rm", "git", "push", "sh", "ab", "ba", "k", "é"}
		n := 1 + r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[r.IntN(len(words))]
		}
		return strings.Join(parts, "|")
	}
	return sub() + sub()
}

// inPieces are the pieces of random inputs: the patterns' alphabet, as
// valid UTF-8, and invalid UTF-8 (a lone continuation byte, truncated
// sequences, an encoded surrogate, overlong forms, 0xFF).
var inPieces = []string{
	"a", "b", "c", "k", "s", "x", "A", "K", "S", "_", "0", "9", " ", " ", "-", "/", "é", "É", "ß", "σ", "Σ", "ς",
	"\u212a", "\u017f", "\ufffd", "\n", "\n", "\t", ".", "|", "$", "\\", "\x00", "\U0010ffff", "α", "字",
	"\x80", "\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf", "\xe0\x80\xaf",
	"curl", "wget", "rm", "git", "push", "sh", "-rf", "--force", "-f",
}

// genInput is a random input of up to n pieces.
func genInput(r *rand.Rand, n int) string {
	var b strings.Builder
	for range r.IntN(n + 1) {
		if r.IntN(16) == 0 {
			b.WriteByte(byte(r.IntN(256)))
			continue
		}
		b.WriteString(inPieces[r.IntN(len(inPieces))])
	}
	return b.String()
}

// runtimeDFA is the runtime's matcher of t: what the generated code
// builds from the same tables.
func runtimeDFA(t *Tables) *impl.RegexDFA {
	return &impl.RegexDFA{ASCII: t.ASCII, Lo: t.Lo, Class: t.Class, Trans: t.Trans, Stride: t.Stride,
		Start: t.Start, Skip: t.Skip, Prefix: t.Prefix, Rare: t.Rare, Resume: t.Resume}
}

// matcher is p's matcher as the generated code runs it (a fallback runs
// regexp, as the generated code does).
func matcher(p *Plan) func(string) bool {
	switch p.Kind {
	case Literal:
		return func(s string) bool {
			for _, lit := range p.Literals {
				var ok bool
				switch p.Anchor {
				case Whole:
					ok = s == lit
				case Prefix:
					ok = strings.HasPrefix(s, lit)
				case Suffix:
					ok = strings.HasSuffix(s, lit)
				default:
					ok = strings.Contains(s, lit)
				}
				if ok {
					return true
				}
			}
			return false
		}
	case DFA:
		return runtimeDFA(p.DFA).MatchString
	}
	return regexp.MustCompile(p.Pattern).MatchString
}

// check compares p's matcher with regexp on s and on its suffixes and
// prefixes (which start and end it inside runes and invalid sequences):
// all of them for a short s, 32 spread over a long one.
func check(t testing.TB, p *Plan, re *regexp.Regexp, m func(string) bool, s string) {
	t.Helper()
	try := func(in string) {
		if got, want := m(in), re.MatchString(in); got != want {
			t.Fatalf("pattern %q (%s): input %q: matched %v, regexp.MatchString %v", p.Pattern, p, in, got, want)
		}
	}
	try(s)
	step := 1 + len(s)/32
	for i := 1; i < len(s); i += step {
		try(s[i:])
		try(s[:i])
	}
}

// genDense is a random input of n pieces dense in prefix's bytes: its
// bytes, its beginnings, itself now and then, and pieces of any input.
func genDense(r *rand.Rand, prefix string, n int) string {
	var b strings.Builder
	for range n {
		switch k := r.IntN(10); {
		case k < 5:
			b.WriteByte(prefix[r.IntN(len(prefix))])
		case k < 7:
			b.WriteString(prefix[:1+r.IntN(len(prefix))])
		case k == 7 && r.IntN(8) == 0:
			b.WriteString(prefix)
		default:
			b.WriteString(inPieces[r.IntN(len(inPieces))])
		}
	}
	return b.String()
}
