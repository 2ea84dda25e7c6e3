// Package mcpguard puts a compilation set of OAR rules in front of MCP
// tool calls made or served with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), as spec 11 says: [Client] is
// sending middleware for an mcp.Client (the calls a host's model makes),
// [Server] receiving middleware for an mcp.Server (the calls it
// receives). Both adapt the SDK's types to package guard, which does the
// work the stdio proxy does too (`oarc guard`): occurrences at
// tool.pre_invoke, tool.post_invoke and content.tool_result, block
// results, banners, transforms written back into every text unit,
// provenance with the node id in _meta["oarc/node"], tools/list narrowed
// under an enforced deny-by-default, OAR_GUARD on an internal failure, and
// a person asked before a call an ask rule holds (spec 5.12: the host's
// [Config.Ask], else MCP elicitation of the client, see docs/mcp.md).
// [Config.Tools] offers the guard's own tools beside the server's: a rule
// store's (spec 12), evaluated like any call and answered by the guard.
//
// It is a module of its own so that hosts that do not use MCP never link
// the SDK. A set reaches it through the func Guard that `oarc gen -guard`
// writes:
//
//	set, err := rules.Guard(env, nil)          // the generated package
//	g, err := guard.New(set)
//	client.AddSendingMiddleware(mcpguard.Client(g, mcpguard.Config{
//		Server: guard.Server{ID: "fs", TrustTier: "untrusted", Configured: true, Enabled: true},
//	}))
package mcpguard

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// Config configures the middleware.
type Config struct {
	// Server describes the server whose tools are called (its id S,
	// origin, trust tier and labels for provenance; registry facts).
	Server guard.Server
	// Profiles are supplied beyond tool and mcp (and content-safety after
	// the call): runtime.ProfileSession, runtime.ProfileProvenance.
	Profiles runtime.ProfileSet
	// Session returns the oarc session of a new MCP session (one client
	// connection is one oarc session, spec 11). Without it (the field
	// nil): a session in the process with the MCP session's id (or a
	// fresh one). A Session that returns nil or panics has lost the
	// session's state: the session's calls are blocked with
	// guard.CodeGuard (and tools/list fails), never evaluated on a fresh
	// session; it is asked again at the next call. The session it gives
	// may be that of other MCP sessions or processes too: under AllInputs
	// the last node is read from it before each call.
	Session func(mcp.Session) *runtime.Session
	// AllInputs makes every node recorded so far in the session the
	// inputs of each call, as the proxy does: for a server, which never
	// sees the model's messages (spec 11). Otherwise a call's inputs are
	// those its context names ([guard.WithInputs]).
	AllInputs bool
	// Notes, when not nil, receives the notes of a call's nudge firings,
	// for the host to queue as a user-role note for the agent's next
	// prompt (spec 5.1). Without it the notes are appended to the result
	// as a text item, as the proxy does; so are they when it panics (the
	// panic is recovered).
	Notes func(ctx context.Context, notes string)
	// Ask, when not nil, puts the question of an ask decision (spec 5.12)
	// to a person and reports whether they approved (see
	// [guard.ConnOptions.Ask]): the host's own way to ask. Without it,
	// receiving middleware asks the client through MCP elicitation
	// (elicitation/create with the question and a requested schema of one
	// boolean, approve) when the client declared that capability, and
	// blocks the call otherwise, as sending middleware does.
	Ask func(ctx context.Context, question string) (approved bool, err error)
	// AskTimeout bounds the wait for an elicitation's answer (default
	// [DefaultAskTimeout]); no answer in time blocks the call.
	AskTimeout time.Duration
	// Tools are the guard's own tools, offered as tools of the server
	// (docs/mcp.md): a rule store's (spec 12), converted from
	// rulestore.Store.Tools with guard.Tool(t), the store itself given to
	// the evaluator with runtime.WithRuleStore. They are added to the
	// first page of every tools/list result (a server's tool of the same
	// name is left out: the guard's answers that name), and a tools/call
	// of one is evaluated like any call of the server (tool.pre_invoke,
	// then tool.post_invoke and content.tool_result on its result) and
	// answered by the guard with the handler's text, never passed on.
	Tools []guard.Tool
}

