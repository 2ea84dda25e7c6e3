// This file owns the oracle: [Engine] evaluates a whole compilation set
// on an occurrence by the letter of spec section 5, with a [Session] of
// its own (counters, the record of tool calls, the provenance graph),
// and builds the decision and its texts from the spec, not from the
// runtime's code.

package interp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"cel.dev/cel-go/common/types"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/runtime"
)

// Engine evaluates one compilation set. It is safe for concurrent use
// (a [Session] is not: evaluate one occurrence of a session at a time).
type Engine struct {
	set   *compiler.Set
	rules []*Rule // by index in set.Rules
}

// New prepares a set for evaluation: every rule's `when` is checked
// again and planned (see [Env.Compile]).
func New(set *compiler.Set) (*Engine, error) {
	env, err := NewEnv(set)
	if err != nil {
		return nil, err
	}
	e := &Engine{set: set}
	for _, r := range set.Rules {
		cr, err := env.Compile(r)
		if err != nil {
			return nil, err
		}
		e.rules = append(e.rules, cr)
	}
	return e, nil
}

// Occurrence is one occurrence as the oracle reads it.
type Occurrence struct {
	Anchor string
	// Facts by CEL name, as Go values of their types; an absent fact
	// reads as its zero value.
	Facts    map[string]any
	Profiles runtime.ProfileSet
	Content  string
	// Inputs are the ids of the provenance nodes that feed the action.
	Inputs []string
	// Batch is the tools of the check the occurrence is part of (spec
	// 5.11; nil: evaluated alone).
	Batch []string
	// Kept replaces engine-kept facts for this occurrence's rules, by
	// bare name (a fixture's facts that the engine keeps, spec 5.10).
	Kept map[string]any
	// Time is when the occurrence happened (spec 5.13); zero: the clock's
	// time when it is evaluated.
	Time time.Time
	// Providers answer the provider-backed functions by CEL name; an
	// absent one is no provider. A nil answer is the zero value of the
	// function's result; an error, the provider's failure.
	Providers map[string]func(args []any) (any, error)
	// Validators answer by id; an absent one is not registered. An error
	// that is context.DeadlineExceeded is a timeout.
	Validators map[string]func() (runtime.Detection, error)
}

// RuleError is an evaluation error in a decision (Rule "" for the
// occurrence's own).
type RuleError struct {
	Rule    string
	Kind    runtime.ErrKind
	Message string
}

// Decision is the oracle's decision, in the shape both engines report.
type Decision struct {
	Effect       string // the decision's name: allow, nudge, warn, transform, ask, block
	Code         string
	Codes        []string
	Monitored    []string
	FailedClosed []string
	Errors       []RuleError
	// Content is the rewritten content of a transform, else the
	// occurrence's.
	Content string
	// Rejection, Banner and Notes are the texts of spec 5.1.
	Rejection, Banner, Notes string
	// Question is what a person is asked when the decision is ask (spec
	// 5.12), else "".
	Question string
}

// Session holds counters by rule id ([fire, breaker]), the provenance
// graph and the record of tool calls, written independently of the
// runtime's.
type Session struct {
	c          map[string][2]int64
	nodes      map[string]runtime.Node
	incomplete bool
	calls      []call   // every tool.pre_invoke occurrence, oldest first
	order      []string // node ids in recording order
	tenant     string
}

// NewSession returns an empty session.
func NewSession() *Session {
	return &Session{c: map[string][2]int64{}, nodes: map[string]runtime.Node{}}
}

// SetCounters sets a rule's counters.
func (s *Session) SetCounters(rule string, fire, breaker int64) { s.c[rule] = [2]int64{fire, breaker} }

// AddCall records a tool.pre_invoke occurrence as if it had happened (a
// fixture's history, spec 5.10): its tool, arguments (nil: none) and
// blocking code ("" when it was not blocked).
func (s *Session) AddCall(tool string, args map[string]any, code string) {
	s.AddCallAt(tool, args, code, time.Time{})
}

// AddCallAt is AddCall with the call's time (spec 5.13).
func (s *Session) AddCallAt(tool string, args map[string]any, code string, at time.Time) {
	c := call{tool: tool, code: code}
	if !at.IsZero() {
		c.at = runtime.CallTime(runtime.UnixNanos(at))
	}
	var a any
	if args != nil {
		a = args
	}
	c.fp, c.valid = fingerprint(a)
	s.calls = append(s.calls, c)
}

