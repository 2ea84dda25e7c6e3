// Package jsonscan reads and writes JSON that is already known to be
// valid, for the MCP guard and its proxy.
package jsonscan

// This file owns the guard's reading and writing of JSON that is already
// known to be valid: splitting an object into its members and an array
// into its elements, and unquoting strings, in one pass each over the
// bytes, so that a large result costs one validation pass, not one per
// level (encoding/json validates again at every Unmarshal and Marshal).

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

var errShape = errors.New("unexpected JSON value")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value that starts at i.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = SkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// SkipString returns the end of the string that starts at i (after its
// closing quote).
func SkipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// Members splits a valid JSON object into its members; a key given twice
// keeps its last value, as encoding/json does.
func Members(b []byte) (map[string]json.RawMessage, error) {
	m, _, err := MembersDup(b)
	return m, err
}

// MembersDup is [Members], and the keys given more than once (nil when
// none): the object as it came then reads otherwise to a parser that
// keeps the first value, and must be re-encoded from the members before
// it is passed on.
func MembersDup(b []byte) (map[string]json.RawMessage, []string, error) {
	var dups []string
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, errShape
	}
	m := map[string]json.RawMessage{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, nil, nil
	}
	for i < len(b) {
		e := SkipString(b, i)
		k, err := Unquote(b[i:e])
		if err != nil {
			return nil, nil, err
		}
		i = skipSpace(b, e)
		i = skipSpace(b, i+1) // ':'
		e = skipValue(b, i)
		if _, ok := m[k]; ok && !slices.Contains(dups, k) {
			dups = append(dups, k)
		}
		m[k] = b[i:e:e]
		i = skipSpace(b, e)
		if i >= len(b) || b[i] == '}' {
			break
		}
		i = skipSpace(b, i+1) // ','
	}
	return m, dups, nil
}

// Elements splits a valid JSON array into its elements.
func Elements(b []byte) ([]json.RawMessage, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, errShape
	}
	var out []json.RawMessage
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, nil
	}
	for i < len(b) {
		e := skipValue(b, i)
		out = append(out, b[i:e:e])
		i = skipSpace(b, e)
		if i >= len(b) || b[i] == ']' {
			break
		}
		i = skipSpace(b, i+1)
	}
	return out, nil
}

// Unquote decodes a JSON string of a document json.Valid accepted, in one
// pass, as encoding/json decodes it: escapes resolved (a \u escape of a
// lone surrogate, and invalid UTF-8, become U+FFFD). One without escapes
// or invalid UTF-8 is copied as it is.
func Unquote(b []byte) (string, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", errShape
	}
	in := b[1 : len(b)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		return string(in), nil
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		c := in[i]
		if c == '\\' && i+1 < len(in) {
			i++
			switch in[i] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, n := hex4(in[i+1:])
				if n == 0 {
					return "", errShape
				}
				i += n
				if utf16.IsSurrogate(r) {
					r2, n2 := rune(-1), 0
					if i+2 < len(in) && in[i+1] == '\\' && in[i+2] == 'u' {
						r2, n2 = hex4(in[i+3:])
					}
					if dec := utf16.DecodeRune(r, r2); n2 > 0 && dec != utf8.RuneError {
						r = dec
						i += 2 + n2
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default: // " \ /
				out = append(out, in[i])
			}
			i++
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, in[i:i+size]...)
		}
		i += size
	}
	return string(out), nil
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(c)
	}
	return r, 4
}

// AppendObject writes an object of members, keys sorted, values as they
// are (valid JSON).
func AppendObject(out []byte, m map[string]json.RawMessage) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		ks, _ := MarshalString(k)
		out = append(out, ks...)
		out = append(out, ':')
		out = append(out, m[k]...)
	}
	return append(out, '}')
}

// MarshalString encodes s as a JSON string, without HTML escaping.
func MarshalString(s string) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// WellFormed returns b, which must be valid JSON (json.Valid), with
// every string in it (keys and values) as [Unquote] reads it,
// re-encoded: a \u escape of a lone surrogate, and invalid UTF-8, become
// U+FFFD, so that every parser downstream reads the text the guard read
// (JavaScript keeps a lone surrogate, Go reads U+FFFD, others drop the
// bytes). b is returned as it is when it has neither (the common case,
// one pass over its bytes).
func WellFormed(b []byte) []byte {
	if utf8.Valid(b) && !surrogateEscape(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		if b[i] != '"' {
			out = append(out, b[i])
			i++
			continue
		}
		e := SkipString(b, i)
		s, err := Unquote(b[i:e])
		if err != nil {
			return b
		}
		q, err := MarshalString(s)
		if err != nil {
			return b
		}
		out = append(out, q...)
		i = e
	}
	return out
}