// DefaultAskTimeout is how long the guard waits for a person's answer to
// an elicitation when [Config.AskTimeout] is zero.
const DefaultAskTimeout = 5 * time.Minute

// mrtrVersion is the first MCP version in which a server may not send
// elicitation/create while it serves a request: it returns the request in
// the result's inputRequests and the client retries the call with the
// answer (multi round-trip requests, SEP-2322).
const mrtrVersion = "2026-07-28"

type roundKey struct{}

// approved reads an elicitation's answer: yes only on action "accept"
// with approve true.
func approved(res *mcp.ElicitResult) bool {
	if res == nil || res.Action != "accept" {
		return false // decline, cancel
	}
	ok, _ := res.Content["approve"].(bool)
	return ok
}

// elicit asks the client of ss through elicitation/create: approved only
// on action "accept" with approve true. A client that did not declare the
// elicitation capability is no way to ask ([guard.ErrCannotAsk]). To a
// client of mrtrVersion or later the question goes back in the call's
// result (see [middleware.call]), and its answer comes with the retried
// call.
func elicit(ss *mcp.ServerSession, timeout time.Duration) func(context.Context, string) (bool, error) {
	return func(ctx context.Context, question string) (bool, error) {
		cl, ok := ctx.Value(clientKey{}).(client)
		if !ok {
			cl = sessionClient(ss)
		}
		if cl.caps == nil || !formElicitation(cl.caps.Elicitation) {
			return false, guard.ErrCannotAsk
		}
		if cl.version >= mrtrVersion {
			r, _ := ctx.Value(roundKey{}).(*guard.AskRound)
			if r == nil {
				return false, errors.New("mcpguard: no round for the question")
			}
			return r.Ask(question)
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: question, RequestedSchema: guard.ApproveSchema()})
		if err != nil {
			return false, err
		}
		return approved(res), nil
	}
}

// client is the protocol version and the capabilities of the client of
// a request (see clientOf).
type client struct {
	version string
	caps    *mcp.ClientCapabilities
}

// clientKey is the context key of the client of the call being
// evaluated: a client.
type clientKey struct{}

// sessionClient is the client of ss as it initialised (or as the first
// request of mrtrVersion or later described it).
func sessionClient(ss *mcp.ServerSession) client {
	if ip := ss.InitializeParams(); ip != nil {
		return client{ip.ProtocolVersion, ip.Capabilities}
	}
	return client{}
}

// clientOf is the client of a request to the server of ss: a request of
// mrtrVersion or later names its version and capabilities in _meta
// (SEP-2575), and they may differ from one request to the next (the
// proxy reads them from each call); the SDK keeps the first request's as
// the session's. Other requests: the session's.
func clientOf(req mcp.Request, ss *mcp.ServerSession) client {
	r, ok := req.(interface {
		ProtocolVersion() string
		ClientCapabilities() *mcp.ClientCapabilities
	})
	if ok {
		if v := r.ProtocolVersion(); v >= mrtrVersion {
			return client{v, r.ClientCapabilities()}
		}
	}
	return sessionClient(ss)
}

// Client returns sending middleware for an mcp.Client: the tools/call
// requests the client sends are evaluated before they leave, their
// results when they come back, and tools/list results are narrowed.
func Client(g *guard.Guard, cfg Config) mcp.Middleware { return newMiddleware(g, cfg) }

// Server returns receiving middleware for an mcp.Server: the tools/call
// requests it receives are evaluated before its handler runs, the results
// before they are sent, and its tools/list results are narrowed.
func Server(g *guard.Guard, cfg Config) mcp.Middleware { return newMiddleware(g, cfg) }

type middleware struct {
	g     *guard.Guard
	cfg   Config
	mu    sync.Mutex
	conns map[mcp.Session]*guard.Conn
	// asked holds the requestState of every question sent back in a
	// result and not answered yet: the session and the call (tool name and
	// arguments) it is about, so that an answer approves that one call of
	// that session only, once (spec 5.12).
	asked  map[string]askedCall
	askSeq int64
}

