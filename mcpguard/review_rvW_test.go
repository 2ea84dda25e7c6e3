package mcpguard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/runtime"
)

// readServer is a server whose read_text_file (allowed by testrules, its
// secrets redacted) answers with res.
func readServer(res func() *mcp.CallToolResult) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fs", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "read_text_file", InputSchema: &jsonSchemaObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return res(), nil
	})
	return s
}

// connectTo connects a client to srv with the middleware on side.
func connectTo(t *testing.T, side string, srv *mcp.Server, cfg mcpguard.Config) *mcp.ClientSession {
	t.Helper()
	g := newGuard(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	switch side {
	case "client":
		client.AddSendingMiddleware(mcpguard.Client(g, cfg))
	case "server":
		srv.AddReceivingMiddleware(mcpguard.Server(g, cfg))
	}
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
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

var fsCfg = mcpguard.Config{Server: guard.Server{ID: "fs", Configured: true, Enabled: true}}

// TestUnreadContentWithheld: the SDK decodes a CallToolResult's content
// with every content type it knows, tool_result (whose nested content
// holds text items) and tool_use (whose input holds any JSON) among them,
// but the guard reads only text items and embedded resources: the text in
// such an item reached the client unevaluated, a key in it unredacted,
// and the call was recorded as a node. A result with content the guard
// cannot evaluate is withheld (OAR_GUARD), as the proxy withholds a
// result it cannot read.
func TestUnreadContentWithheld(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		for _, item := range []mcp.Content{
			//lint:ignore SA1019 a server can still send it, and the SDK decodes it
			&mcp.ToolResultContent{ToolUseID: "x", Content: []mcp.Content{&mcp.TextContent{Text: "key " + awsKey}}},
			//lint:ignore SA1019 a server can still send it, and the SDK decodes it
			&mcp.ToolUseContent{ID: "y", Name: "n", Input: map[string]any{"k": "key " + awsKey}},
		} {
			t.Run(side, func(t *testing.T) {
				srv := readServer(func() *mcp.CallToolResult {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}, item}}
				})
				cs := connectTo(t, side, srv, fsCfg)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}})
				if err != nil {
					t.Fatal(err)
				}
				all, _ := json.Marshal(res)
				if strings.Contains(string(all), awsKey) || !res.IsError || res.Meta["oarc/code"] != guard.CodeGuard || res.Meta["oarc/node"] != nil {
					t.Errorf("a result with content the guard does not read reached the client: %s", all)
				}
			})
		}
	}
}

// TestCheckerWithoutItsMiddleware: CallTools evaluates a turn's calls at
// tool.pre_invoke and sends them with cs; their results are evaluated by
// the Checker's middleware on cs's client. On a client without it, the
// result came back as the server sent it: never evaluated after the call,
// a key in it unredacted, no node recorded. A call the middleware did not
// see has its result withheld (OAR_GUARD).
func TestCheckerWithoutItsMiddleware(t *testing.T) {
	var writes atomic.Int32
	ch := mcpguard.NewChecker(newGuard(t), fsCfg)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil) // no ch.Middleware()
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
	res, errs := ch.CallTools(ctx, cs, []*mcp.CallToolParams{{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}}})
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	all, _ := json.Marshal(res[0])
	if strings.Contains(string(all), awsKey) || !res[0].IsError || res[0].Meta["oarc/code"] != guard.CodeGuard {
		t.Errorf("a result the middleware never saw reached the host: %s", all)
	}
}

// TestNilParamsBlocked: a tools/call request whose params are a nil
// pointer (a request a host's own middleware or code builds: the SDK
// fills in empty params) made the middleware panic, on either side,
// instead of blocking the call with OAR_GUARD.
func TestNilParamsBlocked(t *testing.T) {
	for _, req := range []mcp.Request{&mcp.CallToolRequest{}, &mcp.ServerRequest[*mcp.CallToolParamsRaw]{}} {
		for name, mw := range map[string]mcp.Middleware{"client": mcpguard.Client(newGuard(t), fsCfg), "server": mcpguard.Server(newGuard(t), fsCfg)} {
			t.Run(fmt.Sprintf("%s %T", name, req), func(t *testing.T) {
				h := mw(func(context.Context, string, mcp.Request) (mcp.Result, error) {
					t.Error("a call with nil params was passed on")
					return &mcp.CallToolResult{}, nil
				})
				var res mcp.Result
				var err error
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("the middleware panicked: %v", r)
						}
					}()
					res, err = h(context.Background(), "tools/call", req)
				}()
				r, _ := res.(*mcp.CallToolResult)
				if err != nil || r == nil || !r.IsError || r.Meta["oarc/code"] != guard.CodeGuard {
					t.Errorf("a call with nil params: %v %+v", err, res)
				}
			})
		}
	}
}

