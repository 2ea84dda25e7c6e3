package guard

// This file owns a CallToolResult as JSON: its text units (spec 11: text
// content items, the text of embedded text resources, every string value
// of structuredContent in its JSON order), writing a transform back into
// every unit, and the results the guard makes (a block, text appended,
// the node id in _meta).

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/oarc/oarc/guard/internal/jsonscan"
	"github.com/oarc/oarc/runtime"
)

// result is a CallToolResult decoded as far as the guard reads it; every
// member it does not read is kept as it came.
type result struct {
	top     map[string]json.RawMessage
	items   []item
	isError bool
	// structured is structuredContent as it came (nil when absent).
	structured json.RawMessage
	// kept is, after rewrite, what is left of the text that came: each
	// run of a unit's text between the regions the transform replaced,
	// where the search for copies of redacted strings looks without
	// taking a replacement's own text for one (a copy cannot run across
	// a replacement: it would hold the replacement's text).
	kept []string
	// gone is, after rewrite, the redacted strings: the text of each
	// region as it stood in its unit (a region crossing a unit boundary
	// cut at it), text of white space only left out.
	gone []string
}

// item is one content item.
type item struct {
	raw  json.RawMessage
	kind string // "text", "resource", or another type the guard passes through
	m    map[string]json.RawMessage
	// res is the embedded resource of a resource item.
	res map[string]json.RawMessage
	// text is the item's text (a text item, or a text resource), ok when
	// it has one.
	text  string
	hasTx bool
	dirty bool
	// dup says that the item, or its resource, gives a member twice: it
	// is passed on re-encoded from the members the guard read (the last
	// of each), never as it came, so that no parser that keeps the first
	// value reads text the rules did not see (spec 11: no copy of a
	// redacted string survives anywhere in the result).
	dup bool
}

func parseResult(raw json.RawMessage) (*result, error) {
	if !json.Valid(raw) {
		return nil, errors.New("not valid JSON")
	}
	r := &result{}
	top, err := jsonscan.Members(raw)
	if err != nil {
		return nil, errors.New("not an object")
	}
	r.top = top
	if v, ok := r.top["resultType"]; ok && !isNull(v) {
		// MCP 2026-07-28: complete, or input_required (the server's
		// questions; the retry is a call of its own). Any other kind (a
		// task of the tasks extension, whose output the client fetches
		// later by its id, unevaluated) is no result the guard can
		// evaluate.
		t, err := jsonscan.Unquote(v)
		if err != nil {
			return nil, errors.New("resultType is not a string")
		}
		if t != "complete" && t != "input_required" {
			// Not quoted: the rejection that replaces the result reaches
			// the agent, and the upstream's text there was read by no rule.
			return nil, errors.New("a resultType the guard cannot evaluate (neither complete nor input_required)")
		}
	}
	if v, ok := r.top["isError"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &r.isError); err != nil {
			return nil, fmt.Errorf("isError: %v", err)
		}
	}
	if v, ok := r.top["content"]; ok && !isNull(v) {
		raws, err := jsonscan.Elements(v)
		if err != nil {
			return nil, errors.New("content is not an array")
		}
		for i, x := range raws {
			it := item{raw: x}
			var dups []string
			if it.m, dups, err = jsonscan.MembersDup(x); err != nil {
				return nil, fmt.Errorf("content[%d] is not an object", i)
			}
			it.dup = len(dups) > 0
			if t, ok := it.m["type"]; ok {
				if it.kind, err = jsonscan.Unquote(t); err != nil {
					return nil, fmt.Errorf("content[%d].type is not a string", i)
				}
			}
			switch it.kind {
			case "text":
				if t, ok := it.m["text"]; ok {
					if it.text, err = jsonscan.Unquote(t); err != nil {
						return nil, fmt.Errorf("content[%d].text is not a string", i)
					}
					it.hasTx = true
				}
			case "resource":
				if v, ok := it.m["resource"]; ok {
					if it.res, dups, err = jsonscan.MembersDup(v); err != nil {
						return nil, fmt.Errorf("content[%d].resource is not an object", i)
					}
					it.dup = it.dup || len(dups) > 0
					if t, ok := it.res["text"]; ok {
						if it.text, err = jsonscan.Unquote(t); err != nil {
							return nil, fmt.Errorf("content[%d].resource.text is not a string", i)
						}
						it.hasTx = true
					}
				}
			case "image", "audio", "resource_link":
				// Content the engine cannot read: passed on unchanged.
			default:
				// tool_result (whose nested content holds text items),
				// tool_use (whose input holds any JSON), or a type no
				// revision the guard knows has: text a client may read
				// (the Go SDK decodes the first two in a CallToolResult)
				// that no rule would have read.
				// The type is named when it is one of sampling's; another
				// is not quoted (the upstream's text, read by no rule,
				// would reach the agent in the rejection).
				if it.kind == "tool_use" || it.kind == "tool_result" {
					return nil, fmt.Errorf("content[%d] is of type %q, which the guard cannot evaluate", i, it.kind)
				}
				return nil, fmt.Errorf("content[%d] is of a type the guard cannot evaluate", i)
			}
			r.items = append(r.items, it)
		}
	}
	if v, ok := r.top["structuredContent"]; ok && !isNull(v) {
		// An object that gives a name twice reads otherwise to parsers
		// that keep the first value and to those that keep the last (the
		// bindings, encoding/json): the guard evaluates, and passes on,
		// each name once, with its last value (docs/mcp.md).
		r.structured = jsonscan.Unique(v)
		r.top["structuredContent"] = r.structured
	}
	return r, nil
}

