// Package stats reads decision logs (spec 10, "Decision records": JSON
// Lines written by runtime.JSONLRecorder) and aggregates them per digest
// and rule for `oarc stats` ("Trials"). Reading streams: a log is read a
// line at a time and memory does not grow with the number of records
// (docs/stats.md).
package stats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"
)

// MaxLine is the length in bytes of the longest line a Reader accepts,
// its line break ("\n" or "\r\n") not counted; a longer line is reported
// as bad and skipped without being held in memory.
const MaxLine = 1 << 20

// Reader reads decision records, one per line.
type Reader struct {
	r    *bufio.Reader
	buf  []byte
	line int
	p    parser
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), p: parser{intern: map[string]string{}}}
}

// maxIntern bounds the strings a Reader keeps to share between records
// (digests, sessions, anchors, rule ids, ...).
const maxIntern = 4096

// LineError is a line that is not a record.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Next reads the next line into rec. It returns a *LineError for a line
// that is not a record (the caller may go on reading), io.EOF at the end,
// and any other error of the underlying reader. rec is overwritten on
// every call, and its lists reused.
func (r *Reader) Next(rec *runtime.Record) error {
	r.buf = r.buf[:0]
	tooLong := false
	for {
		chunk, err := r.r.ReadSlice('\n')
		if !tooLong {
			if len(r.buf)+len(chunk) > MaxLine+2 { // the line, "\r\n"
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(r.buf) == 0 && !tooLong {
				return io.EOF
			}
		} else if err != nil {
			return err
		}
		break
	}
	r.line++
	line := bytes.TrimSuffix(r.buf, []byte("\n"))
	if r.line == 1 {
		// A byte order mark an editor wrote (RFC 8259 lets a parser
		// ignore it; rule and fixture files may start with one too).
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	// The buffer may hold up to two bytes past MaxLine (the line break):
	// whether they were the break is known only now.
	if tooLong || len(line) > MaxLine {
		return &LineError{r.line, fmt.Errorf("line longer than %d bytes", MaxLine)}
	}
	if !utf8.Valid(line) {
		// JSON text is UTF-8 (RFC 8259), and a recorder writes nothing
		// else: such a line was not written as a record.
		return &LineError{r.line, fmt.Errorf("not UTF-8 (at byte %d)", invalidAt(line)+1)}
	}
	r.p.b, r.p.i = line, 0
	if err := r.p.record(rec); err != nil {
		return &LineError{r.line, err}
	}
	return nil
}

// invalidAt returns the offset of the first byte of b that is not part of
// valid UTF-8.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// Line is the number of lines read so far.
func (r *Reader) Line() int { return r.line }

// ParseRecord parses one line of a decision log into rec (its lists are
// reused). The line must be one JSON object with every field of spec 10
// (session may be left out) of its type: strings, lists of rule ids
// (never null), errors as objects of strings {rule, kind, message}; time
// RFC 3339 (read as UTC, years 0 to 9999), decision an effect, digest not
// empty. Keys match exactly; a field given twice (in the record or in one
// of its errors) makes the line no record, since readers may read it in
// two ways; fields it does not know are ignored (their values must be
// JSON). Strings
// decode as encoding/json decodes them (a lone surrogate escape becomes
// U+FFFD). [Reader] refuses a line that is not UTF-8 before parsing it.
func ParseRecord(line []byte, rec *runtime.Record) error {
	p := parser{b: line}
	return p.record(rec)
}

// parser parses one line. It is a small JSON parser for the record's
// shape: encoding/json, with reflection and a pointer per field, is ten
// times slower, and oarc stats reads millions of lines.
type parser struct {
	b      []byte
	i      int
	buf    []byte            // unescaped strings
	intern map[string]string // nil: no interning
}

// the fields of a record, in the order their absence is reported.
const (
	fTime = iota
	fPack
	fDigest
	fAnchor
	fTool
	fDecision
	fCode
	fSession // optional from here on
	fTenant
	nStrings
)

var stringFields = [nStrings]string{"time", "pack", "digest", "anchor", "tool", "decision", "code", "session", "tenant"}

// recordKeys are the names of a record's fields.
var recordKeys = [...]string{"time", "pack", "digest", "session", "tenant", "call", "anchor", "tool", "decision", "code", "codes", "monitored", "failed_closed", "errors"}

// foldsTo returns the name among names that key equals in another case
// (encoding/json matches keys so: Codes, ſession), "" when none does.
func foldsTo(key []byte, names []string) string {
	for _, n := range names {
		if string(key) != n && strings.EqualFold(string(key), n) {
			return n
		}
	}
	return ""
}

func (p *parser) record(rec *runtime.Record) error {
	p.ws()
	if p.i == len(p.b) {
		return errors.New("empty line, not a record")
	}
	if c := p.b[p.i]; c != '{' {
		k := p.kind()
		if k == "" {
			return p.syntax("looking for the beginning of an object")
		}
		if err := p.skip(0); err != nil {
			return err
		}
		p.ws()
		if p.i != len(p.b) {
			return p.syntax("after the value")
		}
		return fmt.Errorf("not a JSON object but %s", k)
	}
	p.i++
	var strs [nStrings]string
	var have [nStrings]bool
	lists := [3]*[]string{&rec.Codes, &rec.Monitored, &rec.FailedClosed}
	listNames := [3]string{"codes", "monitored", "failed_closed"}
	var haveList [3]bool
	haveErrors := false
	// A field given twice reads two ways (RFC 8259 leaves which one a
	// reader takes open): the line is not a record.
	var seen [nStrings]bool
	var seenList [3]bool
	seenErrors := false
	twice := func(name string) error {
		return fmt.Errorf("field %q given twice: readers may read the line in two ways", name)
	}
	for i := range lists {
		*lists[i] = (*lists[i])[:0]
	}
	rec.Errors = rec.Errors[:0]
	p.ws()
	if p.peek() == '}' {
		p.i++
	} else {
		for {
			p.ws()
			if p.peek() != '"' {
				return p.syntax("looking for a key")
			}
			key, err := p.str()
			if err != nil {
				return err
			}
			p.ws()
			if p.peek() != ':' {
				return p.syntax("after a key")
			}
			p.i++
			p.ws()
			field := -1
			for j, name := range stringFields {
				if string(key) == name {
					field = j
				}
			}
			list := -1
			for j, name := range listNames {
				if string(key) == name {
					list = j
				}
			}
			if field < 0 && list < 0 && string(key) != "errors" {
				if name := foldsTo(key, recordKeys[:]); name != "" {
					return fmt.Errorf("key %q differs from the field %q only in case: readers may read the line in two ways", key, name)
				}
			}
			switch {
			case field >= 0 && seen[field]:
				return twice(stringFields[field])
			case list >= 0 && seenList[list]:
				return twice(listNames[list])
			case string(key) == "errors" && seenErrors:
				return twice("errors")
			case field >= 0:
				seen[field] = true
				s, ok, err := p.stringValue(stringFields[field], field != fTime)
				if err != nil {
					return err
				}
				strs[field], have[field] = s, ok
			case list >= 0:
				seenList[list] = true
				l := (*lists[list])[:0]
				ok, err := p.idList(listNames[list], &l)
				if err != nil {
					return err
				}
				*lists[list], haveList[list] = l, ok
			case string(key) == "errors":
				seenErrors = true
				rec.Errors = rec.Errors[:0]
				ok, err := p.errorList(&rec.Errors)
				if err != nil {
					return err
				}
				haveErrors = ok
			default:
				if err := p.skip(0); err != nil {
					return err
				}
			}
			p.ws()
			if c := p.peek(); c == ',' {
				p.i++
				continue
			} else if c == '}' {
				p.i++
				break
			}
			return p.syntax("after a value in an object")
		}
	}
	p.ws()
	if p.i != len(p.b) {
		return p.syntax("after the object")
	}
	for j := 0; j < fSession; j++ {
		if !have[j] {
			return fmt.Errorf("field %q is missing (or null)", stringFields[j])
		}
	}
	var t time.Time
	if err := t.UnmarshalText([]byte(strs[fTime])); err != nil { // strict RFC 3339
		return fmt.Errorf("field \"time\": %q is not an RFC 3339 time", strs[fTime])
	}
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return fmt.Errorf("field \"time\": %q is outside the years 0 to 9999 in UTC", strs[fTime])
	}
	if strs[fDigest] == "" {
		return errors.New("field \"digest\" is empty")
	}
	if _, ok := runtime.ParseEffect(strs[fDecision]); !ok {
		return fmt.Errorf("field \"decision\": %q is not an effect", strs[fDecision])
	}
	for j, ok := range haveList {
		if !ok {
			return fmt.Errorf("field %q is missing (or null): want a list of rule ids", listNames[j])
		}
		if *lists[j] == nil {
			*lists[j] = []string{}
		}
	}
	if !haveErrors {
		return errors.New("field \"errors\" is missing (or null): want a list of {rule, kind, message}")
	}
	if rec.Errors == nil {
		rec.Errors = []runtime.RecordError{}
	}
	rec.Time, rec.Pack, rec.Digest, rec.Session, rec.Tenant, rec.Anchor, rec.Tool, rec.Decision, rec.Code =
		t, strs[fPack], strs[fDigest], strs[fSession], strs[fTenant], strs[fAnchor], strs[fTool], strs[fDecision], strs[fCode]
	return nil
}

func (p *parser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) syntax(where string) error {
	if p.i >= len(p.b) {
		return fmt.Errorf("not JSON: unexpected end of the line %s", where)
	}
	return fmt.Errorf("not JSON: invalid character %q %s (at byte %d)", p.b[p.i], where, p.i+1)
}

// kind names the JSON value starting at p.i, "" if none does.
func (p *parser) kind() string {
	switch c := p.peek(); {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a bool"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return ""
}

// typeError reports a value of the wrong type for field.
func (p *parser) typeError(field, want string) error {
	k := p.kind()
	if k == "" {
		return p.syntax("looking for a value")
	}
	return fmt.Errorf("field %q: %s where %s is expected", field, k, want)
}

// null consumes null and reports whether it was there.
func (p *parser) null() (bool, error) {
	if p.peek() != 'n' {
		return false, nil
	}
	return true, p.literal("null")
}

func (p *parser) literal(lit string) error {
	for j := 0; j < len(lit); j++ {
		if p.peek() != lit[j] {
			return p.syntax("in the literal " + lit)
		}
		p.i++
	}
	return nil
}

func (p *parser) string(b []byte, intern bool) string {
	if !intern || p.intern == nil {
		return string(b)
	}
	if s, ok := p.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.intern) < maxIntern {
		p.intern[s] = s
	}
	return s
}

// stringValue reads a string (ok) or null (not ok) of field.
func (p *parser) stringValue(field string, intern bool) (string, bool, error) {
	if null, err := p.null(); null || err != nil {
		return "", false, err
	}
	if p.peek() != '"' {
		return "", false, p.typeError(field, "a string")
	}
	b, err := p.str()
	if err != nil {
		return "", false, err
	}
	return p.string(b, intern), true, nil
}

// idList reads a list of rule ids (ok) or null (not ok).
func (p *parser) idList(field string, out *[]string) (bool, error) {
	if null, err := p.null(); null || err != nil {
		return false, err
	}
	if p.peek() != '[' {
		return false, p.typeError(field, "a list of strings")
	}
	p.i++
	for n := 0; ; n++ {
		p.ws()
		if n == 0 && p.peek() == ']' {
			p.i++
			return true, nil
		}
		if p.peek() != '"' {
			if p.peek() == 'n' || p.peek() == ']' {
				return false, fmt.Errorf("field %q: element %d is not a rule id", field, n)
			}
			return false, p.typeError(field, "a string")
		}
		b, err := p.str()
		if err != nil {
			return false, err
		}
		if len(b) == 0 {
			return false, fmt.Errorf("field %q: element %d is not a rule id", field, n)
		}
		*out = append(*out, p.string(b, true))
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true, nil
		default:
			return false, p.syntax("after an element of a list")
		}
	}
}