// TestWithheldResultRecordsNothing: a result the SDK can send but not
// read back (structuredContent nested deeper than the SDK's decoder
// allows) was evaluated and recorded as a provenance node, then withheld
// when the middleware could not rebuild it: a node for a result no one
// received (spec 11: a failed or withheld call records nothing). Under
// AllInputs the next result's node showed it (r2, not r1).
func TestWithheldResultRecordsNothing(t *testing.T) {
	var calls atomic.Int32
	srv := readServer(func() *mcp.CallToolResult {
		if calls.Add(1) > 1 {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}
		}
		var deep any = "leaf"
		for range 1100 {
			deep = []any{deep}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deep"}}, StructuredContent: map[string]any{"v": deep}}
	})
	cfg := fsCfg
	cfg.AllInputs = true
	cs := connectTo(t, "server", srv, cfg)
	ctx := context.Background()
	p := &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Meta["oarc/code"] != guard.CodeGuard {
		t.Fatalf("the deep result: %v %v", res.Meta, textOf(res))
	}
	res, err = cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Meta["oarc/node"] != "r1" {
		t.Errorf("the node after a withheld result: %v %v (want r1: the withheld one recorded nothing)", res.Meta, textOf(res))
	}
}

// TestAskAnswerBoundToItsNumbers: the answer to a question sent back in
// a result approves the call it was asked about, tool and arguments. The
// arguments were compared as float64s: a retry whose number differs from
// the one asked about beyond float64's precision (a 20-digit id) was
// approved by the answer to the other call, and ran.
func TestAskAnswerBoundToItsNumbers(t *testing.T) {
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
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: json.RawMessage(`{"build":12345678901234567890}`)})
	if err != nil || !first.NeedsInput() || first.RequestState == "" {
		t.Fatalf("first round: %v %+v", err, first)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name: "deploy", Arguments: json.RawMessage(`{"build":12345678901234567891}`), RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"oarc/approve": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Meta["oarc/code"] != "ASK_DEPLOY" || deploys.Load() != 0 {
		t.Errorf("the approval of build ...890 ran build ...891: %v (deploys %d)", textOf(res), deploys.Load())
	}
}

// TestModernResultType: from MCP 2026-07-28 on every result has
// resultType (the MCP Python SDK rejects one without it). Receiving
// middleware sent the results it made itself (a block, a withheld
// result, the answer of the guard's own tool) without it to such a
// client, where the server's own results had "complete"; the proxy adds
// it (TestProxyModernResultType). Sending middleware handed the host's
// client its blocks without it too, where the proxy's client got it
// (TestParityProxyMiddleware).
func TestModernResultType(t *testing.T) {
	var writes atomic.Int32
	for _, side := range []string{"server", "client"} {
		for _, version := range []string{"2026-07-28", "2025-06-18"} {
			t.Run(side+" "+version, func(t *testing.T) {
				g := newGuard(t)
				srv := fakeFS(&writes)
				client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
				if side == "server" {
					srv.AddReceivingMiddleware(mcpguard.Server(g, fsCfg))
				} else {
					client.AddSendingMiddleware(mcpguard.Client(g, fsCfg))
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
				for _, name := range []string{"move_file", "read_text_file"} {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"path": "/a"}})
					if err != nil {
						t.Fatal(err)
					}
					all, _ := json.Marshal(res)
					if has := strings.Contains(string(all), `"resultType":"complete"`); has != (version == "2026-07-28") {
						t.Errorf("%s: %s", name, all)
					}
				}
			})
		}
	}
}

