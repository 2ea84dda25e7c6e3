// Package reference is the oracle the generated code is compared with: it
// evaluates a loaded [compiler.Set] by the letter of spec section 5, each
// rule's checked `when` run as a cel-go program. It shares nothing with
// package runtime but plain types (nodes, error kinds) and the decision's
// shape, and it is kept simple rather than fast.
package reference

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/wire"
)

// Engine evaluates one compilation set. It is safe for concurrent use, one
// evaluation at a time.
type Engine struct {
	set   *compiler.Set
	progs []cel.Program // by rule index; nil when the rule has no when
	mu    sync.Mutex
	cur   *state // the evaluation the CEL function bindings answer for
}

// state is what the function bindings of the current rule see.
type state struct {
	req  *wire.Request
	snap map[string][2]int64
	act  map[string]any // every catalog fact; core counters set per rule
	kept *kept
	// panicked names the provider that panicked during the current
	// rule's condition, "" if none.
	panicked string
}

// Session holds counters by rule id ([fire, breaker]) and the provenance
// graph, written independently of the runtime's.
type Session struct {
	c          map[string][2]int64
	nodes      map[string]runtime.Node
	incomplete bool
	calls      []call // every tool.pre_invoke occurrence, oldest first
}

// NewSession returns an empty session.
func NewSession() *Session {
	return &Session{c: map[string][2]int64{}, nodes: map[string]runtime.Node{}}
}

// msgNoProvider starts the error a binding raises for a function without
// a provider; it is not one of cel-go's.
const msgNoProvider = "no provider registered for "

// New prepares a set for evaluation: it extends the set's checking
// environment with bindings for the catalog functions, then checks and
// plans every when from its source text.
func New(p *compiler.Set) (*Engine, error) {
	e := &Engine{set: p}
	var opts []cel.EnvOption
	toolArgs := func() map[string]any { m, _ := e.cur.req.Facts["tool_args"].(map[string]any); return m }
	for _, fn := range p.Catalog.Functions {
		fn := fn
		var impl func(args []ref.Val) ref.Val
		str := func(v ref.Val) (string, bool) { s, ok := v.(types.String); return string(s), ok }
		switch fn.CELName {
		case "fire_count_of", "breaker_count_of":
			c := 0
			if fn.CELName == "breaker_count_of" {
				c = 1
			}
			impl = func(args []ref.Val) ref.Val {
				id, _ := str(args[0])
				return types.Int(e.cur.snap[id][c])
			}
		case "tool_arg_string":
			impl = func(args []ref.Val) ref.Val {
				k, _ := str(args[0])
				return toolArgString(toolArgs(), k)
			}
		case "tool_arg_bool":
			impl = func(args []ref.Val) ref.Val {
				k, _ := str(args[0])
				return toolArgBool(toolArgs(), k)
			}
		case "tool_arg_int":
			impl = func(args []ref.Val) ref.Val {
				k, _ := str(args[0])
				return toolArgInt(toolArgs(), k)
			}
		case "url_host", "url_scheme", "url_port", "url_path":
			name := fn.CELName
			impl = func(args []ref.Val) ref.Val {
				s, _ := str(args[0])
				return urlPart(name, s)
			}
		default:
			impl = func(args []ref.Val) ref.Val {
				answers, ok := e.cur.req.Providers[fn.CELName]
				if !ok {
					return types.NewErr("%s%s", msgNoProvider, fn.CELName)
				}
				native := make([]any, len(args))
				for i, a := range args {
					native[i] = a.Value()
					if n, ok := a.(types.Int); ok {
						native[i] = int64(n)
					}
				}
				v := wire.Answer(answers, native)
				if f, ok := v.(wire.ProviderFailure); ok {
					return e.providerFailed(fn.CELName, f)
				}
				if v == nil {
					return zeroOf(fn.Result)
				}
				return HostAdapter.NativeToValue(v)
			}
		}
		params := make([]*cel.Type, len(fn.Params))
		for i, t := range fn.Params {
			params[i] = compiler.CELType(t)
		}
		want := fn.Params
		opts = append(opts, cel.Function(fn.CELName,
			cel.Overload(compiler.OverloadID(fn), params, compiler.CELType(fn.Result),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					for i, a := range args {
						if !fits(a, want[i]) {
							return types.NewErr("no such overload")
						}
					}
					return impl(args)
				}))))
	}
	// Host values are read by the rule of docs/cel-semantics.md, and ==,
	// != and in walk them strictly (host.go).
	opts = append(opts, cel.CustomTypeAdapter(HostAdapter))
	opts = append(opts, StrictOps()...)
	env, err := p.Env.Extend(opts...)
	if err != nil {
		return nil, fmt.Errorf("reference: extending the environment: %v", err)
	}
	for _, r := range p.Rules {
		if r.WhenAST == nil {
			e.progs = append(e.progs, nil)
			continue
		}
		// Check the source again rather than plan the compiler's AST: the
		// oracle must not depend on what the front end did to it.
		checked, iss := CompileStrict(env, r.When)
		if iss != nil && iss.Err() != nil {
			return nil, fmt.Errorf("reference: rule %s: %v", r.ID, iss.Err())
		}
		prg, err := env.Program(checked)
		if err != nil {
			return nil, fmt.Errorf("reference: rule %s: %v", r.ID, err)
		}
		e.progs = append(e.progs, prg)
	}
	return e, nil
}

