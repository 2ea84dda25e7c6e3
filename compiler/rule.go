// This file owns the decoding and validation of one YAML file (a rule
// document or pack.yaml) from yaml.v3 nodes, so that every problem carries
// the position of the node it is about.

package compiler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
)

var (
	idRE       = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	detectorRE = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)
	yamlErrRE  = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
)

// RuleIDPattern is the form of a rule's id (spec 2; a deny-by-default
// code has it too), ValidatorIDPattern that of a validator id (a rule's
// detector), for the readers of fixtures and schemas.
var RuleIDPattern, ValidatorIDPattern = idRE, detectorRE

var (
	ruleFields      = []string{"oar", "id", "kind", "anchor", "effect", "selector", "requires", "when", "flow", "enforcement", "on_error", "copy", "on_fire", "detector", "transform"}
	packFields      = []string{"oar", "name", "origin", "catalog", "deny_by_default", "max_cost", "bindings"}
	copyFields      = []string{"title", "what", "cause", "why", "fix", "instead"}
	requiresFields  = []string{"profiles"}
	onFireFields    = []string{"increment", "reset"}
	flowFields      = []string{"sequence", "within", "contiguous"}
	transformFields = []string{"redact", "replacement"}
	effects         = []string{"block", "warn", "nudge", "allow", "transform", "ask"}
	counters        = []string{"fire", "breaker"}
)

// defaultReplacement replaces redacted spans when a transform does not say.
const defaultReplacement = "[REDACTED]"

// ruleFile is one rule file being loaded.
type ruleFile struct {
	src      *source
	stem     string // expected id; "" for inline documents
	rule     *Rule
	idValid  bool
	idPos    Pos
	when     *yaml.Node
	reset    []*yaml.Node // the nodes of on_fire.reset entries, parallel to rule.OnFire.Reset
	profiles map[string]*yaml.Node
	// badRequires: requires had an error, so what it lists is not known
	// and a read of an unlisted profile is not reported too.
	badRequires bool
	flowNode    *yaml.Node
	errs        int // errors reported for this file before the pack checks
}

// fileCtx reports diagnostics against one source.
type fileCtx struct {
	l     *packLoader // the loader of a rule file or pack.yaml; nil for a catalog
	src   *source
	diags *Diagnostics
	// only, when set, is the code of every problem in the file (a host
	// catalog's problems are all OAR_CATALOG, YAML syntax included).
	only string
	// misspelt holds, per mapping, the fields that an unknown key of it
	// was reported as a misspelling of: such a field is not reported
	// missing too (one mistake, one error).
	misspelt map[*yaml.Node]map[string]bool
}

// missing reports a required field name absent from mapping n, at at,
// unless an unknown key of n was reported as its misspelling.
func (c *fileCtx) missing(n *yaml.Node, name string, at *yaml.Node, code, format string, args ...any) {
	if c.misspelt[n][name] {
		return
	}
	c.errorf(at, code, format, args...)
}

func newFileCtx(l *packLoader, src *source) *fileCtx {
	return &fileCtx{l: l, src: src, diags: &l.diags}
}

func (c *fileCtx) add(d Diagnostic) {
	if c.only != "" {
		d.Code = c.only
	}
	*c.diags = append(*c.diags, d)
}

