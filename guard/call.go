package guard

// This file owns one tools/call through the guard: its occurrences, their
// decisions, and what the client receives (spec 11).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"
)

// Call is one tools/call going through the guard: [Conn.Begin] evaluates
// it before it is forwarded, [Call.Finish] evaluates the answer.
type Call struct {
	c      *Conn
	id     json.RawMessage
	server Server
	occ    Occurrence
	// banners and notes gathered from the call's decisions, in order.
	banners, notes []string
	// blocked is the result the client receives instead, once a decision
	// blocked or the guard failed.
	blocked json.RawMessage
	code    string
	// rejection is the text of blocked's one text item.
	rejection string
	d         runtime.Decision
	// match is the result the first validating binding matched, and
	// matched whether one did (spec 11, "Result bindings").
	match   map[string]any
	matched bool
	// preview says that the call is evaluated against a view of the
	// session that applies nothing (see Conn.Preview).
	preview bool
}

// Begin evaluates tool.pre_invoke for a call of tool name with its raw
// arguments (JSON; absent or null is an empty map). id is the JSON-RPC
// request id, for decision records (nil: none). When [Call.Blocked] is
// not nil the call must not be forwarded: the client receives that
// result instead. Begin never panics; a call it cannot evaluate is
// blocked with [CodeGuard].
func (c *Conn) Begin(ctx context.Context, id json.RawMessage, name string, args json.RawMessage) (k *Call) {
	return c.begin(ctx, id, name, args, false)
}

// Preview is [Conn.Begin] for a call that will be evaluated again before
// it runs, whose decision only says what that evaluation would decide now:
// it reads the session as Begin does and changes nothing (no counter, no
// record of the call, spec 5.10; no decision record, no rule store
// trial; see [runtime.WithPreview]). The MCP guard previews a call whose
// ask decision goes back to the client in the result (MCP's multi
// round-trip requests), so that the retry that brings the answer is the
// one occurrence of the action. The Call must not be finished.
func (c *Conn) Preview(ctx context.Context, id json.RawMessage, name string, args json.RawMessage) *Call {
	return c.begin(ctx, id, name, args, true)
}

func (c *Conn) begin(ctx context.Context, id json.RawMessage, name string, args json.RawMessage, preview bool) (k *Call) {
	k = &Call{c: c, id: id, preview: preview}
	defer func() {
		if r := recover(); r != nil {
			k.fail(fmt.Errorf("internal error: %v", r))
		}
	}()
	k.server = c.Server()
	s := k.server.ID
	q := Qualified(s, name)
	k.occ = Occurrence{Tool: q, ServerID: s, ToolName: name, ServerConfigured: k.server.Configured, ServerEnabled: k.server.Enabled}
	if c.opts.AllInputs {
		in, err := c.head(ctx)
		if err != nil {
			k.fail(fmt.Errorf("cannot read the session's provenance: %v", err))
			return k
		}
		k.occ.Inputs = in
	} else {
		k.occ.Inputs = Inputs(ctx)
	}
	m, err := runtime.DecodeToolArgs(args)
	if err != nil {
		k.fail(err)
		return k
	}
	if err := foldedNames(m); err != nil {
		k.fail(err)
		return k
	}
	k.occ.Args = m
	if c.g.info.Has(PreInvoke) {
		k.eval(ctx, PreInvoke)
	}
	return k
}

// CanonicalArgs is raw tool arguments re-encoded from the guard's own
// decoding: a name given twice resolved as the rules read it (the last,
// as encoding/json keeps it), numbers as written, every string as
// encoding/json reads it. What goes to the server after [Conn.Begin] must
// be this, never raw: a server whose parser keeps the first of a name
// given twice ({"path":"/etc","path":"/ok"}) would act on a value no rule
// read.
func CanonicalArgs(raw json.RawMessage) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Blocked is the result the client receives instead of forwarding the call
// (a CallToolResult with isError, the rejection and _meta["oarc/code"]),
// nil while the call goes ahead.
func (k *Call) Blocked() json.RawMessage { return k.blocked }

