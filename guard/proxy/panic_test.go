package proxy

import (
	"strings"
	"testing"
)

// TestProxyPanicBlocksCall: spec 11, a panic in the guard blocks the call
// with code OAR_GUARD. A panic in the proxy's own handling of a
// tools/call, on its way to the upstream or on its result's way back,
// answered with JSON-RPC's internal error instead; it is now the
// OAR_GUARD block, and another request still gets the internal error.
func TestProxyPanicBlocksCall(t *testing.T) {
	for _, where := range []string{"request", "response"} {
		t.Run(where, func(t *testing.T) {
			panicHook = func(w, method string) {
				if w == where && method != "initialize" {
					panic("boom at " + w + " of " + method)
				}
			}
			t.Cleanup(func() { panicHook = nil })
			c := start(t, "-server-id", "fs", "-timeout", "2s")
			c.init()
			c.send(call(1, "read_text_file", `{"path":"/tmp/a"}`))
			m := c.recv()
			r := resultOf(t, m)
			text := strings.Join(texts(r), "|")
			if m["id"] != float64(1) || r["isError"] != true || !strings.HasSuffix(text, "\nCode: OAR_GUARD") ||
				!strings.Contains(text, "boom at "+where+" of tools/call") {
				t.Fatalf("want an OAR_GUARD block, got %v", m)
			}
			if where == "request" && c.written() {
				t.Fatal("the call reached the server")
			}
			c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			if m := c.recv(); m["id"] != float64(2) || m["error"].(map[string]any)["code"] != float64(codeInternal) {
				t.Fatalf("ping: want the internal error, got %v", m)
			}
		})
	}
}