// TestRedactedCopyWithheld: a transform rewrites the text units (spec
// 11: text items, text resources, the string values of
// structuredContent) "so no copy of a redacted string survives anywhere
// in the result". A server that also put the key in a place that is no
// unit (the result's _meta, a content item's _meta, a name in
// structuredContent) had it reach the client
// beside the [REDACTED] text. A result in which a string the transform
// redacted survives outside the units is withheld (OAR_GUARD); content
// the engine cannot read (images, audio, blobs, resource links) still
// passes unchanged (TestReviewSpecBMiddlewareUnits).
func TestRedactedCopyWithheld(t *testing.T) {
	key := "key " + awsKey
	for name, res := range map[string]func() *mcp.CallToolResult{
		"result _meta": func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Meta: mcp.Meta{"echo": key}, Content: []mcp.Content{&mcp.TextContent{Text: key}}}
		},
		"item _meta": func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: key, Meta: mcp.Meta{"raw": []any{key}}}}}
		},
		"structured name": func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: key}}, StructuredContent: map[string]any{awsKey: true}}
		},
	} {
		for _, side := range []string{"client", "server"} {
			t.Run(name+" "+side, func(t *testing.T) {
				cs := connectTo(t, side, readServer(res), fsCfg)
				got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}})
				if err != nil {
					t.Fatal(err)
				}
				all, _ := json.Marshal(got)
				if strings.Contains(string(all), awsKey) || !got.IsError || got.Meta["oarc/code"] != guard.CodeGuard {
					t.Errorf("a copy of the redacted key reached the client: %s", all)
				}
			})
		}
	}
	// Without a copy elsewhere the result is redacted and goes through.
	cs := connectTo(t, "server", readServer(func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Meta: mcp.Meta{"k": "v"}, Content: []mcp.Content{&mcp.TextContent{Text: key}}}
	}), fsCfg)
	got, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}})
	if err != nil || got.IsError || strings.Join(textOf(got), "|") != "key [REDACTED]" {
		t.Errorf("a redacted result without copies: %v %v", err, textOf(got))
	}
}

// TestNotesOnRefusal: without Config.Notes the notes of nudges are in the
// result, a block's one text item opening with them (as the proxy and
// Finish put them). A result the middleware refused itself after the
// call was evaluated (here one the SDK cannot read back) lost the notes
// of the call's nudges.
func TestNotesOnRefusal(t *testing.T) {
	var calls atomic.Int32
	srv := readServer(func() *mcp.CallToolResult {
		if calls.Add(1) == 1 {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}
		}
		var deep any = "leaf"
		for range 1100 {
			deep = []any{deep}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deep"}}, StructuredContent: map[string]any{"v": deep}}
	})
	cs := connectTo(t, "server", srv, fsCfg)
	ctx := context.Background()
	p := &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}}
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	tx := textOf(res)
	if !res.IsError || res.Meta["oarc/code"] != guard.CodeGuard || len(tx) != 1 || !strings.Contains(tx[0], "Code: REPEAT_NUDGE") || !strings.HasSuffix(tx[0], "Code: OAR_GUARD") {
		t.Errorf("the refusal of a nudged call: %q", tx)
	}
}

// TestCheckerFoldedArgumentNames: a call whose arguments have two names
// that differ only by case ({"path":"/ok","PATH":"/etc"}: the rules read
// each as written, a server in Go that decodes them with encoding/json
// reads the last as path) is blocked with OAR_GUARD when it is evaluated
// alone (Conn.Begin); evaluated in a check (Checker.CallTools) it went
// ahead, and reached the server.
func TestCheckerFoldedArgumentNames(t *testing.T) {
	var writes atomic.Int32
	cfg := fsCfg
	cfg.Server.TrustTier, cfg.Profiles = "trusted", runtime.ProfileProvenance
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
	res, errs := ch.CallTools(ctx, cs, []*mcp.CallToolParams{
		{Name: "write_file", Arguments: json.RawMessage(`{"path":"/ok","PATH":"/etc/passwd"}`)},
		{Name: "write_file", Arguments: map[string]any{"path": "/ok"}},
	})
	if errs[0] != nil || res[0] == nil || !res[0].IsError || res[0].Meta["oarc/code"] != guard.CodeGuard {
		t.Errorf("a call with folded argument names in a check: %v %+v", errs[0], res[0])
	}
	if errs[1] != nil || res[1] == nil || res[1].IsError || writes.Load() != 1 {
		t.Errorf("its sibling: %v %+v (writes %d, want 1)", errs[1], res[1], writes.Load())
	}
}

