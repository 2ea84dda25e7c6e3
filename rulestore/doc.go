// This file owns the rule document of a store record: the OAR rule as a
// JSON object (as a fixture's `rule`), turned into the YAML text the
// compiler checks, laid out so that a diagnostic in `when` maps back to a
// line and column of the `when` the agent wrote.

package rulestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/runtime"
)

// decodeDoc reads a JSON object into a YAML mapping node, keeping the
// order of its members (and members given twice, which the compiler then
// reports as duplicate keys).
func decodeDoc(raw []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the rule is followed by more JSON")
	}
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("the rule is not a JSON object")
	}
	return n, nil
}

// maxDocDepth bounds the nesting of a rule document: OAR's deepest field
// (flow.sequence's steps) is three levels down.
const maxDocDepth = 32

func decodeValue(dec *json.Decoder, depth int) (*yaml.Node, error) {
	if depth > maxDocDepth {
		return nil, errors.New("the rule is nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := k.(string)
				if !ok {
					return nil, errors.New("a member name is not a string")
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		case '[':
			n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return strNode(t), nil
	case json.Number:
		tag := "!!float"
		if _, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(t)}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}

// encodeDoc writes a YAML node back as compact JSON, members in order.
func encodeDoc(b *bytes.Buffer, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, n.Content[i].Value)
			b.WriteByte(':')
			encodeDoc(b, n.Content[i+1])
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeDoc(b, c)
		}
		b.WriteByte(']')
	default:
		switch n.Tag {
		case "!!int", "!!float", "!!bool", "!!null":
			b.WriteString(n.Value)
		default:
			writeJSONString(b, n.Value)
		}
	}
}

// writeJSONString writes s as a JSON string, <, > and & as they are.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
}

