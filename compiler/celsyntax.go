// This file owns the explanation of CEL syntax errors (OAR_CEL_SYNTAX):
// cel-go reports its lexer's and parser's raw text ("token recognition
// error at: '"\s'"), which says what failed, not what to do. For the
// common mistakes of a rule author the diagnostic says what was meant and
// how to write it, at the offending character:
//
//   - an escape CEL does not have in a string (`"\s+"` for a regular
//     expression): double the backslash or use a raw string;
//   - a string that is never closed;
//   - a quote that ends a string early (`'it's'`), and YAML's `''` escape
//     written where YAML does not read it (`when: "tool == ''a''"`);
//   - `=` for `==` (and `===`, `=!`);
//   - unbalanced brackets: which one is never closed, which closer has no
//     opener or closes the wrong kind;
//   - `and`, `or`, `not` for `&&`, `||`, `!`;
//   - a condition that ends where an operand is expected.
//
// The code and the position stay cel-go's, except that the position moves
// to the character the explanation is about. A single-quoted YAML value
// that holds a bare `'` never reaches CEL: YAML ends the value there, and
// yamlQuoteHint explains that YAML error.

package compiler

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
)

// celToken is one token of a when, as the CEL lexer splits it.
type celToken struct {
	kind       celTokenKind
	start, end int // byte offsets; end exclusive
	// Strings: the offset of the opening quote, the quote, and whether
	// the string is raw, triple-quoted, closed.
	quote         int
	q             byte
	raw, triple   bool
	closed        bool
	badEscape     int // offset of the first escape CEL does not have, -1 if none
	goodEscapes   int // escapes CEL has
	contentStart  int // offset after the opening quote(s)
	contentEnd    int // offset of the closing quote(s), or end of the string
	unclosedAtEOL bool
}

type celTokenKind int

const (
	tokString celTokenKind = iota
	tokIdent
	tokNumber
	tokPunct
)

func (t *celToken) text(src string) string { return src[t.start:t.end] }

// lexCEL splits a when into tokens the way cel-go's lexer does, as far as
// the explanations need: strings (with their prefixes, escapes and
// whether they close), identifiers, numbers and punctuation; white space
// and comments are skipped. It never fails: what cel-go would not
// recognise becomes a one-byte punctuation token.
func lexCEL(src string) []celToken {
	var toks []celToken
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			t := lexString(src, i, i, false)
			toks = append(toks, t)
			i = t.end
		case isIdentByte(c) && !(c >= '0' && c <= '9'):
			j := i
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			// r"..", b"..", br"..": a string prefix.
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && isStringPrefix(src[i:j]) {
				t := lexString(src, i, j, strings.ContainsAny(src[i:j], "rR"))
				toks = append(toks, t)
				i = t.end
				continue
			}
			toks = append(toks, celToken{kind: tokIdent, start: i, end: j})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i + 1
			for j < len(src) && (isIdentByte(src[j]) || src[j] == '.' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, celToken{kind: tokNumber, start: i, end: j})
			i = j
		case c == '`':
			j := strings.IndexByte(src[i+1:], '`')
			end := len(src)
			if j >= 0 {
				end = i + 1 + j + 1
			}
			toks = append(toks, celToken{kind: tokIdent, start: i, end: end})
			i = end
		default:
			n := 1
			if i+1 < len(src) {
				switch src[i : i+2] {
				case "==", "!=", "<=", ">=", "&&", "||":
					n = 2
				}
			}
			if c >= utf8.RuneSelf {
				_, n = utf8.DecodeRuneInString(src[i:])
			}
			toks = append(toks, celToken{kind: tokPunct, start: i, end: i + n})
			i += n
		}
	}
	return toks
}

func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "b", "br":
		return true
	}
	return false
}

