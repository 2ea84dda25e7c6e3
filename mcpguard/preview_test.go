package mcpguard_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
)

// A client of MCP 2026-07-28 gets the question back in the result and
// retries the call with the answer: one action, evaluated twice. The
// first round is only a preview (guard.Conn.Preview), so the approved
// call is the session's first: examples/mcp's REPEAT_NUDGE (a nudge on
// an exact repeat of the last call) does not fire on it, where it fired
// on every approved deploy when the first round counted as a call. The
// second deploy is a repeat, and nudged.
func TestAskModernOneOccurrence(t *testing.T) {
	var deploys atomic.Int32
	var mu sync.Mutex
	var notes []string
	cfg := mcpguard.Config{Notes: func(_ context.Context, n string) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}}
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	cfg.Server = guard.Server{ID: "everything", Configured: true, Enabled: true}
	srv := deployServer(&deploys)
	srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil) // the latest version: 2026-07-28
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	for i, wantNudge := range []bool{false, true} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || strings.Join(textOf(res), "|") != "deployed" || deploys.Load() != int32(i+1) {
			t.Fatalf("deploy %d: isError %v text %q, %d deploys", i+1, res.IsError, textOf(res), deploys.Load())
		}
		mu.Lock()
		got := strings.Join(notes, "\n")
		notes = notes[:0]
		mu.Unlock()
		if nudged := strings.Contains(got, "Code: REPEAT_NUDGE"); nudged != wantNudge {
			t.Errorf("deploy %d: REPEAT_NUDGE fired %v, want %v (notes %q)", i+1, nudged, wantNudge, got)
		}
	}
}
