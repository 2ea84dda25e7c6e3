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