func (c *fileCtx) errorAt(p Pos, code, format string, args ...any) {
	c.add(Diagnostic{Pos: p, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (c *fileCtx) errorf(n *yaml.Node, code, format string, args ...any) {
	if n != nil && n.Kind == yaml.AliasNode {
		// walk reports every alias; what a field's check would say of
		// one ("must be a string, got an alias") is the same problem.
		return
	}
	c.errorAt(c.src.pos(n), code, format, args...)
}

func (c *fileCtx) warnf(n *yaml.Node, code, format string, args ...any) {
	c.add(Diagnostic{Pos: c.src.pos(n), Severity: Warning, Code: code, Message: fmt.Sprintf(format, args...)})
}

// YAMLDiagnostics returns what the loader reports of src, the text of the
// rule file or pack.yaml named file, as YAML (code OAR_YAML: syntax,
// duplicate keys, aliases, several documents, an empty file, a root that
// is not a mapping), at their positions; none when src is such a document.
// Tools that read those files outside a load (oarc fmt) report their
// problems with it.
func YAMLDiagnostics(file string, src []byte) Diagnostics {
	var ds Diagnostics
	c := &fileCtx{src: newSource(file, src), diags: &ds}
	c.parseDoc(src)
	return ds
}

// parseDoc parses text as exactly one YAML document whose root is a
// mapping, and rejects aliases and duplicate keys anywhere.
func (c *fileCtx) parseDoc(text []byte) *yaml.Node {
	doc, next, err, nextErr := decodeDocs(text)
	if err != nil {
		if errors.Is(err, io.EOF) {
			c.errorAt(Pos{File: c.src.name, Line: 1, Col: 1}, CodeYAML, "empty file: a %s holds one YAML document whose root is a mapping", c.what())
			return nil
		}
		c.yamlError(err)
		return nil
	}
	if nextErr == nil {
		p := c.src.pos(&next)
		empty := len(next.Content) == 0 || next.Content[0].Kind == yaml.ScalarNode && next.Content[0].ShortTag() == "!!null" && next.Content[0].Value == ""
		if !empty {
			p = c.src.pos(next.Content[0])
		} else if l := c.secondDocStart(&doc); l > 0 {
			// An empty second document ("---" at the end) has no node
			// to point at; its marker is the place.
			p = Pos{File: c.src.name, Line: l, Col: 1}
		}
		c.errorAt(p, CodeYAML, "several YAML documents in one file; a %s holds exactly one", c.what())
	} else if !errors.Is(nextErr, io.EOF) {
		c.yamlError(nextErr)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		c.errorAt(Pos{File: c.src.name, Line: 1, Col: 1}, CodeYAML, "empty document: the root must be a mapping")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		c.errorf(root, CodeYAML, "the root of the document must be a mapping, got %s", kindName(root))
		return nil
	}
	c.walk(root)
	return root
}

// decodeDocs decodes the first YAML document of text and, when that
// succeeds, the next: what parseDoc reads of a file (a second document is
// a problem of its own), and what the search for a syntax error's column
// (yamlProblem) must read the same way.
func decodeDocs(text []byte) (doc, next yaml.Node, err, nextErr error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	if err = dec.Decode(&doc); err == nil {
		nextErr = dec.Decode(&next)
	}
	return doc, next, err, nextErr
}

// what names the kind of file in messages.
func (c *fileCtx) what() string {
	if c.only == CodeCatalog {
		return "catalog file"
	}
	if c.src != nil && filepath.Base(c.src.name) == "pack.yaml" {
		return "pack.yaml"
	}
	return "rule file"
}

// secondDocStart returns the 1-based line of the "---" that starts the
// document after doc, or 0 when there is none in the text.
func (c *fileCtx) secondDocStart(doc *yaml.Node) int {
	from := 0 // lines before the first document's content
	if len(doc.Content) > 0 {
		from = c.src.pos(doc.Content[0]).Line
	}
	for i, l := range c.src.lines {
		if i+1 > from && (l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t")) {
			return i + 1
		}
	}
	return 0
}

// whereIn names the kind of file in the plural ("rule files"), or
// pack.yaml.
func (c *fileCtx) whereIn() string {
	if w := c.what(); w != "pack.yaml" {
		return w + "s"
	}
	return "pack.yaml"
}

// parserProblems are the messages of yaml.v3's parser (parserc.go), as
// opposed to its scanner's: their line is 0-based.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

func (c *fileCtx) yamlError(err error) {
	msg := err.Error()
	p := Pos{File: c.src.name, Line: 1, Col: 1}
	if m := yamlErrRE.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if parserProblems[msg] {
			// yaml.v3 names a parser error's line by its 0-based number
			// (only scanner errors get the +1): the flow mapping of
			// "copy: {title: x" on line 6 was reported at line 5.
			p.Line++
		}
		// yaml.v3 may name the line after the last one at end of input,
		// and counts lines its own way (source.ylines).
		p.Line = max(1, min(p.Line, len(c.src.ylines)))
		line, col := c.src.yamlErrorPos(p.Line, err.Error())
		p.Line, p.Col = c.src.editorPos(line, max(col, 1))
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
		if charProblems[msg] {
			// A scanner error of the first line: yaml.v3 leaves out
			// "line 1:".
			line, col := c.src.yamlErrorPos(1, err.Error())
			p.Line, p.Col = c.src.editorPos(line, max(col, 1))
		}
		// yaml.v3 reports bad bytes without a position: find the byte.
		if readerProblems[msg] {
			if at, what, ok := c.src.badChar(); ok {
				p, msg = at, what
			}
		}
	}
	if at, key, open, ok := c.src.flowThenText(); ok {
		// `when: [1, 2].all(x, x > 0)` starts a YAML list that the rest
		// of the line cannot follow; yaml.v3 reports it where the mapping
		// began. Say where it is and what to do.
		p = at
		msg = fmt.Sprintf("%s (the value of %s starts with %q, so YAML reads a list or map there and the text after it cannot follow; quote the value: %s: '...')", msg, key, string(open), key)
	} else if at, hint, ok := c.src.quoteThenText(); ok {
		// `when: 'x == 'a''`: a quote inside a value quoted with it
		// (celsyntax.go).
		c.add(Diagnostic{Pos: at, Code: CodeYAML, Message: "YAML syntax: " + msg + " (" + hint + ")", Source: c.src.line(at.Line)})
		return
	}
	c.add(Diagnostic{Pos: p, Code: CodeYAML, Message: "YAML syntax: " + msg})
}

// readerProblems are the messages of yaml.v3's input decoder, which carry
// no position.
var readerProblems = map[string]bool{
	"invalid leading UTF-8 octet":        true,
	"incomplete UTF-8 octet sequence":    true,
	"invalid trailing UTF-8 octet":       true,
	"invalid length of a UTF-8 sequence": true,
	"invalid Unicode character":          true,
	"control characters are not allowed": true,
}

// walk rejects anchors, aliases and duplicate mapping keys anywhere in
// the tree. An anchor is refused with the aliases: without them it has no
// use, and oarc fmt could not write it back.
func (c *fileCtx) walk(n *yaml.Node) {
	if n.Anchor != "" {
		c.errorAt(c.src.pos(n), CodeYAML, "YAML anchors (&%s) are not supported in %s, nor are aliases: write the value where it is used", n.Anchor, c.whereIn())
	}
	switch n.Kind {
	case yaml.AliasNode:
		c.errorAt(c.src.pos(n), CodeYAML, "YAML aliases (*%s) are not supported in %s", n.Value, c.whereIn())
	case yaml.MappingNode:
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode {
				if seen[k.Value] {
					c.errorf(k, CodeYAML, "duplicate key %q", k.Value)
				}
				seen[k.Value] = true
			}
			c.walk(k)
			c.walk(n.Content[i+1])
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			c.walk(e)
		}
	case yaml.ScalarNode:
		if n.Style == 0 && n.Tag == "!!int" && octalLike.MatchString(n.Value) {
			sign := ""
			if n.Value[0] == '-' {
				sign = "-"
			}
			digits := strings.TrimLeft(strings.TrimLeft(n.Value, "+-"), "0_")
			if digits == "" {
				digits = "0"
			}
			c.errorAt(c.src.pos(n), CodeYAML, "the number %s has a leading zero, which YAML 1.1 (and yaml.v3) reads as octal and YAML 1.2 as decimal: write %s%s for the decimal number, or %s0o%s for the octal one", n.Value, sign, digits, sign, digits)
		}
	}
}

// octalLike matches the plain integers yaml.v3 reads as octal (017, as
// YAML 1.1 does) where YAML 1.2 reads a decimal.
var octalLike = regexp.MustCompile(`^[-+]?0[0-9_]+$`)

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "a string"
		case "!!int":
			return "an integer"
		case "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "null"
		}
		return "a scalar " + n.ShortTag()
	}
	return "nothing"
}

