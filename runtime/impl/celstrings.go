package impl

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// String functions: the standard library's contains/startsWith/endsWith/
// matches and cel-go's strings extension (ext.Strings, latest version as in
// cel-go v0.33.2). Offsets and results of the extension are in code points;
// an invalid UTF-8 byte counts as one code point (U+FFFD), and functions
// that rebuild a string from code points (lowerAscii, upperAscii,
// substring, charAt) turn each invalid byte into U+FFFD, as cel-go does.

// Contains is s.contains(sub).
func Contains(s, sub string) bool { return strings.Contains(s, sub) }

// StartsWith is s.startsWith(p).
func StartsWith(s, p string) bool { return strings.HasPrefix(s, p) }

// EndsWith is s.endsWith(p).
func EndsWith(s, p string) bool { return strings.HasSuffix(s, p) }

// MatchesDynamic is s.matches(pattern) for a non-constant pattern: RE2,
// unanchored search (regexp.MatchString). A bad pattern is
// ErrInvalidArgument with regexp's message ("error parsing regexp: ...").
func MatchesDynamic(s, pattern string) (bool, Err) {
	ok, err := regexp.MatchString(pattern, s)
	if err != nil {
		return false, InvalidArgument(err.Error())
	}
	return ok, Err{}
}

func runesOf(s string) []rune { return []rune(s) }

func asciiMap(s string, lower bool) string {
	if !utf8.ValidString(s) {
		r := runesOf(s)
		for i, c := range r {
			if lower && 'A' <= c && c <= 'Z' {
				r[i] = c + ('a' - 'A')
			} else if !lower && 'a' <= c && c <= 'z' {
				r[i] = c - ('a' - 'A')
			}
		}
		return string(r)
	}
	lo, hi := byte('A'), byte('Z')
	if !lower {
		lo, hi = 'a', 'z'
	}
	first := -1
	for i := 0; i < len(s); i++ {
		if lo <= s[i] && s[i] <= hi {
			first = i
			break
		}
	}
	if first < 0 {
		return s
	}
	b := []byte(s)
	for i := first; i < len(b); i++ {
		if lo <= b[i] && b[i] <= hi {
			b[i] ^= 0x20
		}
	}
	return string(b)
}

// LowerASCII is s.lowerAscii(): only A-Z change. No allocation when
// nothing changes and s is valid UTF-8.
func LowerASCII(s string) string { return asciiMap(s, true) }

// UpperASCII is s.upperAscii(): only a-z change.
func UpperASCII(s string) string { return asciiMap(s, false) }

// Trim is s.trim(): strings.TrimSpace (Unicode White_Space, as cel-go).
func Trim(s string) string { return strings.TrimSpace(s) }

// Split is s.split(sep) (strings.Split: "" splits into code points).
func Split(s, sep string) []string { return strings.Split(s, sep) }

// SplitN is s.split(sep, n) (strings.SplitN: n < 0 all, n == 0 empty list).
func SplitN(s, sep string, n int64) []string { return strings.SplitN(s, sep, int(n)) }

// Join is l.join().
func Join(l []string) string { return strings.Join(l, "") }

// JoinSep is l.join(sep).
func JoinSep(l []string, sep string) string { return strings.Join(l, sep) }

// Replace is s.replace(old, new) (all occurrences).
func Replace(s, old, new string) string { return strings.ReplaceAll(s, old, new) }

// ReplaceN is s.replace(old, new, n) (strings.Replace: n < 0 all).
func ReplaceN(s, old, new string, n int64) string {
	return strings.Replace(s, old, new, int(n))
}

// runeOffset is the byte offset of code point i (0 <= i <= count) of s.
func runeOffset(s string, i int) int {
	b := 0
	for ; i > 0 && b < len(s); i-- {
		_, n := utf8.DecodeRuneInString(s[b:])
		b += n
	}
	return b
}

// matchAt reports whether the code points of s start with those of sub.
func matchAt(s, sub string) bool {
	for len(sub) > 0 {
		if len(s) == 0 {
			return false
		}
		r1, n1 := utf8.DecodeRuneInString(s)
		r2, n2 := utf8.DecodeRuneInString(sub)
		if r1 != r2 {
			return false
		}
		s, sub = s[n1:], sub[n2:]
	}
	return true
}

// IndexOf is s.indexOf(sub): the code point index of the first occurrence,
// or -1; an empty sub is 0.
func IndexOf(s, sub string) int64 {
	i, _ := IndexOfFrom(s, sub, 0)
	return i
}

