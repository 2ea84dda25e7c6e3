package mcpguard_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
)

const (
	askQuestion  = "This action needs a person's approval before it runs.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	askRejection = "A person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	askUnasked   = "This action needs a person's approval, and no person could be asked; it is blocked.\n" + askRejection
)

// deployServer is a Go MCP server with a deploy tool (guard/testdata/
// everything's ASK_DEPLOY asks a person before it runs); deploys counts
// the calls that reached it.
func deployServer(deploys *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "deploy", InputSchema: &jsonSchemaObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		deploys.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
	})
	return s
}

// callDeploy connects client to the deploy server, guarded by side's
// middleware, and calls deploy once.
func callDeploy(t *testing.T, side string, client *mcp.Client, cfg mcpguard.Config, deploys *atomic.Int32) *mcp.CallToolResult {
	t.Helper()
	return callDeployAt(t, side, client, "", cfg, deploys)
}

// callDeployAt is callDeploy with a client of protocol version ("": the
// latest).
func callDeployAt(t *testing.T, side string, client *mcp.Client, version string, cfg mcpguard.Config, deploys *atomic.Int32) *mcp.CallToolResult {
	t.Helper()
	res, err := tryDeploy(t, side, client, version, cfg, deploys)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// tryDeploy is callDeploy that returns the call's error.
func tryDeploy(t *testing.T, side string, client *mcp.Client, version string, cfg mcpguard.Config, deploys *atomic.Int32) (*mcp.CallToolResult, error) {
	t.Helper()
	cfg.Server = guard.Server{ID: "everything", Configured: true, Enabled: true}
	// Notes go to the host, so that the result is the tool's alone.
	cfg.Notes = func(context.Context, string) {}
	srv := deployServer(deploys)
	if side == "client" {
		client.AddSendingMiddleware(mcpguard.Client(newGuard(t), cfg))
	} else {
		srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
}

// wantBlocked checks a block result with the text and the rule's code.
func wantBlocked(t *testing.T, res *mcp.CallToolResult, text string, deploys *atomic.Int32) {
	t.Helper()
	if !res.IsError || res.Meta["oarc/code"] != "ASK_DEPLOY" || strings.Join(textOf(res), "|") != text {
		t.Errorf("want the block %q, got isError %v meta %v text %q", text, res.IsError, res.Meta, textOf(res))
	}
	if n := deploys.Load(); n != 0 {
		t.Errorf("a blocked deploy reached the server %d times", n)
	}
}

// TestAskElicitation: receiving middleware asks the client through MCP
// elicitation (spec 5.12, 11) with the question and a requested schema of
// one boolean approve: an elicitation/create request to a client of
// 2025-06-18, the same request among the result's inputRequests to a
// client of 2026-07-28 (multi round-trip requests), which retries the
// call with the answer. A client that answers yes lets the deploy run; one
// that answers no, one that declines and one that cancels get the rule's
// rejection; a client without the elicitation capability gets the
// rejection that says that no one could be asked. The deploy never
// reaches the server unless approved.
func TestAskElicitation(t *testing.T) {
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("protocol "+version, func(t *testing.T) { testAskElicitation(t, version) })
	}
}

func testAskElicitation(t *testing.T, version string) {
	answer := func(action string, approve any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Message != askQuestion {
				t.Errorf("elicitation message %q, want %q", req.Params.Message, askQuestion)
			}
			props, _ := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)
			if ap, _ := props["approve"].(map[string]any); len(props) != 1 || ap["type"] != "boolean" {
				t.Errorf("requested schema %v, want one boolean approve", req.Params.RequestedSchema)
			}
			r := &mcp.ElicitResult{Action: action}
			if approve != nil {
				r.Content = map[string]any{"approve": approve}
			}
			return r, nil
		}
	}
	for _, tc := range []struct {
		name    string
		handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		want    string // "" : the deploy ran
	}{
		{"yes", answer("accept", true), ""},
		{"no", answer("accept", false), askRejection},
		{"declines", answer("decline", nil), askRejection},
		{"cancels", answer("cancel", nil), askRejection},
		{"fails", func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("the person's terminal is gone")
		}, askRejection},
		{"without the capability", nil, askUnasked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var deploys atomic.Int32
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: tc.handler})
			res, err := tryDeploy(t, "server", client, version, mcpguard.Config{}, &deploys)
			if err != nil {
				// Under multi round-trip requests a client that cannot
				// answer never retries: the call fails on its side, and
				// the deploy never ran.
				if version != "" || tc.name != "fails" || deploys.Load() != 0 {
					t.Fatalf("%v (%d deploys)", err, deploys.Load())
				}
				return
			}
			if version == "" && tc.name == "fails" {
				t.Fatalf("a failed answer came back as %v", textOf(res))
			}
			if tc.want != "" {
				wantBlocked(t, res, tc.want, &deploys)
				return
			}
			if res.IsError || strings.Join(textOf(res), "|") != "deployed" || deploys.Load() != 1 {
				t.Errorf("approved deploy: isError %v text %q, %d deploys", res.IsError, textOf(res), deploys.Load())
			}
		})
	}
}

