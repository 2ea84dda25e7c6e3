package validators

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// Differential tests: the scanners against the slow references of
// ref_test.go, on texts built from the fragments that matter (prefixes,
// runs of the right length and one off, separators, line breaks,
// multi-byte and invalid UTF-8), and under the fuzzer.

var secretFragments = []string{
	"AKIA", "ASIA", "AKI", "ABIA", "IOSFODNN7EXAMPLE", "IOSFODNN7EXAMPL", "IOSFODNN7EXAMPLEX", "0123456789ABCDEF",
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "ghx_", "gh", "github_pat_", "github_", "pat_",
	"OH6mDhMbLL1FHy4SAzpzUruZ8dhwwuD1qKH8", "OH6mDhMbLL1FHy4SAzpzUruZ8dhwwuD1qKH", "abc", "ABC", "123",
	"xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxc-", "xox", "sk_live_", "sk_", "live_", "ta",
	"-----BEGIN ", "-----END ", "RSA ", "EC ", "PRIVATE KEY-----", "PRIVATE ", "KEY-----", "PUBLIC KEY-----", "-----", "-",
	"PGP ", "KEY BLOCK-----", "BLOCK-----", "BLOCK", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----END PGP PRIVATE KEY BLOCK-----",
	"AKIAIOSFODNN7EXAMPLE", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----END PRIVATE KEY-----",
	"_", " ", "  ", "\n", "\r\n", ":", "=", "\"", "é", "日本", "🔑", "\u0301", "\xff", "\xc3", "\xe2\x82", "\xf0\x9f", "\x80",
}

var piiFragments = []string{
	"@example.com", "@b.c", ".com", "@x.", "user@", "x@y.zz", "@пример.рф", ".xn--p1ai", "-a",
	"@", "@", ".", "..", "-", "--", "+", "%", "_", " ", "  ", ",", ";", "<", ">", "\n", ":", "=",
	"john", "a", "x", "com", "org", "c", "c0m", "xn--", "p1ai", "example", "my-host", "é", "josé", "рф", "пример", "例子", "\u0301", "२",
	"4111", "1111", "111", "11", "1", "0", "9", "4111111111111111", "4111 1111 1111 1111", "378282246310005",
	"5555555555554444", "4425972486226129658", "4241592066118", "123", "12", "2024-01-15",
	"\xff", "\xc3", "\xe2\x82", "\xf0\x9f", "\x80", "🙂",
}

func randomText(r *rand.Rand, frags []string) string {
	var b strings.Builder
	for range 1 + r.IntN(30) {
		b.WriteString(frags[r.IntN(len(frags))])
	}
	return b.String()
}

// asCodePoints converts reference matches to code points.
func asCodePoints(text string, l []refMatch) []Match {
	var out []Match
	for _, m := range l {
		out = append(out, Match{refCodePoint(text, m.start), refCodePoint(text, m.end), m.kind})
	}
	return out
}

func sameMatches(a, b []Match) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var kindRE = map[string]*regexp.Regexp{
	KindAWSAccessKeyID:  regexp.MustCompile(`^(?:AKIA|ASIA)[A-Z0-9]{16}$`),
	KindGitHubToken:     regexp.MustCompile(`^(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]+)$`),
	KindSlackToken:      regexp.MustCompile(`^xox[bpars]-[A-Za-z0-9-]+$`),
	KindStripeSecretKey: regexp.MustCompile(`^sk_live_[A-Za-z0-9]+$`),
	KindPrivateKey:      regexp.MustCompile(`^-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*)$`),
	KindEmail:           regexp.MustCompile(`^` + refL + `+@` + refLabel + `(?:\.` + refLabel + `)+$`),
	KindCard:            regexp.MustCompile(`^[0-9]+(?:[ -][0-9]+)*$`),
}

var privateKeyEnd = regexp.MustCompile(`-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----$`)

