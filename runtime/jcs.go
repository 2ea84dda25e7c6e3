package runtime

// This file owns the arguments' fingerprint of spec 5.10: the RFC 8785
// (JSON Canonicalization Scheme) serialisation of a dyn value, and the
// first 8 bytes of its SHA-256. It allocates nothing for the common
// arguments (maps of up to [sortInPlace] keys, any nesting) once the
// caller's buffer has grown.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth is how deep the runtime follows nested host values (lists and
// maps in tool_args): equality, `in` and the arguments' fingerprint stop
// there, with an error, so that a cyclic or absurdly deep value cannot
// exhaust the stack or hang an evaluation.
const MaxDepth = 1000

// Fingerprint is an arguments' fingerprint (spec 5.10): the first 8 bytes
// of the SHA-256 of their RFC 8785 canonical JSON.
type Fingerprint [8]byte

// String is the fingerprint as tool_args_fingerprint spells it: 16
// lowercase hex digits.
func (f Fingerprint) String() string { return hex.EncodeToString(f[:]) }

// ErrNoFingerprint is wrapped by the error of arguments that JCS cannot
// serialise: a NaN or an infinity, a string that is not UTF-8, a map whose
// keys are not strings, a Go value outside the dyn representation, or
// nesting deeper than [MaxDepth]. Such arguments have no fingerprint: the
// call differs from every other for repeat_count, and reading
// tool_args_fingerprint is an error.
var ErrNoFingerprint = errors.New("the arguments have no fingerprint")

// ArgsFingerprint returns the fingerprint of tool arguments (nil: those
// of {}), using buf as scratch space; it returns buf, grown as needed, for
// the next call.
func ArgsFingerprint(buf []byte, args map[string]any) (Fingerprint, []byte, error) {
	return argsFingerprint(buf, nil, args)
}

// argsFingerprint is ArgsFingerprint that reads the arguments' names in
// the order *order remembers when they are the same names, and remembers
// the order of new ones (order may be nil: neither).
func argsFingerprint(buf []byte, order *[]string, args map[string]any) (Fingerprint, []byte, error) {
	b := append(buf[:0], "{}"...) // nil arguments are {}
	if args != nil {
		var ok bool
		if order != nil {
			b, ok = appendInOrder(buf[:0], args, *order)
		}
		if !ok {
			var err error
			if b, err = appendJCSObject(b[:0], args, 0, canonical, order); err != nil {
				return Fingerprint{}, b, err
			}
		}
	}
	sum := sha256.Sum256(b)
	var f Fingerprint
	copy(f[:], sum[:8])
	return f, b, nil
}

// AppendCanonical appends the RFC 8785 canonical JSON of v to dst: object
// members sorted by the UTF-16 code units of their names, no white space,
// strings with only the escapes JSON requires, numbers as ECMAScript
// writes a double (so the int 1 and the double 1.0 are both "1", and ints
// beyond 2^53 round to the nearest double). v is a dyn value: nil, bool,
// string, a Go integer or float of any size, json.Number, []any, []string,
// []map[string]any, map[string]any. Anything else, and what JCS cannot
// serialise, is an error wrapping [ErrNoFingerprint].
func AppendCanonical(dst []byte, v any) ([]byte, error) {
	return appendJCS(dst, v, 0, canonical)
}

func noFingerprint(why string) error {
	return &fingerprintError{why}
}

type fingerprintError struct{ why string }

func (e *fingerprintError) Error() string { return ErrNoFingerprint.Error() + ": " + e.why }
func (e *fingerprintError) Unwrap() error { return ErrNoFingerprint }