// askedCall is what a question sent back in a result was about.
type askedCall struct {
	session  mcp.Session
	call     string
	question string
	expires  time.Time
	seq      int64 // the order questions were sent in
	// upState and upAnswers are the tool's own round of the call (its
	// requestState and the client's inputResponses to it) that the
	// question interrupted, for the approved retry.
	upState   string
	upAnswers mcp.InputResponseMap
}

// maxAsked bounds the questions of one session sent back and not answered
// yet: a client that never retries its calls cannot grow the middleware
// without bound. The session's oldest question beyond it is forgotten (its
// retry is no answer, and blocks); another session's are not touched.
const maxAsked = 1024

// maxAskedBytes bounds the bytes the questions of one session waiting for
// their answer hold of the tool's rounds they interrupted (a requestState
// and inputResponses each): the session's oldest beyond it are forgotten,
// as beyond maxAsked. The call a question is about is held as a digest.
const maxAskedBytes = 32 << 20

// size is what a question waiting holds of the tool's round.
func (a askedCall) size() int {
	n := len(a.upState)
	if a.upAnswers != nil {
		b, _ := json.Marshal(a.upAnswers)
		n += len(b)
	}
	return n
}

func newMiddleware(g *guard.Guard, cfg Config) mcp.Middleware {
	m := &middleware{g: g, cfg: cfg, conns: map[mcp.Session]*guard.Conn{}, asked: map[string]askedCall{}}
	return m.wrap
}

// waiter is what both SDK session types have: Wait returns when the
// session ends, when its connection is forgotten.
type waiter interface{ Wait() error }

// conn returns the guard's connection of an MCP session, made on first
// use and forgotten when the session ends; an error when the host's
// Config.Session gave no session (nil, or a panic).
func (m *middleware) conn(s mcp.Session) (c *guard.Conn, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.conns[s]; c != nil {
		return c, nil
	}
	var sess *runtime.Session
	if m.cfg.Session != nil {
		sess, err = hostSession(m.cfg.Session, s)
		if err != nil {
			return nil, err
		}
	} else {
		id := ""
		if s != nil {
			id = s.ID()
		}
		if id == "" {
			id = fmt.Sprintf("mcp-%p", s)
		}
		sess = runtime.NewSession(id)
	}
	ask := m.cfg.Ask
	if ss, ok := s.(*mcp.ServerSession); ok && ask == nil {
		timeout := m.cfg.AskTimeout
		if timeout <= 0 {
			timeout = DefaultAskTimeout
		}
		ask = elicit(ss, timeout)
	}
	// The host's session may be the session of other MCP sessions too (a
	// stateless server keyed by its agent) or of other processes (a
	// store): Shared makes AllInputs read the chain's end from the
	// session before each call, never from this connection's count.
	c = m.g.NewConn(sess, m.cfg.Server, guard.ConnOptions{Profiles: m.cfg.Profiles, AllInputs: m.cfg.AllInputs, Shared: m.cfg.Session != nil, Ask: ask})
	m.conns[s] = c
	if w, ok := s.(waiter); ok {
		go func() {
			w.Wait()
			m.mu.Lock()
			delete(m.conns, s)
			for state, a := range m.asked {
				if a.session == s {
					delete(m.asked, state) // no retry can come any more
				}
			}
			m.mu.Unlock()
		}()
	}
	return c, nil
}

// hostSession calls the host's Config.Session: no session (nil) or a
// panic is an error, never a fresh session in its place (its state, the
// counters and the provenance of the session, would be a silent zero).
func hostSession(f func(mcp.Session) *runtime.Session, s mcp.Session) (sess *runtime.Session, err error) {
	defer func() {
		if r := recover(); r != nil {
			sess, err = nil, fmt.Errorf("the host's Config.Session panicked: %v", r)
		}
	}()
	if sess = f(s); sess == nil {
		return nil, errors.New("the host's Config.Session gave no session")
	}
	return sess, nil
}

// refused is the block result of a call the guard cannot evaluate for
// err (OAR_GUARD).
func refused(err error) (mcp.Result, error) {
	return decodeResult(guard.Refused(err))
}

