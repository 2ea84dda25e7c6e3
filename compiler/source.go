// This file owns source positions: file text split into lines, and the map
// from byte offsets inside a decoded YAML scalar back to line:col in the
// file, for every scalar style (plain, single- and double-quoted, literal
// and folded block scalars). Every step is linear in the size of the
// scalar: a `when` of a megabyte must not take minutes to map.

package compiler

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// source is the raw text of one file.
//
// It has two sets of lines. lines are the file's lines as an editor
// counts them (broken at CR LF, LF or CR), the lines of every position
// reported. ylines are the lines as yaml.v3 counts them: YAML 1.1 also
// breaks lines at U+0085, U+2028 and U+2029 (which yaml.Marshal writes
// raw into quoted strings), so the line:col of a node is a place in
// ylines, which [source.editorPos] maps to the file's.
type source struct {
	name   string
	text   string
	lines  []string // without the line break
	ylines []string // without the line break; lines itself when the file has no Unicode break
	ybreak []string // the break ending each of ylines as yaml.v3 reads it: "\n", or U+2028 or U+2029 kept; nil when the file has no Unicode break
	yline  []int32  // the editor line (1-based) of each of ylines; nil likewise
	ycol   []int32  // characters of that editor line before each of ylines
}

// unicodeBreaks are the line breaks of YAML 1.1 that are no line breaks
// to an editor.
const unicodeBreaks = "\u0085\u2028\u2029"

// utf8BOM is the byte order mark in UTF-8.
const utf8BOM = "\ufeff"

func newSource(name string, text []byte) *source {
	s := &source{name: name, text: string(text)}
	s.lines = strings.Split(strings.ReplaceAll(strings.ReplaceAll(s.text, "\r\n", "\n"), "\r", "\n"), "\n")
	// A byte order mark is no character of the first line, to yaml.v3 or
	// to an editor.
	s.lines[0] = strings.TrimPrefix(s.lines[0], utf8BOM)
	s.ylines = s.lines
	if !strings.ContainsAny(s.text, unicodeBreaks) {
		return s
	}
	s.ylines = make([]string, 0, len(s.lines)+1)
	for i, l := range s.lines {
		col := 0
		for {
			j := strings.IndexAny(l, unicodeBreaks)
			if j < 0 {
				break
			}
			r, sz := utf8.DecodeRuneInString(l[j:])
			brk := "\n" // yaml.v3 reads U+0085 as a line feed, keeps U+2028 and U+2029
			if r != 0x85 {
				brk = string(r)
			}
			s.addYLine(l[:j], brk, i+1, col)
			col += utf8.RuneCountInString(l[:j]) + 1
			l = l[j+sz:]
		}
		s.addYLine(l, "\n", i+1, col)
	}
	return s
}

func (s *source) addYLine(text, brk string, line, col int) {
	s.ylines = append(s.ylines, text)
	s.ybreak = append(s.ybreak, brk)
	s.yline = append(s.yline, int32(line))
	s.ycol = append(s.ycol, int32(col))
}

// editorPos maps a line and column as yaml.v3 counts them to the file's
// (an editor's). A line outside the file is left as it is.
func (s *source) editorPos(line, col int) (int, int) {
	if s.yline == nil || line < 1 || line > len(s.yline) {
		return line, col
	}
	return int(s.yline[line-1]), col + int(s.ycol[line-1])
}

// ybreakAt is the break that ends YAML line n as yaml.v3 reads it.
func (s *source) ybreakAt(n int) string {
	if s.ybreak == nil || n < 1 || n > len(s.ybreak) {
		return "\n"
	}
	return s.ybreak[n-1]
}

// yamlLine returns YAML line n (1-based) or "".
func (s *source) yamlLine(n int) string {
	if n < 1 || n > len(s.ylines) {
		return ""
	}
	return s.ylines[n-1]
}

