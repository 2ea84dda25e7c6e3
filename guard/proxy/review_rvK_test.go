package proxy

import (
	"encoding/json"
	"strings"
	"testing"
)

// A client may use an id again once its request is no longer pending (it
// cancelled it, or the proxy answered it with the timeout error): the
// upstream's late answer to the first request must never be taken for the
// answer to the second. Here the first is a tools/call whose result holds
// a secret, the second a request the guard does not evaluate: the late
// tool result reached the client unevaluated, its key unredacted, as the
// answer to the second. The proxy gives every forwarded request an id of
// its own upstream, so a late answer matches nothing and is dropped.
func TestProxyReusedIDLateAnswer(t *testing.T) {
	for _, freed := range []string{"cancelled", "timed out"} {
		t.Run(freed, func(t *testing.T) {
			c := start(t, "-server-id", "fs", "-timeout", "1s")
			c.init()
			c.send(call(7, "read_text_file", `{"path":"/late"}`))
			if freed == "cancelled" {
				c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
				// The cancellation reached the upstream when a ping
				// sent after it is answered.
				c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
				if m := c.recv(); m["id"] != "p" {
					t.Fatalf("want the ping's answer, got %v", m)
				}
			} else if m := c.recv(); m["id"] != float64(7) || m["error"] == nil {
				t.Fatalf("want the timeout error of id 7, got %v", m)
			}
			// The id again, for a request the upstream leaves pending,
			// then the upstream answers the first one late.
			c.send(`{"jsonrpc":"2.0","id":7,"method":"x/hang"}`)
			c.send(`{"jsonrpc":"2.0","id":8,"method":"x/release"}`)
			for {
				raw := c.recvRaw()
				if strings.Contains(raw, awsKey) {
					t.Fatalf("the late tool result reached the client unevaluated: %s", raw)
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(raw), &m); err != nil {
					t.Fatalf("not JSON from the proxy: %s", raw)
				}
				if m["id"] == float64(7) && m["error"] == nil {
					t.Fatalf("an answer for the second request 7 that the upstream never gave: %s", raw)
				}
				if m["id"] == float64(8) {
					break
				}
			}
		})
	}
}