// TestAskTimeout: an answer later than AskTimeout is no answer: the
// deploy is blocked with the rule's rejection (a 2025-06-18 client's
// elicitation is cancelled; a 2026-07-28 client's late yes finds its
// question expired).
func TestAskTimeout(t *testing.T) {
	t.Run("2025-06-18", func(t *testing.T) {
		var deploys atomic.Int32
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				<-ctx.Done() // the guard gives up first and cancels
				return nil, ctx.Err()
			},
		})
		res := callDeployAt(t, "server", client, "2025-06-18", mcpguard.Config{AskTimeout: 50 * time.Millisecond}, &deploys)
		wantBlocked(t, res, askRejection, &deploys)
	})
	t.Run("2026-07-28", func(t *testing.T) {
		var deploys atomic.Int32
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				time.Sleep(150 * time.Millisecond)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			},
		})
		res := callDeploy(t, "server", client, mcpguard.Config{AskTimeout: 50 * time.Millisecond}, &deploys)
		wantBlocked(t, res, askRejection, &deploys)
	})
}

// TestAskAnswerOnce: an answer approves the call it was asked about, once
// and in time: a retry that carries an approval with a requestState the
// guard never issued is no answer (the call is asked about afresh), one
// with a state already used, or of another call, is no answer and is
// blocked with the rule's rejection.
func TestAskAnswerOnce(t *testing.T) {
	var deploys atomic.Int32
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}, Notes: func(context.Context, string) {}}
	srv := deployServer(&deploys)
	srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
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
	yes := mcp.InputResponseMap{"oarc/approve": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}
	call := func(state string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: "deploy", Arguments: args}
		if state != "" {
			p.InputResponses, p.RequestState = yes, state
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := call("", map[string]any{})
	if !first.NeedsInput() || first.RequestState == "" || deploys.Load() != 0 {
		t.Fatalf("first round: %+v", first)
	}
	// A state the guard never issued is no answer to it (it is the
	// tool's own, as for the proxy: TestReviewRvMToolsOwnRoundAsked): the
	// deploy does not run, and the call is asked about afresh.
	if res := call("forged", map[string]any{}); !res.NeedsInput() || res.RequestState == "" || res.RequestState == "forged" || deploys.Load() != 0 {
		t.Errorf("forged state: %+v, %d deploys", res, deploys.Load())
	}
	// Another call's approval approves nothing: the question was about {}.
	second := call("", map[string]any{})
	if res := call(second.RequestState, map[string]any{"env": "prod"}); !res.IsError || deploys.Load() != 0 {
		t.Errorf("approval of another call: %v", textOf(res))
	}
	if res := call(first.RequestState, map[string]any{}); res.IsError || deploys.Load() != 1 {
		t.Errorf("approved retry: %v, %d deploys", textOf(res), deploys.Load())
	}
	if res := call(first.RequestState, map[string]any{}); !res.IsError || deploys.Load() != 1 {
		t.Errorf("approval used twice: %v, %d deploys", textOf(res), deploys.Load())
	}
}

// TestAskHost: the middleware hands the question to the host's function
// (Config.Ask), on either side; sending middleware without one has no way
// to ask and blocks.
func TestAskHost(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		for _, tc := range []struct {
			name string
			ask  func(context.Context, string) (bool, error)
			want string
		}{
			{"yes", func(_ context.Context, q string) (bool, error) { return q == askQuestion, nil }, ""},
			{"no", func(context.Context, string) (bool, error) { return false, nil }, askRejection},
			{"error", func(context.Context, string) (bool, error) { return true, errors.New("boom") }, askRejection},
			{"panics", func(context.Context, string) (bool, error) { panic("boom") }, askRejection},
			{"cannot ask", func(context.Context, string) (bool, error) { return false, guard.ErrCannotAsk }, askUnasked},
		} {
			t.Run(side+"/"+tc.name, func(t *testing.T) {
				var deploys atomic.Int32
				client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
				res := callDeploy(t, side, client, mcpguard.Config{Ask: tc.ask}, &deploys)
				if tc.want != "" {
					wantBlocked(t, res, tc.want, &deploys)
					return
				}
				if res.IsError || deploys.Load() != 1 {
					t.Errorf("approved deploy: isError %v text %q", res.IsError, textOf(res))
				}
			})
		}
	}
	t.Run("client/none", func(t *testing.T) {
		var deploys atomic.Int32
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		wantBlocked(t, callDeploy(t, "client", client, mcpguard.Config{}, &deploys), askUnasked, &deploys)
	})
}