// fields returns the key -> value map of a mapping node and reports keys
// not in allowed (with a did-you-mean) and keys that are not strings.
// Duplicate keys were reported by walk; the first occurrence wins.
func (c *fileCtx) fields(n *yaml.Node, what string, allowed []string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			c.errorf(k, CodeFieldType, "keys of %s must be strings, got %s", what, kindName(k))
			continue
		}
		if _, dup := keys[k.Value]; dup {
			continue
		}
		keys[k.Value] = k
		if !contains(allowed, k.Value) {
			msg := fmt.Sprintf("unknown field %q in %s", k.Value, what)
			if s := closest(k.Value, allowed); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
				if c.misspelt == nil {
					c.misspelt = map[*yaml.Node]map[string]bool{}
				}
				if c.misspelt[n] == nil {
					c.misspelt[n] = map[string]bool{}
				}
				c.misspelt[n][s] = true
			}
			c.errorf(k, CodeUnknownField, "%s", msg)
			continue
		}
		out[k.Value] = v
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str returns the string value of a scalar, or reports OAR_FIELD_TYPE.
func (c *fileCtx) str(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		c.errorf(n, CodeFieldType, "%s must be a string, got %s", field, kindName(n))
		return "", false
	}
	return n.Value, true
}

// strList returns the strings of a sequence of strings.
func (c *fileCtx) strList(n *yaml.Node, field string) ([]string, []*yaml.Node, bool) {
	if n.Kind != yaml.SequenceNode {
		c.errorf(n, CodeFieldType, "%s must be a list of strings, got %s", field, kindName(n))
		return nil, nil, false
	}
	var out []string
	var nodes []*yaml.Node
	ok := true
	for _, e := range n.Content {
		s, good := c.str(e, field+" entries")
		if !good {
			ok = false
			continue
		}
		out = append(out, s)
		nodes = append(nodes, e)
	}
	return out, nodes, ok
}

// oneOf checks that s is one of the allowed values.
func (c *fileCtx) oneOf(n *yaml.Node, s, field, code string, allowed []string) bool {
	if contains(allowed, s) {
		return true
	}
	msg := fmt.Sprintf("%s %q is not one of %s", field, s, strings.Join(allowed, ", "))
	if m := closest(s, allowed); m != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", m)
	}
	msg += notASCII(s)
	c.errorf(n, code, "%s", msg)
	return false
}

// checkVersion checks the `oar` field.
func (c *fileCtx) checkVersion(root *yaml.Node, f map[string]*yaml.Node) {
	v, ok := f["oar"]
	if !ok {
		c.missing(root, "oar", root, CodeVersion, "missing oar: '1.0'")
		return
	}
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value == "1.0":
	case v.Kind == yaml.ScalarNode && (v.ShortTag() == "!!float" || v.ShortTag() == "!!int"):
		c.errorf(v, CodeVersion, "oar must be the string '1.0', got the number %s (quote it: oar: '1.0')", v.Value)
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
		c.errorf(v, CodeVersion, "unsupported OAR version %q; oarc implements '1.0'", v.Value)
	default:
		c.errorf(v, CodeVersion, "oar must be the string '1.0', got %s", kindName(v))
	}
}

// readPackFile reads pack.yaml into l.pack.
func (l *packLoader) readPackFile(file string) {
	text, err := readRegular(file)
	if err != nil {
		l.errorf(Pos{File: file}, CodeYAML, "cannot read: %v", err)
		return
	}
	c := newFileCtx(l, newSource(file, text))
	root := c.parseDoc(text)
	if root == nil {
		return
	}
	f := c.fields(root, "pack.yaml", packFields)
	c.checkVersion(root, f)
	if n, ok := f["name"]; ok {
		if s, ok := c.str(n, "name"); ok && c.validPackName(n, s) {
			l.pack.Name = s
		}
	}
	if n, ok := f["origin"]; ok {
		if s, ok := c.str(n, "origin"); ok && c.oneOf(n, s, "origin", CodeValue, []string{"project", "stock"}) {
			l.pack.Origin = s
		}
	}
	if n, ok := f["catalog"]; ok {
		if s, ok := c.str(n, "catalog"); ok {
			if s == "" {
				c.errorf(n, CodeCatalog, "catalog is empty; name a catalog file relative to the pack")
			} else {
				if !filepath.IsAbs(s) {
					s = filepath.Join(filepath.Dir(file), s)
				}
				l.pack.CatalogFile = s
				l.pack.catalogPos = c.src.pos(n)
			}
		}
	}
	if n, ok := f["deny_by_default"]; ok {
		l.pack.deny = &denyNodes{c: c, n: n, key: keyNode(root, "deny_by_default")}
	}
	if n, ok := f["max_cost"]; ok {
		// Spec 4: the pack's own limit of a rule's estimated cost.
		// Decoded as YAML decodes every int (0x1F, 0o17, +5), as flow.within is.
		var v uint64
		switch {
		case n.Kind != yaml.ScalarNode || n.Tag != "!!int":
			c.errorf(n, CodeFieldType, "max_cost must be a positive integer, got %s", describe(n))
		case n.Decode(&v) != nil || v == 0:
			c.errorf(n, CodeValue, "max_cost %s is not a positive integer (the default limit is %d)", n.Value, DefaultMaxCost)
		default:
			l.pack.MaxCost = v
		}
	}
	if n, ok := f["bindings"]; ok {
		l.readBindings(c, n, file)
	}
	l.pack.Sources = append(l.pack.Sources, Source{Path: "pack.yaml", Content: text})
}