func appendJCS(dst []byte, v any, depth int, mode jsonMode) ([]byte, error) {
	if depth > MaxDepth {
		return dst, noFingerprint("nested deeper than " + strconv.Itoa(MaxDepth) + " levels")
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendJCSString(dst, x)
	case int64:
		return appendInt(dst, x, mode)
	case float64:
		return appendFloat(dst, x, mode)
	case int:
		return appendInt(dst, int64(x), mode)
	case int8:
		return appendInt(dst, int64(x), mode)
	case int16:
		return appendInt(dst, int64(x), mode)
	case int32:
		return appendInt(dst, int64(x), mode)
	case uint:
		return appendUint(dst, uint64(x), mode)
	case uint8:
		return appendUint(dst, uint64(x), mode)
	case uint16:
		return appendUint(dst, uint64(x), mode)
	case uint32:
		return appendUint(dst, uint64(x), mode)
	case uint64:
		return appendUint(dst, x, mode)
	case float32:
		return appendFloat(dst, float64(x), mode)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return dst, noFingerprint("json.Number " + strconv.Quote(string(x)) + " is not a finite number")
		}
		if mode == typed && !strings.ContainsAny(string(x), ".eE") {
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				return strconv.AppendInt(dst, i, 10), nil
			}
		}
		return appendFloat(dst, f, mode)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJCS(dst, e, depth+1, mode); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJCSString(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []map[string]any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJCSObject(dst, e, depth+1, mode, nil); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		return appendJCSObject(dst, x, depth, mode, nil)
	}
	return dst, noFingerprint(fmt.Sprintf("a value of Go type %T is not a dyn value", v))
}

// jsonMode says how numbers are written: canonical (RFC 8785: every
// number as the double it is), or typed (integers as integers, doubles
// always with a fraction or an exponent, so that DecodeToolArgs gives back
// the same Go types: how a store keeps a node's arguments).
type jsonMode uint8

const (
	canonical jsonMode = iota
	typed
)

func appendInt(dst []byte, i int64, mode jsonMode) ([]byte, error) {
	if mode == typed {
		return strconv.AppendInt(dst, i, 10), nil
	}
	return appendJCSNumber(dst, float64(i))
}

// appendUint appends an unsigned integer of any Go width (cel-go reads
// each as a uint): canonical JSON writes it as a number; typed JSON
// cannot keep it, since JSON has no unsigned integers and reading it back
// would give an int (or a double) where cel-go reads a uint.
func appendUint(dst []byte, u uint64, mode jsonMode) ([]byte, error) {
	if mode == typed {
		return dst, noFingerprint("an unsigned integer (a CEL uint) cannot be kept as typed JSON, which reads it back as an int: give it as an int or a double")
	}
	return appendFloat(dst, float64(u), mode)
}

func appendFloat(dst []byte, f float64, mode jsonMode) ([]byte, error) {
	if mode == canonical {
		return appendJCSNumber(dst, f)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, noFingerprint("a number is NaN or infinite")
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'g', -1, 64)
	if !strings.ContainsAny(string(dst[n:]), ".eEn") {
		dst = append(dst, '.', '0')
	}
	return dst, nil
}

// AppendTypedJSON appends v (a dyn value) as JSON that DecodeToolArgs
// reads back into the same values: members ordered as in canonical JSON,
// integers written as integers and doubles with a fraction or an exponent.
// What canonical JSON cannot serialise is an error here too, and so is an
// unsigned integer (a CEL uint: JSON would give it back as an int).
func AppendTypedJSON(dst []byte, v any) ([]byte, error) {
	return appendJCS(dst, v, 0, typed)
}

