// This file owns adding a rule (spec 12, "Adding"): the check in the
// compilation set the host runs, sanitising, dedup by meaning, the cap.

package rulestore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/runtime"
)

// Draft is a rule an agent proposes.
type Draft struct {
	// Rule is the OAR rule document as a JSON object (as a fixture's
	// `rule`): oar, id, kind, anchor, effect, and the rest as in a rule
	// file.
	Rule json.RawMessage
	// Rationale says why the rule is needed; Source what motivated it (a
	// notice id, the failing call); Tags are extra retrieval tokens.
	Rationale string
	Source    string
	Tags      []string
}

// Added is the outcome of an Add that did not fail.
type Added struct {
	// Record is the rule's record: the new one, or, when Existing, the
	// live rule the draft is equivalent to.
	Record   Record
	Existing bool
	// Warnings are the check's warnings (the rule was added all the
	// same).
	Warnings []Diagnostic
}

// RejectedError is the error of a draft that does not check: every
// diagnostic, placed in its `when` or its fields.
type RejectedError struct {
	ID          string
	Diagnostics []Diagnostic
}

func (e *RejectedError) Error() string {
	var b strings.Builder
	n := 0
	for _, d := range e.Diagnostics {
		if d.Severity == "error" {
			n++
		}
	}
	id := e.ID
	if id == "" {
		id = "the rule"
	}
	fmt.Fprintf(&b, "%s was not added: %d error(s); correct them and add it again:", id, n)
	for _, d := range e.Diagnostics {
		b.WriteString("\n")
		b.WriteString(d.String())
	}
	return b.String()
}

// CapError is the error of an Add at the cap: nothing is ever evicted,
// the agent retires a rule first. Live is how many live rules the store
// holds: the cap, or more when its file was written under a higher cap or
// by hand (nothing is evicted to meet it).
type CapError struct{ Cap, Live int }

func (e *CapError) Error() string {
	live := max(e.Live, e.Cap)
	if n := live - e.Cap + 1; n > 1 {
		return fmt.Sprintf("the store holds %d live rules (candidates and active), its cap is %d: retire %d first (rules that no longer help, or that a broader rule covers) with a reason, then add this one again; nothing is evicted", live, e.Cap, n)
	}
	return fmt.Sprintf("the store holds %d live rules (candidates and active), its cap is %d: retire one first (a rule that no longer helps, or one a broader rule covers) with a reason, then add this one again; nothing is evicted", live, e.Cap)
}