// Code is the code of the block, "" while the call goes ahead.
func (k *Call) Code() string { return k.code }

// Tool is the call's tool fact, mcp_S_T.
func (k *Call) Tool() string { return k.occ.Tool }

// Notes is the text of the nudge firings of the call's decisions so far,
// for the host to queue as a user-role note (spec 5.1); "" when none.
func (k *Call) Notes() string { return strings.Join(k.notes, "\n\n") }

// Banner is the text of the warn firings of the call's decisions so far.
func (k *Call) Banner() string { return strings.Join(k.banners, "\n\n") }

// Options for [Call.Finish].
type FinishOptions struct {
	// AppendNotes appends the notes to the result as a text item, after
	// the banner (the proxy, which has no other way to hand them to the
	// agent); the middleware hands them to the host instead.
	AppendNotes bool
}

// Finish evaluates the upstream's answer to the call and returns what the
// client receives. result is the CallToolResult's JSON; for a JSON-RPC
// error, result is nil and errCode its code. out is the result to send,
// or nil when the JSON-RPC error passes through unchanged. After a block
// (at either anchor) out is the rejection and nothing of the answer
// reaches the client. A successful result is recorded as a provenance
// node whose id is in out's _meta["oarc/node"]. Finish never panics.
func (k *Call) Finish(ctx context.Context, result json.RawMessage, errCode int64, opts FinishOptions) (out json.RawMessage) {
	if k.preview {
		// A preview did not decide the call (see Conn.Preview).
		return Refused(errors.New("the call was only previewed"))
	}
	defer func() {
		if r := recover(); r != nil {
			k.fail(fmt.Errorf("internal error: %v", r))
			out = k.blockedOut(opts)
		}
	}()
	if k.blocked != nil {
		return k.blockedOut(opts)
	}
	info := k.c.g.info
	if result == nil {
		// A JSON-RPC error: tool.post_invoke sees it; the error passes
		// through unless a rule blocks.
		k.occ.CallOK, k.occ.ErrorCode = false, strconv.FormatInt(errCode, 10)
		if info.Has(PostInvoke) {
			k.eval(ctx, PostInvoke)
		}
		if k.blocked != nil {
			return k.blockedOut(opts)
		}
		return nil
	}
	r, err := parseResult(result)
	if err != nil {
		k.fail(fmt.Errorf("the server's result is not a CallToolResult: %v", err))
		return k.blockedOut(opts)
	}
	if err := r.foldedNames(len(k.c.g.bindings) > 0); err != nil {
		k.fail(err)
		return k.blockedOut(opts)
	}
	k.occ.CallOK = !r.isError
	if r.isError {
		k.occ.ErrorCode = "tool_error"
	}
	if !r.isError && len(k.c.g.bindings) > 0 {
		k.bind(r)
	}
	if info.Has(PostInvoke) {
		k.eval(ctx, PostInvoke)
		if k.blocked != nil {
			return k.blockedOut(opts)
		}
	}
	if !r.isError && info.Has(ToolResult) {
		units := r.units()
		var b strings.Builder
		for i, u := range units {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(u.text)
		}
		k.occ.Content = b.String()
		k.occ.ContentLength = int64(utf8.RuneCountInString(k.occ.Content))
		k.eval(ctx, ToolResult)
		if k.blocked != nil {
			return k.blockedOut(opts)
		}
		// An approved ask goes ahead redacted too (spec 5.6, 5.12).
		if (k.d.Effect == runtime.Transform || k.d.Effect == runtime.Ask) && len(k.d.Redactions) > 0 {
			if err := r.rewrite(units, k.d.Redactions); err != nil {
				k.fail(err)
				return k.blockedOut(opts)
			}
			if err := r.survivor(); err != nil {
				k.fail(err)
				return k.blockedOut(opts)
			}
		}
		k.occ.Content = ""
	}
	node := ""
	if !r.isError {
		id, err := k.c.record(ctx, k)
		if err != nil {
			// The agent would see a result the graph does not know:
			// later provenance checks could not see it. Withhold it.
			k.fail(fmt.Errorf("cannot record the result's provenance: %v", err))
			return k.blockedOut(opts)
		}
		node = id
	}
	var extra []string
	if b := k.Banner(); b != "" {
		extra = append(extra, b)
	}
	if n := k.Notes(); n != "" && opts.AppendNotes {
		extra = append(extra, n)
	}
	out, err = r.encode(extra, node)
	if err != nil {
		k.fail(err)
		return k.blockedOut(opts)
	}
	return out
}