// IndexOfFrom is s.indexOf(sub, from): from < 0 is ErrIndexOutOfRange
// ("index out of range: from"); from beyond the end is -1 (or the length
// of s when sub is empty), not an error.
func IndexOfFrom(s, sub string, from int64) (int64, Err) {
	if from < 0 {
		return -1, StringIndexOutOfRange(from)
	}
	n := int64(utf8.RuneCountInString(s))
	if sub == "" {
		if from > n {
			return n, Err{}
		}
		return from, Err{}
	}
	if from >= n {
		return -1, Err{}
	}
	b := runeOffset(s, int(from))
	if utf8.ValidString(s) && utf8.ValidString(sub) {
		j := strings.Index(s[b:], sub)
		if j < 0 {
			return -1, Err{}
		}
		return from + int64(utf8.RuneCountInString(s[b:b+j])), Err{}
	}
	for i := from; b < len(s); i++ {
		if matchAt(s[b:], sub) {
			return i, Err{}
		}
		_, w := utf8.DecodeRuneInString(s[b:])
		b += w
	}
	return -1, Err{}
}

// LastIndexOf is s.lastIndexOf(sub): the code point index of the last
// occurrence, or -1; an empty sub gives the length of s.
func LastIndexOf(s, sub string) int64 {
	n := int64(utf8.RuneCountInString(s))
	if sub == "" {
		return n
	}
	if len(s) < len(sub) {
		return -1
	}
	i, _ := LastIndexOfFrom(s, sub, n-1)
	return i
}

// LastIndexOfFrom is s.lastIndexOf(sub, from): the last occurrence starting
// at or before code point from; from < 0 is ErrIndexOutOfRange, from at or
// beyond the end is -1 (length of s, capped at from, for an empty sub).
func LastIndexOfFrom(s, sub string, from int64) (int64, Err) {
	if from < 0 {
		return -1, StringIndexOutOfRange(from)
	}
	n := int64(utf8.RuneCountInString(s))
	if sub == "" {
		if from > n {
			return n, Err{}
		}
		return from, Err{}
	}
	m := int64(utf8.RuneCountInString(sub))
	if from >= n {
		return -1, Err{}
	}
	if from > n-m {
		from = n - m
	}
	if from < 0 {
		return -1, Err{}
	}
	if utf8.ValidString(s) && utf8.ValidString(sub) {
		end := runeOffset(s, int(from+m))
		j := strings.LastIndex(s[:end], sub)
		if j < 0 {
			return -1, Err{}
		}
		return int64(utf8.RuneCountInString(s[:j])), Err{}
	}
	last := int64(-1)
	b := 0
	for i := int64(0); i <= from && b < len(s); i++ {
		if matchAt(s[b:], sub) {
			last = i
		}
		_, w := utf8.DecodeRuneInString(s[b:])
		b += w
	}
	return last, Err{}
}

// fromRunes returns s[b:e] as cel-go's string(runes[i:j]) would: the same
// bytes when valid UTF-8, else with each invalid byte replaced by U+FFFD.
func fromRunes(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(runesOf(s))
}

// Substring is s.substring(start): start outside [0, size] is
// ErrIndexOutOfRange.
func Substring(s string, start int64) (string, Err) {
	n := int64(utf8.RuneCountInString(s))
	if start < 0 || start > n {
		return "", StringIndexOutOfRange(start)
	}
	return fromRunes(s[runeOffset(s, int(start)):]), Err{}
}

// SubstringRange is s.substring(start, end): start > end is
// ErrInvalidArgument ("invalid substring range. start: s, end: e"), then
// start, end outside [0, size] are ErrIndexOutOfRange.
func SubstringRange(s string, start, end int64) (string, Err) {
	n := int64(utf8.RuneCountInString(s))
	if start > end {
		return "", InvalidArgument("invalid substring range. start: " + itoa(start) + ", end: " + itoa(end))
	}
	if start < 0 || start > n {
		return "", StringIndexOutOfRange(start)
	}
	if end < 0 || end > n {
		return "", StringIndexOutOfRange(end)
	}
	b := runeOffset(s, int(start))
	e := b + runeOffset(s[b:], int(end-start))
	return fromRunes(s[b:e]), Err{}
}

// CharAt is s.charAt(i): the code point at i as a string, "" at i == size,
// ErrIndexOutOfRange outside [0, size].
func CharAt(s string, i int64) (string, Err) {
	n := int64(utf8.RuneCountInString(s))
	if i < 0 || i > n {
		return "", StringIndexOutOfRange(i)
	}
	if i == n {
		return "", Err{}
	}
	b := runeOffset(s, int(i))
	r, w := utf8.DecodeRuneInString(s[b:])
	if r == utf8.RuneError && w == 1 {
		return "\uFFFD", Err{}
	}
	return s[b : b+w], Err{}
}