// keyNode returns the key node of field name in a mapping.
func keyNode(m *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i]
		}
	}
	return m
}

// addFile loads one rule document. stem is the id the file name demands,
// or "" for inline documents.
func (l *packLoader) addFile(file string, text []byte, stem string) {
	c := newFileCtx(l, newSource(file, text))
	rf := &ruleFile{src: c.src, stem: stem}
	l.files = append(l.files, rf)
	before := len(l.diags)
	defer func() { rf.errs = len(l.diags) - before }()
	root := c.parseDoc(text)
	if root == nil {
		return
	}
	r := &Rule{File: file, Pos: c.src.pos(root), Enforcement: "enforce", OnError: "fail_closed", Pack: l.pack}
	rf.rule = r
	c.rawInvisible(root)
	f := c.fields(root, "rule", ruleFields)
	c.checkVersion(root, f)

	required := func(name string) *yaml.Node {
		n, ok := f[name]
		if !ok {
			c.missing(root, name, root, CodeMissingField, "missing required field %q", name)
			return nil
		}
		return n
	}
	if n := required("id"); n != nil {
		rf.idPos = c.src.pos(n)
		if s, ok := c.str(n, "id"); ok {
			r.ID = s
			switch {
			case !idRE.MatchString(s):
				c.errorf(n, CodeID, "id %q is not SCREAMING_SNAKE_CASE (^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$)%s", s, notASCII(s))
			case stem != "" && s != stem:
				c.errorf(n, CodeID, "id %s does not match the file name %s (rename one of them)%s", s, stem, notASCII(s+stem))
				rf.idValid = true
			default:
				rf.idValid = true
			}
		}
	}
	kindNode := required("kind")
	if n := kindNode; n != nil {
		if s, ok := c.str(n, "kind"); ok && c.oneOf(n, s, "kind", CodeKind, kinds) {
			r.Kind = s
		}
	}
	var anchor *catalog.Anchor
	if n := required("anchor"); n != nil {
		if s, ok := c.str(n, "anchor"); ok {
			anchor = l.cat.Anchor(s)
			if anchor == nil {
				c.errorf(n, CodeAnchor, "%s", unknownAnchor(l, s))
			} else {
				r.Anchor = s
			}
		}
	}
	effectNode := required("effect")
	if n := effectNode; n != nil {
		if s, ok := c.str(n, "effect"); ok && c.oneOf(n, s, "effect", CodeEffect, effects) {
			r.Effect = s
			if (s == "allow" || s == "transform") && l.pack.Origin != "stock" {
				c.errorf(n, CodeEffect, "effect %s needs origin: stock; a %s pack may use only block, warn, nudge and ask", s, l.pack.Origin)
			}
			if anchor != nil {
				var need []string
				switch s {
				case "block", "allow", "ask":
					// ask: a person approves before the action runs, so
					// there must be an action to hold (spec 5.12).
					need = []string{"block"}
				case "transform":
					need = []string{"transform"}
				default:
					need = []string{"block", "inform"}
				}
				okPlane := false
				for _, p := range need {
					okPlane = okPlane || anchor.HasPlane(p)
				}
				if !okPlane {
					c.errorf(n, CodePlane, "effect %s needs an anchor with the %s plane; %s has %s",
						s, strings.Join(need, " or "), anchor.ID, strings.Join(anchor.Planes, ", "))
				}
			}
		}
	}
	if n, ok := f["enforcement"]; ok {
		if s, ok := c.str(n, "enforcement"); ok && c.oneOf(n, s, "enforcement", CodeValue, []string{"enforce", "monitor"}) {
			r.Enforcement = s
		}
	}
	if n, ok := f["on_error"]; ok {
		if s, ok := c.str(n, "on_error"); ok && c.oneOf(n, s, "on_error", CodeValue, []string{"fail_closed", "fail_open"}) {
			r.OnError = s
		}
	}
	if n, ok := f["requires"]; ok {
		c.requires(rf, n)
	}
	if n, ok := f["selector"]; ok {
		c.selector(r, n)
	}
	if n, ok := f["when"]; ok {
		if s, ok := c.str(n, "when"); ok {
			r.When = s
			r.WhenPos = c.src.pos(n)
			rf.when = n
		}
	}
	if n, ok := f["flow"]; ok {
		c.flow(rf, n)
	}
	if n, ok := f["copy"]; ok {
		c.copyField(r, n)
	}
	if n, ok := f["on_fire"]; ok {
		c.onFire(rf, n)
	}
	n, hasDet := f["detector"]
	switch {
	case hasDet && r.Kind != "" && r.Kind != "detector":
		c.errorf(n, CodeDetector, "detector is only allowed on kind: detector rules (this rule is kind: %s)", r.Kind)
	case hasDet:
		if s, ok := c.str(n, "detector"); ok {
			if detectorRE.MatchString(s) {
				r.Detector = s
			} else {
				c.errorf(n, CodeDetector, "detector id %q must match ^[a-z][a-z0-9_.-]*$", s)
			}
		}
	case r.Kind == "detector":
		// At the kind that demands the field, not at the document.
		c.errorf(kindNode, CodeDetector, "a kind: detector rule needs a detector: validator id")
	}
	n, hasTr := f["transform"]
	switch {
	case hasTr && r.Effect != "" && r.Effect != "transform":
		c.errorf(n, CodeTransform, "transform is only allowed with effect: transform (this rule has effect: %s)", r.Effect)
	case hasTr:
		c.transform(r, n)
	case r.Effect == "transform":
		// At the effect that demands the block, not at the document.
		c.errorf(effectNode, CodeTransform, "an effect: transform rule needs a transform: {redact: [...]} block")
	}
	if len(l.diags) == before {
		c.schemaCheck(root)
	}
}