// fits reports whether a cel-go value has the catalog type of a parameter.
func fits(v ref.Val, t catalog.Type) bool {
	switch t {
	case catalog.String:
		_, ok := v.(types.String)
		return ok
	case catalog.Int:
		_, ok := v.(types.Int)
		return ok
	case catalog.Bool:
		_, ok := v.(types.Bool)
		return ok
	case catalog.Double:
		_, ok := v.(types.Double)
		return ok
	}
	return true
}

func zeroOf(t catalog.Type) ref.Val {
	switch t {
	case catalog.Bool:
		return types.False
	case catalog.String:
		return types.String("")
	case catalog.Int:
		return types.Int(0)
	case catalog.Double:
		return types.Double(0)
	}
	return HostAdapter.NativeToValue(zeroFact(t))
}

// zeroFact is the value of an absent fact of type t.
func zeroFact(t catalog.Type) any {
	switch t {
	case catalog.String:
		return ""
	case catalog.Int:
		return int64(0)
	case catalog.Bool:
		return false
	case catalog.Double:
		return 0.0
	case catalog.ListString:
		return []string{}
	case catalog.MapStringDyn:
		return map[string]any{}
	case catalog.ListMapStringDyn:
		return []map[string]any{}
	}
	return nil
}

// ruleError is an evaluation error of one rule.
type ruleError struct {
	kind runtime.ErrKind
	msg  string
}

// detection is a validator's answer, consulted once per occurrence.
type detection struct {
	d   wire.Detector
	err *ruleError
}