// errFoldedNames does not quote the names: the rejection reaches the agent,
// and the upstream's names were read by no rule.
var errFoldedNames = errors.New("the result has two names that differ only by case: a client may read either")

// foldedNames refuses a result in which one object the client reads
// members of by name has two names that differ only by case: the result,
// a content item, its resource, and, when the set has result bindings
// (whose mcp_field_* read members by name), structuredContent at any
// depth. The rules read, and a transform rewrites, the member spelt
// exactly, but a client in Go that decodes the result with encoding/json
// matches names without regard to case and keeps the last
// ({"text":"fine","TEXT":"<a key>"}: the rules see fine, the client the
// key). Without bindings every string value of structuredContent is a
// text unit, whatever its name, so nothing there is hidden from the
// rules. Such a result is withheld (docs/mcp.md).
func (r *result) foldedNames(bindings bool) error {
	if _, _, ok := sameFold(maps.Keys(r.top)); ok {
		return errFoldedNames
	}
	for _, it := range r.items {
		if _, _, ok := sameFold(maps.Keys(it.m)); ok {
			return errFoldedNames
		}
		if _, _, ok := sameFold(maps.Keys(it.res)); ok {
			return errFoldedNames
		}
	}
	if bindings && r.structured != nil {
		var v any
		if err := json.Unmarshal(r.structured, &v); err != nil {
			return fmt.Errorf("structuredContent: %v", err)
		}
		if _, _, ok := foldedPair(v); ok {
			return errFoldedNames
		}
	}
	return nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// unit is one text unit of a result: item i's text, or the string value
// of structuredContent at bytes [start, end) (the JSON string, quotes
// included).
type unit struct {
	text       string
	item       int // -1 for structuredContent
	start, end int
}

// units lists the result's text units in spec order: the text items,
// then the texts of the embedded text resources (each in content order),
// then the string values of structuredContent.
func (r *result) units() []unit {
	var us []unit
	for _, kind := range [...]string{"text", "resource"} {
		for i := range r.items {
			if r.items[i].hasTx && r.items[i].kind == kind {
				us = append(us, unit{text: r.items[i].text, item: i})
			}
		}
	}
	if r.structured != nil {
		scanStrings(r.structured, func(s, e int) {
			if str, err := jsonscan.Unquote(r.structured[s:e]); err == nil {
				us = append(us, unit{text: str, item: -1, start: s, end: e})
			}
		})
	}
	return us
}

// scanStrings calls fn with the byte range of every string value (not
// object key) of the valid JSON raw, in order.
func scanStrings(raw []byte, fn func(start, end int)) {
	var stack []byte
	expectKey := false
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			stack = append(stack, '{')
			expectKey = true
		case '[':
			stack = append(stack, '[')
			expectKey = false
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case ':':
			expectKey = false
		case '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if !expectKey {
				fn(i, j+1)
			}
			i = j
		}
	}
}