// badChar finds the first character YAML does not accept in a UTF-8
// stream (invalid UTF-8, or a character outside YAML's printable set) and
// returns its position and a description. ok is false when there is none,
// or when the file is UTF-16 (which yaml.v3 decodes itself).
func (s *source) badChar() (p Pos, what string, ok bool) {
	t := s.text
	if strings.HasPrefix(t, "\xff\xfe") || strings.HasPrefix(t, "\xfe\xff") {
		return Pos{}, "", false
	}
	start := len(t) - len(strings.TrimPrefix(t, utf8BOM))
	line, lineStart := 1, start
	for i := start; i < len(t); {
		r, size := utf8.DecodeRuneInString(t[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			what = fmt.Sprintf("invalid UTF-8 (byte 0x%02x); a rule file must be UTF-8 text", t[i])
		case r == 0:
			what = "NUL byte (U+0000) is not allowed; YAML forbids control characters"
		case !yamlPrintable(r):
			what = fmt.Sprintf("control character %U is not allowed", r)
		case r == '\n', r == '\r' && !strings.HasPrefix(t[i+1:], "\n"):
			line, lineStart = line+1, i+1
		}
		if what != "" {
			return Pos{File: s.name, Line: line, Col: utf8.RuneCountInString(t[lineStart:i]) + 1}, what, true
		}
		i += size
	}
	return Pos{}, "", false
}

// yamlPrintable is YAML's set of characters allowed in a stream, as
// yaml.v3's reader checks it.
func yamlPrintable(r rune) bool {
	switch {
	case r == 0x09, r == 0x0A, r == 0x0D, r >= 0x20 && r <= 0x7E, r == 0x85,
		r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// line returns line n (1-based) or "".
func (s *source) line(n int) string {
	if s == nil || n < 1 || n > len(s.lines) {
		return ""
	}
	return s.lines[n-1]
}

// pos returns the position of a node.
func (s *source) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: s.name}
	}
	line, col := s.editorPos(n.Line, n.Column)
	if line > len(s.lines) {
		// yaml.v3 places the implicit null of a document that ends with
		// its "---" on the line after the marker, which a file without a
		// final line break does not have: the end of the file is the
		// place.
		line = len(s.lines)
		col = utf8.RuneCountInString(s.lines[line-1]) + 1
	}
	return Pos{File: s.name, Line: line, Col: col}
}

// lineCol is a position in a known file, kept small because a scalar map
// holds one per byte of the value.
type lineCol struct{ line, col int32 }

// scalarMap maps byte offsets of a scalar's decoded value to file
// positions. at[i] is the position of value byte i; at[len(value)] is just
// past the last character.
type scalarMap struct {
	at    []lineCol
	start Pos
}

// position returns the file position of byte offset off of the value.
func (m *scalarMap) position(off int) Pos {
	if m == nil {
		return Pos{}
	}
	if len(m.at) == 0 {
		return m.start
	}
	if off < 0 {
		off = 0
	}
	if off >= len(m.at) {
		off = len(m.at) - 1
	}
	return Pos{File: m.start.File, Line: int(m.at[off].line), Col: int(m.at[off].col)}
}

