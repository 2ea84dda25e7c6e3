package mcpguard_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
)

// A call whose arguments are null is evaluated with tool_args = {} (spec
// 11: absent or null, an empty map); the tool handler behind receiving
// middleware got the null, which MCP's schema does not allow and a
// handler may read otherwise than {}. It gets what the rules read, as
// the proxy forwards it (TestProxyNullArgumentsForwardedAsEvaluated).
func TestServerNullArgumentsAsEvaluated(t *testing.T) {
	g, err := guard.New(pathBlock{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "fs", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "read", InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = append(got, string(req.Params.Arguments))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read"}}}, nil
	})
	srv.AddReceivingMiddleware(mcpguard.Server(g, mcpguard.Config{Server: guard.Server{ID: "fs", Configured: true, Enabled: true}}))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: json.RawMessage(`null`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "{}" {
		t.Errorf("the handler got arguments %q, want {} (result %q)", got, textOf(res))
	}
}