func (c *fileCtx) requires(rf *ruleFile, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		c.errorf(n, CodeFieldType, "requires must be a mapping like {profiles: [tool]}, got %s", kindName(n))
		// What it was meant to list is not known: no "does not list"
		// errors for the rule's reads on top of this one.
		rf.badRequires = true
		return
	}
	before := len(*c.diags)
	defer func() { rf.badRequires = len(*c.diags) > before }()
	f := c.fields(n, "requires", requiresFields)
	p, ok := f["profiles"]
	if !ok {
		return
	}
	list, nodes, _ := c.strList(p, "requires.profiles")
	rf.profiles = map[string]*yaml.Node{}
	for i, s := range list {
		if !c.oneOf(nodes[i], s, "profile", CodeValue, catalog.Profiles) {
			continue
		}
		if rf.profiles[s] != nil {
			c.errorf(nodes[i], CodeValue, "profile %s is listed twice", s)
			continue
		}
		rf.profiles[s] = nodes[i]
		rf.rule.Profiles = append(rf.rule.Profiles, s)
	}
}

func (c *fileCtx) selector(r *Rule, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		c.errorf(n, CodeFieldType, "selector must be a mapping from fact names to values, got %s", kindName(n))
		return
	}
	cat := c.l.cat
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			c.errorf(k, CodeSelector, "selector keys must be fact names, got %s", kindName(k))
			continue
		}
		if seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		f := cat.Fact(k.Value)
		if f == nil {
			msg := fmt.Sprintf("selector key %q is not a fact", k.Value)
			if fn := cat.Function(k.Value); fn != nil {
				c.errorf(k, CodeSelector, "%s; %s is a function (call it in when)", msg, fn.CELName)
				continue
			}
			if s := suggestName(c.l.cat, k.Value); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else if s := selectorByPrefix(cat, k.Value); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			c.errorf(k, CodeSelector, "%s%s", msg, notASCII(k.Value))
			continue
		}
		if !f.Type.Selectable() {
			c.errorf(k, CodeSelector, "fact %s has type %s; selectors take facts of type string, int, bool or list(string) (use when instead)", f.CELName, f.Type)
			continue
		}
		cl := SelectorClause{Fact: f.CELName, Type: f.Type, Pos: c.src.pos(k)}
		elem := f.Type
		if elem == catalog.ListString {
			elem = catalog.String
		}
		items := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			if len(v.Content) == 0 {
				c.errorf(v, CodeSelector, "selector %s: an empty list matches nothing; give at least one value", f.CELName)
				continue
			}
			items = v.Content
		}
		ok := true
		for _, it := range items {
			val, good := c.selectorValue(it, f, elem)
			if !good {
				ok = false
				continue
			}
			cl.Values = append(cl.Values, val)
		}
		if ok {
			r.Selector = append(r.Selector, cl)
		}
	}
}

func (c *fileCtx) selectorValue(n *yaml.Node, f *catalog.Fact, t catalog.Type) (any, bool) {
	bad := func() (any, bool) {
		c.errorf(n, CodeSelector, "selector %s: value must be %s (or a list of them), got %s", f.CELName, typeArticle(t), kindName(n))
		return nil, false
	}
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	switch t {
	case catalog.String:
		if n.ShortTag() == "!!str" {
			return n.Value, true
		}
	case catalog.Int:
		if n.ShortTag() == "!!int" {
			var v int64
			if err := n.Decode(&v); err == nil {
				return v, true
			}
			c.errorf(n, CodeSelector, "selector %s: %s is outside the range of CEL's int (64-bit signed)", f.CELName, n.Value)
			return nil, false
		}
	case catalog.Bool:
		if n.ShortTag() == "!!bool" {
			var v bool
			if err := n.Decode(&v); err == nil {
				return v, true
			}
		}
	}
	return bad()
}

func typeArticle(t catalog.Type) string {
	switch t {
	case catalog.String:
		return "a string"
	case catalog.Int:
		return "an integer"
	case catalog.Bool:
		return "a boolean"
	}
	return t.String()
}

// MaxFlowWithin is the largest flow.within: the engine keeps the last 64
// tool names of a session (spec 5.4; runtime.RecentLimit), so a larger
// window would promise calls it cannot see (OAR_FLOW).
const MaxFlowWithin = 64