// mapScalar builds the offset map of a scalar node by re-scanning the raw
// file text from the node's position with the rules of its style. If the
// re-scan does not reproduce the parser's value (an exotic construct), every
// offset maps to the node's start: positions get coarser, never wrong by
// more than the scalar.
func (s *source) mapScalar(n *yaml.Node) *scalarMap {
	start := s.pos(n)
	m := &scalarMap{start: start}
	sc := &scanner{src: s, line: n.Line, out: make([]byte, 0, len(n.Value)+1), at: make([]lineCol, 0, len(n.Value)+1)}
	if n.Line < 1 || n.Line > len(s.ylines) {
		return m
	}
	// Column is in characters; convert to a byte index on the line.
	sc.i = runeIndex(s.ylines[n.Line-1], n.Column-1)
	if l := s.ylines[n.Line-1]; sc.i < len(l) && l[sc.i] == '!' {
		// yaml.v3's node starts at its tag (!!str, !<...>), which the
		// value follows after white space.
		for sc.i < len(l) && !isBlank(l[sc.i]) {
			sc.i++
		}
		for sc.i < len(l) && isBlank(l[sc.i]) {
			sc.i++
		}
	}
	var ok bool
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		ok = sc.quoted('"', n.Value)
	case n.Style&yaml.SingleQuotedStyle != 0:
		ok = sc.quoted('\'', n.Value)
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		folded := n.Style&yaml.FoldedStyle != 0
		if sc.indicator() == 0 {
			ok = sc.block(folded, n.Value, -1)
		} else {
			// An explicit indentation indicator is relative to the
			// parent node's indentation, which the node does not carry.
			// The value tells the indentation: its first line with
			// other than white space is the block's first such line
			// less the indentation. Trying every parent below the
			// node's column instead re-scanned the rest of the file
			// for each: minutes for a document indented far right.
			// The re-scan checks the value is reproduced.
			if indent, found := sc.blockIndent(n.Value); found {
				ok = sc.block(folded, n.Value, indent-sc.indicator())
			}
		}
	default:
		ok = sc.plain(n.Value)
	}
	if !ok || len(sc.out) < len(n.Value) || string(sc.out[:len(n.Value)]) != n.Value {
		return m
	}
	m.at = append(sc.at[:len(n.Value):len(n.Value)], sc.endPos(len(n.Value)))
	if s.yline != nil {
		for k, p := range m.at {
			line, col := s.editorPos(int(p.line), int(p.col))
			m.at[k] = lineCol{line: int32(line), col: int32(col)}
		}
	}
	return m
}

// runeIndex returns the byte index of the n-th character of s (clipped).
func runeIndex(s string, n int) int {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
	}
	return i
}

// scanner re-scans scalar text. line is 1-based, i a byte index into the
// current line. out and at grow by appending only, and the column of the
// scanner is computed from the last one it computed on the same line, so
// that a scan is linear in the length of the scalar.
type scanner struct {
	src  *source
	line int
	i    int
	out  []byte
	at   []lineCol

	// The last column computed by here: byte index colI of line colLine
	// is character column col (1-based).
	colLine, colI, col int
}

func (sc *scanner) cur() string { return sc.src.yamlLine(sc.line) }

// here is the position of the scanner.
func (sc *scanner) here() lineCol {
	l := sc.cur()
	i := min(sc.i, len(l))
	if sc.colLine != sc.line || i < sc.colI {
		sc.colLine, sc.colI, sc.col = sc.line, 0, 1
	}
	sc.col += utf8.RuneCountInString(l[sc.colI:i])
	sc.colI = i
	return lineCol{line: int32(sc.line), col: int32(sc.col)}
}

func (sc *scanner) emit(s string, p lineCol) {
	sc.out = append(sc.out, s...)
	for range len(s) {
		sc.at = append(sc.at, p)
	}
}

// endPos is the position just past value byte n-1.
func (sc *scanner) endPos(n int) lineCol {
	if n == 0 || n > len(sc.at) {
		return sc.here()
	}
	p := sc.at[n-1]
	if sc.out[n-1] != '\n' {
		p.col++
	}
	return p
}

func (sc *scanner) eol() bool { return sc.i >= len(sc.cur()) }

func isBlank(b byte) bool { return b == ' ' || b == '\t' }

// fold handles a line break inside a flow scalar: trailing blanks are
// dropped, blank lines become "\n", a single break becomes a space, and the
// leading blanks of the next line are skipped. It reports false at the end
// of the file.
//
// As yaml.v3 does, a U+2028 or U+2029 break is kept, not folded, and
// followed by the breaks of the blank lines.
func (sc *scanner) fold(breakPos lineCol) bool {
	leading := sc.src.ybreakAt(sc.line)
	var trailing strings.Builder
	for {
		sc.line++
		sc.i = 0
		if sc.line > len(sc.src.ylines) {
			return false
		}
		l := sc.cur()
		for sc.i < len(l) && isBlank(l[sc.i]) {
			sc.i++
		}
		if sc.i < len(l) {
			break
		}
		trailing.WriteString(sc.src.ybreakAt(sc.line))
	}
	switch {
	case leading != "\n":
		sc.emit(leading+trailing.String(), breakPos)
	case trailing.Len() == 0:
		sc.emit(" ", breakPos)
	default:
		sc.emit(trailing.String(), breakPos)
	}
	return true
}