// lexString reads the string whose prefix starts at start and whose
// opening quote is at quote.
func lexString(src string, start, quote int, raw bool) celToken {
	t := celToken{kind: tokString, start: start, quote: quote, q: src[quote], raw: raw, badEscape: -1}
	q := src[quote]
	t.triple = strings.HasPrefix(src[quote:], strings.Repeat(string(q), 3))
	i := quote + 1
	if t.triple {
		i = quote + 3
	}
	t.contentStart = i
	for i < len(src) {
		c := src[i]
		switch {
		case t.triple && strings.HasPrefix(src[i:], strings.Repeat(string(q), 3)):
			t.contentEnd, t.end, t.closed = i, i+3, true
			return t
		case !t.triple && c == q:
			t.contentEnd, t.end, t.closed = i, i+1, true
			return t
		case !t.triple && (c == '\n' || c == '\r'):
			t.contentEnd, t.end, t.unclosedAtEOL = i, i, true
			return t
		case c == '\\' && !raw:
			n := escapeLen(src[i:])
			if n == 0 {
				if t.badEscape < 0 {
					t.badEscape = i
				}
				n = 2
				if i+1 < len(src) {
					_, size := utf8.DecodeRuneInString(src[i+1:])
					n = 1 + size
				}
			} else {
				t.goodEscapes++
			}
			i += n
		default:
			i++
		}
	}
	t.contentEnd, t.end = len(src), len(src)
	return t
}

// escapeLen is the length of the CEL escape sequence s starts with, 0 when
// it is not one (CEL's ESC_SEQ: \a \b \f \n \r \t \v \" \' \\ \? \`,
// \xHH, \XHH, \uHHHH, \UHHHHHHHH, octal \[0-3][0-7][0-7]).
func escapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	hex := func(from, n int) bool {
		if len(s) < from+n {
			return false
		}
		for _, c := range []byte(s[from : from+n]) {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
		return true
	}
	switch c := s[1]; {
	case strings.IndexByte("abfnrtv\"'\\?`", c) >= 0:
		return 2
	case (c == 'x' || c == 'X') && hex(2, 2):
		return 4
	case c == 'u' && hex(2, 4):
		return 6
	case c == 'U' && hex(2, 8):
		return 10
	case c >= '0' && c <= '3' && len(s) >= 4 && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7':
		return 4
	}
	return 0
}

// yamlStyle is the style of the when's YAML value: its first character
// when it is a quote or a block indicator, else 0 (plain).
func (w *whenSource) yamlStyle() byte {
	if w.m == nil || w.src == nil {
		return 0
	}
	line := w.src.line(w.m.start.Line)
	if i := runeIndex(line, w.m.start.Col-1); i < len(line) {
		switch c := line[i]; c {
		case '"', '\'', '|', '>':
			return c
		}
	}
	return 0
}

