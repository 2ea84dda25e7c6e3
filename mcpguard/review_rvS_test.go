package mcpguard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/runtime"
)

// twoAsks is a set with an ask rule before the call (ASK_DEPLOY) and
// another after it (ASK_SHOW, at tool.post_invoke: show the result?).
type twoAsks struct{}

func (twoAsks) Info() *guard.Info {
	return &guard.Info{Name: "twoasks", Anchors: []guard.Anchor{guard.PreInvoke, guard.PostInvoke}}
}

func (twoAsks) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	r := &runtime.Rule{ID: "ASK_DEPLOY", Effect: runtime.Ask, Copy: runtime.Copy{Title: "A person approves every deploy"}}
	if o.Anchor == guard.PostInvoke {
		r = &runtime.Rule{ID: "ASK_SHOW", Effect: runtime.Ask, Copy: runtime.Copy{Title: "A person approves showing a deploy's output"}}
	}
	d.Effect, d.Code, d.Rule = runtime.Ask, r.ID, r
	d.Firings = append(d.Firings, runtime.Firing{Rule: r})
	return nil
}

// TestAskAnswerCoversItsQuestion: under multi round-trip requests the
// client's answer comes with the retried call, and it answers the
// question sent back (ASK_DEPLOY's). It approved every ask of the retried
// call: ASK_SHOW, at tool.post_invoke, was never put to the person, and
// the result was shown. An answer now covers the question it answers; an
// ask of another rule in the retried call has no answer, and blocks.
func TestAskAnswerCoversItsQuestion(t *testing.T) {
	var deploys atomic.Int32
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	g, err := guard.New(twoAsks{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}}
	srv := deployServer(&deploys)
	srv.AddReceivingMiddleware(mcpguard.Server(g, cfg))
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
	if len(asked) != 1 {
		t.Fatalf("asked %q, want ASK_DEPLOY's question only", asked)
	}
	if !res.IsError || res.Meta["oarc/code"] != "ASK_SHOW" {
		t.Errorf("the result of an ask no person answered was shown: isError %v meta %v text %q (asked %q)", res.IsError, res.Meta, textOf(res), asked)
	}
}

// pathBlock is a set with one rule at tool.pre_invoke: it blocks a call
// whose argument path is /etc.
type pathBlock struct{}

func (pathBlock) Info() *guard.Info {
	return &guard.Info{Name: "pathblock", Anchors: []guard.Anchor{guard.PreInvoke}}
}

func (pathBlock) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Args["path"] == "/etc" {
		d.Effect, d.Code = runtime.Block, "NO_ETC"
	}
	return nil
}

// firstPath reads the member path of a JSON object as a parser that keeps
// the first of a name given twice does (gjson, and others that scan).
func firstPath(args json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(args))
	d.Token() // {
	for d.More() {
		k, _ := d.Token()
		var v any
		d.Decode(&v)
		if k == "path" {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}

// TestServerArgumentsAsEvaluated: receiving middleware evaluated the
// arguments as encoding/json reads them (the last of a name given twice)
// and handed the tool handler the bytes as the client sent them: a
// handler that reads the first ({"path":"/etc","path":"/ok"}) acted on
// /etc, which no rule read. The handler now gets the arguments as the
// guard read them, re-encoded (as the proxy forwards them).
func TestServerArgumentsAsEvaluated(t *testing.T) {
	g, err := guard.New(pathBlock{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "fs", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "read", InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = append(got, firstPath(req.Params.Arguments))
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
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: json.RawMessage(`{"path":"/etc","path":"/ok"}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got {
		if p != "/ok" {
			t.Errorf("the handler read path %q; the rules read /ok (result %q)", p, textOf(res))
		}
	}
	if len(got) != 1 {
		t.Errorf("the handler ran %d times, want once (result %q)", len(got), textOf(res))
	}
}