// plain scans a plain scalar until it has produced want's length.
func (sc *scanner) plain(want string) bool {
	for len(sc.out) < len(want) {
		if sc.eol() {
			if !sc.fold(sc.here()) {
				return false
			}
			continue
		}
		if sc.flowChar(want) {
			continue
		}
	}
	return true
}

// flowChar copies one character, or a run of blanks that is not followed
// by a line break.
func (sc *scanner) flowChar(want string) bool {
	l := sc.cur()
	if isBlank(l[sc.i]) {
		j := sc.i
		for j < len(l) && isBlank(l[j]) {
			j++
		}
		if j == len(l) {
			sc.i = j
			return true
		}
		for sc.i < j {
			sc.emit(l[sc.i:sc.i+1], sc.here())
			sc.i++
		}
		return true
	}
	_, sz := utf8.DecodeRuneInString(l[sc.i:])
	sc.emit(l[sc.i:sc.i+sz], sc.here())
	sc.i += sz
	return true
}

// quoted scans a single- or double-quoted scalar starting at its quote.
func (sc *scanner) quoted(q byte, want string) bool {
	l := sc.cur()
	if sc.i >= len(l) || l[sc.i] != q {
		return false
	}
	sc.i++
	for len(sc.out) < len(want) {
		if sc.eol() {
			if !sc.fold(sc.here()) {
				return false
			}
			continue
		}
		l = sc.cur()
		c := l[sc.i]
		switch {
		case c == q && q == '\'':
			if sc.i+1 < len(l) && l[sc.i+1] == '\'' {
				sc.emit("'", sc.here())
				sc.i += 2
				continue
			}
			return true
		case c == q:
			return true
		case c == '\\' && q == '"':
			if !sc.escape() {
				return false
			}
		default:
			sc.flowChar(want)
		}
	}
	return true
}

var simpleEscapes = map[byte]string{
	'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n",
	'v': "\v", 'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ", '"': "\"",
	'/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028",
	'P': "\u2029",
}

// escape decodes one backslash escape of a double-quoted scalar; every
// byte it produces maps to the backslash.
func (sc *scanner) escape() bool {
	p := sc.here()
	l := sc.cur()
	if sc.i+1 >= len(l) {
		// Escaped line break: joins the lines without a space.
		sc.line++
		sc.i = 0
		if sc.line > len(sc.src.ylines) {
			return false
		}
		l = sc.cur()
		for sc.i < len(l) && isBlank(l[sc.i]) {
			sc.i++
		}
		return true
	}
	c := l[sc.i+1]
	if s, ok := simpleEscapes[c]; ok {
		sc.emit(s, p)
		sc.i += 2
		return true
	}
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if n == 0 || sc.i+2+n > len(l) {
		return false
	}
	var r rune
	for _, h := range l[sc.i+2 : sc.i+2+n] {
		v := strings.IndexRune("0123456789abcdef", h|0x20)
		if v < 0 {
			return false
		}
		r = r<<4 | rune(v)
	}
	sc.emit(string(r), p)
	sc.i += 2 + n
	return true
}

// indicator returns the indentation indicator of the block scalar whose
// header the scanner is at (the digit of "|2-", ">-4"), 0 when it has none.
func (sc *scanner) indicator() int {
	l := sc.cur()
	for j := sc.i + 1; j < len(l) && l[j] != ' ' && l[j] != '\t' && l[j] != '#'; j++ {
		if l[j] >= '1' && l[j] <= '9' {
			return int(l[j] - '0')
		}
	}
	return 0
}

