package mcpguard_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/mcpguard"
)

// TestReviewRvMURLOnlyElicitation: a client that declared elicitation in
// URL mode only ({"elicitation":{"url":{}}}, MCP 2025-11-25) cannot
// answer a form, and MCP forbids a server to send it one: no one can be
// asked, and the call is blocked with the rejection that says so, on
// either protocol version (the proxy: TestReviewRvMURLOnlyElicitation in
// guard/proxy). The middleware sent it the form, and blocked with the
// rule's rejection as after a no.
func TestReviewRvMURLOnlyElicitation(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			var deploys atomic.Int32
			var asked atomic.Int32
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			})
			res, err := tryDeploy(t, "server", client, version, mcpguard.Config{}, &deploys)
			if err != nil {
				t.Fatalf("%v (asked %d times)", err, asked.Load())
			}
			wantBlocked(t, res, askUnasked, &deploys)
			if n := asked.Load(); n != 0 {
				t.Errorf("a client of URL elicitation only was sent a form %d times", n)
			}
		})
	}
}
