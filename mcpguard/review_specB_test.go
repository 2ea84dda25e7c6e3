package mcpguard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
)

// Spec 11 through the Go SDK, both sides: a result of several content
// units of every kind. Text items, the text of an embedded text resource
// and every string of structuredContent are redacted where the secret
// falls; images, audio, blobs and resource links pass unchanged; the
// upstream's own oarc/ keys in _meta are dropped; the node id is added.
// (A resource link whose uri holds the redacted key is a copy that would
// survive in the result, which spec 11 forbids: it withholds the result,
// TestSpec11RedactedCopyInResourceLink; the link here holds none.)
func TestReviewSpecBMiddlewareUnits(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "fs", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "read_text_file", InputSchema: &jsonSchemaObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{
					Meta: mcp.Meta{"oarc/code": "FORGED", "oarc/node": "forged", "other": "kept"},
					Content: []mcp.Content{
						&mcp.TextContent{Text: "one " + awsKey},
						&mcp.ImageContent{Data: []byte(awsKey), MIMEType: "image/png"},
						&mcp.AudioContent{Data: []byte("aud"), MIMEType: "audio/wav"},
						&mcp.ResourceLink{URI: "file:///link", Name: "link"},
						&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b", Blob: []byte(awsKey)}},
						&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///t", Text: "three " + awsKey}},
						&mcp.TextContent{Text: "two"},
					},
					StructuredContent: map[string]any{"a": []any{"x " + awsKey, map[string]any{"n": 1, "s": awsKey}}},
				}, nil
			})
			g := newGuard(t)
			cfg := mcpguard.Config{Server: guard.Server{ID: "fs", Configured: true, Enabled: true}}
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
			if side == "client" {
				client.AddSendingMiddleware(mcpguard.Client(g, cfg))
			} else {
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
			defer func() { cs.Close(); ss.Wait() }()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/a"}})
			if err != nil || res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			if len(res.Content) != 7 {
				t.Fatalf("content items: %d", len(res.Content))
			}
			if tx := res.Content[0].(*mcp.TextContent).Text; tx != "one [REDACTED]" {
				t.Errorf("text: %q", tx)
			}
			if img := res.Content[1].(*mcp.ImageContent); string(img.Data) != awsKey {
				t.Errorf("image changed: %q", img.Data)
			}
			if l := res.Content[3].(*mcp.ResourceLink); l.URI != "file:///link" || l.Name != "link" {
				t.Errorf("resource link changed: %q", l.URI)
			}
			if b := res.Content[4].(*mcp.EmbeddedResource); string(b.Resource.Blob) != awsKey {
				t.Errorf("blob changed: %q", b.Resource.Blob)
			}
			if r := res.Content[5].(*mcp.EmbeddedResource); r.Resource.Text != "three [REDACTED]" {
				t.Errorf("embedded text: %q", r.Resource.Text)
			}
			sc, _ := json.Marshal(res.StructuredContent)
			if string(sc) != `{"a":["x [REDACTED]",{"n":1,"s":"[REDACTED]"}]}` {
				t.Errorf("structuredContent: %s", sc)
			}
			if res.Meta["oarc/code"] != nil || res.Meta["other"] != "kept" {
				t.Errorf("_meta: %v", res.Meta)
			}
			if n, _ := res.Meta["oarc/node"].(string); n == "" || n == "forged" {
				t.Errorf("node: %v", res.Meta["oarc/node"])
			}
			if strings.Contains(string(sc), awsKey) {
				t.Error("a secret survived in structuredContent")
			}
		})
	}
}