func (m *middleware) wrap(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			res, err := m.call(ctx, next, method, req)
			if err == nil {
				res = completed(req, res)
			}
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			if err != nil || res == nil {
				return res, err
			}
			return m.list(req, res)
		}
		return next(ctx, method, req)
	}
}

// call guards one tools/call.
func (m *middleware) call(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (res mcp.Result, err error) {
	var name, state string
	var args json.RawMessage
	var answers mcp.InputResponseMap
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParams:
		if p == nil {
			return blocked(guard.CodeGuard, "The guardrails could not read the call (no params); it is blocked.\nCode: "+guard.CodeGuard)
		}
		name, state, answers = p.Name, p.RequestState, p.InputResponses
		if p.Arguments != nil {
			if args, err = json.Marshal(p.Arguments); err != nil {
				return blocked(guard.CodeGuard, "The guardrails could not read the call's arguments ("+err.Error()+"); it is blocked.\nCode: "+guard.CodeGuard)
			}
		}
	case *mcp.CallToolParamsRaw:
		if p == nil {
			return blocked(guard.CodeGuard, "The guardrails could not read the call (no params); it is blocked.\nCode: "+guard.CodeGuard)
		}
		name, args, state, answers = p.Name, p.Arguments, p.RequestState, p.InputResponses
	default:
		return blocked(guard.CodeGuard, fmt.Sprintf("The guardrails could not read the call (params of type %T); it is blocked.\nCode: %s", p, guard.CodeGuard))
	}
	sess := req.GetSession()
	var k *guard.Call
	if ck, _ := ctx.Value(checkedKey{}).(*checked); ck != nil {
		// The call a check evaluated (Checker.CallTools), once, and only
		// when this is that call: the context reaches the host's own
		// handlers while the call is under way (the SDK fulfils a
		// server's input requests with it), and a call made there is
		// another call, evaluated as any.
		if ck.call == callKey(name, args) && ck.used.CompareAndSwap(false, true) {
			k = ck.k
		}
		ctx = context.WithValue(ctx, checkedKey{}, (*checked)(nil))
	}
	if k == nil {
		callID := callKey(name, args)
		r := &guard.AskRound{}
		// The tool's own round of the call (its requestState and the
		// client's answers to its questions, multi round-trip), which a
		// question of the guard's interrupts: kept with the question, and
		// given back to the tool with the approved retry.
		upState, upAnswers := state, answers
		if q, ok := m.take(state, sess, callID); ok || guard.IsAskState(state) {
			// The retry of a call the guard asked about. The answer counts
			// for that call only, once, in time: a state of another call or
			// session, one used before, expired or forgotten is no answer,
			// and no answer blocks (spec 5.12). A requestState that is not
			// the guard's is the tool's: its round is no answer to the
			// guard, whose rules ask afresh (as the proxy does).
			r.Answered = true
			if ok {
				answer, _ := answers[guard.AskInputID].(*mcp.ElicitResult)
				r.Approved, r.Asked = approved(answer), q.question
			}
			// The guard's state (waited for, or used, expired or
			// forgotten) and the answer to its question are the guard's:
			// the tool, which may ask questions of its own, gets the call
			// without them, with its own round that the question
			// interrupted, if any.
			switch p := req.GetParams().(type) {
			case *mcp.CallToolParams:
				p.RequestState, p.InputResponses = q.upState, q.upAnswers
			case *mcp.CallToolParamsRaw:
				p.RequestState, p.InputResponses = q.upState, q.upAnswers
			}
		}
		ctx = context.WithValue(ctx, roundKey{}, r)
		if ss, ok := sess.(*mcp.ServerSession); ok && ss != nil {
			ctx = context.WithValue(ctx, clientKey{}, clientOf(req, ss))
		}
		c, err := m.conn(sess)
		if err != nil {
			return refused(err)
		}
		if !r.Answered && m.asksInResult(ctx) {
			// The first round of a call that may need a person's yes: if
			// it does, the question goes back in the result and the retry
			// with the answer is the action's one occurrence, so this
			// round is only previewed (it changes nothing).
			if pk := c.Preview(ctx, nil, name, args); r.Question != "" && pk.Code() != guard.CodeGuard {
				return m.inputRequired(sess, callID, r.Question, upState, upAnswers)
			}
			r.Question = ""
		}
		k = c.Begin(ctx, nil, name, args)
		if r.Question != "" && !r.Answered {
			// A client of mrtrVersion or later (asked since the preview:
			// the session changed): the question goes back in the result,
			// and the client retries the call with the answer.
			return m.inputRequired(sess, callID, r.Question, upState, upAnswers)
		}
	}
	opts := guard.FinishOptions{AppendNotes: m.cfg.Notes == nil}
	defer func() {
		n := k.Notes()
		switch {
		case n == "":
		case m.cfg.Notes != nil:
			if !m.handNotes(ctx, n) {
				res = withNotes(res, n)
			}
		case err == nil:
			// Finish put them in its result; a block the middleware made
			// itself (a refusal after Begin) lacks them.
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
				if t, ok := blockText(r); ok && !strings.HasPrefix(t.Text, n+"\n\n") {
					res = withNotes(res, n)
				}
			}
		}
	}()
	if k.Blocked() != nil {
		return decodeResult(k.Finish(ctx, nil, 0, opts))
	}
	if t := guard.FindTool(m.cfg.Tools, name); t != nil {
		return decodeResult(k.Finish(ctx, guard.CallTool(ctx, t, args), 0, opts))
	}
	if err := evaluatedArgs(req, args); err != nil {
		return refused(err)
	}
	res, err = next(ctx, method, req)
	if err != nil {
		// The code the client receives: a JSON-RPC error's, where the
		// error wraps one; a server's handler that fails with an error of
		// its own is sent without a code (0, as the SDK writes it); on a
		// client, an error that is no answer (the connection failed) is
		// an internal error.
		var we *jsonrpc.Error
		code := int64(jsonrpc.CodeInternalError)
		if _, server := req.GetSession().(*mcp.ServerSession); server {
			code = 0
		}
		if errors.As(err, &we) {
			code = we.Code
		}
		if out := k.Finish(ctx, nil, code, opts); out != nil {
			return decodeResult(out)
		}
		return res, err
	}
	raw, merr := json.Marshal(res)
	if res == nil || merr != nil {
		// Not a result the guard can read: Finish withholds it
		// (OAR_GUARD), as it does a malformed result.
		raw = json.RawMessage("null")
	} else if err := json.Unmarshal(raw, new(mcp.CallToolResult)); err != nil {
		// A result the SDK cannot read back (structuredContent nested
		// deeper than its decoder allows): what Finish returns could not
		// be rebuilt either. Withheld before Finish records it as a node
		// (spec 11: a withheld call records nothing).
		return refused(fmt.Errorf("the result cannot be rebuilt: %v", err))
	}
	return decodeResult(k.Finish(ctx, raw, 0, opts))
}