// Add checks a draft and adds it as a candidate: in force at once, in
// monitor, on trial. A draft equivalent to a live rule (same anchor,
// effect, selector, flow and detector, and a `when` equal once parsed
// and printed by cel-go's unparser) returns the live rule instead. A
// draft that does not check returns a *RejectedError; at the cap, a
// *CapError.
func (s *Store) Add(d Draft) (Added, error) {
	doc, err := decodeDoc(d.Rule)
	if err != nil {
		return Added{}, &RejectedError{Diagnostics: []Diagnostic{{Severity: "error", Code: compiler.CodeYAML, Message: "the rule must be one JSON object: " + err.Error()}}}
	}
	if !validUTF8(doc) {
		return Added{}, &RejectedError{Diagnostics: []Diagnostic{{Severity: "error", Code: compiler.CodeYAML, Message: "the rule holds text that is not UTF-8"}}}
	}
	sanitizeCopy(doc)
	var canon bytes.Buffer
	encodeDoc(&canon, doc)
	rec := Record{
		Status:    Candidate,
		Rule:      json.RawMessage(canon.Bytes()),
		Rationale: Sanitize(d.Rationale),
		Source:    Sanitize(d.Source),
	}
	for _, t := range d.Tags {
		if t = Sanitize(t); t != "" && !slices.Contains(rec.Tags, t) {
			rec.Tags = append(rec.Tags, t)
		}
	}
	if id := member(doc, "id"); id != nil {
		rec.ID = id.Value
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.writeLock()
	if err != nil {
		return Added{}, err
	}
	defer unlock()
	r, _, diags := s.check("", doc)
	if sd := append(hiddenDiags(doc), sizeDiags(doc, rec.Tags)...); len(sd) > 0 {
		r, diags = nil, append(diags, sd...)
	}
	if hasErrors(diags) {
		// The draft may be a live rule of the store given again, under
		// its own id (an agent that adds what it added before): checked
		// as that rule, it is equivalent to a live one, which it returns
		// instead of a rejection for its id (spec 12, dedup).
		if e := s.entries[rec.ID]; e != nil && e.rec.Status.Live() && !s.compiled[rec.ID] {
			if r2, _, d2 := s.check(rec.ID, doc); !hasErrors(d2) {
				if live, ok := s.equivalentLocked(meaningKey(s.set.Env, r2)); ok {
					return Added{Record: s.recordView(live), Existing: true, Warnings: d2}, nil
				}
			}
		}
		return Added{}, &RejectedError{ID: rec.ID, Diagnostics: diags}
	}
	if live, ok := s.equivalentLocked(meaningKey(s.set.Env, r)); ok {
		return Added{Record: s.recordView(live), Existing: true, Warnings: diags}, nil
	}
	if n := s.liveCount(); n >= s.opts.Cap {
		return Added{}, &CapError{Cap: s.opts.Cap, Live: n}
	}
	rec.CreatedAt = s.now()
	rec.Trial = &Trial{Threshold: s.opts.Sessions, Verdict: VerdictPending}
	if b, _ := json.Marshal(rec); len(b) > MaxRecord {
		return Added{}, &RejectedError{ID: rec.ID, Diagnostics: []Diagnostic{{Severity: "error", Code: compiler.CodeValue,
			Message: fmt.Sprintf("the rule and its rationale, source and tags take %d bytes; a rule of the store takes at most %d: shorten them", len(b), MaxRecord)}}}
	}
	if err := s.appendSynced(rec); err != nil {
		return Added{}, err
	}
	s.rebuildLocked()
	return Added{Record: rec, Warnings: diags}, nil
}

// The most an agent may write where it reaches every prompt: a store's
// candidates always render in the context (spec 10, 12), and a record may
// take half a store line, so that without them an agent could fill every
// later session's context with its text, or bury the rules under it.
// Characters are counted once sanitised. (docs/store.md)
const (
	// MaxTitle is the longest copy.title, in characters.
	MaxTitle = 120
	// MaxCopyText is the longest other copy text, in characters.
	MaxCopyText = 500
	// MaxTags is the most tags a rule of the store has; MaxTag the
	// longest, in characters (tags rank it in the context).
	MaxTags = 32
	MaxTag  = 64
	// MaxRecord is the most bytes a rule's record takes when it is added
	// (the rule, rationale, source and tags, as JSON): every step of its
	// trial appends the whole record again, a line per monitored firing
	// or error, so that a larger one would let an agent grow the host's
	// file by as much on every call. Its trial's growth (the sessions it
	// fired in) stays far below a line's limit.
	MaxRecord = 16 << 10
)

// hiddenDiags are the errors of a draft that holds, outside its copy
// (sanitised), a character a reader cannot see (runtime.HiddenRune:
// controls but tab and line breaks, Unicode Cf: zero width,
// bidirectional controls, tag characters): a condition that hides text
// (one that reads as another condition, a sentence in tag characters)
// would reach the person who promotes it and the rule file oarc promote
// writes. A CEL string takes the character as an escape.
func hiddenDiags(doc *yaml.Node) []Diagnostic {
	var out []Diagnostic
	var walk func(n *yaml.Node, path, field string)
	walk = func(n *yaml.Node, path, field string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if path == "" && k == "copy" {
					continue
				}
				p, f := k, field
				if path != "" {
					p = path + "." + k
				} else {
					f = k
				}
				walk(n.Content[i], p, f)
				walk(n.Content[i+1], p, f)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, path, field)
			}
		case yaml.ScalarNode:
			for _, r := range n.Value {
				if runtime.HiddenRune(r) {
					out = append(out, Diagnostic{Field: field, Severity: "error", Code: compiler.CodeValue,
						Message: fmt.Sprintf("%s holds the invisible character %U; write the rule visibly (in a CEL string, as the escape %s)", path, r, celEscape(r))})
					return
				}
			}
		}
	}
	walk(doc, "", "")
	return out
}

