package validators

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// The slow references the scanners are compared against (corpus, random
// differential, fuzzing): regular expressions, the Luhn check written
// again, and a sweep that tries every code point in turn. They follow the
// definitions in secrets.go and pii.go, not the scanners' code.

// refMatch is a match in byte offsets.
type refMatch struct {
	start, end int
	kind       string
}

// refSecretsRE is the reference of secrets.go, leftmost first, one group
// per pattern.
var refSecretsRE = regexp.MustCompile(strings.Join([]string{
	`(\b(?:AKIA|ASIA)[A-Z0-9]{16}\b)`,
	`(\bgh[pousr]_[A-Za-z0-9]{36}\b)`,
	`(\bgithub_pat_[A-Za-z0-9_]+)`,
	`(\bxox[bpars]-[A-Za-z0-9-]+)`,
	`(\bsk_live_[A-Za-z0-9]+)`,
	`(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\z))`,
}, "|"))

var refSecretKinds = []string{KindAWSAccessKeyID, KindGitHubToken, KindGitHubToken, KindSlackToken, KindStripeSecretKey, KindPrivateKey}

func refSecrets(text string) []refMatch {
	var out []refMatch
	for _, m := range refSecretsRE.FindAllStringSubmatchIndex(text, -1) {
		for g, kind := range refSecretKinds {
			if m[2+2*g] >= 0 {
				out = append(out, refMatch{m[0], m[1], kind})
				break
			}
		}
	}
	return out
}

const (
	refL     = `[\p{L}\p{N}\p{M}._%+\-]`
	refA     = `[\p{L}\p{N}\p{M}]`
	refLabel = refA + `+(?:-+` + refA + `+)*`
)

var (
	refLocalRE  = regexp.MustCompile(`^` + refL + `$`)
	refEmailRE  = regexp.MustCompile(`^` + refL + `+@(` + refLabel + `(?:\.` + refLabel + `)*)`)
	refTLDRE    = regexp.MustCompile(`^(?:\p{L}[\p{L}\p{M}]+|(?i:xn--).+)$`)
	refCardRE   = regexp.MustCompile(`^[0-9]+(?:[ -][0-9]+)*`)
	refGroupsRE = regexp.MustCompile(`[0-9]+`)
)

// refPII sweeps the code points of text (as `for i := range` visits
// them): at each one at or after the end of the previous match it tries
// an e-mail, then a card.
func refPII(text string) []refMatch {
	var out []refMatch
	p := 0
	prev := rune(-1) // the code point before, -1 at the start
	for i, r := range text {
		if i >= p {
			if e, ok := refEmailAt(text, i, i == p || prev < 0 || !refLocalRE.MatchString(string(prev))); ok {
				out = append(out, refMatch{i, e, KindEmail})
				p = e
			} else if e, ok := refCardAt(text, i); ok {
				out = append(out, refMatch{i, e, KindCard})
				p = e
			}
		}
		prev = r
		if r == utf8.RuneError {
			prev = 0xFFFD
		}
	}
	return out
}

// refEmailAt: a local part may start at i when the previous code point is
// no local character or ended the previous match (startOK).
func refEmailAt(text string, i int, startOK bool) (int, bool) {
	if !startOK {
		return 0, false
	}
	m := refEmailRE.FindStringSubmatchIndex(text[i:])
	if m == nil {
		return 0, false
	}
	dom := text[i+m[2] : i+m[3]]
	labels := strings.Split(dom, ".")
	end := -1
	off := i + m[2]
	for k, l := range labels {
		off += len(l)
		if k >= 1 && refTLDRE.MatchString(l) {
			end = off
		}
		off++ // the dot
	}
	return end, end >= 0
}

func refAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func refDigit(c byte) bool { return '0' <= c && c <= '9' }

func refCardAt(text string, i int) (int, bool) {
	if !refDigit(text[i]) {
		return 0, false
	}
	if i > 0 {
		c := text[i-1]
		if refAlnum(c) || (c == '.' || c == ',') && i >= 2 && refDigit(text[i-2]) {
			return 0, false
		}
	}
	seq := refCardRE.FindString(text[i:])
	groups := refGroupsRE.FindAllStringIndex(seq, -1)
	// Whole groups of 3 digits or more, 19 digits at most in all.
	var ends []int
	var digits []string
	all := ""
	for _, g := range groups {
		if g[1]-g[0] < 3 || len(all)+g[1]-g[0] > 19 {
			break
		}
		all += seq[g[0]:g[1]]
		ends = append(ends, i+g[1])
		digits = append(digits, all)
	}
	for k := len(ends) - 1; k >= 0; k-- {
		e := ends[k]
		okEnd := e == len(text) || !refAlnum(text[e]) && !((text[e] == '.' || text[e] == ',') && e+1 < len(text) && refDigit(text[e+1]))
		if len(digits[k]) >= 13 && okEnd && refLuhn(digits[k]) {
			return e, true
		}
	}
	return 0, false
}

// refLuhn is the Luhn check as usually written: double every second digit
// from the right, sum the digits of the results.
func refLuhn(digits string) bool {
	sum := 0
	for k := range len(digits) {
		d := int(digits[len(digits)-1-k] - '0')
		if k%2 == 1 {
			d *= 2
			d = d/10 + d%10
		}
		sum += d
	}
	return sum%10 == 0
}

// refCodePoints converts byte offsets that are code-point boundaries.
func refCodePoint(text string, off int) int64 {
	n := int64(0)
	for i := range text {
		if i >= off {
			return n
		}
		n++
	}
	return n
}
