// This file owns `oarc fmt`: the one canonical layout of rule files and
// pack.yaml. The document is re-emitted from its yaml.v3 nodes (so comments
// travel with the fields they are attached to) with:
//
//   - the fields in the order of spec section 2 (rule), section 1
//     (pack.yaml), and the documented order inside copy, requires,
//     on_fire, flow, transform and deny_by_default; fields the spec does
//     not know (load errors) follow, in their order;
//   - two-space indentation, the root a block mapping, lists and mappings
//     inside it in the style they were written (block or flow);
//   - oar: '1.0' single-quoted;
//   - the text of `when` exactly as written, whatever its style, and every
//     block scalar (| and >) as written, only re-indented with its field:
//     yaml.v3 would re-fold them, and the text of a condition is its
//     author's; every double-quoted scalar written with an escape too:
//     yaml.v3 would write the characters, invisible ones included.
//
// The file keeps its line breaks: one laid out with CRLF (more CRLF than
// LF breaks) comes out with CRLF, any other with LF.
//
// Formatting never changes what a file means: the result is parsed again
// and compared with the input (values and comments); a difference is an
// error and the file is left as it was.

package compiler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Field orders of the documents oarc fmt formats.
var (
	ruleOrder     = ruleFields // spec section 2
	packOrder     = packFields // spec section 1
	nestedOrders  = map[string][]string{"copy": copyFields, "requires": requiresFields, "on_fire": onFireFields, "flow": flowFields, "transform": transformFields}
	denyOrder     = []string{"anchors", "code", "enforcement", "copy"}
	errNotFormats = errors.New("not a rule file or pack.yaml")
)

// IsPackFile reports whether file is named like a pack's pack.yaml.
func IsPackFile(file string) bool { return filepath.Base(file) == "pack.yaml" }

// Format returns src, a rule file or (when file is named pack.yaml) a
// pack.yaml, in the canonical layout. It fails on a file that is not one
// YAML document with a mapping at its root, and on a file it cannot lay out
// without changing its meaning; src is then to be left as it is.
func Format(file string, src []byte) ([]byte, error) {
	out, err := formatOnce(file, src)
	if err != nil {
		return nil, err
	}
	// Formatting is idempotent by construction: yaml.v3 does not always
	// place a comment where it read it (one after a field with no value,
	// at the end of the file, comes back indented under it, and then
	// after a blank line), so the layout is the fixed point of one pass,
	// which comes within a pass or two.
	for range 3 {
		next, err := formatOnce(file, out)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(next, out) {
			return out, nil
		}
		out = next
	}
	return nil, errors.New("the layout does not settle (yaml.v3 moves a comment at each pass); left as it is")
}