func (c *fileCtx) flow(rf *ruleFile, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		c.errorf(n, CodeFieldType, "flow must be a mapping with sequence, within and contiguous, got %s", kindName(n))
		return
	}
	rf.flowNode = n
	fl := &Flow{Pos: c.src.pos(n)}
	f := c.fields(n, "flow", flowFields)
	ok := true
	if names := c.l.cat.Host + ".recent_tool_names"; c.l.cat.Fact(names) == nil || c.l.cat.Fact(names).Type != catalog.ListString {
		c.errorf(n, CodeFlow, "flow reads %s, which the catalog does not declare as a list(string) fact", names)
		ok = false
	} else if c.l.cat.Anchor(ir.ToolPreInvoke) == nil {
		// The engine records the session's calls at tool.pre_invoke
		// (spec 5.10): without that anchor the record stays empty and
		// the flow could never hold, a silent allow.
		c.errorf(n, CodeFlow, "flow matches the tool calls the engine records at %s, which the catalog does not have: the flow could never hold", ir.ToolPreInvoke)
		ok = false
	}
	seq, has := f["sequence"]
	switch {
	case !has:
		c.missing(n, "sequence", n, CodeFlow, "flow needs a sequence of steps")
		ok = false
	case seq.Kind != yaml.SequenceNode:
		c.errorf(seq, CodeFlow, "flow.sequence must be a list of steps, got %s", kindName(seq))
		ok = false
	case len(seq.Content) == 0:
		c.errorf(seq, CodeFlow, "flow.sequence is empty; give at least one step")
		ok = false
	default:
		for _, st := range seq.Content {
			switch {
			case st.Kind == yaml.ScalarNode && st.ShortTag() == "!!str":
				fl.Steps = append(fl.Steps, []string{st.Value})
			case st.Kind == yaml.SequenceNode && len(st.Content) > 0:
				var alts []string
				for _, a := range st.Content {
					if a.Kind != yaml.ScalarNode || a.ShortTag() != "!!str" {
						c.errorf(a, CodeFlow, "a flow step lists tool names (strings), got %s", kindName(a))
						ok = false
						continue
					}
					alts = append(alts, a.Value)
				}
				fl.Steps = append(fl.Steps, alts)
			case st.Kind == yaml.SequenceNode:
				c.errorf(st, CodeFlow, "a flow step that is a list must name at least one tool")
				ok = false
			default:
				c.errorf(st, CodeFlow, "a flow step is a tool name or a list of tool names, got %s", kindName(st))
				ok = false
			}
		}
	}
	if w, has := f["within"]; has {
		var v int
		switch {
		case w.Kind != yaml.ScalarNode || w.ShortTag() != "!!int" || w.Decode(&v) != nil || v <= 0:
			c.errorf(w, CodeFlow, "flow.within must be a positive integer, got %s", describe(w))
			ok = false
		case v > MaxFlowWithin:
			c.errorf(w, CodeFlow, "flow.within is %d, but the engine keeps only the last %d tool names; give at most %d", v, MaxFlowWithin, MaxFlowWithin)
			ok = false
		default:
			fl.Within = v
		}
	}
	if cg, has := f["contiguous"]; has {
		if cg.Kind != yaml.ScalarNode || cg.ShortTag() != "!!bool" || cg.Decode(&fl.Contiguous) != nil {
			c.errorf(cg, CodeFlow, "flow.contiguous must be true or false, got %s", describe(cg))
			ok = false
		}
	}
	if ok {
		rf.rule.Flow = fl
	}
}

// describe names a node's kind and, for scalars, its text.
func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s (%s)", kindName(n), n.Value)
	}
	return kindName(n)
}

func (c *fileCtx) copyField(r *Rule, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		c.errorf(n, CodeFieldType, "copy must be a mapping of texts (title, what, cause, why, fix, instead), got %s", kindName(n))
		return
	}
	f := c.fields(n, "copy", copyFields)
	dst := map[string]*string{"title": &r.Copy.Title, "what": &r.Copy.What, "cause": &r.Copy.Cause,
		"why": &r.Copy.Why, "fix": &r.Copy.Fix, "instead": &r.Copy.Instead}
	for _, k := range copyFields {
		if v, ok := f[k]; ok {
			if s, ok := c.str(v, "copy."+k); ok {
				*dst[k] = s
				c.hiddenText(v, s, "copy."+k)
			}
		}
	}
}

// hiddenText warns (OAR_VALUE, an error under -strict) at every character
// of the copy text s (node n) that a reviewer cannot see and that oarc
// replaces with U+FFFD wherever copy reaches an agent (spec 5.1): control
// characters other than tab and line breaks, invisible format characters
// (Unicode Cf: zero-width and bidirectional controls, tag characters,
// soft hyphen, BOM), the other default-ignorable characters (Hangul
// fillers, the combining grapheme joiner) and variation selectors, but a
// presentation selector after a visible character (hiddenAfter).
// A pack contributor could otherwise hide instructions in the system
// prompt.
// A run of such characters (tag characters spelling a hidden sentence) is
// one warning, at its first character.
// rawInvisible warns (OAR_VALUE) at the first invisible character
// (hiddenAfter) written raw on each line of a rule file outside its copy,
// whose texts hiddenText warns about: a zero-width space in a when's
// string or a bidirectional override in a selector value or a comment
// makes the rule match, or the file read, other than a reviewer sees (the
// Trojan Source pattern). Written as an escape it is visible, and no
// warning. A byte order mark that starts the file is none either.
func (c *fileCtx) rawInvisible(root *yaml.Node) {
	before := func(a, b Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	var copyFrom, copyTo Pos // [copyFrom, copyTo); copyTo zero: to the end
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "copy" {
			copyFrom = c.src.pos(k)
			if i+2 < len(root.Content) {
				copyTo = c.src.pos(root.Content[i+2])
			}
		}
	}
	for ln, line := range c.src.lines {
		col, prev := 0, rune(-1)
		for off, r := range line {
			col++
			hidden := hiddenAfter(prev, r) && !(ln == 0 && off == 0 && r == '\uFEFF')
			prev = r
			if !hidden {
				continue
			}
			at := Pos{File: c.src.name, Line: ln + 1, Col: col}
			if copyFrom.Line > 0 && !before(at, copyFrom) && (copyTo.Line == 0 || before(at, copyTo)) {
				continue
			}
			c.add(Diagnostic{Pos: at, Severity: Warning, Code: CodeValue, Source: line,
				Message: fmt.Sprintf("the invisible character %U is written raw here: a reader of the file does not see it, and what the rule matches is not what it shows; write it as an escape (\\u%04X in a double-quoted string) if it is meant, or remove it", r, r)})
			break
		}
	}
}