// errorList reads the errors (ok) or null (not ok).
func (p *parser) errorList(out *[]runtime.RecordError) (bool, error) {
	if null, err := p.null(); null || err != nil {
		return false, err
	}
	if p.peek() != '[' {
		return false, p.typeError("errors", "a list of {rule, kind, message}")
	}
	p.i++
	for n := 0; ; n++ {
		p.ws()
		if n == 0 && p.peek() == ']' {
			p.i++
			return true, nil
		}
		bad := fmt.Errorf("field \"errors\": element %d is not a {rule, kind, message} object of strings", n)
		if p.peek() != '{' {
			if p.peek() == 'n' || p.peek() == ']' {
				return false, bad
			}
			return false, p.typeError("errors", "an object")
		}
		p.i++
		var e [3]string
		var have, seen [3]bool
		names := [3]string{"rule", "kind", "message"}
		p.ws()
		if p.peek() == '}' {
			p.i++
		} else {
			for {
				p.ws()
				if p.peek() != '"' {
					return false, p.syntax("looking for a key")
				}
				key, err := p.str()
				if err != nil {
					return false, err
				}
				p.ws()
				if p.peek() != ':' {
					return false, p.syntax("after a key")
				}
				p.i++
				p.ws()
				field := -1
				for j, name := range names {
					if string(key) == name {
						field = j
					}
				}
				if name := foldsTo(key, names[:]); field < 0 && name != "" {
					return false, fmt.Errorf("field \"errors\": element %d: key %q differs from %q only in case: readers may read the line in two ways", n, key, name)
				}
				if field >= 0 && seen[field] {
					return false, fmt.Errorf("field \"errors\": element %d gives %q twice: readers may read the line in two ways", n, names[field])
				}
				if field >= 0 {
					seen[field] = true
					s, ok, err := p.stringValue("errors."+names[field], field != 2)
					if err != nil {
						return false, err
					}
					e[field], have[field] = s, ok
				} else if err := p.skip(1); err != nil {
					return false, err
				}
				p.ws()
				if c := p.peek(); c == ',' {
					p.i++
					continue
				} else if c == '}' {
					p.i++
					break
				}
				return false, p.syntax("after a value in an object")
			}
		}
		if !have[0] || !have[1] || !have[2] {
			return false, bad
		}
		*out = append(*out, runtime.RecordError{Rule: e[0], Kind: e[1], Message: e[2]})
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			return true, nil
		default:
			return false, p.syntax("after an element of a list")
		}
	}
}

