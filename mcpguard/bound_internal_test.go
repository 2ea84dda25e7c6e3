package mcpguard

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/mcpguard/internal/testrules"
)

// The questions sent back to clients of 2026-07-28 and not answered yet
// are bounded per session: a client that never retries its calls (one
// whose person never answers) cannot grow the middleware without bound
// within Config.AskTimeout. Its oldest question is forgotten; another
// session's question is not.
func TestAskedBoundedPerSession(t *testing.T) {
	m := &middleware{asked: map[string]askedCall{}}
	other, noisy := new(mcp.ServerSession), new(mcp.ServerSession)
	state := func(res mcp.Result) string {
		t.Helper()
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r.RequestState == "" {
			t.Fatalf("want a result with a requestState, got %#v", res)
		}
		return r.RequestState
	}
	res, err := m.inputRequired(other, "deploy\x00{}", "q", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	kept := state(res)
	var first, last string
	for i := range maxAsked + 10 {
		res, err := m.inputRequired(noisy, "deploy\x00{}", "q", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		last = state(res)
		if i == 0 {
			first = last
		}
	}
	if n := len(m.asked); n != maxAsked+1 {
		t.Errorf("%d questions kept, want the noisy session's %d and the other's", n, maxAsked)
	}
	if _, ok := m.take(first, noisy, "deploy\x00{}"); ok {
		t.Error("the noisy session's oldest question is still answerable")
	}
	if _, ok := m.take(last, noisy, "deploy\x00{}"); !ok {
		t.Error("the noisy session's newest question is not answerable")
	}
	if _, ok := m.take(kept, other, "deploy\x00{}"); !ok {
		t.Error("another session's question was forgotten")
	}
}

// A session's unanswered questions are forgotten when it ends: no retry
// can come any more.
func TestAskedForgottenWithSession(t *testing.T) {
	set, err := testrules.Guard(lycaon.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		t.Fatal(err)
	}
	m := &middleware{g: g, cfg: Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}, Notes: func(context.Context, string) {}},
		conns: map[mcp.Session]*guard.Conn{}, asked: map[string]askedCall{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
	})
	srv.AddReceivingMiddleware(m.wrap)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("no one at the terminal") // never retried
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
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a call whose question no one answered succeeded")
	}
	m.mu.Lock()
	n := len(m.asked)
	m.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d questions waiting, want 1", n)
	}
	cs.Close()
	ss.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		m.mu.Lock()
		n, conns := len(m.asked), len(m.conns)
		m.mu.Unlock()
		if n == 0 && conns == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the session ended: %d questions, %d connections kept", n, conns)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