// blockIndent returns the indentation of the block scalar whose header
// the scanner is at, as its value shows it: the first line after the
// header with other than white space is, less the indentation, the
// value's first line with other than white space (a line of white space
// before it is a line of the value, blank or not, in either style).
// found is false when the value or the block has no such line.
func (sc *scanner) blockIndent(value string) (indent int, found bool) {
	vl := value
	for {
		end := strings.IndexAny(vl, "\n\u2028\u2029")
		line := vl
		if end >= 0 {
			line = vl[:end]
		}
		if strings.TrimSpace(line) != "" {
			vl = line
			break
		}
		if end < 0 {
			return 0, false
		}
		_, sz := utf8.DecodeRuneInString(vl[end:])
		vl = vl[end+sz:]
	}
	spaces := len(vl) - len(strings.TrimLeft(vl, " "))
	for n := sc.line + 1; n <= len(sc.src.ylines); n++ {
		t := sc.src.yamlLine(n)
		if strings.TrimSpace(t) == "" {
			continue
		}
		lead := len(t) - len(strings.TrimLeft(t, " "))
		return lead - spaces, lead-spaces > 0
	}
	return 0, false
}

// block scans a literal (|) or folded (>) block scalar starting at its
// indicator.
func (sc *scanner) block(folded bool, want string, parent int) bool {
	// parent is the parent node's indentation, to which an explicit
	// indentation indicator is relative (-1: the block has none).
	indent := 0
	if d := sc.indicator(); d > 0 {
		if parent < 0 {
			return false
		}
		indent = parent + d
	}
	type cline struct {
		line, i int
		text    string
	}
	var lines []cline
	blanks := 0
	var pending []int // blank lines before the next content line
	for n := sc.line + 1; n <= len(sc.src.ylines); n++ {
		t := sc.src.yamlLine(n)
		lead := 0
		for lead < len(t) && t[lead] == ' ' {
			lead++
		}
		// A line of white space is blank unless it reaches past the
		// indentation: YAML keeps what follows the indentation (spaces,
		// a tab) as the line's text.
		if strings.TrimSpace(t) == "" && (indent == 0 || len(t) <= indent || lead < indent) {
			blanks++
			pending = append(pending, n)
			continue
		}
		if indent == 0 {
			indent = lead
			if indent == 0 {
				break
			}
		}
		if lead < indent {
			break
		}
		for range blanks {
			lines = append(lines, cline{line: pending[0], i: -1})
			pending = pending[1:]
		}
		blanks, pending = 0, nil
		lines = append(lines, cline{line: n, i: indent, text: t[indent:]})
	}
	moreIndented := func(c cline) bool { return c.i >= 0 && c.text != "" && isBlank(c.text[0]) }
	seen := false // a content line
	for k, c := range lines {
		if c.i < 0 {
			if !seen {
				// A blank line before the first content line is a
				// line break of the value (folded too); the others
				// are emitted after the line before them.
				sc.line, sc.i = c.line, 0
				sc.emit(sc.src.ybreakAt(c.line), sc.here())
			}
			continue
		}
		seen = true
		sc.line, sc.i = c.line, c.i
		for sc.i < len(sc.cur()) {
			_, sz := utf8.DecodeRuneInString(sc.cur()[sc.i:])
			sc.emit(sc.cur()[sc.i:sc.i+sz], sc.here())
			sc.i += sz
		}
		// The break after this line, and the blank lines that follow
		// (yaml.v3 folds a line feed only; U+2028 and U+2029 are kept).
		brk := sc.here()
		leading := sc.src.ybreakAt(c.line)
		next := k + 1
		var trailing strings.Builder
		for next < len(lines) && lines[next].i < 0 {
			trailing.WriteString(sc.src.ybreakAt(lines[next].line))
			next++
		}
		switch {
		case next >= len(lines):
			sc.emit(leading, brk)
		case folded && leading == "\n" && trailing.Len() == 0 && !moreIndented(c) && !moreIndented(lines[next]):
			sc.emit(" ", brk)
		case folded && leading == "\n" && !moreIndented(c) && !moreIndented(lines[next]):
			sc.emit(trailing.String(), brk)
		default:
			sc.emit(leading+trailing.String(), brk)
		}
	}
	// Trailing blank lines survive with keep chomping (|+, >+).
	for _, n := range pending {
		sc.line, sc.i = n, 0
		sc.emit(sc.src.ybreakAt(n), sc.here())
	}
	// Chomping may strip the final break: the caller compares the prefix.
	return len(sc.out) >= len(want) && string(sc.out[:len(want)]) == want
}

