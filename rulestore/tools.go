// This file owns the agent's tools (seed 001's harness_rules_list,
// _search, harness_rule_retire, _status, and adding a rule): tool
// definitions a host registers with its model, and handlers that answer
// with text an agent can act on.

package rulestore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"
)

// Tool is an operation of the store offered to an agent as a tool of its
// model: a name, a description, the JSON Schema of its arguments, and the
// handler.
type Tool struct {
	Name        string
	Description string
	// Schema is the JSON Schema (draft 2020-12) of the arguments: an
	// object.
	Schema json.RawMessage
	// Call runs the tool with the arguments the model gave (a JSON object)
	// and returns the text to give the model back. The agent's mistakes
	// (a rule that does not check, an unknown id, arguments of the wrong
	// shape) are answered in the text, saying what to change; an error is
	// the host's (the store could not be written).
	Call func(ctx context.Context, args json.RawMessage) (string, error)
}

// The names of the tools.
const (
	ToolList   = "rules_list"
	ToolSearch = "rules_search"
	ToolAdd    = "rule_add"
	ToolRetire = "rule_retire"
	ToolStatus = "rule_status"
)

// Tools returns the five tools of the store: list, search, add, retire,
// status. Promotion is not among them: a candidate is promoted by a
// person or by the host, on its trial's evidence.
func (s *Store) Tools() []Tool {
	return []Tool{
		{Name: ToolList, Description: "List the rules you wrote for yourself (the rule store): each rule's id, status (candidate: on trial, not enforced; active: enforced; retired), anchor, effect, title and trial. By default the live ones (candidates and active).",
			Schema: schema(`{"type":"object","additionalProperties":false,"properties":{"status":{"description":"Which rules: live (candidates and active, the default), candidate, active, retired or all.","enum":["live","candidate","active","retired","all"]}}}`),
			Call:   visibleText(s.toolList)},
		{Name: ToolSearch, Description: "Search the live rules of the rule store by relevance to a query (words of a task, a tool, an error code): ranked by the words found in their tags (selector values, id, tags: twice) and their text (copy, rationale).",
			Schema: schema(`{"type":"object","additionalProperties":false,"required":["query"],"properties":{"query":{"type":"string","description":"Words to look for."},"limit":{"type":"integer","minimum":1,"description":"The most rules to return (default 8)."}}}`),
			Call:   visibleText(s.toolSearch)},
		{Name: ToolAdd, Description: "Add a rule for yourself, learned from a failure, so that you do not repeat it: an OAR 1.0 rule (a CEL condition on the facts of an action) that is in force at once as a candidate, monitored: it never blocks you, it shows in your rules as provisional, and it is on trial until it has fired in enough sessions without an error; a person then promotes it (it is enforced) or it is retired. It is checked like a rule of the project: a rule that does not check is not added and you are told what to change. At most " + fmt.Sprint(s.opts.Cap) + " live rules: retire one first when the store is full.",
			Schema: s.addSchema(),
			Call:   visibleText(s.toolAdd)},
		{Name: ToolRetire, Description: "Retire a rule of the rule store (it stops being in force; its id stays taken), with the reason: it no longer helps, a broader rule covers it, it was wrong.",
			Schema: schema(`{"type":"object","additionalProperties":false,"required":["id","reason"],"properties":{"id":{"type":"string","description":"The rule's id."},"reason":{"type":"string","description":"Why it is retired."}}}`),
			Call:   visibleText(s.toolRetire)},
		{Name: ToolStatus, Description: "Show one rule of the rule store: its status, anchor, effect, condition, copy, rationale, trial (sessions evaluated, sessions it fired in, monitored firings, errors, verdict) and whether it is in force.",
			Schema: schema(`{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"string","description":"The rule's id."}}}`),
			Call:   visibleText(s.toolStatus)},
	}
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

// visibleText makes a tool's answer show nothing invisible: it reaches
// the model as a tool result, and a store file not written by Add, or an
// argument echoed back, may hold anything. Every control character but
// the tab and the line breaks, every other invisible character
// (runtime.HiddenAfter) and every byte of invalid UTF-8 becomes U+FFFD
// (spec 5.1). The handlers show the rule itself as JSON with such
// characters escaped (ruleJSON), so that it still reads as the rule.
func visibleText(call func(context.Context, json.RawMessage) (string, error)) func(context.Context, json.RawMessage) (string, error) {
	return func(ctx context.Context, args json.RawMessage) (string, error) {
		out, err := call(ctx, args)
		return visible(out), err
	}
}

// visible is s with its hidden characters and invalid UTF-8 as U+FFFD.
func visible(s string) string {
	if !runtime.HasHidden(s) {
		return s
	}
	var b strings.Builder
	prev := rune(-1)
	for _, r := range s {
		hidden := runtime.HiddenAfter(prev, r)
		prev = r
		if hidden {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// addSchema is rule_add's schema: the rule's fields an agent needs, with
// the catalog's anchors; the check says the rest.
func (s *Store) addSchema() json.RawMessage {
	var anchors []string
	for _, a := range s.set.Catalog.Anchors {
		anchors = append(anchors, a.ID)
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	copyProps := map[string]any{}
	for _, f := range copyFields {
		limit := MaxCopyText
		if f == "title" {
			limit = MaxTitle
		}
		copyProps[f] = map[string]any{"type": "string", "maxLength": limit}
	}
	rule := map[string]any{
		"type":        "object",
		"description": "The OAR 1.0 rule document, as a JSON object (the fields of a rule file).",
		"required":    []string{"oar", "id", "kind", "anchor", "effect"},
		"properties": map[string]any{
			"oar":      map[string]any{"const": "1.0", "description": "The string \"1.0\"."},
			"id":       map[string]any{"type": "string", "pattern": idPattern.String(), "description": "A new SCREAMING_SNAKE id, e.g. FORCE_PUSH_NEEDS_LEASE."},
			"kind":     map[string]any{"enum": []string{"schema", "policy", "invariant", "detector"}, "description": "Usually policy."},
			"anchor":   map[string]any{"enum": anchors, "description": "Where the rule applies, e.g. tool.pre_invoke (before a tool runs)."},
			"effect":   map[string]any{"enum": []string{"block", "warn", "nudge", "ask"}, "description": "What it does once enforced: block the action, warn (a banner on the result), nudge (a note for your next turn), ask a person."},
			"selector": map[string]any{"type": "object", "description": "Fact name -> value or list of values, e.g. {\"tool\": \"bash\"}; clauses AND."},
			"requires": map[string]any{"type": "object", "description": "{\"profiles\": [...]}: the fact profiles the rule reads, e.g. [\"tool\"] for tool and tool_args."},
			"when":     str("The CEL condition, e.g. tool_arg_string(\"command\").contains(\"--force\")."),
			"flow":     map[string]any{"type": "object"},
			"on_error": map[string]any{"enum": []string{"fail_closed", "fail_open"}},
			"on_fire":  map[string]any{"type": "object"},
			"detector": map[string]any{"type": "string"},
			"copy": map[string]any{"type": "object", "additionalProperties": false, "properties": copyProps,
				"description": "What you will be told when it fires: title (also its line in your rules), fix, instead, what, cause, why."},
		},
	}
	v := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"rule", "rationale"},
		"properties": map[string]any{
			"rule":      rule,
			"rationale": str("Why the rule is needed: the failure it prevents."),
			"source":    str("What motivated it: the failing call, an error code, a notice id."),
			"tags":      map[string]any{"type": "array", "maxItems": MaxTags, "items": map[string]any{"type": "string", "maxLength": MaxTag}, "description": "Extra words to find it by."},
		},
	}
	b, _ := json.Marshal(v) // plain maps and strings always marshal
	return b
}

// decodeArgs reads a tool's arguments (v: a pointer to a struct) strictly;
// the error is the text the agent gets. Members are matched by their
// exact names, not case-insensitively as encoding/json matches fields:
// the guard's rules read the same arguments as a map of the members as
// written (tool_args), so a member "ID" read as the argument id would
// run the tool with an argument the rules did not see.
func decodeArgs(tool string, raw json.RawMessage, v any) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	refuse := func(err any) string {
		return fmt.Sprintf("%s: the arguments do not match the tool's schema (%v); call it again with a JSON object of its arguments.", tool, err)
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) == nil {
		t := reflect.TypeOf(v).Elem()
		for _, name := range slices.Sorted(maps.Keys(members)) {
			if !hasField(t, name) {
				return refuse(fmt.Sprintf("json: unknown field %q", name))
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// In the agent's words: the argument and the JSON type it
			// takes, not the handler's Go types.
			got, _, _ := strings.Cut(te.Value, " ")
			if te.Field == "" {
				return fmt.Sprintf("%s: the arguments must be a JSON object, not %s; call it again with a JSON object of its arguments.", tool, jsonKind(got))
			}
			name := strings.TrimPrefix(te.Field, ".")
			want := "another type"
			if f, ok := fieldNamed(reflect.TypeOf(v).Elem(), name); ok {
				want = jsonTypeOf(f.Type)
			}
			return fmt.Sprintf("%s: %q must be %s, not %s; call it again with the arguments the tool's schema gives.", tool, name, want, jsonKind(got))
		}
		return refuse(err)
	}
	return ""
}

// jsonKind names a JSON value's kind as encoding/json's errors give it
// (array, object, string, number, bool) with its article.
func jsonKind(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "":
		return "that"
	}
	return "a " + kind
}

// jsonTypeOf says what JSON value a tool's argument of Go type t takes.
func jsonTypeOf(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[json.RawMessage]():
		return "a JSON value"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "an integer"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "a list of strings"
	case t.Kind() == reflect.Slice:
		return "a list"
	}
	return "a JSON object"
}

// fieldNamed returns the field of the struct type t whose JSON name is
// exactly name.
func fieldNamed(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// hasField reports whether the struct type t has a field whose JSON name
// is exactly name.
func hasField(t reflect.Type, name string) bool {
	_, ok := fieldNamed(t, name)
	return ok
}

func (s *Store) toolList(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Status string `json:"status"`
	}
	if msg := decodeArgs(ToolList, raw, &a); msg != "" {
		return msg, nil
	}
	want := func(st Status) bool {
		switch a.Status {
		case "", "live":
			return st.Live()
		case "all":
			return true
		}
		return string(st) == a.Status
	}
	var b strings.Builder
	for _, in := range s.All() {
		if want(in.Record.Status) {
			b.WriteString(s.line(in))
		}
	}
	if b.Len() == 0 {
		return "The rule store has no such rules.", nil
	}
	return b.String(), nil
}

// line is one rule as list and search show it.
func (s *Store) line(in Info) string {
	r := in.Record
	doc := ruleDoc(r)
	val := func(n string) string {
		if v := member(doc, n); v != nil {
			// One line, whoever wrote the record (one appended by hand
			// may hold a line break, then what reads as another rule).
			return Sanitize(v.Value)
		}
		return ""
	}
	title := ""
	if cp := member(doc, "copy"); cp != nil {
		if t := member(cp, "title"); t != nil {
			title = t.Value
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "- %s (%s", r.ID, r.Status)
	if r.Status == Candidate && r.Trial != nil {
		fmt.Fprintf(&b, ", trial: %d/%d sessions, %s", r.Trial.FiredSessions, s.opts.Sessions, r.Trial.Verdict)
	}
	switch {
	case in.Compiled:
		b.WriteString(", compiled")
	case r.Status.Live() && in.Problem != "" && !in.InForce && !in.Compiled:
		b.WriteString(", does not load: " + fails(in))
	case r.Status.Live() && !in.InForce:
		b.WriteString(", not in force")
	}
	fmt.Fprintf(&b, "): %s %s", val("anchor"), val("effect"))
	if title != "" {
		b.WriteString(": " + Sanitize(title))
	}
	b.WriteString("\n")
	return b.String()
}

// fails says how a rule that does not load is in force.
func fails(in Info) string {
	at := strings.Join(in.FailsAt, ", ")
	switch {
	case len(in.FailsAt) == 0:
		return "is not in force (no anchor it names has a plane to fail at)"
	case in.FailsEverywhere:
		at = fmt.Sprintf("every anchor of the catalog (%d; its document names none of them)", len(in.FailsAt))
	}
	if in.FailsOpen {
		return "fails open at " + at + " (an error, it never fires)"
	}
	return "fails closed at " + at
}

func (s *Store) toolSearch(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if msg := decodeArgs(ToolSearch, raw, &a); msg != "" {
		return msg, nil
	}
	if a.Limit <= 0 {
		a.Limit = 8
	}
	found := s.Search(a.Query)
	if len(found) == 0 {
		return fmt.Sprintf("No live rule matches %q.", a.Query), nil
	}
	var b strings.Builder
	for i, f := range found {
		if i == a.Limit {
			fmt.Fprintf(&b, "(%d more)\n", len(found)-a.Limit)
			break
		}
		in, err := s.Status(f.Record.ID)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "%.2f ", f.Score)
		b.WriteString(strings.TrimPrefix(s.line(in), "- "))
	}
	return b.String(), nil
}

func (s *Store) toolAdd(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		Rule      json.RawMessage `json:"rule"`
		Rationale string          `json:"rationale"`
		Source    string          `json:"source"`
		Tags      []string        `json:"tags"`
	}
	if msg := decodeArgs(ToolAdd, raw, &a); msg != "" {
		return msg, nil
	}
	if len(a.Rule) == 0 {
		return "rule_add: give the rule (an OAR 1.0 rule document as a JSON object) in \"rule\".", nil
	}
	added, err := s.Add(Draft{Rule: a.Rule, Rationale: a.Rationale, Source: a.Source, Tags: a.Tags})
	var rej *RejectedError
	var capErr *CapError
	switch {
	case errors.As(err, &rej):
		return rej.Error() + "\nThe positions are in your `when` (when:LINE:COL) or name the field (rule.FIELD).", nil
	case errors.As(err, &capErr):
		return capErr.Error(), nil
	case err != nil:
		return "", err
	}
	var b strings.Builder
	r := added.Record
	if added.Existing {
		fmt.Fprintf(&b, "An equivalent rule is already live: %s (%s). Nothing was added; rule_status %s shows it.\n", r.ID, r.Status, r.ID)
	} else {
		fmt.Fprintf(&b, "Added %s as a candidate: in force now, in monitor (it does not block you), and listed in your rules as provisional. It is on trial until it fires in %d distinct sessions without an error; then a person can promote it.\n", r.ID, s.opts.Sessions)
	}
	for _, w := range added.Warnings {
		b.WriteString(w.String() + "\n")
	}
	return b.String(), nil
}

