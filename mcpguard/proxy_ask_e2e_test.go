package mcpguard_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// deployArg, as the test binary's first argument, makes it a Go MCP
// server of the latest protocol with the deploy tool (deployServer), over
// stdio.
const deployArg = "oarc-e2e-deploy-server"

// repeatNudge is the note of examples/mcp's REPEAT_NUDGE.
const repeatNudge = "You just made this exact call\nInstead: Use the result you already have.\nCode: REPEAT_NUDGE"

func serveDeploy() int {
	var deploys atomic.Int32
	if err := deployServer(&deploys).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "deploy server:", err)
		return 1
	}
	return 0
}

// The proxy asks a client of MCP 2026-07-28 (the Go SDK's client at its
// latest version, which sends no initialize to a server of that version
// and declares elicitation in each request's _meta) by sending the
// question back in the result; the SDK puts it to the client's
// ElicitationHandler and retries the call with the answer. A yes deploys,
// once per call, and the retried call is the call's one occurrence
// (examples/mcp's repeat rules see two deploys, not four); a no blocks
// with the rule's rejection.
func TestE2EProxyAskModernGo(t *testing.T) {
	e := need(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, approve := range []bool{true, false} {
		t.Run(fmt.Sprint("approve=", approve), func(t *testing.T) {
			var asked atomic.Int32
			cs := goClient(t, e.guarded([]string{"-server-id", "everything"}, []string{self, deployArg}), nil, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					if req.Params.Message != askQuestion {
						t.Errorf("elicitation message %q, want %q", req.Params.Message, askQuestion)
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": approve}}, nil
				},
			})
			if v := cs.InitializeResult(); v != nil && v.ProtocolVersion < "2026-07-28" {
				t.Fatalf("the client and the upstream agreed %s, not a version without initialize", v.ProtocolVersion)
			}
			for i := 1; i <= 2; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
				cancel()
				if err != nil {
					t.Fatalf("deploy %d: %v", i, err)
				}
				// The second deploy repeats the first (one occurrence
				// each): the nudge of a repeat, not LOOP_BREAKER's block of
				// a fourth identical call.
				want := map[bool][]string{
					true:  {"deployed", "deployed|" + repeatNudge},
					false: {askRejection, repeatNudge + "\n\n" + askRejection},
				}[approve][i-1]
				if text := strings.Join(textOf(res), "|"); text != want || res.IsError == approve {
					t.Errorf("deploy %d: want %q (isError %v), got %q (isError %v, meta %v)", i, want, !approve, text, res.IsError, res.Meta)
				}
				if n := asked.Load(); n != int32(i) {
					t.Errorf("after deploy %d the person was asked %d times", i, n)
				}
			}
		})
	}
}
