package mcpguard_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/runtime"
)

// TestCheckerCallTools: a model turn's calls evaluated as one check
// (spec 5.11). Two identical directory_tree calls in one check both read
// the session as it was before the turn (repeat_count 0: no nudge, where
// one by one the second is nudged); a blocked call (move_file) never
// reaches the server and does not block its siblings (write_file goes
// ahead); calls after the check read its updates (the third identical
// call is nudged).
func TestCheckerCallTools(t *testing.T) {
	var writes atomic.Int32
	var notes []string
	cfg := mcpguard.Config{
		Server:   guard.Server{ID: "fs", TrustTier: "trusted", Configured: true, Enabled: true},
		Profiles: runtime.ProfileProvenance,
		Notes:    func(_ context.Context, n string) { notes = append(notes, n) },
	}
	ch := mcpguard.NewChecker(newGuard(t), cfg)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	client.AddSendingMiddleware(ch.Middleware())
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := fakeFS(&writes).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	tree := func() *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: "directory_tree", Arguments: map[string]any{"path": "/"}}
	}
	res, errs := ch.CallTools(ctx, cs, []*mcp.CallToolParams{
		tree(),
		{Name: "move_file", Arguments: map[string]any{"source": "a"}},
		{Name: "write_file", Arguments: map[string]any{"path": "/o"}},
		tree(),
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if !res[1].IsError || res[1].Meta["oarc/code"] != "NOT_ALLOWLISTED" {
		t.Errorf("move_file: %+v", res[1])
	}
	if res[2].IsError || writes.Load() != 1 {
		t.Errorf("write_file beside a blocked call: %+v (writes %d)", res[2], writes.Load())
	}
	for _, i := range []int{0, 3} {
		if tx := textOf(res[i]); res[i].IsError || len(tx) != 2 || !strings.HasSuffix(tx[1], "Code: TREE_WARN") {
			t.Errorf("directory_tree %d: %v", i, tx)
		}
	}
	if len(notes) != 0 {
		t.Errorf("notes after the check: %q (each identical call read the session before the turn)", notes)
	}
	// After the check, the session holds both calls: the next identical
	// call is the third in a row.
	if _, err := cs.CallTool(ctx, tree()); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.HasSuffix(notes[0], "Code: REPEAT_NUDGE") {
		t.Errorf("notes after a third identical call: %q", notes)
	}
}