// Evaluate evaluates one occurrence (req.Set and req.Session are ignored;
// s holds the counters and the provenance graph and may be nil) and
// returns the decision.
func (e *Engine) Evaluate(req *wire.Request, s *Session) wire.Response {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s == nil {
		s = NewSession()
	}
	for id, c := range req.Counters {
		s.c[id] = c
	}
	for _, n := range req.Nodes {
		s.nodes[n.ID] = n
	}
	for _, h := range req.History {
		c := call{tool: h.Tool, code: h.Code}
		var args any
		if h.Args != nil {
			args = h.Args
		}
		c.fp, c.valid = fingerprint(args)
		s.calls = append(s.calls, c)
	}
	s.incomplete = s.incomplete || req.Incomplete
	// The counters as they were when the occurrence began.
	snap := map[string][2]int64{}
	for k, v := range s.c {
		snap[k] = v
	}
	st := &state{req: req, snap: snap, act: map[string]any{}}
	prov := s.scope(req.Inputs)
	for _, f := range e.set.Catalog.Facts {
		switch f.Tier {
		case catalog.Oarc:
			st.act[f.CELName] = prov[f.CELName]
		case catalog.Core:
			st.act[f.CELName] = e.factValue(f.CELName, nil, req)
		default:
			if v, ok := req.Facts[f.CELName]; ok {
				st.act[f.CELName] = v
			} else {
				st.act[f.CELName] = zeroFact(f.Type)
			}
		}
	}
	kp := newKept(e.set.Catalog.Host, req, s.calls)
	kp.set(e.set.Catalog, req, s.calls, st.act)
	st.kept = kp
	e.cur = st
	defer func() { e.cur = nil }()

	resp := wire.Response{Codes: []string{}, Monitored: []string{}, FailedClosed: []string{}, Errors: []wire.Error{}, Content: req.Content}
	var fired []*compiler.Rule
	failedClosed := map[string]bool{}
	detections := map[string]*detection{}
	var spans []span
	blocked := false
	for i, r := range e.set.Rules {
		if r.Anchor != req.Anchor {
			continue
		}
		ok, det, rerr := e.rule(i, r, req, detections)
		if rerr != nil {
			resp.Errors = append(resp.Errors, wire.Error{Rule: r.ID, Kind: wire.KindName(rerr.kind), Message: rerr.msg})
			// A panic fails closed whatever on_error says (spec 6).
			ok = r.OnError != "fail_open" || rerr.kind == runtime.ErrPanic
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
			spans = append(spans, ruleSpans(len(fired)-1, r, req, det)...)
		}
		if r.Effect == "block" {
			blocked = true
			break
		}
	}
	// Deny by default (spec 5.8): blocked when no enforced allow fired
	// (one that failed closed does not count) and nothing blocked.
	denied := ""
	if d := e.denyFor(req.Anchor); d != nil && !blocked {
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
	if decision == "transform" {
		resp.Content = rewrite(req.Content, spans)
	}
	resp.Rejection = e.rejection(&resp)
	resp.Banner = e.parts(&resp, fired, "warn")
	resp.Notes = e.parts(&resp, fired, "nudge")
	if kp.atCall {
		c := kp.cur
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
	return resp
}

// rejection is the text shown to the agent for the decision (spec 5.1, as
// docs/choices-runtime.md lays it out), written from the spec rather than
// shared with the runtime: the deciding rule's copy, one line per text
// ("Label: text", the title unlabelled unless it reads as a code line),
// then "Code: <ID>"; preceded, when the rule fired only by failing closed,
// by a line saying it could not be evaluated and why.
func (e *Engine) rejection(resp *wire.Response) string {
	if resp.Code == "" {
		return ""
	}
	var cp compiler.Copy
	found, deny := false, false
	effect := map[string]string{}
	for _, r := range e.set.Rules {
		effect[r.ID] = r.Effect
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
	if cp.Title != "" {
		t := flat(cp.Title)
		if l := strings.ToLower(strings.TrimLeft(t, " \t")); strings.HasPrefix(l, "code:") {
			t = "Title: " + t
		}
		lines = append(lines, t)
	}
	for _, f := range []struct{ label, text string }{{"What", cp.What}, {"Cause", cp.Cause}, {"Why", cp.Why}, {"Fix", cp.Fix}, {"Instead", cp.Instead}} {
		if f.text != "" {
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
			if effect[er.Rule] == "allow" {
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
func (e *Engine) parts(resp *wire.Response, fired []*compiler.Rule, effect string) string {
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
		switch t := flat(r.Copy.Title); {
		case r.Copy.Title == "":
			lines = append(lines, r.ID)
		case strings.HasPrefix(strings.ToLower(strings.TrimLeft(t, " \t")), "code:"):
			lines = append(lines, "Title: "+t)
		default:
			lines = append(lines, t)
		}
		if r.Copy.Fix != "" {
			lines = append(lines, "Fix: "+flat(r.Copy.Fix))
		}
		if r.Copy.Instead != "" {
			lines = append(lines, "Instead: "+flat(r.Copy.Instead))
		}
		lines = append(lines, "Code: "+r.ID)
		parts = append(parts, strings.Join(lines, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// flat puts a copy text on one line for the agent: each line break (CR LF
// as one) becomes a space; control characters other than tab, invisible
// format characters (Unicode Cf) and bytes of invalid UTF-8 become U+FFFD.
func flat(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case strings.ContainsRune("\n\r\v\f\u0085\u2028\u2029", r):
			b.WriteByte(' ')
		case r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[:n])
		}
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
	facts := []string{"provenance_tools", "provenance_origins", "provenance_trust_tiers", "provenance_labels"}
	out := map[string]any{}
	fail := func(msg string) map[string]any {
		for _, f := range facts {
			out[f] = types.NewErr("%s", msg)
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
	for _, f := range facts {
		l := []string{}
		for v := range sets[f] {
			l = append(l, v)
		}
		sort.Strings(l)
		out[f] = l
	}
	return out
}

// profileErr is the error of an unsupplied profile.
func profileErr(p string) *ruleError {
	return &ruleError{runtime.ErrProfile, "profile not supplied: " + p}
}

// rule evaluates one rule in the order of spec 5.1: the selector (its
// clauses combine like CEL's &&: an unsupplied profile's error is absorbed
// by a false clause), the rest of its profiles, flow, detector, when.
func (e *Engine) rule(i int, r *compiler.Rule, req *wire.Request, dets map[string]*detection) (bool, *wire.Detector, *ruleError) {
	var selErr *ruleError
	for _, c := range r.Selector {
		if p := e.set.Catalog.Fact(c.Fact).Profile; p != "" && !supplied(req.Profiles, p) {
			if selErr == nil {
				selErr = profileErr(p)
			}
			continue
		}
		v := e.factValue(c.Fact, r, req)
		if err, ok := v.(*types.Err); ok {
			// A fact that cannot be read (provenance that cannot be
			// known): the clause's error, which a false clause absorbs.
			if selErr == nil {
				selErr = celError(err.Error())
			}
			continue
		}
		if !clause(c, v) {
			return false, nil, nil
		}
	}
	if selErr != nil {
		return false, nil, selErr
	}
	for _, p := range r.Profiles {
		if !supplied(req.Profiles, p) {
			return false, nil, profileErr(p)
		}
	}
	if r.Flow != nil {
		names, _ := e.cur.act[e.set.Catalog.Host+".recent_tool_names"].([]string)
		if !flowHolds(names, r.Flow) {
			return false, nil, nil
		}
	}
	var det *wire.Detector
	if r.Kind == "detector" {
		d := dets[r.Detector]
		if d == nil {
			d = &detection{}
			if v, ok := req.Detectors[r.Detector]; !ok {
				d.err = &ruleError{runtime.ErrNotRegistered, "validator " + r.Detector + " is not registered"}
			} else if v.Error == "timeout" {
				d.err = &ruleError{runtime.ErrTimeout, "validator " + r.Detector + " did not answer before the deadline"}
			} else if v.Error != "" {
				d.err = &ruleError{runtime.ErrDetector, "validator " + r.Detector + " failed"}
			} else {
				d.d = v
			}
			dets[r.Detector] = d
		}
		if d.err != nil {
			return false, nil, d.err
		}
		if !d.d.Hit {
			return false, nil, nil
		}
		det = &d.d
	}
	prg := e.progs[i]
	if prg == nil {
		return true, det, nil
	}
	e.cur.panicked = ""
	out, _, err := prg.Eval(e.activation(r, req, det))
	if e.cur.panicked != "" {
		// A panic ends the rule's evaluation wherever it happens: no
		// operator absorbs it (spec 6).
		return false, det, &ruleError{runtime.ErrPanic, "panic: provider " + e.cur.panicked}
	}
	if err != nil {
		return false, det, celError(err.Error())
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, det, &ruleError{runtime.ErrNoSuchOverload, fmt.Sprintf("when gave %v, not a bool", out)}
	}
	return bool(b), det, nil
}

// providerFailed is the error of a provider call that fails as f says
// (wire.ProviderFailure): a failure, a timeout, or a panic, which the
// rule's evaluation reports whatever the condition makes of the error.
func (e *Engine) providerFailed(name string, f wire.ProviderFailure) ref.Val {
	kind := runtime.ErrProvider
	switch f {
	case "timeout":
		kind, name = runtime.ErrTimeout, "provider "+name
	case "panic":
		e.cur.panicked = name
	}
	return types.NewErr("%s%s", msgProvider[kind], runtime.Err{Kind: kind, S: name}.Error())
}

// msgProvider starts the errors of failed provider calls, by kind, so
// that celError tells them apart from cel-go's.
var msgProvider = map[runtime.ErrKind]string{runtime.ErrProvider: "provider failure: ", runtime.ErrTimeout: "provider timeout: "}

func celError(msg string) *ruleError {
	for kind, prefix := range msgProvider {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			return &ruleError{kind, rest}
		}
	}
	switch {
	case strings.HasPrefix(msg, msgNoProvider):
		return &ruleError{runtime.ErrNoProvider, msg}
	case strings.HasPrefix(msg, "provenance: "):
		return &ruleError{runtime.ErrProvenance, msg}
	case strings.HasPrefix(msg, "code_reject_total: "):
		// The session's record could not count the pair: what the
		// store holds is incomplete (spec 5.10).
		return &ruleError{runtime.ErrStore, msg}
	}
	return &ruleError{KindOfCelError(msg), msg}
}

func supplied(set runtime.ProfileSet, p string) bool {
	if set == 0 {
		return true
	}
	return set&runtime.ProfileByName(p) != 0
}

// factValue reads a fact for the current rule: core facts from the
// occurrence and session, the rest from the facts.
func (e *Engine) factValue(name string, r *compiler.Rule, req *wire.Request) any {
	switch name {
	case "anchor":
		return req.Anchor
	case "fire_count", "breaker_count":
		if r == nil {
			return int64(0)
		}
		if name == "fire_count" {
			return e.cur.snap[r.ID][0]
		}
		return e.cur.snap[r.ID][1]
	}
	if r != nil && name == e.set.Catalog.Host+".code_reject_total" {
		// Per rule (spec 5.10): set for the rule, then read.
		e.cur.kept.setRule(e.set.Catalog, req, r.ID, e.cur.act)
	}
	return e.cur.act[name]
}

// activation returns the variables of one rule: the occurrence's facts,
// the rule's own counters, and a detector's facts in place of the host's.
func (e *Engine) activation(r *compiler.Rule, req *wire.Request, det *wire.Detector) map[string]any {
	act := e.cur.act
	act["fire_count"] = e.factValue("fire_count", r, req)
	act["breaker_count"] = e.factValue("breaker_count", r, req)
	e.cur.kept.setRule(e.set.Catalog, req, r.ID, act)
	if det != nil && det.Facts.Has != 0 {
		cp := make(map[string]any, len(act))
		for k, v := range act {
			cp[k] = v
		}
		act = cp
	}
	if det != nil {
		df := det.Facts
		if df.Has&runtime.HasPromptInjectionScore != 0 {
			act["prompt_injection_score"] = df.PromptInjectionScore
		}
		if df.Has&runtime.HasJailbreakScore != 0 {
			act["jailbreak_score"] = df.JailbreakScore
		}
		if df.Has&runtime.HasPiiEntities != 0 {
			act["pii_entities"] = df.PiiEntities
		}
		if df.Has&runtime.HasSecretMatches != 0 {
			act["secret_matches"] = df.SecretMatches
		}
	}
	return act
}

// clause reports whether a selector clause holds for the fact's value v.
func clause(c compiler.SelectorClause, v any) bool {
	if l, ok := v.([]string); ok {
		for _, x := range l {
			for _, w := range c.Values {
				if w == any(x) {
					return true
				}
			}
		}
		return false
	}
	for _, w := range c.Values {
		if w == v {
			return true
		}
	}
	return false
}

// flowHolds matches the flow's steps in order against the recent tool
// names (the last Within of them), with or without gaps.
func flowHolds(names []string, f *compiler.Flow) bool {
	if f.Within > 0 && len(names) > f.Within {
		names = names[len(names)-f.Within:]
	}
	in := func(s string, step []string) bool {
		for _, x := range step {
			if x == s {
				return true
			}
		}
		return false
	}
	if f.Contiguous {
		for start := 0; start+len(f.Steps) <= len(names); start++ {
			all := true
			for j, step := range f.Steps {
				if !in(names[start+j], step) {
					all = false
					break
				}
			}
			if all {
				return true
			}
		}
		return false
	}
	// With gaps: a recursive search over every choice, kept obviously
	// correct rather than greedy.
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if j == len(f.Steps) {
			return true
		}
		for k := i; k < len(names); k++ {
			if in(names[k], f.Steps[j]) && match(k+1, j+1) {
				return true
			}
		}
		return false
	}
	return match(0, 0)
}

// span is a region of the content in code points.
type span struct {
	start, end int64
	order      int
	repl       string
}

func ruleSpans(order int, r *compiler.Rule, req *wire.Request, det *wire.Detector) []span {
	var out []span
	for _, name := range r.Transform.Redact {
		l, _ := req.Facts[name].([]map[string]any)
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

// KindOfCelError maps a cel-go evaluation error message to the runtime's
// error kind.
func KindOfCelError(msg string) runtime.ErrKind {
	switch {
	case strings.HasPrefix(msg, "no such key"):
		return runtime.ErrNoSuchKey
	case strings.HasPrefix(msg, "index out of bounds"):
		return runtime.ErrIndexOutOfRange
	case strings.HasPrefix(msg, "index out of range"):
		return runtime.ErrStringIndex
	case msg == "division by zero":
		return runtime.ErrDivideByZero
	case msg == "modulus by zero":
		return runtime.ErrModulusByZero
	case msg == "integer overflow":
		return runtime.ErrIntOverflow
	case msg == "unsigned integer overflow":
		return runtime.ErrUintOverflow
	case strings.HasPrefix(msg, "no such overload"), strings.HasPrefix(msg, "found no matching overload"):
		return runtime.ErrNoSuchOverload
	case strings.HasPrefix(msg, "type conversion error"):
		return runtime.ErrConversion
	}
	return runtime.ErrInvalidArgument
}