// completed is res with "resultType":"complete" when the guard made it
// (a block, a withheld result, the answer of one of its own tools) in a
// session of mrtrVersion or later, from which version every result has a
// resultType (the MCP Python SDK rejects one without it): the server's
// own results get it from the SDK inside the next handler (receiving
// middleware) or have it from the wire (sending middleware), the guard's
// never did, so that a host's client got the guard's results without
// it, unlike the proxy's and the server's (TestParityProxyMiddleware).
// Other results are returned as they are.
func completed(req mcp.Request, res mcp.Result) mcp.Result {
	r, isCall := res.(*mcp.CallToolResult)
	if !isCall || r == nil {
		return res
	}
	switch s := req.GetSession().(type) {
	case *mcp.ServerSession:
		// A session without params is of the latest version, as the
		// SDK reads it (clientSupportsMultiRoundTrip).
		if s == nil {
			return res
		}
		if ip := s.InitializeParams(); ip != nil && ip.ProtocolVersion < mrtrVersion {
			return res
		}
	case *mcp.ClientSession:
		// The version the client agreed with the server (by initialize,
		// or by server/discover from mrtrVersion on).
		if s == nil {
			return res
		}
		if ir := s.InitializeResult(); ir == nil || ir.ProtocolVersion < mrtrVersion {
			return res
		}
	default:
		return res
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return res
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil || top["resultType"] != nil {
		return res
	}
	top["resultType"] = json.RawMessage(`"complete"`)
	var out mcp.CallToolResult
	if raw, err = json.Marshal(top); err != nil || json.Unmarshal(raw, &out) != nil {
		return res
	}
	return &out
}

// evaluatedArgs puts the call's arguments in req as the guard read them
// (guard.CanonicalArgs), as the proxy forwards them: the bytes the client
// sent may give a name twice, and a tool handler whose parser keeps the
// first would act on a value no rule read. (The SDK, too, writes the
// client's params in place.) Arguments given as null, which MCP's schema
// does not allow and a handler may read its own way, are put as the {}
// the rules read (spec 11: absent or null, an empty map); absent ones
// stay absent.
func evaluatedArgs(req mcp.Request, args json.RawMessage) error {
	if len(args) == 0 {
		return nil
	}
	canon := json.RawMessage("{}")
	if string(bytes.TrimSpace(args)) != "null" {
		var err error
		if canon, err = guard.CanonicalArgs(args); err != nil {
			return fmt.Errorf("the arguments cannot be re-encoded: %v", err)
		}
	}
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParams:
		p.Arguments = canon
	case *mcp.CallToolParamsRaw:
		p.Arguments = canon
	}
	return nil
}

