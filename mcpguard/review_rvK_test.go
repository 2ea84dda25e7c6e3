package mcpguard_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/runtime"
)

// Config.Session is the host's way to give an MCP session its oarc
// session (e.g. one kept in Redis). When it gives none (nil) or panics,
// the session's state is lost: evaluating with a fresh session in the
// process would be a silent fresh zero (counters, provenance, the record
// of calls), so every call is blocked with OAR_GUARD and never reaches
// the tool, and a panic does not take the host down.
func TestMiddlewareSessionFails(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		for _, how := range []string{"nil", "panic"} {
			t.Run(side+"/"+how, func(t *testing.T) {
				var writes atomic.Int32
				cfg := mcpguard.Config{
					Server:   guard.Server{ID: "fs", Configured: true, Enabled: true},
					Profiles: runtime.ProfileProvenance,
					Session: func(mcp.Session) *runtime.Session {
						if how == "panic" {
							panic("the session store is down")
						}
						return nil
					},
				}
				cs := connect(t, side, cfg, &writes)
				var res *mcp.CallToolResult
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							err = fmt.Errorf("panic: %v", r)
						}
					}()
					res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "/o"}})
				}()
				if err != nil || res == nil || !res.IsError || res.Meta["oarc/code"] != guard.CodeGuard || writes.Load() != 0 {
					t.Fatalf("want the call blocked with OAR_GUARD, got %v %+v (writes %d)", err, res, writes.Load())
				}
			})
		}
	}
}

// A Checker hands each call it evaluated to the middleware in the
// context of cs.CallTool. That context reaches the host's own handlers
// while the call is under way: the SDK's client fulfils a server's input
// requests (multi round-trip, here an elicitation) with the call's
// context, and a host whose model then calls a tool with it must not have
// that call taken for the checked one: move_file (not on the allowlist)
// went to the server unevaluated, under read_text_file's decision, and
// read_text_file's evaluation was finished with move_file's result.
func TestCheckerContextBoundToItsCall(t *testing.T) {
	var moves atomic.Int32
	srv := mcp.NewServer(&mcp.Implementation{Name: "fake-fs", Version: "1"}, nil)
	obj := &jsonSchemaObject
	srv.AddTool(&mcp.Tool{Name: "read_text_file", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r.Params.InputResponses == nil {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"e": &mcp.ElicitParams{
				Mode: "form", Message: "Which file?", RequestedSchema: map[string]any{"type": "object"},
			}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "move_file", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		moves.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "moved"}}}, nil
	})
	ck := mcpguard.NewChecker(newGuard(t), mcpguard.Config{Server: guard.Server{ID: "fs", Configured: true, Enabled: true}, Profiles: runtime.ProfileProvenance})
	var cs *mcp.ClientSession
	var inner *mcp.CallToolResult
	var innerErr error
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// The host, asked by the server, has its model call a tool
			// with the context the handler was given.
			inner, innerErr = cs.CallTool(ctx, &mcp.CallToolParams{Name: "move_file", Arguments: map[string]any{"source": "a", "destination": "b"}})
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	client.AddSendingMiddleware(ck.Middleware())
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err = client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	res, errs := ck.CallTools(ctx, cs, []*mcp.CallToolParams{{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}}})
	if errs[0] != nil || res[0] == nil || res[0].IsError || len(textOf(res[0])) != 1 || textOf(res[0])[0] != "read" {
		t.Fatalf("the checked call: %v %+v", errs[0], res[0])
	}
	if innerErr != nil || inner == nil || inner.Meta["oarc/code"] != "NOT_ALLOWLISTED" || moves.Load() != 0 {
		t.Fatalf("the call made in the checked call's context: %v %+v (moves %d)", innerErr, inner, moves.Load())
	}
}
