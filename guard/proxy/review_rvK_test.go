package proxy

import (
	"encoding/json"
	"fmt"
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

// A JSON-RPC batch array from the client (MCP 2025-03-26 has them; later
// revisions do not) is refused, never forwarded, with one error response
// per request in it, in one array (JSON-RPC 2.0's answer to a batch), so
// that the client's requests do not wait for answers that never come; the
// error says why for the protocol version the session agreed. A batch of
// notifications only gets no answer, an empty batch one error. A batch of
// responses from the upstream answers each pending request it names with
// an error at once, not after -timeout.
func TestProxyBatch(t *testing.T) {
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			c := start(t, "-server-id", "fs", "-timeout", "20s")
			c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if m := c.recv(); m["id"] != float64(0) {
				t.Fatalf("initialize: %v", m)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.send(`[` + call(1, "write_file", `{"path":"/o","content":"x"}`) + `,{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},{"jsonrpc":"2.0","id":"b","method":"ping"},7]`)
			raw := c.recvRaw()
			var got []struct {
				ID    any `json:"id"`
				Error struct {
					Code    float64 `json:"code"`
					Message string  `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(raw), &got); err != nil || len(got) != 3 {
				t.Fatalf("want an array of three error responses, got %s", raw)
			}
			want := "JSON-RPC batches are not part of MCP " + version
			if version == "2025-03-26" {
				want = "oarc guard does not relay JSON-RPC batches"
			}
			for i, id := range []any{float64(1), "b", nil} {
				if got[i].ID != id || got[i].Error.Code != codeInvalidRequest || !strings.Contains(got[i].Error.Message, want) && id != nil {
					t.Errorf("response %d: %s", i, raw)
				}
			}
			if c.written() {
				t.Fatal("a tools/call of a batch reached the upstream")
			}
			// Notifications only: no answer; empty: one error.
			c.send(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
			c.send(`[]`)
			if m := c.recv(); m["id"] != nil || m["error"] == nil {
				t.Fatalf("want one error for the empty batch, got %v", m)
			}
			// The upstream answers in a batch: an error now.
			c.send(call(2, "read_text_file", `{"path":"/batch"}`))
			if m := c.recv(); m["id"] != float64(2) || m["error"] == nil || !strings.Contains(fmt.Sprint(m["error"]), "batch") {
				t.Fatalf("want an error for the answer in a batch, got %v", m)
			}
			c.send(call(3, "read_text_file", `{"path":"/ok"}`))
			if r := resultOf(t, c.recv()); texts(r)[0] != "hello from /ok" {
				t.Fatalf("after the batches: %v", r)
			}
		})
	}
}

// A cancellation reaches the upstream under the id the upstream knows
// the request by (the proxy's own), and only for a request the upstream
// got: one for an unknown id, or for a request answered already, could
// name another request of the upstream, and is not forwarded.
func TestProxyCancelForwarded(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/cancel"}`))
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"again"}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"unknown"}}`)
	c.send(call(3, "move_file", `{"source":"a","destination":"b"}`))
	if r := resultOf(t, c.recv()); r["isError"] != true {
		t.Fatalf("move_file: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"answered"}}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"x/cancels"}`)
	m := c.recv()
	if r := resultOf(t, m); r["target"] != true || r["others"] != float64(0) {
		t.Fatalf("want the one cancellation forwarded, under the upstream's id: %v", m)
	}
}