// surrogateEscape reports whether b may hold a \u escape of a surrogate
// (\uD800 to \uDFFF; a false alarm only costs a re-encoding).
func surrogateEscape(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\u`))
		if i < 0 || i+2 >= len(b) {
			return false
		}
		if c := b[i+2]; c == 'd' || c == 'D' {
			return true
		}
		b = b[i+2:]
	}
}

// Unique returns the valid JSON value b with every object's names given
// once: a name given twice (as Unquote reads it: "a" and "\u0061" are
// one) keeps its last value, at its first place and spelling, at any
// depth, as JavaScript's JSON.parse and Python's json read such an
// object, and encoding/json, which keeps the last value, too. b is
// returned as it is when no object has a name twice. Time and memory are
// linear in len(b), whatever the nesting.
func Unique(b []byte) []byte {
	if !dupNames(b) {
		return b
	}
	n, _ := parseNode(b, 0)
	return n.appendTo(make([]byte, 0, len(b)))
}

// name is a member name as Unquote reads it: the raw bytes between the
// quotes when they hold no escape.
func name(key []byte) string {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key[1 : len(key)-1])
	}
	s, _ := Unquote(key)
	return s
}

// dupNames reports whether an object in the valid JSON b gives a name
// twice, in one pass.
func dupNames(b []byte) bool {
	// objs are the names of the objects open, innermost last (nil for an
	// array); a string is a name when it follows '{' or ',' in an
	// object.
	type names struct {
		few  []string
		many map[string]struct{} // from the 16th name on
	}
	var objs []*names
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			objs = append(objs, &names{})
			expectKey = true
		case '[':
			objs = append(objs, nil)
			expectKey = false
		case '}', ']':
			objs = objs[:len(objs)-1]
			expectKey = false
		case ',':
			expectKey = len(objs) > 0 && objs[len(objs)-1] != nil
		case ':':
			expectKey = false
		case '"':
			e := SkipString(b, i)
			if expectKey {
				o, k := objs[len(objs)-1], name(b[i:e])
				if _, ok := o.many[k]; ok || slices.Contains(o.few, k) {
					return true
				}
				if len(o.few) < 16 {
					o.few = append(o.few, k)
				} else {
					if o.many == nil {
						o.many = map[string]struct{}{}
					}
					o.many[k] = struct{}{}
				}
			}
			i = e - 1
		}
	}
	return false
}

// node is a JSON value as Unique rebuilds it: an object's members with
// each name once, an array's elements, or any other value as written.
type node struct {
	raw      []byte // a string, number or literal
	object   bool
	keys     [][]byte // as written
	children []*node
}

// parseNode reads the valid JSON value at b[i:], and returns it and where
// it ends.
func parseNode(b []byte, i int) (*node, int) {
	i = skipSpace(b, i)
	switch b[i] {
	case '{':
		n := &node{object: true}
		at := map[string]int{}
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != '}' {
			e := SkipString(b, i)
			key := b[i:e]
			i = skipSpace(b, e)
			v, end := parseNode(b, i+1) // after ':'
			if p, dup := at[name(key)]; dup {
				n.children[p] = v
			} else {
				at[name(key)] = len(n.keys)
				n.keys = append(n.keys, key)
				n.children = append(n.children, v)
			}
			i = skipSpace(b, end)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return n, i + 1
	case '[':
		n := &node{}
		i = skipSpace(b, i+1)
		for i < len(b) && b[i] != ']' {
			v, end := parseNode(b, i)
			n.children = append(n.children, v)
			i = skipSpace(b, end)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
			}
		}
		return n, i + 1
	}
	e := skipValue(b, i)
	return &node{raw: b[i:e]}, e
}

func (n *node) appendTo(out []byte) []byte {
	switch {
	case n.raw != nil:
		return append(out, n.raw...)
	case n.object:
		out = append(out, '{')
		for k, key := range n.keys {
			if k > 0 {
				out = append(out, ',')
			}
			out = append(out, key...)
			out = append(out, ':')
			out = n.children[k].appendTo(out)
		}
		return append(out, '}')
	}
	out = append(out, '[')
	for k, c := range n.children {
		if k > 0 {
			out = append(out, ',')
		}
		out = c.appendTo(out)
	}
	return append(out, ']')
}