// RecordNode records a provenance node (the oracle does not check it).
func (s *Session) RecordNode(n runtime.Node) {
	if _, ok := s.nodes[n.ID]; !ok {
		s.order = append(s.order, n.ID)
	}
	s.nodes[n.ID] = n
}

// SetTenant sets the session's tenant (the fact tenant, spec 5.11).
func (s *Session) SetTenant(t string) { s.tenant = t }

// MarkIncomplete marks the session's provenance incomplete.
func (s *Session) MarkIncomplete() { s.incomplete = true }

// occInput is the oracle's [Input]: the occurrence and its session as
// they were when it began.
type occInput struct {
	e    *Engine
	occ  *Occurrence
	snap map[string][2]int64
	act  map[string]any // every fact of the catalog but the core ones
	kept *kept
	dets map[string]*detection
	// now is the occurrence's time and calls the session's calls before
	// it, for the time functions (spec 5.13).
	now   time.Time
	calls []call
}

// detection is a validator's answer, consulted once per occurrence.
type detection struct {
	d   runtime.Detection
	err *Error
}

func (in *occInput) Anchor() string               { return in.occ.Anchor }
func (in *occInput) Profiles() runtime.ProfileSet { return in.occ.Profiles }

func (in *occInput) Fact(r *compiler.Rule, name string) (any, *Error) {
	if r != nil && name == in.e.set.Catalog.Host+".code_reject_total" {
		// Per rule (spec 5.10).
		in.kept.setRule(in.e.set.Catalog, in.occ, r.ID, in.act)
	}
	v := in.act[name]
	if e := errOf(v); e != nil {
		return nil, e
	}
	return v, nil
}

func (in *occInput) Counter(rule string, c runtime.Counter) (int64, *Error) {
	return in.snap[rule][c], nil
}

func (in *occInput) Provide(fn string, args []any) (any, *Error) {
	if v, e, ok := in.timeFunction(fn, args); ok {
		return v, e
	}
	p, ok := in.occ.Providers[fn]
	if !ok || p == nil {
		return nil, NoProvider(fn)
	}
	v, err := p(args)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, &Error{runtime.ErrTimeout, runtime.Err{Kind: runtime.ErrTimeout, S: "provider " + fn}.Error()}
	case err != nil:
		return nil, &Error{runtime.ErrProvider, runtime.Err{Kind: runtime.ErrProvider, S: fn}.Error()}
	}
	return v, nil
}

func (in *occInput) Detect(id string) (*runtime.Detection, *Error) {
	d := in.dets[id]
	if d == nil {
		d = &detection{}
		v, ok := in.occ.Validators[id]
		switch {
		case !ok || v == nil:
			d.err = &Error{runtime.ErrNotRegistered, "validator " + id + " is not registered"}
		default:
			var err error
			d.d, err = v()
			d.d.Facts.Has = d.d.Facts.Supplied()
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				d.err = &Error{runtime.ErrTimeout, "validator " + id + " did not answer before the deadline"}
			case err != nil:
				d.err = &Error{runtime.ErrDetector, "validator " + id + " failed"}
			}
		}
		in.dets[id] = d
	}
	if d.err != nil {
		return nil, d.err
	}
	return &d.d, nil
}

// Evaluate evaluates one occurrence in session s (nil: a fresh one) and
// returns the decision.
func (e *Engine) Evaluate(occ *Occurrence, s *Session) Decision {
	if s == nil {
		s = NewSession()
	}
	d, update := e.evaluate(occ, s)
	update()
	return d
}

// EvaluateCheck evaluates occs as one check (spec 5.11): every action
// reads s as it was before the check, with batch_tools the tools of
// every action in order (unless its Batch says otherwise); then the
// updates of the actions are applied to s in index order. Occurrences at
// different anchors are not a check: every decision then blocks with an
// error of kind invalid_argument, and s is left as it was.
func (e *Engine) EvaluateCheck(occs []*Occurrence, s *Session) []Decision {
	if s == nil {
		s = NewSession()
	}
	out := make([]Decision, len(occs))
	for i, occ := range occs {
		if occ.Anchor != occs[0].Anchor {
			for j := range out {
				out[j] = Decision{Effect: "block", Codes: []string{}, Monitored: []string{}, FailedClosed: []string{},
					Errors: []RuleError{{Kind: runtime.ErrInvalidArgument, Message: fmt.Sprintf("a check at several anchors: occurrence 0 is at %s, occurrence %d at %s", occs[0].Anchor, i, occ.Anchor)}}}
			}
			return out
		}
	}
	batch := make([]string, len(occs))
	for i, occ := range occs {
		batch[i], _ = occ.Facts["tool"].(string)
	}
	updates := make([]func(), len(occs))
	for i, occ := range occs {
		o := *occ
		if o.Batch == nil {
			o.Batch = batch
		}
		out[i], updates[i] = e.evaluate(&o, s)
	}
	for _, u := range updates {
		u()
	}
	return out
}

