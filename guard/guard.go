// Package guard is the MCP guard of spec 11, written once for every
// catalog and shared by the Go SDK middleware (module
// github.com/oarc/oarc/mcpguard) and the stdio proxy that `oarc guard`
// builds (package guard/proxy): it turns a tools/call into the
// occurrences of spec 11 (tool.pre_invoke, tool.post_invoke,
// content.tool_result), evaluates them, and turns the decisions into what
// the client receives: a block result, the call forwarded with a banner
// and notes appended, a result with its text units rewritten by a
// transform, provenance recorded with the node id in the result's _meta.
// It also narrows tools/list under an enforced deny-by-default.
//
// The guard works on MCP's JSON (a call's arguments and a result as raw
// JSON), so that the proxy, which relays JSON-RPC, and the middleware,
// which marshals the SDK's types, behave the same. It links only the
// standard library, the runtime and the built-in validators: the proxy is
// built from oarc's embedded source, offline.
//
// A compilation set reaches the guard through a [Set], which `oarc gen
// -guard` writes into the set's package (func Guard): the only part of
// the guard that depends on the catalog, a few typed assignments from an
// [Occurrence] to the catalog's occurrence, and the set's [Info] computed
// from the IR at compile time.
package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/validators"
)

// Anchor is one of the anchors the guard evaluates.
type Anchor uint8

// The anchors of a tools/call (spec 11).
const (
	PreInvoke  Anchor = iota + 1 // tool.pre_invoke
	PostInvoke                   // tool.post_invoke
	ToolResult                   // content.tool_result
)

var anchorIDs = [...]string{"", "tool.pre_invoke", "tool.post_invoke", "content.tool_result"}

// String is the anchor's id in the default catalog.
func (a Anchor) String() string {
	if int(a) < len(anchorIDs) {
		return anchorIDs[a]
	}
	return ""
}

// Profiles is what the guard supplies at anchor a on a connection whose
// ConnOptions.Profiles are conn: tool and mcp, and content-safety after
// the call (the result's text is the content).
func Profiles(a Anchor, conn runtime.ProfileSet) runtime.ProfileSet {
	p := runtime.ProfileTool | runtime.ProfileMcp | conn
	if a != PreInvoke {
		p |= runtime.ProfileContentSafety
	}
	return p
}

// CodeGuard is the code of a call the guard could not evaluate (spec 11:
// a panic or an internal error blocks the call): it is never forwarded.
const CodeGuard = "OAR_GUARD"

// Occurrence is one occurrence of a tools/call, as the guard builds it
// (spec 11); a [Set] copies it into its catalog's occurrence. Facts a
// catalog does not declare are left out there.
type Occurrence struct {
	Anchor Anchor
	// Profiles are the supplied profiles.
	Profiles runtime.ProfileSet
	// Tool is mcp_S_T; QualifiedTool the same (mcp_qualified_tool).
	Tool     string
	ServerID string // mcp_server_id
	ToolName string // mcp_tool_name
	// Args are the call's arguments (absent or null: an empty map).
	Args             map[string]any
	ServerConfigured bool // mcp_server_configured
	ServerEnabled    bool // mcp_server_enabled
	CallOK           bool // mcp_call_ok
	ErrorCode        string
	SchemaMatched    bool // mcp_schema_matched
	// Content is the result's text at content.tool_result, and
	// ContentLength its length in code points (content_length).
	Content       string
	ContentLength int64
	// Inputs are the ids of the provenance nodes that feed the call.
	Inputs []string
}

// Set is a compilation set as the guard drives it. `oarc gen -guard`
// writes an implementation into the set's package (func Guard).
type Set interface {
	// Evaluate evaluates o with the set's rules into d.
	Evaluate(ctx context.Context, o *Occurrence, s *runtime.Session, d *runtime.Decision) error
	// Info describes the set; it is computed at compile time.
	Info() *Info
}