// celEscape is r as a CEL string escape.
func celEscape(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf("\\U%08x", r)
	}
	return fmt.Sprintf("\\u%04x", r)
}

// sizeDiags are the errors of a draft whose copy or tags are above the
// limits.
func sizeDiags(doc *yaml.Node, tags []string) []Diagnostic {
	var out []Diagnostic
	add := func(field, msg string) {
		out = append(out, Diagnostic{Field: field, Severity: "error", Code: compiler.CodeValue, Message: msg})
	}
	if cp := member(doc, "copy"); cp != nil && cp.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(cp.Content); i += 2 {
			name, v := cp.Content[i].Value, cp.Content[i+1]
			if v.Kind != yaml.ScalarNode || !slices.Contains(copyFields, name) {
				continue
			}
			limit := MaxCopyText
			if name == "title" {
				limit = MaxTitle
			}
			if n := utf8.RuneCountInString(v.Value); n > limit {
				add("copy", fmt.Sprintf("copy.%s is %d characters long; a rule of the store takes at most %d there (its copy is shown in every prompt): shorten it", name, n, limit))
			}
		}
	}
	if len(tags) > MaxTags {
		add("", fmt.Sprintf("the rule has %d tags; a rule of the store takes at most %d: keep the words it should be found by", len(tags), MaxTags))
	}
	for _, t := range tags {
		if n := utf8.RuneCountInString(t); n > MaxTag {
			add("", fmt.Sprintf("a tag is %d characters long; a tag takes at most %d: a tag is a word or two", n, MaxTag))
			break
		}
	}
	return out
}

// equivalentLocked returns the live rule whose meaning is key, if any.
// The caller holds s.mu.
func (s *Store) equivalentLocked(key string) (*entry, bool) {
	if key == "" {
		return nil, false
	}
	for _, id := range s.order {
		e := s.entries[id]
		if !e.rec.Status.Live() {
			continue
		}
		k := e.key
		if slot, ok := s.slots[id]; ok {
			// Promoted and compiled: live all the same, the compiled rule
			// in force in its place, and its meaning.
			k = meaningKey(s.set.Env, s.set.Rules[slot])
		}
		if k != "" && k == key {
			return e, true
		}
	}
	return nil, false
}

func hasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == "error" {
			return true
		}
	}
	return false
}

// liveCount is the number of live rules in the store. The caller holds
// s.mu.
func (s *Store) liveCount() int {
	n := 0
	for _, e := range s.entries {
		if e.rec.Status.Live() {
			n++
		}
	}
	return n
}

// check checks a rule document in the compilation set, with the store's
// rules (self, the id of a record being loaded, aside): what oarc check
// would say of it as a rule of a project pack of the set. The caller
// holds s.mu.
func (s *Store) check(self string, doc *yaml.Node) (*compiler.Rule, *ruleText, []Diagnostic) {
	text, err := buildText(doc)
	if err != nil {
		return nil, nil, []Diagnostic{{Severity: "error", Code: compiler.CodeYAML, Message: err.Error()}}
	}
	// Every id of the store is taken, retired ones too (the history of an
	// id is one rule's), and may be named by a counter reference (its
	// counters stay in the sessions). Only their ids and origin matter.
	var others []*compiler.Rule
	for _, oid := range s.order {
		e := s.entries[oid]
		if oid == self || s.compiled[oid] {
			continue
		}
		others = append(others, &compiler.Rule{ID: oid, File: "the rule store, " + string(e.rec.Status), Pack: storePack})
	}
	set, ds := compiler.LoadRuleDocIn(s.set, others, "rule.yaml", text.text, "project", s.opts.Check)
	out := text.place(ds)
	if ds.HasErrors() || len(set.Rules) != 1 {
		if !hasErrors(out) {
			out = append(out, Diagnostic{Severity: "error", Code: compiler.CodeYAML, Message: "the document is not a rule"})
		}
		return nil, text, out
	}
	return set.Rules[0], text, out
}

// storePack is the pack the store's rules count as: a project's.
var storePack = &compiler.Pack{Name: "store", Origin: "project"}