// evaluate evaluates one occurrence against s, which it does not change:
// it returns the decision and the function that applies the occurrence's
// updates to s (spec 5.3, 5.10).
func (e *Engine) evaluate(occ *Occurrence, s *Session) (Decision, func()) {
	// The counters as they were when the occurrence began.
	snap := map[string][2]int64{}
	for k, v := range s.c {
		snap[k] = v
	}
	now := occ.Time
	if now.IsZero() {
		now = time.Now()
	}
	in := &occInput{e: e, occ: occ, snap: snap, act: map[string]any{}, dets: map[string]*detection{}, now: now, calls: s.calls}
	prov := s.scope(occ.Inputs)
	for _, f := range e.set.Catalog.Facts {
		switch {
		case f.Tier == catalog.Core:
		case f.CELName == "tenant" && f.Tier == catalog.Oarc:
			in.act[f.CELName] = s.tenant
		case f.CELName == "content" && f.Tier == catalog.Oarc:
			in.act[f.CELName] = occ.Content
		case f.CELName == "batch_tools" && f.Tier == catalog.Oarc:
			if occ.Batch != nil {
				in.act[f.CELName] = occ.Batch
			} else {
				tool, _ := occ.Facts["tool"].(string)
				in.act[f.CELName] = []string{tool}
			}
		case f.Tier == catalog.Oarc:
			in.act[f.CELName] = prov[f.CELName]
		default:
			if v, ok := occ.Facts[f.CELName]; ok {
				in.act[f.CELName] = v
			} else {
				in.act[f.CELName] = ZeroFact(f.Type)
			}
		}
	}
	kp := newKept(e.set.Catalog.Host, occ, s.calls)
	kp.set(e.set.Catalog, occ, s.calls, in.act)
	in.kept = kp

	resp := Decision{Codes: []string{}, Monitored: []string{}, FailedClosed: []string{}, Errors: []RuleError{}, Content: occ.Content}
	var fired []*compiler.Rule
	failedClosed := map[string]bool{}
	var spans []span
	blocked := false
	for i, r := range e.set.Rules {
		if r.Anchor != occ.Anchor {
			continue
		}
		ok, det, rerr := e.rules[i].Eval(in)
		if rerr != nil {
			resp.Errors = append(resp.Errors, RuleError{Rule: r.ID, Kind: rerr.Kind, Message: rerr.Msg})
			// A panic fails closed whatever on_error says (spec 6).
			ok = r.OnError != "fail_open" || rerr.Kind == runtime.ErrPanic
		}
		if !ok {
			continue
		}
		if rerr != nil {
			resp.FailedClosed = append(resp.FailedClosed, r.ID)
			failedClosed[r.ID] = true
		}
		if r.Enforcement == "monitor" {
			resp.Monitored = append(resp.Monitored, r.ID)
			continue
		}
		resp.Codes = append(resp.Codes, r.ID)
		fired = append(fired, r)
		if r.Effect == "transform" && r.Transform != nil {
			spans = append(spans, e.ruleSpans(len(fired)-1, r, occ, det, rerr != nil)...)
		}
		if r.Effect == "block" {
			blocked = true
			break
		}
	}
	// Deny by default (spec 5.8): blocked when no enforced allow fired
	// (one that failed closed does not count) and nothing blocked.
	denied := ""
	if d := e.denyFor(occ.Anchor); d != nil && !blocked {
		allowed := false
		for _, r := range fired {
			if r.Effect == "allow" && !failedClosed[r.ID] {
				allowed = true
			}
		}
		if !allowed {
			if d.Monitor {
				resp.Monitored = append(resp.Monitored, d.Code)
			} else {
				resp.Codes = append(resp.Codes, d.Code)
				denied = d.Code
			}
		}
	}
	decision := "allow"
	has := func(eff string) bool {
		for _, r := range fired {
			if r.Effect == eff {
				return true
			}
		}
		return false
	}
	switch {
	case blocked || denied != "":
		decision = "block"
	case has("ask"):
		// Spec 5.12: a person approves before anything that goes ahead.
		decision = "ask"
	case has("transform"):
		decision = "transform"
	case has("warn"):
		decision = "warn"
	case has("nudge"):
		decision = "nudge"
	}
	resp.Effect = decision
	resp.Code = denied
	for _, r := range fired {
		if denied == "" && r.Effect == decision {
			resp.Code = r.ID
			break
		}
	}
	if decision == "transform" || decision == "ask" {
		// An approved ask goes ahead with the content the transforms
		// rewrote (spec 5.6): an ask restricts, it grants nothing.
		resp.Content = rewrite(occ.Content, spans)
	}
	resp.Rejection = e.rejection(&resp)
	if decision == "ask" {
		resp.Question = "This action needs a person's approval before it runs.\n" + resp.Rejection
	}
	resp.Banner = e.parts(&resp, fired, "warn")
	resp.Notes = e.parts(&resp, fired, "nudge")
	return resp, func() { s.update(kp, &resp, fired, now) }
}