// appendInOrder appends the canonical JSON of m, whose names are those of
// order (distinct and in canonical order: the names of an earlier object,
// as appendJCSObject left them), and reports whether they were. An agent
// calls a tool with the same arguments' names again and again: a lookup
// per name is then cheaper than reading the map, which starts at a random
// place, and ordering its names. When the names are not the same, or a
// value cannot be serialised, it reports false and the caller serialises m
// afresh (so that an error is the one of the canonical order of m's own
// names). Equal sizes, names of order in strictly increasing canonical
// order (so distinct), and every one of them in m make m's names exactly
// those of order, in canonical order. The order is checked, not trusted:
// a Decision copied by value shares order's array with the original, and
// what one copy remembers then overwrites the other's names in place
// (leaving a name twice, or out of order).
func appendInOrder(dst []byte, m map[string]any, order []string) ([]byte, bool) {
	if len(order) != len(m) || len(m) == 0 {
		return dst, false
	}
	dst = append(dst, '{')
	for i, k := range order {
		if i > 0 && !utf16Less(order[i-1], k) {
			return dst, false
		}
		v, ok := m[k]
		if !ok {
			return dst, false
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendJCSString(dst, k); err != nil {
			return dst, false
		}
		dst = append(dst, ':')
		if dst, err = appendJCS(dst, v, 1, canonical); err != nil {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// sortInPlace is the most members an object may have for its names to be
// ordered without allocating (in an array on the stack).
const sortInPlace = 32

// appendJCSObject appends the canonical JSON of m; with an order (the
// arguments' object of a fingerprint) it remembers there the names of an
// object it serialised, in canonical order, for appendInOrder.
func appendJCSObject(dst []byte, m map[string]any, depth int, mode jsonMode, order *[]string) ([]byte, error) {
	if depth > MaxDepth {
		return dst, noFingerprint("nested deeper than " + strconv.Itoa(MaxDepth) + " levels")
	}
	type member struct {
		k string
		v any
	}
	var arr [sortInPlace]member
	members := arr[:0]
	if len(m) > sortInPlace {
		members = make([]member, 0, len(m))
	}
	// Insertion into order as the map is read (a few names: as fast as a
	// sort, and nothing to allocate).
	for k, v := range m {
		i := len(members)
		members = append(members, member{k, v})
		for ; i > 0 && utf16Less(k, members[i-1].k); i-- {
			members[i] = members[i-1]
		}
		members[i] = member{k, v}
	}
	dst = append(dst, '{')
	for i, mb := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendJCSString(dst, mb.k); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if dst, err = appendJCS(dst, mb.v, depth+1, mode); err != nil {
			return dst, err
		}
	}
	if order != nil && len(members) <= sortInPlace {
		o := (*order)[:0]
		for _, mb := range members {
			o = append(o, mb.k)
		}
		*order = o
	}
	return append(dst, '}'), nil
}

// utf16Less orders strings by their UTF-16 code units (RFC 8785 3.2.3).
// For valid UTF-8 that is byte order, except where the first difference
// puts a code point above U+FFFF (a surrogate pair, from U+D800) against
// one of U+E000..U+FFFF: the surrogate sorts first. Both are then at a
// code point's first byte (the bytes before are equal).
func utf16Less(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		switch {
		case ca >= 0xF0 && (cb == 0xEE || cb == 0xEF):
			return true
		case cb >= 0xF0 && (ca == 0xEE || ca == 0xEF):
			return false
		}
		return ca < cb
	}
	return len(a) < len(b)
}

// jcsPlain marks the ASCII bytes a JSON string holds as they are.
var jcsPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func appendJCSString(dst []byte, s string) ([]byte, error) {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are printable ASCII, neither
		// '"' nor '\\' (most of the bytes agents send), then straight to
		// the first that is not.
		if len(s)-i >= 8 {
			m := special8(load8(s[i : i+8]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if jcsPlain[c] {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return dst, noFingerprint("a string is not valid UTF-8")
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

// special8 marks, in the high bit of each byte, the bytes of w (8 bytes
// of a string, the first lowest) that a JSON string does not hold as they
// are (not jcsPlain): from 0x80, below 0x20, '"' and '\\'. The lowest mark
// is exact (the first such byte); a subtraction's borrow can mark bytes
// above it, never below.
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := w^('"'*ones), w^('\\'*ones)
	return (w | (w - 0x20*ones) | (q-ones)&^q | (bs-ones)&^bs) & highs
}

// load8 is the first 8 bytes of s as a little-endian word.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// appendJCSNumber writes a double as ECMAScript's Number.prototype.toString
// does (RFC 8785 3.2.2.3): the shortest digits that round-trip, in
// positional notation for exponents from -7 to 20, else in exponent form.
func appendJCSNumber(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, noFingerprint("a number is NaN or infinite")
	}
	if f == 0 {
		return append(dst, '0'), nil // -0 too
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		// An integer below 10^15 has at most 15 digits: exact in a double
		// and written in full, as an int64 would be.
		return strconv.AppendInt(dst, int64(f), 10), nil
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d[.ddd]e±XX
	var digits [24]byte
	k := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	exp := 0
	neg := e[i+1] == '-'
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	n := exp + 1 // the decimal point's position after the first digit
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		dst = append(dst, d...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default:
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}