// TestCheckerNilArguments: a call of a check without arguments is the
// call the middleware sees with {} (the SDK sends nil arguments as an
// empty object): it is taken as the checked call, evaluated once, and its
// result is evaluated and handed back.
func TestCheckerNilArguments(t *testing.T) {
	var writes atomic.Int32
	var notes []string
	cfg := fsCfg
	cfg.Notes = func(_ context.Context, n string) { notes = append(notes, n) }
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
	res, errs := ch.CallTools(ctx, cs, []*mcp.CallToolParams{{Name: "directory_tree"}})
	if errs[0] != nil || res[0] == nil || res[0].IsError {
		t.Fatalf("a checked call without arguments: %v %+v", errs[0], res[0])
	}
	if tx := textOf(res[0]); len(tx) != 2 || !strings.HasSuffix(tx[1], "Code: TREE_WARN") {
		t.Errorf("its result: %q", tx)
	}
	// Evaluated once: the next identical call is the second in a row.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "directory_tree"}); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 {
		t.Errorf("notes after a second identical call: %q", notes)
	}
}

// TestAskAnswerNotPassedOn: the approval a client of 2026-07-28 sends
// with the retried call (inputResponses["oarc/approve"], the guard's
// requestState) answers the guard, not the tool: the handler got them,
// and a handler that asks its own questions the same way (multi
// round-trip) took them for its own answers. They are taken out of the
// call before it is passed on.
func TestAskAnswerNotPassedOn(t *testing.T) {
	var got []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "deploy", InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = append(got, fmt.Sprintf("%d %q", len(req.Params.InputResponses), req.Params.RequestState))
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
	if err != nil || res.IsError {
		t.Fatalf("the approved deploy: %v %v", err, textOf(res))
	}
	if len(got) != 1 || got[0] != `0 ""` {
		t.Errorf("the handler got the guard's answer: %q", got)
	}
}

// TestSharedSessionAllInputs: a host whose Config.Session gives several
// MCP sessions one oarc session (a stateless server keyed by its agent,
// as docs/mcp.md advises) reads, under AllInputs, every node recorded
// in that session so far, whichever MCP session recorded it. Each MCP
// session's connection counted its chain from zero: a write in the second
// MCP session had no inputs though the agent had read an untrusted file
// in the first (UNTRUSTED_WRITE did not fire), and the second session's
// first result was refused as a node id the session already had.
func TestSharedSessionAllInputs(t *testing.T) {
	var writes atomic.Int32
	shared := runtime.NewSession("agent-1")
	cfg := mcpguard.Config{
		Server:    guard.Server{ID: "fs", TrustTier: "untrusted", Configured: true, Enabled: true},
		Profiles:  runtime.ProfileProvenance,
		AllInputs: true,
		Session:   func(mcp.Session) *runtime.Session { return shared },
	}
	srv := fakeFS(&writes)
	srv.AddReceivingMiddleware(mcpguard.Server(newGuard(t), cfg))
	ctx := context.Background()
	session := func() *mcp.ClientSession {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); ss.Wait() })
		return cs
	}
	first, second := session(), session()
	res, err := first.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}})
	if err != nil || res.IsError {
		t.Fatalf("read: %v %v", err, textOf(res))
	}
	res, err = second.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/b"}})
	if err != nil || res.IsError || res.Meta["oarc/node"] != "r2" {
		t.Errorf("a read in the second MCP session: %v %v %v", err, res.Meta, textOf(res))
	}
	res, err = second.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "/o"}})
	if err != nil || res.Meta["oarc/code"] != "UNTRUSTED_WRITE" || writes.Load() != 0 {
		t.Errorf("a write after untrusted reads of the agent's session: %v %v (writes %d)", err, textOf(res), writes.Load())
	}
}