// textOffsets converts the positions cel-go reports in an expression (code
// point offsets, and 1-based lines with 0-based code point columns) into
// byte offsets, in constant time after one linear pass over the text.
type textOffsets struct {
	text  string
	ascii bool
	cps   []int32 // byte offset of each code point, and len(text) last; nil if ascii
	lines []int32 // code point offset of the start of each line
}

func newTextOffsets(text string) *textOffsets {
	o := &textOffsets{text: text, ascii: true, lines: []int32{0}}
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			o.ascii = false
			break
		}
	}
	if o.ascii {
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' {
				o.lines = append(o.lines, int32(i+1))
			}
		}
		return o
	}
	o.cps = make([]int32, 0, len(text)+1)
	for i, r := range text {
		o.cps = append(o.cps, int32(i))
		if r == '\n' {
			o.lines = append(o.lines, int32(len(o.cps)))
		}
	}
	o.cps = append(o.cps, int32(len(text)))
	return o
}

// byteOffset returns the byte offset of code point cp (clipped to the
// text).
func (o *textOffsets) byteOffset(cp int) int {
	switch {
	case cp <= 0:
		return 0
	case o.ascii:
		return min(cp, len(o.text))
	case cp >= len(o.cps):
		return len(o.text)
	}
	return int(o.cps[cp])
}

// lineColOffset returns the byte offset of column col (0-based, code
// points) of line line (1-based); a line past the end is the end of the
// text.
func (o *textOffsets) lineColOffset(line, col int) int {
	line = max(line, 1)
	if line > len(o.lines) {
		return len(o.text)
	}
	return o.byteOffset(int(o.lines[line-1]) + max(col, 0))
}

// flowThenText finds the first line of the form `key: [...] more` or
// `key: {...} more`: a flow collection closed on the line and followed by
// text other than a comment, which is never valid YAML (typically a CEL
// expression such as `[1, 2].all(x, x > 0)` left unquoted). It returns the
// position of the collection's first character, the key and that
// character.
func (s *source) flowThenText() (Pos, string, byte, bool) {
	for i, line := range s.lines {
		rest := strings.TrimLeft(line, " ")
		if strings.HasPrefix(rest, "- ") {
			rest = strings.TrimLeft(rest[2:], " ")
		}
		colon := strings.Index(rest, ": ")
		if colon <= 0 || strings.ContainsAny(rest[:colon], " \t'\"[]{}#") {
			continue
		}
		key := rest[:colon]
		val := strings.TrimLeft(rest[colon+2:], " ")
		if val == "" || (val[0] != '[' && val[0] != '{') {
			continue
		}
		end, ok := flowEnd(val)
		if !ok {
			continue
		}
		after := strings.TrimSpace(val[end:])
		if after == "" || after[0] == '#' || after[0] == ',' {
			continue
		}
		col := len(line) - len(val) + 1
		return Pos{File: s.name, Line: i + 1, Col: utf8.RuneCountInString(line[:col-1]) + 1}, key, val[0], true
	}
	return Pos{}, "", 0, false
}