// rewrite applies the merged regions of a transform (code points of the
// units joined with "\n") to each unit, a region crossing a unit
// boundary cut at it, and writes the units back where they came from.
func (r *result) rewrite(units []unit, regions []runtime.Redaction) error {
	type splice struct {
		start, end int
		text       string
	}
	var splices []splice
	base := int64(0)
	ri := 0
	for _, u := range units {
		n := int64(utf8.RuneCountInString(u.text))
		lo, hi := base, base+n
		var b strings.Builder
		if ri < len(regions) && regions[ri].Start < hi {
			b.Grow(len(u.text))
		}
		pos := int64(0) // code points of u.text written
		off := 0        // its byte offset
		from := 0       // the byte offset of the text kept since the last region
		changed := false
		for k := ri; k < len(regions); k++ {
			g := regions[k]
			if g.Start >= hi {
				break
			}
			s, e := max(g.Start, lo)-lo, min(g.End, hi)-lo
			if e <= s {
				continue
			}
			// Copy up to s, skip to e.
			for pos < s {
				_, size := utf8.DecodeRuneInString(u.text[off:])
				b.WriteString(u.text[off : off+size])
				off += size
				pos++
			}
			if off > from {
				r.kept = append(r.kept, u.text[from:off])
			}
			cut := off
			for pos < e {
				_, size := utf8.DecodeRuneInString(u.text[off:])
				off += size
				pos++
			}
			if p := u.text[cut:off]; strings.TrimSpace(p) != "" {
				r.gone = append(r.gone, p)
			}
			from = off
			b.WriteString(g.Replacement)
			changed = true
		}
		// Regions wholly before the next unit are done.
		for ri < len(regions) && regions[ri].End <= hi+1 {
			ri++
		}
		if from < len(u.text) {
			r.kept = append(r.kept, u.text[from:])
		}
		if changed {
			b.WriteString(u.text[off:])
			t := b.String()
			if u.item >= 0 {
				it := &r.items[u.item]
				it.text, it.dirty = t, true
			} else {
				enc, err := marshalString(t)
				if err != nil {
					return err
				}
				splices = append(splices, splice{u.start, u.end, string(enc)})
			}
		}
		base = hi + 1 // the "\n" between units
	}
	if len(splices) > 0 {
		sort.Slice(splices, func(i, j int) bool { return splices[i].start < splices[j].start })
		var out []byte
		prev := 0
		for _, s := range splices {
			out = append(out, r.structured[prev:s.start]...)
			out = append(out, s.text...)
			prev = s.end
		}
		out = append(out, r.structured[prev:]...)
		r.structured = out
		r.top["structuredContent"] = out
	}
	return nil
}

// marshalString encodes s as a JSON string, without HTML escaping.
func marshalString(s string) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// encode writes the result back: rewritten items, texts appended as text
// items, the upstream's oarc/ keys dropped from _meta and the node id
// added. What did not change is copied as it came (valid JSON).
func (r *result) encode(extra []string, node string) (json.RawMessage, error) {
	touched := len(extra) > 0
	for i := range r.items {
		if r.items[i].dirty || r.items[i].dup {
			touched = true
		}
	}
	if touched {
		c := []byte{'['}
		n := 0
		add := func(b []byte) {
			if n > 0 {
				c = append(c, ',')
			}
			c = append(c, b...)
			n++
		}
		for i := range r.items {
			it := &r.items[i]
			if !it.dirty && !it.dup {
				add(it.raw)
				continue
			}
			if it.dirty {
				t, err := marshalString(it.text)
				if err != nil {
					return nil, err
				}
				if it.kind == "resource" {
					it.res["text"] = t
				} else {
					it.m["text"] = t
				}
			}
			if it.res != nil {
				it.m["resource"] = jsonscan.AppendObject(nil, it.res)
			}
			add(jsonscan.AppendObject(nil, it.m))
		}
		for _, s := range extra {
			add(textItem(s))
		}
		r.top["content"] = append(c, ']')
	}
	meta := cleanMeta(r.top["_meta"])
	if node != "" {
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta["oarc/node"], _ = marshalString(node)
	}
	if meta != nil {
		r.top["_meta"] = jsonscan.AppendObject(nil, meta)
	} else {
		delete(r.top, "_meta")
	}
	return jsonscan.AppendObject(nil, r.top), nil
}

// cleanMeta splits a result's _meta, dropping the keys under "oarc/":
// only the guard writes those, so that an upstream cannot forge a code or
// a node id. A _meta that is not an object is dropped.
func cleanMeta(raw json.RawMessage) map[string]json.RawMessage {
	if raw == nil || isNull(raw) {
		return nil
	}
	m, err := jsonscan.Members(raw)
	if err != nil {
		return nil
	}
	for k := range m {
		if strings.HasPrefix(k, "oarc/") {
			delete(m, k)
		}
	}
	return m
}

func textItem(s string) json.RawMessage {
	t, _ := marshalString(s)
	return append(append([]byte(`{"type":"text","text":`), t...), '}')
}

// blockResult is the result a blocked call returns (spec 11): isError,
// one text item with the rejection, and _meta["oarc/code"].
func blockResult(code, text string) json.RawMessage {
	c, _ := marshalString(code)
	out := []byte(`{"content":[`)
	out = append(out, textItem(text)...)
	out = append(out, `],"isError":true,"_meta":{"oarc/code":`...)
	out = append(out, c...)
	return append(out, "}}"...)
}

// randomID is a node id for the middleware: unique without coordination.
func randomID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return "oarc-" + hex.EncodeToString(b[:])
}
