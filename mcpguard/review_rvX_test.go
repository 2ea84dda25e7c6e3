package mcpguard_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
)

// The yes to a question about a call approves that call, with the
// arguments as the tool gets them: not another call whose arguments only
// decode to the same float64 (a number beyond 2^53, or one spelt
// otherwise), which the tool gets as written.
func TestReviewRvXAnswerBindsExactArguments(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "deploy", InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		got = append(got, string(req.Params.Arguments))
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
	})
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}, Notes: func(context.Context, string) {}}
	srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
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
	yes := mcp.InputResponseMap{"oarc/approve": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}
	for _, tc := range []struct{ asked, retried string }{
		{`{"n":9007199254740992}`, `{"n":9007199254740993}`},
		{`{"n":1}`, `{"n":1.0}`},
	} {
		first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(tc.asked)})
		if err != nil {
			t.Fatal(err)
		}
		if !first.NeedsInput() || first.RequestState == "" {
			t.Fatalf("first round: %+v", first)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(tc.retried), RequestState: first.RequestState, InputResponses: yes})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		ran := append([]string(nil), got...)
		mu.Unlock()
		if !res.IsError || res.Meta["oarc/code"] != "ASK_DEPLOY" || len(ran) != 0 {
			t.Errorf("the yes about %s approved %s: %v, the tool got %q", tc.asked, tc.retried, textOf(res), ran)
		}
	}
}

// The guard's requestState and the person's answer to its question are
// the guard's: the approved call reaches the tool without them, as the
// proxy forwards it, so that a tool with multi round-trip requests of
// its own does not take the guard's state for one of its own, nor see
// the answer.
func TestReviewRvXToolGetsNoGuardState(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "deploy", InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		seen = append(seen, req.Params.RequestState)
		for k := range req.Params.InputResponses {
			seen = append(seen, k)
		}
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
	})
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}, Notes: func(context.Context, string) {}}
	srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
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
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.IsError || len(seen) != 1 || seen[0] != "" {
		t.Errorf("the approved call: isError %v %v; the tool saw the state and answers %q", res.IsError, textOf(res), seen)
	}
}

// A requestState the guard sent and no longer waits for (used, expired,
// forgotten) is still the guard's: it and the answers with it do not
// reach a tool either.
func TestReviewRvXToolGetsNoStaleGuardState(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	for _, name := range []string{"deploy", "echo"} {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			seen = append(seen, req.Params.Name+" "+req.Params.RequestState)
			for k := range req.Params.InputResponses {
				seen = append(seen, k)
			}
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	}
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}, Notes: func(context.Context, string) {}}
	srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
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
	yes := mcp.InputResponseMap{"oarc/approve": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first round: %v %+v", err, first)
	}
	for _, name := range []string{"deploy", "echo"} {
		// The first use approves the deploy; the second is of a used state.
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}, RequestState: first.RequestState, InputResponses: yes}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "deploy " || seen[1] != "echo " {
		t.Errorf("the tools saw the guard's states and answers: %q", seen)
	}
}
