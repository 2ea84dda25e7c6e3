package validators

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file owns the scanner of oarc.pii (spec 11, "Built-in validators"):
// e-mail addresses and payment card numbers, in one left-to-right pass.
// The loop visits each code point at most once; an e-mail is tried once
// per run of local-part characters (a failed try rules out every later
// start in the same run, which shares its '@' and domain, and a run without
// digits is then skipped whole), and a card is tried only at a digit that
// starts a number, reading at most 20 digits of each of at most 6 groups.
// So each byte is read a bounded number of times, never once per pattern.
//
// What counts, exactly (ref_test.go holds a slow reference built on
// regular expressions that the tests and fuzz targets compare against;
// docs/validators.md says it for rule authors):
//
// E-mail: a local part, '@', a domain.
//   - The local part is a run of local characters (ASCII letters and
//     digits, . _ % + -, and any non-ASCII letter, digit or mark) as long
//     as it goes to the left: to the previous character that is not one,
//     or to the end of the previous match.
//   - The domain is a sequence of labels separated by single dots; a label
//     is letters, digits and marks (ASCII or not) with single or repeated
//     hyphens inside, never at either end. The address ends with the last
//     label, from the second on, that can be a top-level domain: two or
//     more letters or marks starting with a letter (any script), or
//     "xn--" and more (an IDN in ASCII form). So "x@a.com." ends before
//     the dot, "x@a.com.2" ends at "com", and "npm@1.2.3" is no address.
//
// Card: 13 to 19 ASCII digits that pass the Luhn check, written as one
// group or as groups of at least three digits separated by a single space
// or dash ("4111 1111 1111 1111", "3782-822463-10005").
//   - It starts at a digit that does not continue a word or a number: the
//     character before is not an ASCII letter or digit, nor a '.' or ','
//     that follows a digit ("1.4111…" and "1,4111…" are longer numbers).
//   - Of the groups that follow, it takes the most (at least 13 and at
//     most 19 digits in all) that pass Luhn and are not followed by an
//     ASCII letter or digit, nor by a '.' or ',' and a digit. So a card
//     followed by " 123" (a CVV) is still found, a run of 20 digits is no
//     card, and neither is a card inside a longer number.
//
// Where an e-mail and a card start at the same character the e-mail wins
// (it is the longer); matches never overlap.

// The kinds of pii_entities entries.
const (
	KindEmail = "email"
	KindCard  = "card"
)

// isLabel reports whether r may be part of a domain label (besides '-').
func isLabel(r rune) bool {
	if r < utf8.RuneSelf {
		return is(byte(r), cAlnum)
	}
	return isWide(r)
}