// update applies an occurrence's updates to s: its entry in the record of
// tool calls at tool.pre_invoke, then, for each enforced firing in order,
// its fire counter, its increments and its resets; now is the
// occurrence's time, kept with its call.
func (s *Session) update(kp *kept, resp *Decision, fired []*compiler.Rule, now time.Time) {
	if kp.atCall {
		c := kp.cur
		c.at = runtime.CallTime(runtime.UnixNanos(now))
		if resp.Effect == "block" {
			c.code = resp.Code
		}
		s.calls = append(s.calls, c)
	}
	for _, r := range fired {
		c := s.c[r.ID]
		c[0]++
		for _, inc := range r.OnFire.Increment {
			if inc == "breaker" {
				c[1]++
			} else {
				c[0]++
			}
		}
		s.c[r.ID] = c
		for _, ref := range r.OnFire.Reset {
			c := s.c[ref.Rule]
			if ref.Counter == "breaker" {
				c[1] = 0
			} else {
				c[0] = 0
			}
			s.c[ref.Rule] = c
		}
	}
}

// rejection is the text shown to the agent for the decision (spec 5.1, as
// docs/choices-runtime.md lays it out), written from the spec rather than
// shared with the runtime: the deciding rule's copy, one line per text
// ("Label: text", the title unlabelled unless it reads as a code line),
// then "Code: <ID>"; preceded, when the rule fired only by failing closed,
// by a line saying it could not be evaluated and why.
func (e *Engine) rejection(resp *Decision) string {
	if resp.Code == "" {
		return ""
	}
	var cp compiler.Copy
	found, deny := false, false
	// The enforced allow rules: a monitored one allows nothing, even when
	// it holds (spec 5.1, 5.8), so its failure is not why an action is
	// off the allowlist.
	allow := map[string]bool{}
	for _, r := range e.set.Rules {
		allow[r.ID] = r.Effect == "allow" && r.Enforcement != "monitor"
		if r.ID == resp.Code {
			cp, found = r.Copy, true
		}
	}
	for _, pk := range e.set.Packs {
		if d := pk.DenyByDefault; d != nil && d.Code == resp.Code {
			cp, found, deny = d.Copy, true, true
		}
	}
	if !found {
		return ""
	}
	var lines []string
	if strings.TrimSpace(cp.Title) != "" {
		lines = append(lines, titleLine(cp.Title))
	}
	for _, f := range []struct{ label, text string }{{"What", cp.What}, {"Cause", cp.Cause}, {"Why", cp.Why}, {"Fix", cp.Fix}, {"Instead", cp.Instead}} {
		if strings.TrimSpace(f.text) != "" {
			lines = append(lines, f.label+": "+flat(f.text))
		}
	}
	lines = append(lines, "Code: "+resp.Code)
	text := strings.Join(lines, "\n")
	for _, id := range resp.FailedClosed {
		if id != resp.Code {
			continue
		}
		reason := ""
		for _, er := range resp.Errors {
			if er.Rule == id {
				reason = " (" + flat(er.Message) + ")"
				break
			}
		}
		return "This rule could not be evaluated" + reason + "; it applies because it fails closed.\n" + text
	}
	if deny {
		// Spec 5.8: an allow rule that failed allows nothing; the
		// rejection of the allowlist says which and why.
		var lines []string
		for _, er := range resp.Errors {
			if allow[er.Rule] {
				lines = append(lines, "The allow rule "+er.Rule+" could not be evaluated ("+flat(er.Message)+"), so it did not allow this action.")
			}
		}
		if len(lines) > 0 {
			return strings.Join(lines, "\n") + "\n" + text
		}
	}
	return text
}