func (c *fileCtx) hiddenText(n *yaml.Node, s, field string) {
	start, count := -1, 0
	var first rune
	flush := func() {
		if count == 0 {
			return
		}
		what := fmt.Sprintf("the invisible character %U", first)
		if count > 1 {
			what = fmt.Sprintf("%d invisible characters from %U on", count, first)
		}
		c.add(Diagnostic{Pos: c.src.mapScalar(n).position(start), Severity: Warning, Code: CodeValue,
			Message: fmt.Sprintf("%s holds %s; agents are shown U+FFFD instead (write the text visibly, or remove it)", field, what)})
		count = 0
	}
	prev := rune(-1)
	for i, r := range s {
		hidden := hiddenAfter(prev, r)
		prev = r
		if !hidden {
			flush()
			continue
		}
		if count == 0 {
			start, first = i, r
		}
		count++
	}
	flush()
}

func (c *fileCtx) onFire(rf *ruleFile, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		c.errorf(n, CodeFieldType, "on_fire must be a mapping with increment and reset, got %s", kindName(n))
		return
	}
	f := c.fields(n, "on_fire", onFireFields)
	if v, ok := f["increment"]; ok {
		list, nodes, _ := c.strList(v, "on_fire.increment")
		for i, s := range list {
			if s == "fire" {
				// Every enforced firing already adds one to fire (spec 5.3).
				c.errorf(nodes[i], CodeValue, "on_fire.increment: fire is counted by every enforced firing already; increment names the other counters (breaker)")
				continue
			}
			if c.oneOf(nodes[i], s, "counter", CodeValue, counters) {
				rf.rule.OnFire.Increment = append(rf.rule.OnFire.Increment, s)
			}
		}
	}
	if v, ok := f["reset"]; ok {
		list, nodes, _ := c.strList(v, "on_fire.reset")
		for i, s := range list {
			ref := CounterRef{Rule: s, Counter: "fire"}
			if id, ctr, ok := strings.Cut(s, "."); ok {
				ref = CounterRef{Rule: id, Counter: ctr}
				if !c.oneOf(nodes[i], ctr, "counter", CodeValue, counters) {
					continue
				}
			}
			if !idRE.MatchString(ref.Rule) {
				// Reported here, once: no rule can have the name, and the
				// schema's pattern would say so a second time.
				msg := fmt.Sprintf("on_fire.reset names %q, which is not a rule id (SCREAMING_SNAKE, as ^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$)", ref.Rule)
				if up := strings.ToUpper(ref.Rule); idRE.MatchString(up) {
					msg += fmt.Sprintf(" (did you mean %q?)", up)
				}
				msg += notASCII(ref.Rule)
				c.errorf(nodes[i], CodeRef, "%s", msg)
				continue
			}
			rf.rule.OnFire.Reset = append(rf.rule.OnFire.Reset, ref)
			rf.reset = append(rf.reset, nodes[i])
		}
	}
}

func (c *fileCtx) transform(r *Rule, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		// A wrong YAML type, like flow, on_fire, copy and requires.
		c.errorf(n, CodeFieldType, "transform must be a mapping with redact and replacement, got %s", kindName(n))
		return
	}
	f := c.fields(n, "transform", transformFields)
	t := &Transform{Replacement: defaultReplacement}
	ok := true
	rd, has := f["redact"]
	switch {
	case !has:
		c.missing(n, "redact", n, CodeTransform, "transform needs redact: a list of span facts (secret_matches, pii_entities)")
		ok = false
	case rd.Kind != yaml.SequenceNode || len(rd.Content) == 0:
		c.errorf(rd, CodeTransform, "transform.redact must be a non-empty list of span facts, got %s", kindName(rd))
		ok = false
	default:
		for _, e := range rd.Content {
			var fact *catalog.Fact
			if e.Kind == yaml.ScalarNode && e.ShortTag() == "!!str" {
				fact = c.l.cat.Fact(e.Value)
			}
			if fact == nil || !fact.Span() {
				c.errorf(e, CodeTransform, "transform.redact entry %s is not a span fact (a list(map(string, dyn)) fact such as %s)", describe(e), strings.Join(spanFacts(c.l.cat), " or "))
				ok = false
				continue
			}
			t.Redact = append(t.Redact, fact.CELName)
		}
	}
	if v, has := f["replacement"]; has {
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
			c.errorf(v, CodeTransform, "transform.replacement must be a string, got %s", kindName(v))
			ok = false
		} else {
			t.Replacement = v.Value
		}
	}
	if ok {
		r.Transform = t
	}
}

// spanFacts are the catalog facts a transform may redact.
func spanFacts(cat *catalog.Catalog) []string {
	var out []string
	for _, f := range cat.Facts {
		if f.Span() {
			out = append(out, f.CELName)
		}
	}
	return out
}

// checkRefs checks on_fire.reset against the ids of the pack.
func (l *packLoader) checkRefs(rf *ruleFile) {
	c := newFileCtx(l, rf.src)
	for i, ref := range rf.rule.OnFire.Reset {
		if !l.ruleIDs[ref.Rule] {
			msg := fmt.Sprintf("on_fire.reset names %s, which is not a rule of the pack", ref.Rule)
			if s := closest(ref.Rule, sortedKeys(l.ruleIDs)); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			c.errorf(rf.reset[i], CodeRef, "%s", msg)
			continue
		}
		// A project cannot disarm the device's breakers (spec 5.3).
		if target := l.ruleOf(ref.Rule); target != nil && target.Pack != nil && rf.rule.Pack != nil &&
			rf.rule.Pack.Origin == "project" && target.Pack.Origin == "stock" {
			c.errorf(rf.reset[i], CodeRef, "on_fire.reset names %s, a rule of the stock pack %s; a rule of a project pack may not reset a stock rule", ref.Rule, target.Pack.Name)
		}
	}
}

// ruleOf returns the rule of the set with the given id.
func (l *packLoader) ruleOf(id string) *Rule {
	if x := l.extern[id]; x != nil {
		return x
	}
	if i, ok := l.slots[id]; ok {
		return l.set.Rules[i]
	}
	return nil
}