// isWide reports whether a non-ASCII r is a letter, digit or mark. The
// replacement character that stands for an invalid byte is none of them.
func isWide(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// decode is utf8.DecodeRuneInString with an ASCII fast path.
func decode(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// piiScanner finds the matches of one text in order.
type piiScanner struct {
	s string
	// noEmailBefore: no e-mail starts before this offset (the end of a
	// run of local characters whose try failed).
	noEmailBefore int
}

// next finds the first match that starts at byte i or later.
func (p *piiScanner) next(i int) (start, end int, kind string, ok bool) {
	s := p.s
	for i < len(s) {
		c := s[i]
		size := 1
		if c < utf8.RuneSelf {
			if !is(c, cLocal) {
				i++ // neither an e-mail nor a card starts here
				continue
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			if !isWide(r) {
				i += size
				continue
			}
		}
		if i >= p.noEmailBefore {
			// i starts a run of local characters, or is where the previous
			// match ended: see noEmailBefore.
			e, runEnd, digits, ok := emailAt(s, i)
			if ok {
				return i, e, KindEmail, true
			}
			p.noEmailBefore = runEnd
			if !digits {
				// No card starts inside a run without digits, and the
				// character at runEnd is no local character.
				i = runEnd
				continue
			}
		}
		if is(c, cDigit) && cardMayStart(s, i) {
			if e, ok := cardAt(s, i); ok {
				return i, e, KindCard, true
			}
		}
		i += size
	}
	return 0, 0, "", false
}

// emailAt tries an e-mail whose local part starts at i. It reports where
// the run of local characters ends and whether the run holds a digit.
func emailAt(s string, i int) (end, runEnd int, digits, ok bool) {
	k := i
	for k < len(s) {
		if c := s[k]; c < utf8.RuneSelf {
			if !is(c, cLocal) {
				break
			}
			digits = digits || is(c, cDigit)
			k++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[k:])
		if !isWide(r) {
			break
		}
		k += size
	}
	runEnd = k
	if k >= len(s) || s[k] != '@' {
		return 0, runEnd, digits, false
	}
	j := labelEnd(s, k+1)
	if j == k+1 {
		return 0, runEnd, digits, false
	}
	end = -1
	for j < len(s) && s[j] == '.' {
		e := labelEnd(s, j+1)
		if e == j+1 {
			break
		}
		if topLevel(s[j+1 : e]) {
			end = e
		}
		j = e
	}
	return end, runEnd, digits, end >= 0
}

// labelEnd reads a domain label at i (letters, digits and marks, hyphens
// inside) and returns its end; i when there is none.
func labelEnd(s string, i int) int {
	k := i
	for k < len(s) {
		r, size := decode(s, k)
		if isLabel(r) {
			k += size
			continue
		}
		if r != '-' || k == i {
			break
		}
		// Hyphens count only when a label character follows them.
		h := k
		for h < len(s) && s[h] == '-' {
			h++
		}
		if h == len(s) {
			break
		}
		if r, _ := decode(s, h); !isLabel(r) {
			break
		}
		k = h
	}
	return k
}

// topLevel reports whether a label can be a top-level domain.
func topLevel(l string) bool {
	if len(l) > 4 && strings.EqualFold(l[:4], "xn--") {
		return true
	}
	n := 0
	for _, r := range l {
		switch {
		case n == 0 && !unicode.IsLetter(r):
			return false
		case !unicode.IsLetter(r) && !unicode.IsMark(r):
			return false
		}
		n++
	}
	return n >= 2
}

// cardMayStart reports whether a card may start at the digit at i.
func cardMayStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	c := s[i-1]
	if is(c, cAlnum) {
		return false
	}
	return !((c == '.' || c == ',') && i >= 2 && is(s[i-2], cDigit))
}

// cardMayEnd reports whether a card may end at i.
func cardMayEnd(s string, i int) bool {
	if i == len(s) {
		return true
	}
	c := s[i]
	if is(c, cAlnum) {
		return false
	}
	return !((c == '.' || c == ',') && i+1 < len(s) && is(s[i+1], cDigit))
}

// cardAt tries a card that starts at the digit at i.
func cardAt(s string, i int) (int, bool) {
	// Groups of at least 3 digits, 19 digits in all at most: 6 groups.
	var ends [6]int
	var totals [6]int
	n, total := 0, 0
	for j := i; n < len(ends); {
		k := j
		for k < len(s) && k-j < 20 && is(s[k], cDigit) {
			k++
		}
		if k-j < 3 || total+k-j > 19 {
			break
		}
		total += k - j
		ends[n], totals[n] = k, total
		n++
		if k+1 < len(s) && (s[k] == ' ' || s[k] == '-') && is(s[k+1], cDigit) {
			j = k + 1
			continue
		}
		break
	}
	for g := n - 1; g >= 0; g-- {
		if totals[g] >= 13 && cardMayEnd(s, ends[g]) && luhn(s[i:ends[g]]) {
			return ends[g], true
		}
	}
	return 0, false
}

// luhn reports whether the digits of s (separators skipped) pass the Luhn
// check.
func luhn(s string) bool {
	sum, double := 0, false
	for k := len(s) - 1; k >= 0; k-- {
		c := s[k]
		if c < '0' || c > '9' {
			continue
		}
		d := int(c - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}