// Info is what the guard knows of a set from the compiler.
type Info struct {
	Name, Digest string
	// Anchors are the guard's anchors at which the set has rules or
	// denies by default: the others are not evaluated.
	Anchors []Anchor
	// Deny is tool.pre_invoke's deny-by-default (spec 5.8), nil if none.
	Deny *Deny
	// Allow are the selectors of the enforced allow rules of
	// tool.pre_invoke, on the facts that name a tool: tools/list keeps a
	// tool that one of them can allow (spec 11, "Tool lists").
	Allow []Selector
	// Bindings are the result bindings of the set's packs, in pack order
	// (spec 11, "Result bindings").
	Bindings []Binding
	// Compile compiles a binding's JSON Schema; the generated Info of a set
	// with bindings names the one of package guard/jsonschema.
	Compile SchemaCompiler
	// HostProviders are the ids of the rules that call a function only a
	// host provider answers (not mcp_field_* and the like, which the
	// guard answers), sorted.
	HostProviders []string
}

// Has reports whether the set has rules (or a deny-by-default) at a.
func (in *Info) Has(a Anchor) bool {
	for _, x := range in.Anchors {
		if x == a {
			return true
		}
	}
	return false
}

// Deny is a deny-by-default code.
type Deny struct {
	Code    string
	Monitor bool
}

// Selector holds the clauses of one allow rule's selector on the facts
// that name a tool; a nil list is no clause on that fact (any value). A
// clause on another fact cannot be judged without the call, so it does
// not count against the tool.
type Selector struct {
	Tool, ServerID, ToolName, QualifiedTool []string
}

// matches reports whether a call of tool of server could satisfy s.
func (s *Selector) matches(server, tool, qualified string) bool {
	in := func(l []string, v string) bool {
		if l == nil {
			return true
		}
		for _, x := range l {
			if x == v {
				return true
			}
		}
		return false
	}
	return in(s.Tool, qualified) && in(s.ServerID, server) && in(s.ToolName, tool) && in(s.QualifiedTool, qualified)
}

// Binding is a result binding (spec 11): results of tool Tool of server
// Server ("" matches any) are validated against Schema.
type Binding struct {
	Pack, Server, Tool string
	// Path is the schema file, relative to its pack, for messages.
	Path string
	// Schema is the JSON Schema's text.
	Schema string
}

// SchemaCompiler compiles the JSON Schema of a binding (url names it in
// messages) into a validator of decoded JSON values (json.Number for
// numbers).
type SchemaCompiler func(url string, schema []byte) (func(v any) bool, error)

// Qualified is the tool fact of tool T of server S (spec 11): mcp_S_T.
func Qualified(server, tool string) string { return "mcp_" + server + "_" + tool }

// ServerID normalises a server's name into a server id as the proxy does
// with the serverInfo.name an upstream reports (spec 11): lowercased, each
// run of characters other than a-z and 0-9 as one "_", without leading or
// trailing "_".
func ServerID(name string) string {
	var b strings.Builder
	pending := false
	for _, r := range strings.ToLower(name) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if pending && b.Len() > 0 {
				b.WriteByte('_')
			}
			pending = false
			b.WriteRune(r)
			continue
		}
		pending = true
	}
	return b.String()
}

// Guard evaluates the MCP tool calls of one compilation set. It is safe
// for concurrent use; a [Conn] holds the state of one MCP session.
type Guard struct {
	set      Set
	info     *Info
	bindings []compiled
}

type compiled struct {
	Binding
	valid func(any) bool
}

// New returns the guard of a set. It compiles the set's bindings: a
// schema that does not compile (the compiler checked it at load) or a set
// with bindings and no compiler is an error.
func New(set Set) (*Guard, error) {
	if set == nil {
		return nil, errors.New("guard: nil set")
	}
	info := set.Info()
	if info == nil {
		info = &Info{}
	}
	g := &Guard{set: set, info: info}
	for _, b := range info.Bindings {
		if info.Compile == nil {
			return nil, errors.New("guard: the set has result bindings but no schema compiler")
		}
		v, err := info.Compile(b.Pack+"/"+b.Path, []byte(b.Schema))
		if err != nil {
			return nil, fmt.Errorf("guard: binding %s/%s: %v", b.Pack, b.Path, err)
		}
		g.bindings = append(g.bindings, compiled{b, v})
	}
	return g, nil
}

// Info describes the guard's set.
func (g *Guard) Info() *Info { return g.info }

// Narrows reports whether tools/list results are narrowed: tool.pre_invoke
// denies by default, enforced (spec 11, "Tool lists").
func (g *Guard) Narrows() bool { return g.info.Deny != nil && !g.info.Deny.Monitor }

