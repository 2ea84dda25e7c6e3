package mcpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/runtime"
)

// TestReviewRvMURLOnlyElicitation: a client that declared elicitation in
// URL mode only ({"elicitation":{"url":{}}}, MCP 2025-11-25) cannot
// answer a form, and MCP forbids a server to send it one: no one can be
// asked, and the call is blocked with the rejection that says so, on
// either protocol version (the proxy: TestReviewRvMURLOnlyElicitation in
// guard/proxy). The middleware sent it the form, and blocked with the
// rule's rejection as after a no.
func TestReviewRvMURLOnlyElicitation(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			var deploys atomic.Int32
			var asked atomic.Int32
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			})
			res, err := tryDeploy(t, "server", client, version, mcpguard.Config{}, &deploys)
			if err != nil {
				t.Fatalf("%v (asked %d times)", err, asked.Load())
			}
			wantBlocked(t, res, askUnasked, &deploys)
			if n := asked.Load(); n != 0 {
				t.Errorf("a client of URL elicitation only was sent a form %d times", n)
			}
		})
	}
}

// TestReviewRvMToolsOwnRoundAsked: a deploy that asks a question of its
// own (multi round-trip, 2026-07-28) under ASK_DEPLOY. The person
// approves the deploy, the tool asks which environment, and the client
// retries with the tool's requestState and answer: the guard took that
// retry for an answer to its own question (any requestState made the
// round answered), had no answer for ASK_DEPLOY, and blocked the deploy
// the person approved. A requestState that is not the guard's is the
// tool's: the round is asked about afresh, as the proxy does
// (TestProxyAskModern), and the tool gets its own answer.
func TestReviewRvMToolsOwnRoundAsked(t *testing.T) {
	var deploys atomic.Int32
	var got []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "deploy", InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, ok := req.Params.InputResponses["which"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{RequestState: "tool-state", InputRequests: mcp.InputRequestMap{"which": &mcp.ElicitParams{
				Mode: "form", Message: "Which environment?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}},
			}}}, nil
		}
		got = append(got, fmt.Sprintf("%s %v", req.Params.RequestState, r.Content["env"]))
		deploys.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
	})
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}, Notes: func(context.Context, string) {}}
	srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			if req.Params.Message == "Which environment?" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "prod"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
	if err != nil || res.IsError || deploys.Load() != 1 {
		t.Fatalf("the approved deploy: %v %q (%d deploys, asked %q)", err, textOf(res), deploys.Load(), asked)
	}
	if len(got) != 1 || got[0] != "tool-state prod" {
		t.Errorf("the tool got %q, want its own state and answer", got)
	}
}

// codeSeen is a set that records mcp_error_code at tool.post_invoke.
type codeSeen struct{ codes *[]string }

func (codeSeen) Info() *guard.Info {
	return &guard.Info{Name: "codeseen", Anchors: []guard.Anchor{guard.PreInvoke, guard.PostInvoke}}
}

func (s codeSeen) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Anchor == guard.PostInvoke {
		*s.codes = append(*s.codes, o.ErrorCode)
	}
	return nil
}

// TestReviewRvMErrorCodeAsSent: a tool handler of a Go server that fails
// with an error of its own (no JSON-RPC code) is answered on the wire
// with the code the SDK gives it; receiving middleware gave
// tool.post_invoke -32603 as mcp_error_code, which no client saw (and
// which a proxy in front of that server does not read). It is the code
// the client receives.
func TestReviewRvMErrorCodeAsSent(t *testing.T) {
	var codes []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "fail", InputSchema: &jsonSchemaObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("the disk is full")
	})
	g, err := guard.New(codeSeen{&codes})
	if err != nil {
		t.Fatal(err)
	}
	srv.AddReceivingMiddleware(mcpguard.Server(g, mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}}))
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	if want := strconv.FormatInt(we.Code, 10); len(codes) != 1 || codes[0] != want {
		t.Errorf("mcp_error_code %q, the client received code %s", codes, want)
	}
}

// rawSession is a client of 2026-07-28 written by hand, over an
// in-memory transport: each request names its capabilities in _meta
// (SEP-2575), which may differ from one request to the next.
type rawSession struct {
	t    *testing.T
	conn mcp.Connection
}

func rawConnect(t *testing.T, srv *mcp.Server) *rawSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); ss.Wait() })
	return &rawSession{t: t, conn: conn}
}

// call sends a request with the capabilities caps and returns its result.
func (s *rawSession) call(id int, method, params, caps string) map[string]any {
	s.t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if params != "" {
		meta = params + "," + meta
	}
	msg, err := jsonrpc.DecodeMessage([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, id, method, meta)))
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.conn.Write(ctx, msg); err != nil {
		s.t.Fatal(err)
	}
	for {
		m, err := s.conn.Read(ctx)
		if err != nil {
			s.t.Fatal(err)
		}
		r, ok := m.(*jsonrpc.Response)
		if !ok {
			continue
		}
		if r.Error != nil {
			s.t.Fatalf("%s: %v", method, r.Error)
		}
		var out map[string]any
		if err := json.Unmarshal(r.Result, &out); err != nil {
			s.t.Fatal(err)
		}
		return out
	}
}

// TestReviewRvMRequestCapabilities: a client of 2026-07-28 declares its
// capabilities in each request, and the proxy reads them from the call
// (modernElicit); the middleware read those of the session's first
// request. A call that declares elicitation, after a tools/list that did
// not, was blocked unasked; a call that declares none, after a request
// that did, was sent a question it said it cannot answer. Each call is
// now asked, or not, by its own capabilities.
func TestReviewRvMRequestCapabilities(t *testing.T) {
	const deploy = `"name":"deploy","arguments":{}`
	const asker, mute = `{"elicitation":{}}`, `{}`
	for _, tc := range []struct {
		name, first, call string
		asked             bool
	}{
		{"asks after a request without the capability", mute, asker, true},
		{"blocks after a request with the capability", asker, mute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var deploys atomic.Int32
			srv := deployServer(&deploys)
			srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}, Notes: func(context.Context, string) {}}))
			s := rawConnect(t, srv)
			s.call(1, "tools/list", "", tc.first)
			r := s.call(2, "tools/call", deploy, tc.call)
			if tc.asked {
				if r["resultType"] != "input_required" || r["requestState"] == nil {
					t.Fatalf("want the question sent back, got %v", r)
				}
				return
			}
			meta, _ := r["_meta"].(map[string]any)
			content, _ := r["content"].([]any)
			text := ""
			if len(content) == 1 {
				text, _ = content[0].(map[string]any)["text"].(string)
			}
			if r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" || text != askUnasked {
				t.Fatalf("want the block %q, got %v", askUnasked, r)
			}
		})
	}
}