// eval evaluates the call's occurrence at a; a block sets k.blocked.
func (k *Call) eval(ctx context.Context, a Anchor) {
	o := &k.occ
	o.Anchor = a
	o.Profiles = Profiles(a, k.c.opts.Profiles)
	if len(k.id) > 0 {
		ctx = runtime.WithCallID(ctx, k.id)
	}
	ctx = context.WithValue(ctx, callKey{}, k)
	sess := k.c.session
	if k.preview {
		ctx = runtime.WithPreview(ctx)
		sess = viewOf(sess)
	}
	if err := k.c.g.set.Evaluate(ctx, o, sess, &k.d); err != nil {
		k.fail(fmt.Errorf("evaluating %s: %v", a, err))
		return
	}
	k.decided(ctx)
}

// decided takes the call's decision k.d: its banner and notes, and a
// block.
func (k *Call) decided(ctx context.Context) {
	d := k.shown()
	if b := d.Banner(); b != "" {
		k.banners = append(k.banners, b)
	}
	if n := d.Notes(); n != "" {
		k.notes = append(k.notes, n)
	}
	switch d.Effect {
	case runtime.Allow, runtime.Nudge, runtime.Warn, runtime.Transform:
		return
	case runtime.Ask:
		// Spec 5.12: the call goes ahead only on a person's explicit yes.
		approved, text := k.ask(ctx, d)
		if approved {
			return
		}
		// Anything else blocks, with a rejection text or without one (an
		// ask no rule decided, from a Set that is not generated code).
		k.blockWith(d, text)
		return
	}
	// A block, or an effect the guard does not know: never forwarded.
	k.blockWith(d, d.Rejection())
}

// shown is the decision whose texts (rejection, banner, notes, question)
// reach the agent. Before the call it is k.d. After it, the line saying
// that a rule could not be evaluated gives its error's kind, not the
// values the error quotes: an error's message may quote a value read from
// the result (cel-go's "no such key: <the content>", an index or a
// conversion of it), which the agent has not seen (the result is withheld
// by a block) or which a transform redacted from it, and spec 11 lets no
// copy of a redacted string survive anywhere in the result. k.d keeps the
// whole messages, for the records and the host.
func (k *Call) shown() *runtime.Decision {
	d := &k.d
	if k.occ.Anchor == PreInvoke || len(d.Errors) == 0 {
		return d
	}
	c := *d // read only: no evaluation into the copy (see runtime.Decision)
	c.Errors = make([]runtime.RuleError, len(d.Errors))
	for i, e := range d.Errors {
		e.Err = valueFree(e.Err)
		c.Errors[i] = e
	}
	return &c
}

// notShown stands in an error's message for the values it quoted.
const notShown = "(a value of the result, not shown)"