// ruleJSON is a record's rule as compact JSON, <, > and & as they are,
// as an agent reads it (rule_status): every character that
// strconv.IsPrint does not call printable (controls, invisible format
// characters such as zero width, bidirectional controls and tag
// characters, separators other than space), and every other invisible
// character (runtime.HiddenRune: Hangul fillers, variation selectors), is
// escaped as \uXXXX (a surrogate pair above U+FFFF). Outside strings JSON text is printable
// ASCII, so only strings change, and they decode to the same rule: a
// `when` or selector value that hides a sentence shows it as escapes.
func ruleJSON(rec Record) string {
	var b bytes.Buffer
	encodeDoc(&b, ruleDoc(rec))
	s := b.String()
	var out strings.Builder
	for _, r := range s {
		if r == 0x7f || r >= utf8.RuneSelf && (!strconv.IsPrint(r) || runtime.HiddenRune(r)) {
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				fmt.Fprintf(&out, "\\u%04x\\u%04x", r1, r2)
			} else {
				fmt.Fprintf(&out, "\\u%04x", r)
			}
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// member returns the value of a mapping's first member named key.
func member(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// ruleText is a rule document as the compiler reads it: YAML, with its
// `when` (when it is a string) last, as a literal block whose lines are
// the lines of the `when`, so that a position in the block is a position
// in the `when`.
type ruleText struct {
	text []byte
	// whenLine is the line of "when: |-" (0: the when is not a block);
	// the when's line i is line whenLine+i of the text, its column c
	// column c+2.
	whenLine int
	// whenLines is the number of lines of the when.
	whenLines int
	// keys are the document's top-level fields by line.
	keys []keyLine
}

type keyLine struct {
	line int
	key  string
}

// yamlBreaks are the characters other than CR and LF that a YAML reader
// reads as a line break: in a literal block they end the block's line
// (the next is not indented), so that a `when` holding one, in a CEL
// string say, would be a YAML error at a line the agent never wrote, for
// a rule oarc check accepts. Such a `when` is not laid out as a block:
// written as a quoted scalar, the compiler reads it as the record holds
// it (its diagnostics then name the field, without a line and column).
// CR LF and CR read as LF in the block, as CEL reads them in a string.
const yamlBreaks = "\u0085\u2028\u2029"

// buildText lays a decoded rule document out for the compiler.
func buildText(doc *yaml.Node) (*ruleText, error) {
	rest := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	var when *string
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if k.Value == "when" && when == nil && v.Kind == yaml.ScalarNode && v.Tag == "!!str" && !strings.ContainsAny(v.Value, yamlBreaks) {
			w := v.Value
			when = &w
			continue
		}
		rest.Content = append(rest.Content, k, v)
	}
	var buf bytes.Buffer
	if len(rest.Content) > 0 {
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(rest); err != nil {
			return nil, fmt.Errorf("the rule cannot be written as YAML: %v", err)
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	if len(rest.Content) == 0 && when == nil {
		// The empty object: a mapping all the same, whose missing
		// fields the compiler names (no text would be an empty file).
		buf.WriteString("{}\n")
	}
	rt := &ruleText{}
	var parsed yaml.Node
	if err := yaml.Unmarshal(buf.Bytes(), &parsed); err == nil && len(parsed.Content) == 1 {
		m := parsed.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			rt.keys = append(rt.keys, keyLine{m.Content[i].Line, m.Content[i].Value})
		}
	}
	if when != nil {
		rt.whenLine = bytes.Count(buf.Bytes(), []byte("\n")) + 1
		rt.keys = append(rt.keys, keyLine{rt.whenLine, "when"})
		// Every line break the agent wrote is a line of the block. The
		// block's indentation is found from its first line, unless that
		// starts with white space: then it is given, and the compiler
		// finds the positions in it all the same.
		w := strings.ReplaceAll(strings.ReplaceAll(*when, "\r\n", "\n"), "\r", "\n")
		head := "when: |-\n"
		if first := strings.TrimLeft(w, "\n"); first != "" && (first[0] == ' ' || first[0] == '\t') {
			head = "when: |2-\n"
		}
		buf.WriteString(head)
		rt.whenLines = strings.Count(w, "\n") + 1
		for _, l := range strings.Split(w, "\n") {
			buf.WriteString("  ")
			buf.WriteString(l)
			buf.WriteByte('\n')
		}
	}
	rt.text = buf.Bytes()
	return rt, nil
}

// Diagnostic is a problem of a rule an agent added, placed where the
// agent can find it: in its `when` (line and column of the `when` text,
// 1-based, columns in characters) or in a field of the rule.
type Diagnostic struct {
	// Field is the rule's top-level field the problem is in ("when",
	// "anchor", ...), "" when it is the document's.
	Field string `json:"field"`
	// Line and Col are the position in the `when` (Field "when"), else 0.
	Line int `json:"line,omitempty"`
	Col  int `json:"col,omitempty"`
	// Severity is "error" or "warning".
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	// Source is, for a `when` problem, the line of the `when` it is in,
	// and a caret under the column.
	Source string `json:"source,omitempty"`
}

// String renders the diagnostic as oarc check does, the position being
// the `when`'s own ("when:1:14") or the field's ("rule.effect").
func (d Diagnostic) String() string {
	var b strings.Builder
	switch {
	case d.Field == "when" && d.Line > 0:
		fmt.Fprintf(&b, "when:%d:%d", d.Line, d.Col)
	case d.Field != "":
		b.WriteString("rule." + d.Field)
	default:
		b.WriteString("rule")
	}
	fmt.Fprintf(&b, ": %s: %s [%s]", d.Severity, d.Message, d.Code)
	if d.Source != "" {
		b.WriteString("\n")
		b.WriteString(d.Source)
	}
	return b.String()
}

// place maps the compiler's diagnostics of a rule text to the agent's
// rule.
func (rt *ruleText) place(ds compiler.Diagnostics) []Diagnostic {
	lines := strings.Split(string(rt.text), "\n")
	var out []Diagnostic
	for _, d := range ds {
		pd := Diagnostic{Severity: d.Severity.String(), Code: d.Code, Message: d.Message}
		if (d.Code == compiler.CodeMissingField || d.Code == compiler.CodeVersion) && d.Pos.Line == 1 && d.Pos.Col == 1 {
			// A field the document lacks (a required one, oar), at the
			// document's position: the text starts with the document's
			// first key, whose position that is too, but the problem is
			// not that field's (a wrong oar is at its value).
			out = append(out, pd)
			continue
		}
		for _, k := range rt.keys {
			if d.Pos.Line >= k.line && k.line > 0 {
				pd.Field = k.key
			}
		}
		if rt.whenLine > 0 && d.Pos.Line > rt.whenLine {
			pd.Field = "when"
			pd.Line = d.Pos.Line - rt.whenLine
			pd.Col = max(d.Pos.Col-2, 1)
			if pd.Line > rt.whenLines {
				// Past its last line (a when that ends before its
				// condition, the YAML block being empty): at its end.
				pd.Line = rt.whenLines
				pd.Col = utf8.RuneCountInString(strings.TrimPrefix(lines[rt.whenLine+pd.Line-1], "  ")) + 1
			}
			if l := rt.whenLine + pd.Line; l-1 < len(lines) {
				src := strings.TrimPrefix(lines[l-1], "  ")
				pd.Source = "   | " + src + "\n   | " + caret(src, pd.Col)
			}
		}
		out = append(out, pd)
	}
	return out
}

// caret is the line under src that points at column col (in
// characters), tabs kept so that it lines up.
func caret(src string, col int) string {
	var b strings.Builder
	i := 1
	for _, r := range src {
		if i >= col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		i++
	}
	for ; i < col; i++ {
		b.WriteByte(' ')
	}
	b.WriteByte('^')
	return b.String()
}

// validUTF8 reports whether every string of the document is UTF-8.
func validUTF8(n *yaml.Node) bool {
	if n.Kind == yaml.ScalarNode && !utf8.ValidString(n.Value) {
		return false
	}
	for _, c := range n.Content {
		if !validUTF8(c) {
			return false
		}
	}
	return true
}