// formatOnce is one pass of [Format].
func formatOnce(file string, src []byte) ([]byte, error) {
	// The layout is made from the file with LF breaks, and given the
	// file's own at the end: YAML reads CRLF, LF and a bare CR as the same
	// line break (yaml.v3 places some comments differently after CRLF).
	// A bare CR counts as LF.
	orig, crlf := src, usesCRLF(src)
	src = toLF(src)
	// A byte order mark is not written back, and yaml.v3 does not count
	// it in the columns of the first line, where the kept scalars are
	// found by column.
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	if err := unicodeBreak(src); err != nil {
		return nil, err
	}
	root, doc, err := parseOne(src)
	if err != nil {
		return nil, err
	}
	if _, isCatalog := mappingValue(root, "oar_catalog"); isCatalog {
		return nil, fmt.Errorf("%w: a host catalog (oarc fmt leaves catalogs alone)", errNotFormats)
	}
	if bytes.Contains(src, []byte(splicePrefix)) {
		return nil, fmt.Errorf("the file contains %q, which oarc fmt uses internally", splicePrefix)
	}
	// A rule written as one flow mapping is unfolded; its plain `when`
	// ends at a flow indicator, not at the end of the line.
	f := &formatter{src: newSource(file, src), flow: root.Style&yaml.FlowStyle != 0}
	root.Style &^= yaml.FlowStyle
	// A comment above the first field is about the file: it stays on top
	// whatever field comes first.
	var first *yaml.Node
	if len(root.Content) > 0 {
		first = root.Content[0]
	}
	// A comment after the last field is the file's last word: the parser
	// gives it to that field (its key or its value), and it must not move
	// with it when the field moves up. It goes to the end of the mapping.
	if n := len(root.Content); n >= 2 {
		for _, nd := range root.Content[n-2:] {
			if nd.FootComment != "" {
				root.FootComment = strings.TrimSpace(nd.FootComment + "\n" + root.FootComment)
				nd.FootComment = ""
			}
		}
	}
	if IsPackFile(file) {
		reorder(root, packOrder)
		if d, ok := mappingValue(root, "deny_by_default"); ok && d.Kind == yaml.MappingNode {
			reorder(d, denyOrder)
			if c, ok := mappingValue(d, "copy"); ok && c.Kind == yaml.MappingNode {
				reorder(c, copyFields)
			}
		}
	} else {
		reorder(root, ruleOrder)
		for name, order := range nestedOrders {
			if n, ok := mappingValue(root, name); ok && n.Kind == yaml.MappingNode {
				reorder(n, order)
			}
		}
		if w, ok := mappingValue(root, "when"); ok && w.Kind == yaml.ScalarNode {
			// A comment between `when:` and its value on a later line goes
			// above `when:`: the value is kept as written, from its first
			// character, so the comment cannot stay inside it.
			if k := keyOf(root, "when"); w.HeadComment != "" {
				k.HeadComment = strings.TrimSpace(k.HeadComment + "\n" + w.HeadComment)
				w.HeadComment = ""
			}
			if err := f.splice(w, keyOf(root, "when")); err != nil {
				return nil, err
			}
		}
	}
	// (When the file's first comment is separated from the first field by
	// a blank line, the parser gives it to the document, and the
	// comment right above the field is about the field: it moves with it.)
	if first != nil && root.Content[0] != first && first.HeadComment != "" && doc.HeadComment == "" {
		root.Content[0].HeadComment = strings.TrimSpace(first.HeadComment + "\n" + root.Content[0].HeadComment)
		first.HeadComment = ""
	}
	if v, ok := mappingValue(root, "oar"); ok && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value == "1.0" {
		v.Style = yaml.SingleQuotedStyle
	}
	if err := f.escapes(root); err != nil {
		return nil, err
	}
	if err := f.blocks(root); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("emitting: %v", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("emitting: %v", err)
	}
	out, err := f.unsplice(b.String())
	if err != nil {
		return nil, err
	}
	if crlf {
		// Every LF of the layout is a line break: yaml.v3 escapes a line
		// feed inside a quoted scalar, and kept scalars are spliced back
		// as lines.
		out = bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
	}
	if err := sameDocument(orig, out); err != nil {
		return nil, fmt.Errorf("cannot lay the file out without changing it (%v); left as it is", err)
	}
	return out, nil
}

// unicodeBreak fails at the first U+0085, U+2028 or U+2029 of src: YAML
// (yaml.v3) reads each as a line break, where the layout, and a person's
// editor, see none, so that the parser's lines are not the file's lines
// (the layout would splice the wrong ones).
func unicodeBreak(src []byte) error {
	i := bytes.IndexFunc(src, func(r rune) bool { return r == '\u0085' || r == '\u2028' || r == '\u2029' })
	if i < 0 {
		return nil
	}
	r, _ := utf8.DecodeRune(src[i:])
	line := bytes.Count(src[:i], []byte("\n")) + 1
	col := utf8.RuneCount(src[bytes.LastIndexByte(src[:i], '\n')+1:i]) + 1
	return &FormatError{Line: line, Col: col, Msg: fmt.Sprintf("%U is a line break to YAML, not to the layout: remove it, or write it as an escape in a double-quoted string; left as it is", r)}
}

// FormatError is a reason [Format] cannot lay a file out, at a position
// in it.
type FormatError struct {
	Line, Col int
	Msg       string
}