// parts is the banner (warn) or the notes (nudge) of the decision (spec
// 5.1): for every enforced firing of that effect, in evaluation order, its
// part (the failed-closed line when it fired only by failing closed, its
// title or else its id, its fix and instead, "Code: <ID>"), parts
// separated by a blank line.
func (e *Engine) parts(resp *Decision, fired []*compiler.Rule, effect string) string {
	var parts []string
	for _, r := range fired {
		if r.Effect != effect {
			continue
		}
		var lines []string
		for _, id := range resp.FailedClosed {
			if id != r.ID {
				continue
			}
			reason := ""
			for _, er := range resp.Errors {
				if er.Rule == id {
					reason = " (" + flat(er.Message) + ")"
					break
				}
			}
			lines = append(lines, "This rule could not be evaluated"+reason+"; it applies because it fails closed.")
		}
		if strings.TrimSpace(r.Copy.Title) == "" {
			lines = append(lines, r.ID)
		} else {
			lines = append(lines, titleLine(r.Copy.Title))
		}
		if strings.TrimSpace(r.Copy.Fix) != "" {
			lines = append(lines, "Fix: "+flat(r.Copy.Fix))
		}
		if strings.TrimSpace(r.Copy.Instead) != "" {
			lines = append(lines, "Instead: "+flat(r.Copy.Instead))
		}
		lines = append(lines, "Code: "+r.ID)
		parts = append(parts, strings.Join(lines, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// flat puts a copy text on one line for the agent: each line break (CR LF
// as one) becomes a space; control characters other than tab, the other
// invisible characters (runtime.HiddenAfter: Unicode Cf, the Hangul
// fillers, variation selectors but a presentation selector after a
// visible character) and bytes of invalid UTF-8 become U+FFFD.
// titleLine is a title on its line, labelled "Title: " when it reads as
// a code line (it starts, after any white space, with "code:" in any
// case), as the runtime writes it: the last line is the only one that
// starts with "Code:".
func titleLine(title string) string {
	t := flat(title)
	if l := strings.TrimLeftFunc(t, unicode.IsSpace); len(l) >= 5 && strings.EqualFold(l[:5], "code:") {
		return "Title: " + t
	}
	return t
}

func flat(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	prev := rune(-1)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case strings.ContainsRune("\n\r\v\f\u0085\u2028\u2029", r):
			b.WriteByte(' ')
		case r == '\t':
			b.WriteRune(r)
		case runtime.HiddenAfter(prev, r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[:n])
		}
		prev = r
		s = s[n:]
	}
	return b.String()
}

// denyFor returns the deny-by-default of the anchor, if a pack lists it.
func (e *Engine) denyFor(anchor string) *compiler.DenyByDefault {
	for _, pk := range e.set.Packs {
		if d := pk.DenyByDefault; d != nil {
			for _, a := range d.Anchors {
				if a == anchor {
					return d
				}
			}
		}
	}
	return nil
}

// scope computes the provenance facts of inputs (spec 5.7) by the letter:
// every node reachable from an input through parents, with a visited set.
// When the scope cannot be known each fact is a CEL error, raised where a
// rule reads it.
func (s *Session) scope(inputs []string) map[string]any {
	facts := []string{"provenance_tools", "provenance_origins", "provenance_trust_tiers", "provenance_labels", "provenance_nodes"}
	out := map[string]any{}
	fail := func(msg string) map[string]any {
		for _, f := range facts {
			out[f] = types.WrapErr(&Error{runtime.ErrProvenance, msg})
		}
		return out
	}
	if s.incomplete {
		return fail("provenance: the session is marked incomplete")
	}
	sets := map[string]map[string]bool{}
	for _, f := range facts {
		sets[f] = map[string]bool{}
	}
	seen := map[string]bool{}
	queue := []string{}
	for _, id := range inputs {
		if _, ok := s.nodes[id]; !ok {
			return fail(fmt.Sprintf("provenance: input %q is not recorded", id))
		}
		queue = append(queue, id)
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		n := s.nodes[id]
		if n.Kind == runtime.ToolResult && n.Tool != "" {
			sets["provenance_tools"][n.Tool] = true
		}
		if n.Origin != "" {
			sets["provenance_origins"][n.Origin] = true
		}
		if n.TrustTier != "" {
			sets["provenance_trust_tiers"][n.TrustTier] = true
		}
		for _, l := range n.Labels {
			sets["provenance_labels"][l] = true
		}
		queue = append(queue, n.Parents...)
	}
	for _, f := range facts[:4] {
		l := []string{}
		for v := range sets[f] {
			l = append(l, v)
		}
		sort.Strings(l)
		out[f] = l
	}
	// provenance_nodes (spec 5.11): the inputs in the order given, once,
	// then the other nodes in scope in recording order.
	nodes := []map[string]any{}
	isInput := map[string]bool{}
	for _, id := range inputs {
		if !isInput[id] {
			isInput[id] = true
			nodes = append(nodes, nodeMap(s.nodes[id], true))
		}
	}
	for _, id := range s.order {
		if seen[id] && !isInput[id] {
			nodes = append(nodes, nodeMap(s.nodes[id], false))
		}
	}
	out["provenance_nodes"] = nodes
	return out
}

// nodeMap is a node as provenance_nodes shows it: tool and args empty for
// a message, labels as recorded.
func nodeMap(n runtime.Node, input bool) map[string]any {
	tool, args := "", map[string]any{}
	if n.Kind == runtime.ToolResult {
		tool = n.Tool
		if n.Args != nil {
			args = n.Args
		}
	}
	labels := append([]string{}, n.Labels...)
	return map[string]any{"id": n.ID, "kind": n.Kind.String(), "tool": tool, "origin": n.Origin,
		"trust_tier": n.TrustTier, "labels": labels, "args": args, "input": input}
}

// span is a region of the content in code points.
type span struct {
	start, end int64
	order      int
	repl       string
}

// ruleSpans returns the spans of a transform rule that fired order-th
// among the enforced firings; det is its validator's answer (nil: none),
// failed says that it fired only because it failed closed. Such a firing
// whose spans are unknown (a detector rule that got no answer from its
// validator, or a span fact of a profile that was not supplied) redacts
// the whole content: failing closed must not let the content through
// unredacted (docs/choices-runtime.md).
func (e *Engine) ruleSpans(order int, r *compiler.Rule, occ *Occurrence, det *runtime.Detection, failed bool) []span {
	if failed {
		unknown := r.Kind == "detector" && det == nil
		for _, name := range r.Transform.Redact {
			if p := e.set.Catalog.Fact(name).Profile; p != "" && !Supplied(occ.Profiles, p) {
				unknown = true
			}
		}
		if unknown {
			return []span{{start: 0, end: int64(utf8.RuneCountInString(occ.Content)), order: order, repl: r.Transform.Replacement}}
		}
	}
	var out []span
	for _, name := range r.Transform.Redact {
		l, _ := occ.Facts[name].([]map[string]any)
		if det != nil {
			switch {
			case name == "secret_matches" && det.Facts.Has&runtime.HasSecretMatches != 0:
				l = det.Facts.SecretMatches
			case name == "pii_entities" && det.Facts.Has&runtime.HasPiiEntities != 0:
				l = det.Facts.PiiEntities
			}
		}
		for _, m := range l {
			s, ok1 := spanBound(m, "start")
			e, ok2 := spanBound(m, "end")
			if !ok1 || !ok2 {
				continue
			}
			out = append(out, span{start: s, end: e, order: order, repl: r.Transform.Replacement})
		}
	}
	return out
}

// rewrite replaces the spans (clipped, merged where they overlap or touch,
// each merged region taking the replacement of its earliest rule) in
// content, counting code points; bytes that are not UTF-8 count one each
// and are kept.
func rewrite(content string, spans []span) string {
	var offs []int // byte offset of each code point
	for i := range content {
		offs = append(offs, i)
	}
	n := int64(len(offs))
	offs = append(offs, len(content))
	var clipped []span
	for _, s := range spans {
		if s.start < 0 {
			s.start = 0
		}
		if s.end > n {
			s.end = n
		}
		if s.end <= s.start {
			continue
		}
		clipped = append(clipped, s)
	}
	sort.SliceStable(clipped, func(i, j int) bool { return clipped[i].start < clipped[j].start })
	var merged []span
	for _, s := range clipped {
		if k := len(merged) - 1; k >= 0 && s.start <= merged[k].end {
			if s.end > merged[k].end {
				merged[k].end = s.end
			}
			if s.order < merged[k].order {
				merged[k].order, merged[k].repl = s.order, s.repl
			}
			continue
		}
		merged = append(merged, s)
	}
	var b strings.Builder
	pos := int64(0)
	for _, s := range merged {
		b.WriteString(content[offs[pos]:offs[s.start]])
		b.WriteString(s.repl)
		pos = s.end
	}
	b.WriteString(content[offs[pos]:])
	return b.String()
}