func (s *Store) toolRetire(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
	}
	if msg := decodeArgs(ToolRetire, raw, &a); msg != "" {
		return msg, nil
	}
	if strings.TrimSpace(a.Reason) == "" {
		return "rule_retire: give the reason the rule is retired.", nil
	}
	r, err := s.Retire(a.ID, a.Reason)
	switch {
	case errors.Is(err, ErrUnknown):
		return fmt.Sprintf("The rule store has no rule %s; rules_list shows the ids.", a.ID), nil
	case err != nil && strings.Contains(err.Error(), "retired already"):
		return err.Error() + ".", nil
	case err != nil:
		return "", err
	}
	return fmt.Sprintf("Retired %s: %s. It is no longer in force; its id stays taken.", r.ID, r.Reason), nil
}

func (s *Store) toolStatus(_ context.Context, raw json.RawMessage) (string, error) {
	var a struct {
		ID string `json:"id"`
	}
	if msg := decodeArgs(ToolStatus, raw, &a); msg != "" {
		return msg, nil
	}
	in, err := s.Status(a.ID)
	if errors.Is(err, ErrUnknown) {
		return fmt.Sprintf("The rule store has no rule %s; rules_list shows the ids.", a.ID), nil
	}
	if err != nil {
		return "", err
	}
	r := in.Record
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s since %s", r.ID, r.Status, r.CreatedAt.Format("2006-01-02T15:04:05Z"))
	switch {
	case in.Compiled:
		b.WriteString(" (compiled: the compiled rule of this id is in force)")
	case in.InForce && r.Status == Candidate:
		b.WriteString(" (in force, monitored)")
	case in.InForce:
		b.WriteString(" (in force, enforced)")
	case r.Status.Live() && in.Problem != "":
		b.WriteString(" (does not load, so it " + fails(in) + ": " + in.Problem + ")")
	case in.Problem != "":
		b.WriteString(" (not in force: " + in.Problem + ")")
	}
	b.WriteString("\nrule: " + ruleJSON(r) + "\n")
	// Add and Retire stored them sanitised; a record written otherwise
	// is shown as if they had.
	if r.Rationale != "" {
		b.WriteString("rationale: " + Sanitize(r.Rationale) + "\n")
	}
	if r.Source != "" {
		b.WriteString("source: " + Sanitize(r.Source) + "\n")
	}
	if len(r.Tags) > 0 {
		tags := make([]string, len(r.Tags))
		for i, t := range r.Tags {
			tags[i] = Sanitize(t)
		}
		b.WriteString("tags: " + strings.Join(tags, ", ") + "\n")
	}
	if r.Reason != "" {
		b.WriteString("reason: " + Sanitize(r.Reason) + "\n")
	}
	if t := r.Trial; t != nil {
		fmt.Fprintf(&b, "trial: evaluated in %d sessions, fired in %d/%d, %d monitored firings, %d errors: %s\n",
			t.Sessions, t.FiredSessions, s.opts.Sessions, t.Monitored, t.Errors, t.Verdict)
	}
	return b.String(), nil
}