func (e *FormatError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// usesCRLF reports whether src is a file laid out with CRLF line breaks:
// more of its breaks are CRLF than LF or a bare CR. A file with as many of
// each, or none, is laid out with LF, the line break of every file oarc
// writes.
func usesCRLF(src []byte) bool {
	crlf := bytes.Count(src, []byte("\r\n"))
	other := bytes.Count(src, []byte("\n")) + bytes.Count(src, []byte("\r")) - 2*crlf
	return crlf > other
}

// toLF replaces every line break of src, CRLF or a bare CR, with LF.
func toLF(src []byte) []byte {
	if !bytes.Contains(src, []byte("\r")) {
		return src
	}
	out := make([]byte, 0, len(src))
	for i, c := range src {
		switch {
		case c == '\r' && i+1 < len(src) && src[i+1] == '\n':
			continue
		case c == '\r':
			c = '\n'
		}
		out = append(out, c)
	}
	return out
}

// parseOne parses exactly one YAML document with a mapping at its root.
func parseOne(src []byte) (*yaml.Node, *yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, errors.New("empty file")
		}
		return nil, nil, fmt.Errorf("YAML syntax: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, nil, errors.New("several YAML documents in one file")
	} else if !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("YAML syntax: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, errors.New("the root of the document is not a mapping")
	}
	var bad error
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if (n.Kind == yaml.AliasNode || n.Anchor != "") && bad == nil {
			bad = &FormatError{Line: n.Line, Col: n.Column, Msg: "YAML anchors and aliases are not supported in rule files"}
		}
		if n.Style&yaml.TaggedStyle != 0 && bad == nil {
			// The emitter cannot always write a tag back where it was
			// (a tagged quoted scalar comes out unparsable): refuse
			// rather than risk the file.
			bad = &FormatError{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("an explicit YAML tag (%s); oarc fmt lays out only untagged values, so the file is left as it is", n.Tag)}
		}
		if n.Kind == yaml.MappingNode {
			seen := map[string]bool{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind == yaml.ScalarNode {
					if seen[k.Value] {
						bad = &FormatError{Line: k.Line, Col: k.Column, Msg: fmt.Sprintf("duplicate key %q", k.Value)}
					}
					seen[k.Value] = true
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	if bad != nil {
		return nil, nil, bad
	}
	return doc.Content[0], &doc, nil
}

// mappingValue returns the value of key in mapping m.
func mappingValue(m *yaml.Node, key string) (*yaml.Node, bool) {
	if k := keyOf(m, key); k != nil {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i] == k {
				return m.Content[i+1], true
			}
		}
	}
	return nil, false
}

// keyOf returns the (first) key node named key of mapping m, nil if none.
func keyOf(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return k
		}
	}
	return nil
}

// reorder sorts the pairs of mapping m: the fields of order first, in that
// order, then the others as they were.
func reorder(m *yaml.Node, order []string) {
	// A comment after the last field is the mapping's last word: the
	// parser gives it to that field (its key or its value), and it must
	// not move with it when the field moves up. It goes to the end of the
	// mapping.
	last := ""
	if n := len(m.Content); n >= 2 {
		for _, nd := range m.Content[n-2:] {
			if nd.FootComment != "" {
				last = strings.TrimSpace(last + "\n" + nd.FootComment)
				nd.FootComment = ""
			}
		}
	}
	defer func() {
		if n := len(m.Content); last != "" && n >= 2 {
			k := m.Content[n-2]
			k.FootComment = strings.TrimSpace(k.FootComment + "\n" + last)
		}
	}()
	type pair struct{ k, v *yaml.Node }
	var pairs []pair
	for i := 0; i+1 < len(m.Content); i += 2 {
		pairs = append(pairs, pair{m.Content[i], m.Content[i+1]})
	}
	rank := func(p pair) int {
		if p.k.Kind == yaml.ScalarNode {
			for i, name := range order {
				if p.k.Value == name {
					return i
				}
			}
		}
		return len(order)
	}
	sort.SliceStable(pairs, func(i, j int) bool { return rank(pairs[i]) < rank(pairs[j]) })
	m.Content = m.Content[:0]
	for _, p := range pairs {
		m.Content = append(m.Content, p.k, p.v)
	}
}