// valueFree is e without the values its message would quote: kept are
// the names the rules and the host chose (a provider, a validator, a
// profile), dropped keys, indexes, conversions' and arguments' details,
// panic messages and the session store's words.
func valueFree(e runtime.Err) runtime.Err {
	switch e.Kind {
	case runtime.ErrNoProvider, runtime.ErrProvider, runtime.ErrProfile, runtime.ErrDetector,
		runtime.ErrNotRegistered, runtime.ErrTimeout, runtime.ErrNone, runtime.ErrDivideByZero,
		runtime.ErrModulusByZero, runtime.ErrIntOverflow, runtime.ErrUintOverflow, runtime.ErrAnchor:
		return e
	case runtime.ErrNoSuchKey, runtime.ErrPanic:
		return runtime.Err{Kind: e.Kind, S: notShown}
	case runtime.ErrIndexOutOfRange, runtime.ErrStringIndex:
		// Its message reads S when it is set; the strings extension's
		// kind reads only N.
		return runtime.Err{Kind: runtime.ErrIndexOutOfRange, S: notShown}
	}
	// The kinds whose message without S is generic ("invalid argument",
	// "no such overload", "session store unavailable", ...).
	return runtime.Err{Kind: e.Kind}
}

// blockWith blocks the call for the decision d with the rejection text
// (the guard's own words when it is empty) and d's code (CodeGuard when
// it has none).
func (k *Call) blockWith(d *runtime.Decision, text string) {
	code := d.Code
	if code == "" {
		code = CodeGuard
	}
	if text == "" {
		text = "The guardrails blocked this call.\nCode: " + code
	}
	k.block(code, text)
}

// ask puts the ask decision d to a person through ConnOptions.Ask and
// says whether they approved, else the rejection to block with: the
// rule's after a no, an error, a panic or a timeout (the context's, done
// before the question too: no one is asked then), the one that says that
// no one could be asked when there is no way to ask. Only an explicit
// yes approves.
func (k *Call) ask(ctx context.Context, d *runtime.Decision) (approved bool, rejection string) {
	ask := k.c.opts.Ask
	if ask == nil {
		return false, d.Unasked()
	}
	if ctx.Err() != nil {
		// The call was cancelled (or its time is up) before the question
		// was put: no one is asked about a call that will not run
		// whatever they answer, and no answer is a block.
		return false, d.Rejection()
	}
	defer func() {
		if r := recover(); r != nil {
			approved, rejection = false, d.Rejection()
		}
	}()
	ok, err := ask(ctx, d.Question())
	switch {
	case errors.Is(err, ErrCannotAsk):
		return false, d.Unasked()
	case err != nil || !ok:
		return false, d.Rejection()
	}
	return true, ""
}

// Refused is the result of a call the guard refuses to evaluate, for
// reason: blocked with [CodeGuard] (isError, the reason in its one text
// item, _meta["oarc/code"]), as a call the guard could not evaluate. The
// call must not be forwarded.
func Refused(reason error) json.RawMessage {
	k := &Call{}
	k.fail(reason)
	return k.blocked
}

// fail blocks the call with CodeGuard: the guard could not evaluate it.
func (k *Call) fail(err error) {
	var b strings.Builder
	b.WriteString("The guardrails could not evaluate this call (")
	writeOneLine(&b, err.Error())
	b.WriteString("); it is blocked.\nCode: ")
	b.WriteString(CodeGuard)
	k.block(CodeGuard, b.String())
}

func (k *Call) block(code, text string) {
	if k.blocked != nil {
		return
	}
	k.code, k.rejection = code, text
	k.blocked = blockResult(code, text)
}

// blockedOut is the block result, with the notes in it when asked. A
// block result has one text item, ending with the blocking code's line
// (spec 11), so the notes come first in that item, a blank line before
// the rejection: not lost, and not a second item a client would read as
// the rejection.
func (k *Call) blockedOut(opts FinishOptions) json.RawMessage {
	if n := k.Notes(); n != "" && opts.AppendNotes {
		return blockResult(k.code, n+"\n\n"+k.rejection)
	}
	return k.blocked
}