// at is how a message names the place of byte offset off of the when.
func (w *whenSource) at(off int) string {
	p := w.m.position(off)
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// syntaxCandidate is one explanation of a syntax error: anchor is where
// cel-go reports that problem (the candidates compete for the earliest),
// prio breaks ties (lower first), off is where the diagnostic points.
type syntaxCandidate struct {
	anchor, prio, off int
	msg               string
}

// explainSyntax returns the position (a byte offset of the when) and the
// message of the one syntax diagnostic reported for the errors cel-go
// found: the earliest problem, explained where it is a common mistake.
// (Later errors are mostly the parser recovering from the first.)
func explainSyntax(w *whenSource, errs []*cel.Error) (int, string) {
	src := w.text
	// cel-go's earliest error.
	off0, msg0 := len(src)+1, ""
	for _, e := range errs {
		off := w.lineColOffset(e.Location.Line(), e.Location.Column())
		if off < off0 {
			off0, msg0 = off, strings.TrimPrefix(e.Message, "Syntax error: ")
		}
	}
	best := syntaxCandidate{anchor: off0, prio: 100, off: off0, msg: msg0}
	consider := func(c syntaxCandidate) {
		if c.anchor < best.anchor || c.anchor == best.anchor && c.prio < best.prio {
			best = c
		}
	}
	toks := lexCEL(src)
	style := w.yamlStyle()

	// Strings: a bad escape, a string never closed. cel-go reports both at
	// the start of the string.
	for i := range toks {
		t := &toks[i]
		if t.kind != tokString {
			continue
		}
		if t.badEscape >= 0 {
			consider(syntaxCandidate{anchor: t.start, prio: 0, off: t.badEscape, msg: badEscapeMessage(src, t, style)})
			break
		}
		if !t.closed {
			consider(syntaxCandidate{anchor: t.start, prio: 1, off: t.quote, msg: unclosedStringMessage(toks, i)})
			break
		}
	}

	// `=` alone.
	for i, t := range toks {
		if t.kind != tokPunct || t.text(src) != "=" {
			continue
		}
		msg := "`=` is not an operator in CEL: to compare, write `==`"
		switch {
		case i > 0 && toks[i-1].text(src) == "==" && toks[i-1].end == t.start:
			msg = "`===` is not an operator in CEL: to compare, write `==`"
		case i+1 < len(toks) && toks[i+1].text(src) == "!" && toks[i+1].start == t.end:
			msg = "`=!` is not an operator in CEL: for \"not equal\", write `!=`"
		}
		consider(syntaxCandidate{anchor: t.start, prio: 2, off: t.start, msg: msg})
		break
	}

	// Brackets.
	if c, ok := bracketProblem(w, toks); ok {
		consider(c)
	}

	// What follows depends on the token cel-go stopped at.
	ti := -1 // the token at off0
	for i, t := range toks {
		if t.start == off0 {
			ti = i
			break
		}
	}
	if ti > 0 {
		prev, t := toks[ti-1], toks[ti]
		if prev.kind == tokString && prev.closed && prev.end == t.start && (t.kind == tokIdent || t.kind == tokNumber || t.kind == tokString) {
			consider(syntaxCandidate{anchor: off0, prio: 3, off: prev.end - 1, msg: earlyQuoteMessage(src, toks, ti-1, style)})
		}
	}
	if ti >= 0 && toks[ti].kind == tokIdent {
		switch word := strings.ToLower(toks[ti].text(src)); word {
		case "and", "or":
			op := map[string]string{"and": "&&", "or": "||"}[word]
			consider(syntaxCandidate{anchor: off0, prio: 4, off: off0, msg: fmt.Sprintf("CEL writes %q as `%s`", toks[ti].text(src), op)})
		}
	}
	if ti > 0 && toks[ti-1].kind == tokIdent && strings.EqualFold(toks[ti-1].text(src), "not") {
		consider(syntaxCandidate{anchor: off0, prio: 4, off: toks[ti-1].start, msg: fmt.Sprintf("CEL writes %q as `!`", toks[ti-1].text(src))})
	}
	if off0 >= len(src) && strings.Contains(msg0, "'<EOF>'") && len(toks) > 0 {
		last := toks[len(toks)-1]
		consider(syntaxCandidate{anchor: off0, prio: 5, off: off0,
			msg: fmt.Sprintf("the condition ends after `%s`, where an operand is missing", last.text(src))})
	}
	return best.off, best.msg
}

// badEscapeMessage explains an escape CEL does not have, with the string
// written both ways that work.
func badEscapeMessage(src string, t *celToken, style byte) string {
	_, size := utf8.DecodeRuneInString(src[t.badEscape+1:])
	esc := src[t.badEscape : t.badEscape+1+size]
	lit := src[t.start:t.end]
	// The string with the backslashes of the bad escapes doubled.
	var doubled strings.Builder
	doubled.WriteString(src[t.start:t.contentStart])
	for i := t.contentStart; i < t.contentEnd; {
		if src[i] == '\\' {
			if n := escapeLen(src[i:]); n > 0 {
				doubled.WriteString(src[i : i+n])
				i += n
				continue
			}
			doubled.WriteString(`\\`)
			i++
			continue
		}
		doubled.WriteByte(src[i])
		i++
	}
	doubled.WriteString(src[t.contentEnd:t.end])
	msg := fmt.Sprintf("%s is not an escape CEL knows (it has \\\\ \\\" \\' \\n \\t \\r and a few more): for a backslash, write \\\\ (%s)", esc, doubled.String())
	if t.goodEscapes == 0 && t.closed {
		// Only bad escapes: as a raw string the text is what was meant.
		msg += fmt.Sprintf(", or make it a raw string, where \\ is itself (r%s)", lit[t.quote-t.start:])
	}
	if style == '"' {
		msg += fmt.Sprintf("; and this when is a double-quoted YAML string, which reads backslashes first: there write %s, or quote the when with ' instead", yamlQuoted(doubled.String(), '"'))
	}
	return msg
}

// unclosedStringMessage explains a string that the line or the when ends
// before its closing quote.
func unclosedStringMessage(toks []celToken, i int) string {
	t := toks[i]
	q := strings.Repeat(string(t.q), map[bool]int{true: 3, false: 1}[t.triple])
	where := "the condition ends"
	if t.unclosedAtEOL {
		where = "the line ends"
	}
	return fmt.Sprintf("this string is never closed: %s before another %s", where, q)
}

// earlyQuoteMessage explains a string followed at once by more text: the
// quote that ended it was meant to be inside it ('it's'), or the string
// is empty and the pair of quotes is YAML's escape of a quote, written
// where YAML does not read it:
//
//	when: "tool == ''a''"
func earlyQuoteMessage(src string, toks []celToken, si int, style byte) string {
	s := toks[si]
	q := string(s.q)
	// The text the author meant as one string: from this string's opening
	// quote to the next quote of its kind after the text that follows.
	meant := ""
	if !s.triple && !s.raw {
		rest := src[s.end:]
		if j := strings.IndexByte(rest, s.q); j >= 0 && !strings.ContainsAny(rest[:j], "\n\r") {
			meant = src[s.contentStart:s.contentEnd] + q + rest[:j]
		}
	}
	if s.q == '\'' && s.contentStart == s.contentEnd && style != '\'' {
		// ''a'': YAML's escape for ' inside a single-quoted value.
		inner := ""
		rest := src[s.end:]
		if j := strings.Index(rest, "''"); j >= 0 && !strings.ContainsAny(rest[:j], "\n\r'\"") {
			inner = rest[:j]
		}
		msg := "'' is an empty string in CEL, and the text after it is not part of it: '' stands for ' only inside a single-quoted YAML value (when: '...'), and this when is not one"
		if inner != "" {
			msg += fmt.Sprintf(": write '%s'", inner)
		}
		return msg
	}
	msg := fmt.Sprintf("this %s ends the string %s, and the text after it is not part of it", q, src[s.start:s.end])
	if meant != "" {
		other := "\""
		if s.q == '"' {
			other = "'"
		}
		if !strings.Contains(meant, other) {
			fixed := other + meant + other
			msg += fmt.Sprintf(": to put a %s inside a string, quote it with %s instead, %s", q, other, fixed)
			if y := yamlQuoted(fixed, style); y != fixed {
				msg += fmt.Sprintf(" (written %s in this %s-quoted YAML value)", y, map[byte]string{'\'': "single", '"': "double"}[style])
			}
		} else {
			msg += fmt.Sprintf(": to put a %s inside a string, escape it as \\%s", q, q)
		}
	}
	return msg
}

// yamlQuoted writes CEL text as it appears inside a YAML value of the
// style: in single quotes each quote doubled, in double quotes \" and \\.
func yamlQuoted(s string, style byte) string {
	switch style {
	case '\'':
		return strings.ReplaceAll(s, "'", "''")
	case '"':
		return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	}
	return s
}

// bracketProblem finds the first bracket that does not balance, outside
// strings and comments: a closer without an opener, a closer of the wrong
// kind, or (at the end) an opener never closed.
func bracketProblem(w *whenSource, toks []celToken) (syntaxCandidate, bool) {
	src := w.text
	pair := map[string]string{"(": ")", "[": "]", "{": "}"}
	var stack []celToken
	for _, t := range toks {
		if t.kind != tokPunct {
			continue
		}
		switch s := t.text(src); s {
		case "(", "[", "{":
			stack = append(stack, t)
		case ")", "]", "}":
			if len(stack) == 0 {
				return syntaxCandidate{anchor: t.start, prio: 2, off: t.start,
					msg: fmt.Sprintf("this %s has no %s before it to close", s, map[string]string{")": "(", "]": "[", "}": "{"}[s])}, true
			}
			open := stack[len(stack)-1]
			if want := pair[open.text(src)]; want != s {
				return syntaxCandidate{anchor: t.start, prio: 2, off: t.start,
					msg: fmt.Sprintf("this %s does not close the %s at %s: a %s is closed by %s", s, open.text(src), w.at(open.start), open.text(src), want)}, true
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) == 0 {
		return syntaxCandidate{}, false
	}
	open := stack[len(stack)-1]
	msg := fmt.Sprintf("this %s is never closed: add a %s where what it opens ends", open.text(src), pair[open.text(src)])
	if n := len(stack) - 1; n == 1 {
		msg += " (and 1 more bracket before it is not closed either)"
	} else if n > 1 {
		msg += fmt.Sprintf(" (and %d more brackets before it are not closed either)", n)
	}
	return syntaxCandidate{anchor: len(src), prio: 2, off: open.start, msg: msg}, true
}

// quoteThenText finds the line where a quoted YAML value ends before the
// text after it on the line, as in
//
//	when: 'tool == 'bash''
//
// which is the value "tool == " and then text YAML cannot read (yaml.v3
// says "did not find expected key", where the mapping began). It returns
// the position of the quote that ended the value and what to write
// instead.
func (s *source) quoteThenText() (Pos, string, bool) {
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
		if val == "" || val[0] != '\'' && val[0] != '"' {
			continue
		}
		q := val[0]
		end := -1 // the index in val of the quote that ends the value
		for j := 1; j < len(val); j++ {
			switch {
			case q == '\'' && val[j] == '\'' && j+1 < len(val) && val[j+1] == '\'':
				j++
			case q == '"' && val[j] == '\\':
				j++
			case val[j] == q:
				end = j
			}
			if end >= 0 {
				break
			}
		}
		if end < 0 {
			continue // the value goes on to the next line
		}
		after := strings.TrimRight(val[end+1:], " \t")
		if after == "" || after[0] == '#' || strings.HasPrefix(strings.TrimLeft(after, " \t"), "#") && after[0] == ' ' {
			continue
		}
		col := len(line) - len(val) + end + 1
		p := Pos{File: s.name, Line: i + 1, Col: utf8.RuneCountInString(line[:col-1]) + 1}
		kind := map[byte]string{'\'': "single", '"': "double"}[q]
		hint := fmt.Sprintf("the value of %s is %s-quoted, so YAML ends it at this %c and cannot read the text after it", key, kind, q)
		// What the author meant: the text between the first quote and
		// the last one, when the line ends with a quote.
		if last := strings.LastIndexByte(after, q); last == len(after)-1 {
			meant := val[1 : end+1+last+1]
			meant = meant[:len(meant)-1]
			// Quotes the author did escape stay what they meant.
			if q == '\'' {
				meant = strings.ReplaceAll(meant, "''", "'")
			} else {
				meant = strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(meant)
			}
			fixed := key + ": " + string(q) + yamlQuoted(meant, q) + string(q)
			if q == '\'' {
				hint += fmt.Sprintf("; inside single quotes YAML writes ' as '': %s", fixed)
				if !strings.Contains(meant, "\"") {
					hint += fmt.Sprintf(", or quote the CEL strings with \" instead: %s: '%s'", key, strings.ReplaceAll(meant, "'", "\""))
				}
			} else {
				hint += fmt.Sprintf("; inside double quotes YAML writes \" as \\\": %s, or quote the value with ' instead: %s: '%s'", fixed, key, yamlQuoted(meant, '\''))
			}
		}
		return p, hint, true
	}
	return Pos{}, "", false
}