// maxDepth bounds the nesting of the values skipped.
const maxDepth = 1000

// skip skips one JSON value, checking its syntax.
func (p *parser) skip(depth int) error {
	if depth > maxDepth {
		return errors.New("not JSON we read: nested too deeply")
	}
	switch c := p.peek(); {
	case c == '"':
		_, err := p.str()
		return err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == '[' || c == '{':
		end := byte(']')
		if c == '{' {
			end = '}'
		}
		p.i++
		p.ws()
		if p.peek() == end {
			p.i++
			return nil
		}
		for {
			p.ws()
			if c == '{' {
				if p.peek() != '"' {
					return p.syntax("looking for a key")
				}
				if _, err := p.str(); err != nil {
					return err
				}
				p.ws()
				if p.peek() != ':' {
					return p.syntax("after a key")
				}
				p.i++
				p.ws()
			}
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			p.ws()
			switch p.peek() {
			case ',':
				p.i++
			case end:
				p.i++
				return nil
			default:
				return p.syntax("after a value")
			}
		}
	}
	return p.syntax("looking for a value")
}

func (p *parser) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// number skips a JSON number.
func (p *parser) number() error {
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return p.syntax("in a number")
	}
	if p.peek() == '.' {
		p.i++
		if p.digits() == 0 {
			return p.syntax("after the decimal point of a number")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if p.digits() == 0 {
			return p.syntax("in the exponent of a number")
		}
	}
	return nil
}