// splicePrefix starts the placeholders that stand for scalars kept as
// written while yaml.v3 emits the rest.
const splicePrefix = "OARCFMTSPLICE"

// formatter holds the scalars kept as written.
type formatter struct {
	src     *source
	splices []splice
	flow    bool // the root was a flow mapping: its values are in flow context
}

// splice is one scalar kept as written: its raw lines, the column of its
// key in the input (to re-indent continuation lines with the key), and
// for a block scalar its header.
type splice struct {
	token  string
	block  bool
	header string   // block scalars: the indicator line after the key, without comment
	lines  []string // block scalars: the content lines; else every line of the scalar
	keyCol int      // 0-based column of the key in the input
}

// blocks keeps every block scalar of the document (outside when, done
// already) as written.
func (f *formatter) blocks(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind == yaml.ScalarNode && v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && !strings.HasPrefix(v.Value, splicePrefix) {
				if err := f.splice(v, k); err != nil {
					return err
				}
				continue
			}
			if err := f.blocks(v); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			if e.Kind == yaml.ScalarNode && e.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				return &FormatError{Line: e.Line, Col: e.Column, Msg: "a block scalar (| or >) as a list entry; oarc fmt keeps block scalars only as the values of fields"}
			}
			if err := f.blocks(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// escapes keeps as written every double-quoted scalar written with an
// escape (a key, a value, a list entry, in block or flow style): yaml.v3
// would write the characters themselves, and "\u202E" or "\u200B", which
// its author made visible, would become a bidirectional override or a
// zero-width space no editor or review shows.
func (f *formatter) escapes(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		if n.Style&yaml.DoubleQuotedStyle == 0 || strings.HasPrefix(n.Value, splicePrefix) {
			return nil
		}
		lines := f.lines()
		if n.Line < 1 || n.Line > len(lines) {
			return &FormatError{Line: n.Line, Col: n.Column, Msg: "cannot find the scalar in the file"}
		}
		first := lines[n.Line-1]
		start := runeIndex(first, n.Column-1)
		end, ok := quotedEnd(lines, n.Line-1, start)
		if !ok || start >= len(first) || first[start] != '"' {
			return &FormatError{Line: n.Line, Col: n.Column, Msg: "cannot find the end of the quoted scalar"}
		}
		raw := first[start:]
		if end.line == n.Line-1 {
			raw = first[start:end.i]
		}
		for l := n.Line; l <= end.line; l++ {
			raw += "\n" + lines[l]
		}
		if !strings.Contains(raw, "\\") {
			return nil
		}
		// The column continuation lines are re-indented from: that of the
		// line's first key or entry, as unsplice measures the output.
		return f.splice(n, &yaml.Node{Column: len(first) - len(strings.TrimLeft(first, " -")) + 1})
	}
	for _, c := range n.Content {
		if err := f.escapes(c); err != nil {
			return err
		}
	}
	return nil
}

