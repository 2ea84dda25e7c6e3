package proxy

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The proxy refuses task-augmented tools/call (a task's result would reach
// the client unevaluated), yet it listed the tools a server of MCP
// 2025-11-25 runs only as tasks (execution.taskSupport "required"), whose
// every call through the proxy then failed: the model was offered tools it
// could never use. They are left out of tools/list, and stderr says why;
// a tool that may run as a task (optional) stays.
func TestProxyTaskOnlyToolsLeftOut(t *testing.T) {
	c := start(t, "-server-id", "everything")
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := c.recv(); m["id"] != float64(0) {
		t.Fatalf("initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if got, want := c.listNames(1), []string{"get-sum", "echo"}; !slices.Equal(got, want) {
		t.Errorf("tools/list: %v, want %v", got, want)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(c.errs.String(), "tool trigger-long-running-operation is left out of tools/list: it runs only as a task") {
		if time.Now().After(deadline) {
			t.Fatalf("stderr does not say why trigger-long-running-operation is left out: %s", c.errs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
