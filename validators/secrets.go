package validators

import "strings"

// This file owns the scanner of oarc.secrets (spec 11, "Built-in
// validators"). It is hand-written rather than a regexp per pattern so that
// the text is read once: the loop looks at each byte once to see whether a
// pattern can start there (every pattern starts with an ASCII byte, and an
// ASCII byte is always the start of a code point), and a match is tried
// only there; a failed try reads a bounded stretch (the fixed-length
// tokens) or a stretch no later try reads again (the private-key labels).
//
// The matches are those of the reference regular expression in
// ref_test.go, found leftmost first and without overlap:
//
//	\b(?:AKIA|ASIA)[A-Z0-9]{16}\b                 aws_access_key_id
//	\bgh[pousr]_[A-Za-z0-9]{36}\b                 github_token
//	\bgithub_pat_[A-Za-z0-9_]+                    github_token
//	\bxox[bpars]-[A-Za-z0-9-]+                    slack_token
//	\bsk_live_[A-Za-z0-9]+                        stripe_secret_key
//	-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----    private_key,
//	    through the first -----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----
//	    after it, or to the
//	    end of the text when there is none
//
// where \b is an ASCII word boundary (word bytes: A-Z a-z 0-9 _).

// The kinds of secret_matches entries.
const (
	KindAWSAccessKeyID  = "aws_access_key_id"
	KindGitHubToken     = "github_token"
	KindPrivateKey      = "private_key"
	KindSlackToken      = "slack_token"
	KindStripeSecretKey = "stripe_secret_key"
)

// Byte classes, one table lookup each.
const (
	cUpperDigit  = 1 << iota // A-Z 0-9
	cAlnum                   // A-Z a-z 0-9
	cWord                    // A-Z a-z 0-9 _
	cSlack                   // A-Z a-z 0-9 -
	cSecretStart             // a byte a secret can start with
	cLocal                   // an ASCII byte of an e-mail local part
	cDigit                   // 0-9
)

var class = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		upper, lower, digit := 'A' <= b && b <= 'Z', 'a' <= b && b <= 'z', '0' <= b && b <= '9'
		if upper || digit {
			t[c] |= cUpperDigit
		}
		if upper || lower || digit {
			t[c] |= cAlnum | cWord | cSlack | cLocal
		}
		if digit {
			t[c] |= cDigit
		}
		switch b {
		case '_':
			t[c] |= cWord | cLocal
		case '-':
			t[c] |= cSlack | cLocal
		case '.', '%', '+':
			t[c] |= cLocal
		}
		switch b {
		case 'A', 'g', 'x', 's', '-':
			t[c] |= cSecretStart
		}
	}
	return t
}()

func is(b byte, c uint8) bool { return class[b]&c != 0 }

// run returns the end of the run of bytes of class c that starts at i.
func run(s string, i int, c uint8) int {
	for i < len(s) && class[s[i]]&c != 0 {
		i++
	}
	return i
}

// wordBoundaryBefore reports whether a match may start at i: the byte
// before is not a word byte (a non-ASCII byte never is, as in regexp's \b).
func wordBoundaryBefore(s string, i int) bool { return i == 0 || !is(s[i-1], cWord) }

// wordBoundaryAt reports whether a match may end at i.
func wordBoundaryAt(s string, i int) bool { return i == len(s) || !is(s[i], cWord) }

// nextSecret finds the first secret that starts at byte i or later: its
// byte range and kind.
func nextSecret(s string, i int) (start, end int, kind string, ok bool) {
	for ; i < len(s); i++ {
		if !is(s[i], cSecretStart) {
			continue
		}
		if end, kind, ok := secretAt(s, i); ok {
			return i, end, kind, true
		}
	}
	return 0, 0, "", false
}

// secretAt tries the patterns that start with s[i].
func secretAt(s string, i int) (end int, kind string, ok bool) {
	rest := s[i:]
	switch s[i] {
	case '-':
		return privateKeyAt(s, i)
	case 'A':
		if !wordBoundaryBefore(s, i) || len(rest) < 20 || !(rest[:4] == "AKIA" || rest[:4] == "ASIA") {
			return 0, "", false
		}
		if e := run(s[:i+20], i+4, cUpperDigit); e == i+20 && wordBoundaryAt(s, e) {
			return e, KindAWSAccessKeyID, true
		}
	case 'g':
		if !wordBoundaryBefore(s, i) {
			return 0, "", false
		}
		if len(rest) >= 40 && rest[:2] == "gh" && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_' {
			if e := run(s[:i+40], i+4, cAlnum); e == i+40 && wordBoundaryAt(s, e) {
				return e, KindGitHubToken, true
			}
			return 0, "", false
		}
		if strings.HasPrefix(rest, "github_pat_") {
			if e := run(s, i+11, cWord); e > i+11 {
				return e, KindGitHubToken, true
			}
		}
	case 'x':
		if wordBoundaryBefore(s, i) && len(rest) >= 5 && rest[:3] == "xox" && strings.IndexByte("bpars", rest[3]) >= 0 && rest[4] == '-' {
			if e := run(s, i+5, cSlack); e > i+5 {
				return e, KindSlackToken, true
			}
		}
	case 's':
		if wordBoundaryBefore(s, i) && strings.HasPrefix(rest, "sk_live_") {
			if e := run(s, i+8, cAlnum); e > i+8 {
				return e, KindStripeSecretKey, true
			}
		}
	}
	return 0, "", false
}

// privateKeyAt matches a private-key block at i: the BEGIN line's marker,
// then everything up to the end of the first END marker, or to the end of
// the text when none follows (a truncated key is still a leaked key).
func privateKeyAt(s string, i int) (end int, kind string, ok bool) {
	if !strings.HasPrefix(s[i:], "-----BEGIN ") {
		return 0, "", false
	}
	h, ok := keyLabelEnd(s, i+len("-----BEGIN "))
	if !ok {
		return 0, "", false
	}
	// Each try at an END marker reads its label, which holds no '-', so
	// the next "-----END " lies past it: the search reads every byte once.
	for j := h; ; {
		k := strings.Index(s[j:], "-----END ")
		if k < 0 {
			return len(s), KindPrivateKey, true
		}
		j += k
		if e, ok := keyLabelEnd(s, j+len("-----END ")); ok {
			return e, KindPrivateKey, true
		}
		j++
	}
}

// keyLabelEnd reads `(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----` at j and
// returns its end. Taking "PRIVATE KEY-----" or "PRIVATE KEY BLOCK-----"
// (OpenPGP's armor) as soon as it appears at a word start is the only way
// to read it: a word followed by '-' cannot be a label word.
func keyLabelEnd(s string, j int) (int, bool) {
	const tail, pgpTail = "PRIVATE KEY-----", "PRIVATE KEY BLOCK-----"
	for {
		if strings.HasPrefix(s[j:], tail) {
			return j + len(tail), true
		}
		if strings.HasPrefix(s[j:], pgpTail) {
			return j + len(pgpTail), true
		}
		k := run(s, j, cUpperDigit)
		if k == j || k >= len(s) || s[k] != ' ' {
			return 0, false
		}
		j = k + 1
	}
}