// lines returns the lines of the input, without the empty string after
// a last line break (which is not a line).
func (f *formatter) lines() []string {
	lines := f.src.lines
	if strings.HasSuffix(f.src.text, "\n") {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// splice replaces the scalar v (the value of key k) with a placeholder and
// records its raw text.
func (f *formatter) splice(v, k *yaml.Node) error {
	sp := splice{token: fmt.Sprintf("%s%dX", splicePrefix, len(f.splices)), keyCol: k.Column - 1}
	lines := f.lines()
	if v.Line < 1 || v.Line > len(lines) {
		return &FormatError{Line: v.Line, Col: v.Column, Msg: "cannot find the scalar in the file"}
	}
	first := lines[v.Line-1]
	start := runeIndex(first, v.Column-1)
	switch {
	case v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		sp.block = true
		head := first[start:]
		if i := strings.Index(head, "#"); i >= 0 {
			head = head[:i]
		}
		sp.header = strings.TrimRight(head, " \t")
		sp.lines = blockLines(lines, v.Line, sp.keyCol, sp.header)
	case v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		end, ok := quotedEnd(lines, v.Line-1, start)
		if !ok {
			return &FormatError{Line: v.Line, Col: v.Column, Msg: "cannot find the end of the quoted scalar"}
		}
		for l := v.Line - 1; l <= end.line; l++ {
			text := lines[l]
			if l == end.line {
				text = text[:end.i]
			}
			if l == v.Line-1 {
				text = text[start:]
			}
			sp.lines = append(sp.lines, text)
		}
	default:
		sp.lines = plainLines(lines, v.Line-1, start, sp.keyCol, f.flow)
	}
	v.Value = sp.token
	v.Style = 0
	v.Tag = "!!str"
	f.splices = append(f.splices, sp)
	return nil
}

// blockLines returns the content lines of the block scalar whose header is
// on line (1-based) hl, under a key at column keyCol: every following
// line that is blank or indented past the content indentation; trailing
// blank lines only with keep chomping (+).
func blockLines(lines []string, hl, keyCol int, header string) []string {
	indent := -1
	for _, c := range header[1:] {
		if c >= '1' && c <= '9' {
			indent = keyCol + int(c-'0')
		}
	}
	var out []string
	for l := hl; l < len(lines); l++ {
		t := lines[l]
		if strings.TrimSpace(t) == "" {
			out = append(out, t)
			continue
		}
		lead := len(t) - len(strings.TrimLeft(t, " "))
		if indent < 0 {
			if lead <= keyCol {
				break
			}
			indent = lead
		}
		if lead < indent {
			break
		}
		out = append(out, t)
	}
	if !strings.Contains(header, "+") {
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}

type linePos struct{ line, i int } // 0-based line, byte index

// quotedEnd finds the byte just past the closing quote of the scalar whose
// opening quote is at lines[l][i].
func quotedEnd(lines []string, l, i int) (linePos, bool) {
	q := lines[l][i]
	i++
	for ; l < len(lines); l, i = l+1, 0 {
		t := lines[l]
		for ; i < len(t); i++ {
			switch {
			case q == '"' && t[i] == '\\':
				i++
			case t[i] == q && q == '\'' && i+1 < len(t) && t[i+1] == '\'':
				i++
			case t[i] == q:
				return linePos{l, i + 1}, true
			}
		}
	}
	return linePos{}, false
}

// plainLines returns the lines of the plain scalar starting at lines[l][i]
// under a key at column keyCol: the rest of the line up to a comment, then
// the following lines indented past the key that do not start a comment
// (blank lines only between such lines). In flow context (flow) the
// scalar also ends at the first flow indicator (`,`, `[`, `]`, `{`, `}`),
// which a plain scalar there cannot hold (YAML 1.2, ns-plain-safe-in),
// and its continuation lines may stand at any indentation.
func plainLines(lines []string, l, i, keyCol int, flow bool) []string {
	ended := false
	cut := func(t string) string {
		for j := 0; j < len(t); j++ {
			if t[j] == '#' && (j == 0 || t[j-1] == ' ' || t[j-1] == '\t') {
				t = t[:j]
				break
			}
			if flow && strings.IndexByte(",[]{}", t[j]) >= 0 {
				t, ended = t[:j], true
				break
			}
		}
		return strings.TrimRight(t, " \t")
	}
	out := []string{cut(lines[l][i:])}
	if ended {
		return out
	}
	var blanks []string
	for n := l + 1; n < len(lines); n++ {
		t := lines[n]
		trimmed := strings.TrimLeft(t, " \t")
		if trimmed == "" {
			blanks = append(blanks, t)
			continue
		}
		if !flow && len(t)-len(trimmed) <= keyCol || strings.HasPrefix(trimmed, "#") {
			break
		}
		if flow && strings.ContainsAny(trimmed[:1], ",[]{}") {
			break
		}
		out = append(out, blanks...)
		blanks = nil
		if flow {
			// In a flow mapping a continuation line may stand at any
			// indentation (even left of its key); the layout's block
			// mapping needs it right of the key. A plain scalar's
			// continuation lines lose their leading white space in the
			// value, so they are indented two past the key.
			t = strings.Repeat(" ", keyCol+2) + trimmed
		}
		out = append(out, cut(t))
		if ended {
			break
		}
	}
	return out
}

// unsplice puts the kept scalars back into yaml.v3's output in place of
// their placeholders, re-indenting continuation lines with their key. The
// placeholders are found by number, in whatever order yaml.v3 wrote them
// (a field moves with the layout), several on a line (a flow mapping).
func (f *formatter) unsplice(out string) ([]byte, error) {
	var res []string
	done := make([]bool, len(f.splices))
	kept := 0 // res[:kept] ends with spliced lines, which keep their blank lines
	// After a block scalar with keep chomping (|+, >+), the blank lines
	// that follow are its value's: those yaml.v3 writes after the
	// placeholder (before a comment that follows) would add line feeds
	// to it.
	afterKeep := false
	for _, line := range strings.Split(out, "\n") {
		if afterKeep && strings.TrimSpace(line) == "" {
			continue
		}
		afterKeep = false
		// The column the kept scalars' continuation lines are re-indented
		// from: that of the line's first key or entry.
		keyCol := len(line) - len(strings.TrimLeft(line, " -"))
		cur := "" // the line being built, up to where the search resumes
		block := false
		for {
			at, n, ok := f.findToken(line)
			if !ok {
				break
			}
			if done[n] {
				return nil, errors.New("internal error: a kept scalar was emitted twice")
			}
			done[n] = true
			sp := f.splices[n]
			prefix, rest := cur+line[:at], line[at+len(sp.token):]
			shift := keyCol - sp.keyCol
			indent := func(t string) string {
				switch {
				case strings.TrimSpace(t) == "" || shift == 0:
					return t
				case shift > 0:
					return strings.Repeat(" ", shift) + t
				}
				return t[min(-shift, len(t)-len(strings.TrimLeft(t, " "))):]
			}
			if sp.block {
				res = append(res, prefix+sp.header+rest)
				for _, t := range sp.lines {
					res = append(res, indent(t))
				}
				kept = len(res)
				afterKeep = strings.Contains(sp.header, "+")
				block = true
				break
			}
			if len(sp.lines) == 1 {
				cur, line = prefix+sp.lines[0], rest
				continue
			}
			res = append(res, prefix+sp.lines[0])
			for _, t := range sp.lines[1 : len(sp.lines)-1] {
				res = append(res, indent(t))
			}
			cur, line = indent(sp.lines[len(sp.lines)-1]), rest
		}
		if !block {
			res = append(res, cur+line)
		}
	}
	for _, d := range done {
		if !d {
			return nil, errors.New("internal error: a kept scalar was lost in emitting")
		}
	}
	for len(res) > kept && res[len(res)-1] == "" {
		res = res[:len(res)-1]
	}
	return []byte(strings.Join(res, "\n") + "\n"), nil
}

// findToken finds the first placeholder in line: its byte index and the
// number of its splice.
func (f *formatter) findToken(line string) (at, n int, ok bool) {
	for {
		i := strings.Index(line[at:], splicePrefix)
		if i < 0 {
			return 0, 0, false
		}
		at += i
		j := at + len(splicePrefix)
		k := j
		for k < len(line) && line[k] >= '0' && line[k] <= '9' {
			k++
		}
		if k > j && k < len(line) && line[k] == 'X' {
			if v, err := strconv.Atoi(line[j:k]); err == nil && v < len(f.splices) {
				return at, v, true
			}
		}
		at = j
	}
}

// sameDocument checks that b means what a means: the same values (field
// order aside) and the same comments.
func sameDocument(a, b []byte) error {
	var va, vb any
	if err := yaml.Unmarshal(a, &va); err != nil {
		return err
	}
	if err := yaml.Unmarshal(b, &vb); err != nil {
		return fmt.Errorf("the result does not parse: %v", err)
	}
	if !reflect.DeepEqual(va, vb) {
		return errors.New("the values differ")
	}
	ca, err := comments(a)
	if err != nil {
		return err
	}
	cb, err := comments(b)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(ca, cb) {
		return fmt.Errorf("the comments differ: %q, %q", ca, cb)
	}
	return nil
}

// comments returns the comment lines of a document, sorted.
func comments(src []byte) ([]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, l := range strings.Split(c, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					out = append(out, l)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	sort.Strings(out)
	return out, nil
}