// writeOneLine writes s with its line breaks and control characters as
// spaces, so that an error message cannot forge a "Code:" line.
func writeOneLine(b *strings.Builder, s string) {
	for _, r := range s {
		if r < ' ' || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || runtime.HiddenRune(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
}

// head returns the inputs of a call under AllInputs: the last node of the
// chain, whose ancestry is every node recorded so far.
func (c *Conn) head(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opts.Shared || !c.probed {
		if err := c.probe(ctx); err != nil {
			return nil, err
		}
	}
	if c.seq == 0 {
		return nil, nil
	}
	return []string{nodeID(c.seq)}, nil
}

func nodeID(n int64) string { return "r" + strconv.FormatInt(n, 10) }

// probe finds the last node of the chain in the store, from c.seq on:
// another process sharing the session, or this one before a restart, may
// have recorded more. A fresh session in the process has none.
func (c *Conn) probe(ctx context.Context) error {
	defer func() { c.probed = true }()
	if !c.opts.Shared {
		return nil
	}
	st := c.session.Store()
	exists := func(n int64) (bool, error) {
		var sc runtime.Scope
		err := st.Scope(ctx, c.session.Key(), []string{nodeID(n)}, &sc)
		if err == nil {
			return true, nil
		}
		if isUnknown(err) {
			return false, nil
		}
		return false, err
	}
	lo := c.seq // known to exist (or 0)
	step := int64(1)
	hi := lo + step
	for {
		ok, err := exists(hi)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		lo = hi
		step *= 2
		hi = lo + step
	}
	// lo exists (or is 0), hi does not: the chain has no gaps.
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := exists(mid)
		if err != nil {
			return err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	c.seq = lo
	return nil
}

// record records a successful result as a tool_result node and returns
// its id. Under AllInputs the node continues the chain (its parent is the
// last node); otherwise its parents are the call's inputs and its id is
// random.
func (c *Conn) record(ctx context.Context, k *Call) (string, error) {
	n := runtime.Node{Kind: runtime.ToolResult, Tool: k.occ.Tool, Origin: k.server.Origin, TrustTier: k.server.TrustTier, Labels: k.server.Labels}
	if !c.opts.AllInputs {
		n.ID = randomID()
		n.Parents = k.occ.Inputs
		return n.ID, c.session.Record(ctx, n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	for try := 0; try < 3; try++ {
		if try > 0 || c.opts.Shared {
			if err := c.probe(ctx); err != nil {
				return "", err
			}
		}
		n.ID, n.Parents = nodeID(c.seq+1), nil
		if c.seq > 0 {
			n.Parents = []string{nodeID(c.seq)}
		}
		if err = c.session.Record(ctx, n); err == nil {
			c.seq++
			return n.ID, nil
		}
		if !c.opts.Shared {
			break
		}
	}
	return "", err
}

// isUnknown reports whether a scope failed because an input is not
// recorded (or the session is incomplete).
func isUnknown(err error) bool { return errors.Is(err, runtime.ErrUnknownProvenance) }

// viewOf is session s read as it is, written nowhere: what a preview
// evaluates against (Conn.Preview).
func viewOf(s *runtime.Session) *runtime.Session {
	if s == nil {
		return nil
	}
	return runtime.NewStoreSession(view{s.Store()}, s.ID(), runtime.WithTenant(s.Tenant()))
}

// view is a store read through and never written: its writes succeed and
// do nothing.
type view struct{ st runtime.Store }

func (v view) Read(ctx context.Context, session string, s *runtime.Snapshot) error {
	return v.st.Read(ctx, session, s)
}

func (v view) Scope(ctx context.Context, session string, inputs []string, sc *runtime.Scope) error {
	return v.st.Scope(ctx, session, inputs, sc)
}

func (view) Apply(context.Context, string, *runtime.Update) error   { return nil }
func (view) RecordNode(context.Context, string, runtime.Node) error { return nil }
func (view) MarkIncomplete(context.Context, string) error           { return nil }