// str reads a string at p.i (a '"'), returning its decoded bytes: a view
// of the line or of p.buf, valid until the next call.
func (p *parser) str() ([]byte, error) {
	p.i++
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			p.i++
			return p.b[start : p.i-1], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.i++
	}
	buf := append(p.buf[:0], p.b[start:p.i]...)
	defer func() { p.buf = buf[:0] }()
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return buf, nil
		case c < 0x20:
			return nil, p.syntax("in a string")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.b[p.i:])
			buf = utf8.AppendRune(buf, r) // RuneError for invalid UTF-8, as encoding/json
			p.i += size
		case c != '\\':
			buf = append(buf, c)
			p.i++
		default:
			p.i++
			switch e := p.peek(); e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4(p.i + 1)
				if !ok {
					return nil, p.syntax("in a \\u escape")
				}
				p.i += 4
				if utf16.IsSurrogate(r) {
					if p.i+2 < len(p.b) && p.b[p.i+1] == '\\' && p.b[p.i+2] == 'u' {
						if r2, ok := p.hex4(p.i + 3); ok {
							if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
								r = d
								p.i += 6
								buf = utf8.AppendRune(buf, r)
								break
							}
						}
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return nil, p.syntax("in an escape")
			}
			p.i++
		}
	}
	return nil, p.syntax("in a string")
}

// hex4 reads four hex digits at i.
func (p *parser) hex4(i int) (rune, bool) {
	if i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}