// meaningKey is what a rule means, for dedup: its anchor, effect,
// selector (clauses and values in any order), flow, detector, and `when`
// parsed and printed back by cel-go's unparser (so that layout, comments
// and redundant parentheses do not count).
func meaningKey(env *cel.Env, r *compiler.Rule) string {
	var b strings.Builder
	b.WriteString(strconv.Quote(r.Anchor) + "\x00" + r.Effect)
	clauses := make([]string, 0, len(r.Selector))
	for _, c := range r.Selector {
		vals := make([]string, 0, len(c.Values))
		for _, v := range c.Values {
			vals = append(vals, fmt.Sprintf("%T:%#v", v, v))
		}
		slices.Sort(vals)
		clauses = append(clauses, strconv.Quote(c.Fact)+"="+strings.Join(slices.Compact(vals), ","))
	}
	slices.Sort(clauses)
	b.WriteString("\x00selector:" + strings.Join(clauses, ";"))
	// An absent when is true (spec 2), the same rule as `when: true`.
	src := r.When
	if src == "" {
		src = "true"
	}
	parsed, iss := env.Parse(src)
	if iss != nil && iss.Err() != nil {
		return ""
	}
	when, err := cel.AstToString(parsed)
	if err != nil {
		return ""
	}
	b.WriteString("\x00when:" + when)
	if fl := r.Flow; fl != nil {
		fmt.Fprintf(&b, "\x00flow:%d,%t", fl.Within, fl.Contiguous)
		for _, step := range fl.Steps {
			alts := slices.Clone(step)
			slices.Sort(alts)
			b.WriteString("|" + strings.Join(alts, ","))
		}
	}
	b.WriteString("\x00detector:" + r.Detector)
	return b.String()
}

// copyFields are the copy texts of a rule document.
var copyFields = []string{"title", "what", "cause", "why", "fix", "instead"}

// sanitizeCopy sanitises the copy texts of a rule document in place.
func sanitizeCopy(doc *yaml.Node) {
	cp := member(doc, "copy")
	if cp == nil || cp.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(cp.Content); i += 2 {
		if v := cp.Content[i+1]; v.Kind == yaml.ScalarNode && v.Tag == "!!str" && slices.Contains(copyFields, cp.Content[i].Value) {
			v.Value = Sanitize(v.Value)
		}
	}
}

// Sanitize is what the store keeps of a text an agent wrote (copy,
// rationale, source, tags), so that it cannot hide text from a reader or
// fake structure in the rendered context (spec 5.1, 12):
//
//   - every control character but the tab, every other invisible
//     character (runtime.HiddenAfter: Unicode Cf such as zero width,
//     bidirectional controls, tag characters, soft hyphen, BOM; the Hangul
//     fillers; variation selectors, but a presentation selector directly
//     after a visible character) and every byte of invalid UTF-8 become
//     U+FFFD;
//   - every line break (CR LF, LF, CR, VT, FF, NEL, U+2028, U+2029)
//     becomes a space, runs of white space one space, and the ends are
//     trimmed: the text is one line, so no part of it can start a line of
//     its own (a heading, a rule's list item, a "Code:" line);
//   - markup that would open a block where the text starts a line (a
//     heading "#", a quote ">", a list item "-", "+", "*" or "1." / "1)",
//     a code fence, a table row "|", a thematic break) is escaped with a
//     backslash, which Markdown shows as the character itself.
func Sanitize(s string) string {
	var b strings.Builder
	space := false
	prev := rune(-1) // the rune before, as s has it
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		p := prev
		prev = r
		switch {
		case r == utf8.RuneError && n == 1:
			r = utf8.RuneError
		case r == '\t' || r == ' ' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029 || unicode.IsSpace(r) && !runtime.HiddenRune(r):
			space = true
			continue
		case runtime.HiddenAfter(p, r):
			r = utf8.RuneError
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if startsBlock(out) {
		out = `\` + out
	}
	return out
}

// startsBlock reports whether a line starting with s would open a
// Markdown block other than a paragraph.
func startsBlock(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '#', '>', '|', '`', '~', '=', '_':
		return true
	case '-', '+', '*':
		return len(s) == 1 || s[1] == ' ' || s[1] == '\t' || s[1] == s[0]
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')')
}