// checkInvariants holds for any text: spans in order, within the text,
// not empty, not overlapping, and each span's text (cut by code points)
// is of its kind.
func checkInvariants(t *testing.T, text string, ms []Match) {
	t.Helper()
	var offs []int
	for i := range text {
		offs = append(offs, i)
	}
	offs = append(offs, len(text))
	n := int64(len(offs) - 1)
	last := int64(0)
	for _, m := range ms {
		if m.Start < last || m.End <= m.Start || m.End > n {
			t.Fatalf("span %v out of order or range (text of %d code points, previous end %d) in %q", m, n, last, text)
		}
		last = m.End
		s := text[offs[m.Start]:offs[m.End]]
		re := kindRE[m.Kind]
		if re == nil || !re.MatchString(s) {
			t.Fatalf("span %v = %q is no %s", m, s, m.Kind)
		}
		switch m.Kind {
		case KindPrivateKey:
			if m.End != n && !privateKeyEnd.MatchString(s) {
				t.Fatalf("private key %q ends neither with END nor at the end of the text", s)
			}
		case KindCard:
			digits := strings.NewReplacer(" ", "", "-", "").Replace(s)
			if len(digits) < 13 || len(digits) > 19 || !refLuhn(digits) {
				t.Fatalf("card %q: %d digits or fails Luhn", s, len(digits))
			}
		case KindEmail:
			dom := s[strings.IndexByte(s, '@')+1:]
			if !refTLDRE.MatchString(dom[strings.LastIndexByte(dom, '.')+1:]) {
				t.Fatalf("e-mail %q does not end with a top-level domain", s)
			}
		}
	}
}

func checkSecrets(t *testing.T, text string) {
	got := AppendSecrets(nil, text)
	checkInvariants(t, text, got)
	if want := asCodePoints(text, refSecrets(text)); !sameMatches(got, want) {
		t.Fatalf("text %q:\n scanner   %v\n reference %v", text, got, want)
	}
	if HasSecret(text) != (len(got) > 0) {
		t.Fatalf("HasSecret(%q) = %v with %d matches", text, HasSecret(text), len(got))
	}
	d := Secrets(text)
	if len(d.Facts.SecretMatches) != len(got) || d.Hit != (len(got) > 0) {
		t.Fatalf("Secrets(%q) answers %d entries, hit %v; AppendSecrets %d", text, len(d.Facts.SecretMatches), d.Hit, len(got))
	}
	for i, e := range d.Facts.SecretMatches {
		if e["start"] != got[i].Start || e["end"] != got[i].End || e["kind"] != got[i].Kind || e["score"] != 1.0 {
			t.Fatalf("entry %v, match %v", e, got[i])
		}
	}
}

func checkPII(t *testing.T, text string) {
	got := AppendPII(nil, text)
	checkInvariants(t, text, got)
	if want := asCodePoints(text, refPII(text)); !sameMatches(got, want) {
		t.Fatalf("text %q:\n scanner   %v\n reference %v", text, got, want)
	}
	if HasPII(text) != (len(got) > 0) {
		t.Fatalf("HasPII(%q) = %v with %d matches", text, HasPII(text), len(got))
	}
	d := PII(text)
	if len(d.Facts.PiiEntities) != len(got) || d.Hit != (len(got) > 0) {
		t.Fatalf("PII(%q) answers %d entries, hit %v; AppendPII %d", text, len(d.Facts.PiiEntities), d.Hit, len(got))
	}
	for i, e := range d.Facts.PiiEntities {
		if e["start"] != got[i].Start || e["end"] != got[i].End || e["kind"] != got[i].Kind || e["score"] != 1.0 {
			t.Fatalf("entry %v, match %v", e, got[i])
		}
	}
}

// TestSecretsDifferential: on 30,000 texts built from the fragments that
// matter, the scanner finds exactly what the regexp reference finds, in
// code points, and every span is of its kind.
func TestSecretsDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range 20000 {
		text := randomText(r, secretFragments)
		checkSecrets(t, text)
		found += len(refSecrets(text))
	}
	if found < 1000 {
		t.Fatalf("the generator produced only %d matches: the test would prove little", found)
	}
}

// TestPIIDifferential: the same for oarc.pii against its reference sweep.
func TestPIIDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	found := 0
	for range 20000 {
		text := randomText(r, piiFragments)
		checkPII(t, text)
		found += len(refPII(text))
	}
	if found < 1000 {
		t.Fatalf("the generator produced only %d matches: the test would prove little", found)
	}
}

func addCorpusSeeds(f *testing.F, dir string, frags []string) {
	for _, c := range loadCorpus(f, dir) {
		f.Add(c.text)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		f.Add(randomText(r, frags))
	}
}

// FuzzSecrets: no panic, the invariants, and agreement with the reference.
func FuzzSecrets(f *testing.F) {
	addCorpusSeeds(f, "secrets", secretFragments)
	f.Fuzz(func(t *testing.T, text string) { checkSecrets(t, text) })
}

// FuzzPII: the same for oarc.pii.
func FuzzPII(f *testing.F) {
	addCorpusSeeds(f, "pii", piiFragments)
	f.Fuzz(func(t *testing.T, text string) { checkPII(t, text) })
}