// flowEnd returns the offset just after the flow collection that v starts
// with, when it closes on the line (brackets counted outside quotes).
func flowEnd(v string) (int, bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// yamlErrorPos returns the position (YAML line, column in characters,
// 1-based) of the YAML syntax error yaml.v3 reports as msg at YAML line
// `line`, which yaml.v3 does not say (and its line is where the scalar
// or the context it was scanning starts): the error is at the last
// character of the shortest prefix of the text, ending on that line or
// after it, that yaml.v3 reads with the same error (the scanner stops at
// the character it cannot take: the second ':' of "host: acme: x", the
// tab that breaks the indentation, the quote that opens a string never
// closed). Column 0 when no prefix reproduces it, or when the error is
// not one a character causes (the end of the text may cause it too:
// "{a: b" cut after "{a" is an unclosed mapping already, and the '}' the
// parser missed is no character of the text).
func (s *source) yamlErrorPos(line int, msg string) (int, int) {
	problem := strings.TrimPrefix(msg, "yaml: ")
	if m := yamlErrRE.FindStringSubmatch(msg); m != nil {
		problem = m[2]
	}
	// yaml.v3 writes an error of the first line without "line 1:"; the
	// comparison below is with the whole message, whichever form.
	if !charProblems[problem] || line < 1 || line > len(s.ylines) || strings.HasPrefix(s.text, "\xff\xfe") || strings.HasPrefix(s.text, "\xfe\xff") {
		return line, 0
	}
	var b strings.Builder
	starts := make([]int, len(s.ylines)+1) // where each YAML line starts in text
	for n, l := range s.ylines {
		starts[n] = b.Len()
		b.WriteString(l)
		if n+1 < len(s.ylines) {
			// The last line has no break after it: yaml.v3 must
			// read the text it read, the same end included.
			b.WriteString(s.ybreakAt(n + 1))
		}
	}
	starts[len(s.ylines)] = b.Len()
	text := b.String()
	// boundary moves e up to the end of a character.
	boundary := func(e int) int {
		for e < len(text) && !utf8.RuneStart(text[e]) {
			e++
		}
		return e
	}
	same := func(e int) bool { return yamlProblem([]byte(text[:e])) == msg }
	if !same(len(text)) {
		return line, 0
	}
	lo, hi := min(starts[line-1]+1, len(text)), len(text)
	if lo < 1 {
		return line, 0
	}
	if eol := starts[line]; eol > lo && same(eol) {
		hi = eol // on yaml.v3's line, as most are: a shorter search
	}
	// search returns the end of the shortest prefix ending in [lo, hi]
	// that ok holds for, ok holding at hi.
	search := func(lo, hi int, ok func(int) bool) int {
		for lo < hi {
			if mid := (lo + hi) / 2; ok(boundary(mid)) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return boundary(lo)
	}
	end := search(lo, hi, same)
	_, size := utf8.DecodeLastRuneInString(text[:end])
	if problem == "found unexpected end of stream" && line > 1 && strings.ContainsAny(text[end-size:end], "\n\u2028\u2029") {
		// No character of yaml.v3's line has the error: it names the
		// scalar's line, but the end of the text when that is the first
		// line (its line 0, which it does not print). A quoted string
		// still open at the first line's end is that scalar (one closed
		// later would not be the one never closed): its quote is the
		// place, found by the problem alone (the line yaml.v3 names
		// differs with the prefix).
		eos := func(e int) bool {
			p := yamlProblem([]byte(text[:e]))
			return p == "yaml: "+problem || strings.HasSuffix(p, ": "+problem) && yamlErrRE.MatchString(p)
		}
		if eol := starts[1]; eos(eol) {
			end = search(1, eol, eos)
			_, size = utf8.DecodeLastRuneInString(text[:end])
		}
	}
	at := end - size                                                          // the character's first byte
	n := sort.Search(len(starts), func(k int) bool { return starts[k] > at }) // its line, 1-based
	if n < 1 || n > len(s.ylines) {
		return line, 0
	}
	return n, utf8.RuneCountInString(text[starts[n-1]:at]) + 1
}

// charProblems are the errors of yaml.v3's scanner that the character
// it stops at causes, whatever follows it; "found unexpected end of
// stream" is a quoted scalar not closed, whose every prefix from its
// opening quote on has the error: the quote is the place.
var charProblems = map[string]bool{
	"mapping values are not allowed in this context":               true,
	"mapping keys are not allowed in this context":                 true,
	"block sequence entries are not allowed in this context":       true,
	"found character that cannot start any token":                  true,
	"found a tab character that violates indentation":              true,
	"found a tab character where an indentation space is expected": true,
	"found unknown escape character":                               true,
	"found unexpected end of stream":                               true,
	"did not find expected hexdecimal number":                      true,
}

// yamlProblem is the error yaml.v3 reads text with, as parseDoc reads it
// (decodeDocs), "" when none.
func yamlProblem(text []byte) string {
	_, _, err, nextErr := decodeDocs(text)
	for _, e := range [...]error{err, nextErr} {
		if e != nil && !errors.Is(e, io.EOF) {
			return e.Error()
		}
	}
	return ""
}