// callKey identifies a call by its tool and arguments, for the answer to
// a question about it: the arguments as the guard reads them
// (guard.CanonicalArgs: names sorted, strings as decoded, numbers as
// written, never rounded to a float64 that two different ids share;
// absent or null: {}).
func callKey(name string, args json.RawMessage) string {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		args = json.RawMessage("{}") // as the rules read them, and the SDK sends them
	} else if c, err := guard.CanonicalArgs(args); err == nil {
		args = c
	}
	return guard.CallDigest(name, args)
}

// asksInResult says whether an ask decision of the call being evaluated
// in ctx goes back to the client in the result (see elicit): receiving
// middleware without Config.Ask, and a client of mrtrVersion or later
// that declared the elicitation capability in the call.
func (m *middleware) asksInResult(ctx context.Context) bool {
	cl, ok := ctx.Value(clientKey{}).(client)
	if !ok || m.cfg.Ask != nil {
		return false
	}
	return cl.caps != nil && formElicitation(cl.caps.Elicitation) && cl.version >= mrtrVersion
}

// formElicitation says whether a client's elicitation capability lets the
// guard ask with a form: form declared, or neither form nor url (MCP
// 2025-11-25: {} is form, as before modes). A client of URL mode only
// cannot answer a form, and MCP forbids sending it one: no way to ask.
func formElicitation(c *mcp.ElicitationCapabilities) bool {
	return c != nil && (c.Form != nil || c.URL == nil)
}