// MayAllow reports whether some enforced allow rule of tool.pre_invoke can
// allow a call of tool of server, judged from the rules' selectors; a
// tool no rule can allow is left out of tools/list when [Guard.Narrows].
func (g *Guard) MayAllow(server, tool string) bool {
	q := Qualified(server, tool)
	for i := range g.info.Allow {
		if g.info.Allow[i].matches(server, tool, q) {
			return true
		}
	}
	return false
}

// Server is what a host configures of an MCP server (spec 11).
type Server struct {
	// ID is the server id S (mcp_server_id).
	ID string
	// Origin, TrustTier and Labels describe the results of its tools in
	// the provenance graph (spec 5.7).
	Origin, TrustTier string
	Labels            []string
	// Configured and Enabled are mcp_server_configured and
	// mcp_server_enabled from the host's registry.
	Configured, Enabled bool
}

// ConnOptions configure a [Conn].
type ConnOptions struct {
	// Profiles are supplied at every occurrence beyond tool and mcp (and
	// content-safety after the call): runtime.ProfileSession,
	// runtime.ProfileProvenance, as the host gives them.
	Profiles runtime.ProfileSet
	// AllInputs makes every node recorded so far the inputs of a call (the
	// proxy, which never sees the model's messages); otherwise a call's
	// inputs are those the host put in its context ([WithInputs]).
	AllInputs bool
	// Shared says that other processes record into the same session (a
	// session store shared by several proxies): with AllInputs, the
	// latest node is looked up in the store before each call.
	Shared bool
	// Ask puts the question of an ask decision (spec 5.12) to a person and
	// reports whether they approved. The call goes ahead only when it
	// returns true and no error; false, an error or a panic blocks it with
	// the rule's rejection, and [ErrCannotAsk] (or a nil Ask: no way to
	// ask) with a rejection that says that approval was needed and could
	// not be asked. The MCP guard asks through elicitation when the client
	// declared that capability.
	Ask func(ctx context.Context, question string) (approved bool, err error)
}

// ErrCannotAsk is what a [ConnOptions.Ask] returns when it has no way to
// put a question to a person (an MCP client without the elicitation
// capability): the call is blocked with [runtime.Decision.Unasked].
var ErrCannotAsk = errors.New("no way to ask a person")

// Conn is one MCP session (one client connection) as the guard sees it:
// one oarc session (spec 11).
type Conn struct {
	g       *Guard
	session *runtime.Session
	opts    ConnOptions

	mu     sync.Mutex
	server Server
	// The proxy's chain of result nodes (AllInputs): r1, r2, ..., each
	// the parent of the next, so the last one's ancestry is everything
	// recorded so far. seq is the number of the last one, 0 before any.
	seq    int64
	probed bool
}

// NewConn starts the guard's state of one MCP session.
func (g *Guard) NewConn(session *runtime.Session, server Server, opts ConnOptions) *Conn {
	return &Conn{g: g, session: session, server: server, opts: opts}
}

// Session is the connection's oarc session.
func (c *Conn) Session() *runtime.Session { return c.session }

// SetServer replaces the server's configuration (the proxy learns the
// server id when the session is initialised).
func (c *Conn) SetServer(s Server) {
	c.mu.Lock()
	c.server = s
	c.mu.Unlock()
}

// Server is the server's configuration.
func (c *Conn) Server() Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.server
}

type inputsKey struct{}

// WithInputs returns a context that names the provenance nodes feeding a
// call (spec 5.7: the message that proposes it), for the middleware: the
// inputs of every occurrence of the call and the parents of its result's
// node.
func WithInputs(ctx context.Context, ids ...string) context.Context {
	return context.WithValue(ctx, inputsKey{}, append([]string(nil), ids...))
}

// Inputs returns the node ids [WithInputs] put into ctx.
func Inputs(ctx context.Context) []string {
	ids, _ := ctx.Value(inputsKey{}).([]string)
	return ids
}

// Builtin returns the built-in validator with the given id (oarc.secrets,
// oarc.pii) as a function of an occurrence's anchor id, content and
// tool_args: the generated Guard registers those a set names and its Env
// lacks.
func Builtin(id string) (func(anchor, content string, args map[string]any) (runtime.Detection, error), bool) {
	v, ok := validators.ByID(id)
	if !ok {
		return nil, false
	}
	return func(anchor, content string, args map[string]any) (runtime.Detection, error) {
		return v.Detect(validators.IsContentAnchor(anchor), content, args)
	}, true
}
