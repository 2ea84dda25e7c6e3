package mcpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/mcpguard/internal/testrules"
	"github.com/oarc/oarc/runtime"
)

const awsKey = "AKIAIOSFODNN7EXAMPLE"

// fakeFS is a Go MCP server with the filesystem server's tool names;
// writes counts the write_file calls that reached it.
func fakeFS(writes *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fake-fs", Version: "1"}, nil)
	obj := &jsonSchemaObject
	s.AddTool(&mcp.Tool{Name: "read_text_file", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Path string }
		json.Unmarshal(r.Params.Arguments, &a)
		if a.Path == "/bad" {
			return nil, &jsonrpc.Error{Code: -32602, Message: "no such path"}
		}
		text := "key " + awsKey
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: text}, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///k", Text: text}}},
			StructuredContent: map[string]any{"content": text},
		}, nil
	})
	for _, name := range []string{"write_file", "move_file", "directory_tree"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if name == "write_file" {
				writes.Add(1)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	return s
}

var jsonSchemaObject = jsonSchema{Type: "object"}

type jsonSchema = struct {
	Type string `json:"type"`
}

func newGuard(t *testing.T) *guard.Guard {
	t.Helper()
	set, err := testrules.Guard(lycaon.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// connect runs the fake server and a client over in-memory transports,
// with the middleware on the client (sending) or on the server
// (receiving).
func connect(t *testing.T, side string, cfg mcpguard.Config, writes *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	g := newGuard(t)
	srv := fakeFS(writes)
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

func textOf(r *mcp.CallToolResult) []string {
	var out []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, c.Text)
		case *mcp.EmbeddedResource:
			out = append(out, c.Resource.Text)
		}
	}
	return out
}

// Both sides: blocks never reach the tool, secrets are redacted in text,
// embedded resources and structuredContent, provenance blocks a write fed
// by an untrusted result, warn banners are appended, notes reach the host,
// tools/list is narrowed, a JSON-RPC error passes through.
func TestMiddleware(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			var writes atomic.Int32
			var notes []string
			cfg := mcpguard.Config{
				Server:   guard.Server{ID: "fs", TrustTier: "untrusted", Configured: true, Enabled: true},
				Profiles: runtime.ProfileProvenance,
				Notes:    func(_ context.Context, n string) { notes = append(notes, n) },
			}
			cs := connect(t, side, cfg, &writes)
			ctx := context.Background()

			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			if strings.Join(names, " ") != "directory_tree read_text_file write_file" {
				t.Errorf("tools/list: %v", names)
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "move_file", Arguments: map[string]any{"source": "a"}})
			if err != nil || !res.IsError || res.Meta["oarc/code"] != "NOT_ALLOWLISTED" {
				t.Fatalf("move_file: %v %+v", err, res)
			}

			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}})
			if err != nil || res.IsError {
				t.Fatalf("read: %v %+v", err, res)
			}
			all, _ := json.Marshal(res)
			if strings.Contains(string(all), awsKey) || strings.Count(string(all), "[REDACTED]") != 3 {
				t.Fatalf("redaction: %s", all)
			}
			node, _ := res.Meta["oarc/node"].(string)
			if node == "" {
				t.Fatalf("no node: %s", all)
			}

			// The write is fed by the untrusted read (the host says so).
			res, err = cs.CallTool(guard.WithInputs(ctx, node), &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "/o"}})
			if side == "server" {
				// The server's middleware sees the server's context, not
				// the client's: no inputs, the write goes ahead.
				if err != nil || res.IsError || writes.Load() != 1 {
					t.Fatalf("server-side write: %v %+v", err, res)
				}
			} else if err != nil || res.Meta["oarc/code"] != "UNTRUSTED_WRITE" || writes.Load() != 0 {
				t.Fatalf("write fed by an untrusted read: %v %+v (writes %d)", err, res, writes.Load())
			}

			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "directory_tree", Arguments: map[string]any{"path": "/"}})
			if tx := textOf(res); err != nil || len(tx) != 2 || !strings.HasSuffix(tx[1], "Code: TREE_WARN") {
				t.Fatalf("warn: %v %v", err, tx)
			}
			cs.CallTool(ctx, &mcp.CallToolParams{Name: "directory_tree", Arguments: map[string]any{"path": "/"}})
			if len(notes) != 1 || !strings.HasSuffix(notes[0], "Code: REPEAT_NUDGE") {
				t.Fatalf("notes: %q", notes)
			}

			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/bad"}})
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != -32602 {
				t.Fatalf("JSON-RPC error: %v", err)
			}
		})
	}
}

// Without a Notes callback the notes are appended to the result, as the
// proxy does.
func TestMiddlewareNotesAppended(t *testing.T) {
	var writes atomic.Int32
	cs := connect(t, "client", mcpguard.Config{Server: guard.Server{ID: "fs"}}, &writes)
	ctx := context.Background()
	p := &mcp.CallToolParams{Name: "directory_tree", Arguments: map[string]any{"path": "/x"}}
	cs.CallTool(ctx, p)
	res, err := cs.CallTool(ctx, p)
	if tx := textOf(res); err != nil || len(tx) != 3 || !strings.HasSuffix(tx[2], "Code: REPEAT_NUDGE") {
		t.Fatalf("notes: %v %q", err, tx)
	}
}

// A host's Notes that panics neither takes the host down nor loses the
// notes: they reach the agent in the result, as without Notes.
func TestMiddlewareNotesPanic(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			var writes atomic.Int32
			cfg := mcpguard.Config{Server: guard.Server{ID: "fs"}, Notes: func(context.Context, string) { panic("the host's queue is gone") }}
			cs := connect(t, side, cfg, &writes)
			ctx := context.Background()
			p := &mcp.CallToolParams{Name: "directory_tree", Arguments: map[string]any{"path": "/x"}}
			cs.CallTool(ctx, p)
			res, err := cs.CallTool(ctx, p)
			if tx := textOf(res); err != nil || len(tx) != 3 || !strings.HasSuffix(tx[2], "Code: REPEAT_NUDGE") {
				t.Fatalf("notes: %v %q", err, tx)
			}
		})
	}
}