// take consumes the requestState of a question: the question (and the
// tool's round it interrupted), and true when it was sent to session sess
// about the call, and has not expired or been used.
func (m *middleware) take(state string, sess mcp.Session, call string) (askedCall, bool) {
	if state == "" {
		return askedCall{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.asked[state]
	delete(m.asked, state)
	if !ok || a.session != sess || a.call != call || !time.Now().Before(a.expires) {
		return askedCall{}, false
	}
	return a, true
}

// inputRequired is the result that sends the question of an ask decision
// back to a client of mrtrVersion or later: an elicitation/create among
// its inputRequests, with a requestState that the retried call must carry.
func (m *middleware) inputRequired(sess mcp.Session, call, question, upState string, upAnswers mcp.InputResponseMap) (mcp.Result, error) {
	state, err := guard.NewAskState()
	if err != nil {
		return blocked(guard.CodeGuard, "The guardrails could not ask for approval ("+err.Error()+"); it is blocked.\nCode: "+guard.CodeGuard)
	}
	timeout := m.cfg.AskTimeout
	if timeout <= 0 {
		timeout = DefaultAskTimeout
	}
	a := askedCall{session: sess, call: call, question: question, expires: time.Now().Add(timeout), upState: upState, upAnswers: upAnswers}
	now := time.Now()
	m.mu.Lock()
	m.askSeq++
	a.seq = m.askSeq
	type waiting struct {
		state string
		seq   int64
		size  int
	}
	var live []waiting
	held := a.size()
	for s, o := range m.asked {
		switch {
		case now.After(o.expires):
			delete(m.asked, s) // never answered
		case o.session == sess:
			live = append(live, waiting{s, o.seq, o.size()})
			held += o.size()
		}
	}
	// The session's oldest are forgotten first, until the new question
	// fits.
	slices.SortFunc(live, func(x, y waiting) int { return cmp.Compare(x.seq, y.seq) })
	for i := 0; i < len(live) && (len(live)-i >= maxAsked || held > maxAskedBytes); i++ {
		delete(m.asked, live[i].state)
		held -= live[i].size
	}
	m.asked[state] = a
	m.mu.Unlock()
	// resultType is not settable from outside the SDK: the result is
	// decoded from its wire form.
	raw, err := json.Marshal(map[string]any{
		"content":      []any{},
		"resultType":   "input_required",
		"requestState": state,
		"inputRequests": map[string]any{guard.AskInputID: map[string]any{
			"method": "elicitation/create",
			"params": &mcp.ElicitParams{Mode: "form", Message: question, RequestedSchema: guard.ApproveSchema()},
		}},
	})
	var res mcp.CallToolResult
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil {
		return blocked(guard.CodeGuard, "The guardrails could not ask for approval ("+err.Error()+"); it is blocked.\nCode: "+guard.CodeGuard)
	}
	res.Content = nil
	return &res, nil
}

// list adds the guard's own tools to a tools/list result and narrows it.
func (m *middleware) list(req mcp.Request, res mcp.Result) (mcp.Result, error) {
	if !m.g.Narrows() && len(m.cfg.Tools) == 0 {
		return res, nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	first := true
	if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil && p.Cursor != "" {
		first = false
	}
	raw, _, err = guard.AddTools(raw, m.cfg.Tools, first)
	if err != nil {
		return nil, err
	}
	c, err := m.conn(req.GetSession())
	if err != nil {
		return nil, err
	}
	out, err := c.FilterTools(raw)
	if err != nil {
		return nil, err
	}
	var l mcp.ListToolsResult
	if err := json.Unmarshal(out, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// decodeResult turns the guard's result into the SDK's.
// handNotes gives a call's notes to the host's Config.Notes; false when
// it panicked, and the notes must reach the agent another way.
func (m *middleware) handNotes(ctx context.Context, notes string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	m.cfg.Notes(ctx, notes)
	return true
}

// withNotes is res with notes in it as the proxy (and the middleware
// without Config.Notes) hands them to the agent (guard.FinishOptions
// AppendNotes): where the host's Notes panicked, so that neither the
// notes nor the host's process are lost. A block's one text item gets
// them first, a blank line before the rejection, so that it still ends
// with the code's line; another result gets them as a last text item. A
// result that is not a CallToolResult is returned as it is.
func withNotes(res mcp.Result, notes string) mcp.Result {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return res
	}
	if t, ok := blockText(r); ok {
		t.Text = notes + "\n\n" + t.Text
		return r
	}
	r.Content = append(r.Content, &mcp.TextContent{Text: notes})
	return r
}

// blockText is the one text item of a block result (_meta["oarc/code"]).
func blockText(r *mcp.CallToolResult) (*mcp.TextContent, bool) {
	if !r.IsError || len(r.Content) != 1 || r.Meta["oarc/code"] == nil {
		return nil, false
	}
	t, ok := r.Content[0].(*mcp.TextContent)
	return t, ok
}

func decodeResult(out json.RawMessage) (mcp.Result, error) {
	var r mcp.CallToolResult
	if err := json.Unmarshal(out, &r); err != nil {
		return blocked(guard.CodeGuard, "The guardrails could not rebuild the result ("+err.Error()+"); it is withheld.\nCode: "+guard.CodeGuard)
	}
	return &r, nil
}

// blocked is a block result built here, when the guard could not even be
// asked.
func blocked(code, text string) (mcp.Result, error) {
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: text}},
		IsError: true,
		Meta:    mcp.Meta{"oarc/code": code},
	}, nil
}

// checkedKey is the context key of a call that a check already evaluated
// at tool.pre_invoke ([Checker.CallTools]): a *checked.
type checkedKey struct{}

// checked is a call a check evaluated: its evaluation k, the call it is
// about (callKey) and whether the middleware took it already.
type checked struct {
	k    *guard.Call
	call string
	used atomic.Bool
}

// Checker is sending middleware for an mcp.Client, as [Client] is, that
// also evaluates the tool calls of one model turn as one check (spec
// 5.11) for a host that holds them together: every call reads the
// session as it was before the turn, rules see every call's tool in
// batch_tools, and the turn's updates are applied as one step.
type Checker struct{ m *middleware }

// NewChecker returns a Checker over g; cfg is as for [Client].
func NewChecker(g *guard.Guard, cfg Config) *Checker {
	return &Checker{m: &middleware{g: g, cfg: cfg, conns: map[mcp.Session]*guard.Conn{}, asked: map[string]askedCall{}}}
}

// Middleware is the Checker's sending middleware: add it to the client
// (mcp.Client.AddSendingMiddleware) whose sessions CallTools is given.
func (c *Checker) Middleware() mcp.Middleware { return c.m.wrap }

// CallTools evaluates calls as one check at tool.pre_invoke in the session
// of cs, then sends the calls it did not block, in order, each evaluated
// after the call as any other (its result, its provenance). It returns
// one result and one error per call: a blocked call's result is the
// rejection (isError, _meta["oarc/code"]) and never reaches the server;
// a blocked call does not block the others unless a rule reads
// batch_tools to say so. A call whose params cannot be read is blocked
// with guard.CodeGuard. The client of cs must have the Checker's
// [Checker.Middleware]: the result of a call it did not see is withheld
// (guard.CodeGuard), never returned unevaluated.
func (c *Checker) CallTools(ctx context.Context, cs *mcp.ClientSession, calls []*mcp.CallToolParams) ([]*mcp.CallToolResult, []error) {
	res := make([]*mcp.CallToolResult, len(calls))
	errs := make([]error, len(calls))
	specs := make([]guard.CallSpec, len(calls))
	for i, p := range calls {
		if p == nil {
			continue
		}
		specs[i].Name = p.Name
		if p.Arguments != nil {
			args, err := json.Marshal(p.Arguments)
			if err != nil {
				// Not JSON: the guard refuses to decode it, and blocks.
				args = json.RawMessage("not JSON")
			}
			specs[i].Args = args
		}
	}
	opts := guard.FinishOptions{AppendNotes: c.m.cfg.Notes == nil}
	conn, err := c.m.conn(cs)
	if err != nil {
		for i := range calls {
			r, err := refused(err)
			res[i], _ = r.(*mcp.CallToolResult)
			errs[i] = err
		}
		return res, errs
	}
	ks := conn.Check(ctx, specs)
	for i, k := range ks {
		if calls[i] == nil {
			res[i], errs[i] = nil, errors.New("mcpguard: a nil call")
			continue
		}
		if k.Blocked() != nil {
			r, err := decodeResult(k.Finish(ctx, nil, 0, opts))
			res[i], _ = r.(*mcp.CallToolResult)
			errs[i] = err
		} else {
			ck := &checked{k: k, call: callKey(calls[i].Name, specs[i].Args)}
			res[i], errs[i] = cs.CallTool(context.WithValue(ctx, checkedKey{}, ck), calls[i])
			if !ck.used.Load() {
				// No middleware of the guard took the call (cs's client
				// lacks c.Middleware()): its result was never evaluated.
				r, err := refused(errors.New("the call went out without the Checker's middleware on the client, and its result was not evaluated"))
				res[i], _ = r.(*mcp.CallToolResult)
				errs[i] = err
			}
		}
		if n := k.Notes(); n != "" && c.m.cfg.Notes != nil && k.Blocked() != nil && !c.m.handNotes(ctx, n) {
			res[i] = withNotes(res[i], n).(*mcp.CallToolResult)
		}
	}
	return res, errs
}