// checkReads checks `when` with CEL and then the profiles the rule reads
// in selector, flow and when against requires.profiles; the diagnostics
// from before on are the rule's pack checks (its references among them).
func (l *packLoader) checkReads(rf *ruleFile, before int) {
	r := rf.rule
	c := newFileCtx(l, rf.src)
	cat := l.cat
	var reads []read
	for _, cl := range r.Selector {
		f := cat.Fact(cl.Fact)
		reads = append(reads, read{name: f.CELName, profile: f.Profile, host: nonPortable(f.Tier), tier: f.Tier, pos: cl.Pos, off: -1})
		if l.opts.Portable && nonPortable(f.Tier) {
			l.errorf(cl.Pos, CodeUnknownFact, "%s fact '%s' is not portable (-portable forbids host and oarc facts and functions)", f.Tier, f.CELName)
		}
	}
	if r.Flow != nil {
		// A flow reads the host fact lycaon.recent_tool_names.
		if l.opts.Portable {
			c.errorf(rf.flowNode, CodeUnknownFact, "flow reads the host fact '%s.recent_tool_names', which is not portable (-portable forbids host and oarc facts and functions)", l.cat.Host)
		}
	}
	if rf.when != nil {
		// A when above the length limit is rejected at its start: mapping
		// or parsing it would only cost time.
		m := &scalarMap{start: rf.src.pos(rf.when)}
		if len(r.When) <= maxWhenLen {
			m = rf.src.mapScalar(rf.when)
		}
		w := &whenSource{text: r.When, m: m, src: rf.src, diags: &l.diags}
		reads = append(reads, l.checkWhen(r, w)...)
	}
	// Transform spans are read too (they count against the unused-profile
	// warning but, the spec listing only selector, flow and when, do not
	// demand the profile).
	used := map[string]bool{}
	if r.Transform != nil {
		for _, name := range r.Transform.Redact {
			used[cat.Fact(name).Profile] = true
		}
	}
	// Errors of the rule's references and of its when (not the missing
	// profiles below, which say what the unused ones are for).
	otherErrs := slices.ContainsFunc(l.diags[before:], isError)
	missing := map[string]bool{}
	for _, rd := range reads {
		if rd.profile == "" {
			continue
		}
		used[rd.profile] = true
		if rf.profiles[rd.profile] != nil || missing[rd.profile] || rf.badRequires {
			continue
		}
		missing[rd.profile] = true
		what := "fact"
		if rd.fn {
			what = "function"
		}
		d := Diagnostic{Pos: rd.pos, Code: CodeRequires,
			Message: fmt.Sprintf("reads the %s %s of profile %s, but requires.profiles does not list %s", what, rd.name, rd.profile, rd.profile)}
		if rd.off >= 0 {
			d.Source = rf.src.line(rd.pos.Line)
		}
		l.diags = append(l.diags, d)
	}
	if cat.Anchor(ir.ToolPreInvoke) == nil {
		// The engine keeps these facts from the calls it records at
		// tool.pre_invoke (spec 5.10); a catalog without that anchor
		// leaves them at their zero value for ever.
		warned := map[string]bool{}
		for _, rd := range reads {
			f := cat.Fact(rd.name)
			times := rd.fn && (rd.name == "calls_within" || rd.name == "tool_calls_within")
			if !times && (rd.fn || f == nil || f.Kept == catalog.NotKept || f.Kept == catalog.KeptFingerprint) || warned[rd.name] {
				continue
			}
			warned[rd.name] = true
			what := "it always reads as its zero value"
			if times {
				what = "it always counts 0"
			}
			d := Diagnostic{Pos: rd.pos, Severity: Warning, Code: CodeRef,
				Message: fmt.Sprintf("%s is kept from the tool calls the engine records at %s, which the catalog does not have: %s", rd.name, ir.ToolPreInvoke, what)}
			if rd.off >= 0 {
				d.Source = rf.src.line(rd.pos.Line)
			}
			l.diags = append(l.diags, d)
		}
	}
	for _, p := range catalog.Profiles {
		if used[p] {
			r.ReadsProfiles = append(r.ReadsProfiles, p)
		}
	}
	for _, p := range r.Profiles {
		// A when that failed to check tells nothing about what it reads.
		// Nor does a rule with other errors.
		if !used[p] && rf.errs == 0 && !otherErrs && (rf.when == nil || r.WhenAST != nil) {
			c.warnf(rf.profiles[p], CodeRequires, "profile %s is required but the rule reads none of its facts or functions", p)
		}
	}
}

func isError(d Diagnostic) bool { return d.Severity == Error }

// selectorByPrefix is the one selectable fact whose name begins with key
// and a "_" (mcp_tool: mcp_tool_name), too far by edit distance for
// suggestName; "" when none or several do.
func selectorByPrefix(cat *catalog.Catalog, key string) string {
	found := ""
	for _, f := range cat.Facts {
		if !strings.HasPrefix(f.CELName, key+"_") || !f.Type.Selectable() || f.Tier == catalog.Oarc && f.Profile == "provenance" {
			continue
		}
		if found != "" {
			return ""
		}
		found = f.CELName
	}
	return found
}

// notASCII explains a name refused for a character that is not ASCII:
// "; it holds U+0412 ..." for the first one, "" when s is ASCII. OAR's
// names (ids, anchors, facts, keywords) are ASCII, and a letter of
// another script that looks like an ASCII one (Cyrillic В, о, с) makes a
// message that shows the name as it looks say nothing: `id "A_В" is not
// SCREAMING_SNAKE_CASE`.
func notASCII(s string) string {
	for _, r := range s {
		if r >= utf8.RuneSelf {
			return fmt.Sprintf("; it holds %U, which is not ASCII (a letter of another script that looks like an ASCII one?)", r)
		}
	}
	return ""
}
