package proxy

import (
	"encoding/json"
	"strings"
	"testing"
)

// An answer to the proxy's elicitation/create (a client of a version with
// initialize) that gives a name twice ({"action":"decline","action":
// "accept"}, or approve twice in content) says both things, whichever a
// parser keeps, and is no explicit yes: the call is blocked, as the
// answer of a 2026-07-28 client's retry is (TestReviewRvXAnswerWithANameTwice).
func TestProxyAskAnswerNameTwice(t *testing.T) {
	const rejection = "A person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	for _, answer := range []string{
		`"result":{"action":"decline","action":"accept","content":{"approve":true}}`,
		`"result":{"action":"accept","content":{"approve":false,"approve":true}}`,
	} {
		c := start(t, "-server-id", "everything", "-ask-timeout", "5s")
		c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
		c.recv()
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		c.send(call(1, "deploy", `{"path":"prod"}`))
		m := c.recv()
		if m["method"] != "elicitation/create" {
			t.Fatalf("want an elicitation, got %v", m)
		}
		id, _ := json.Marshal(m["id"])
		c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,` + answer + `}`)
		r := resultOf(t, c.recv())
		if r["isError"] != true || strings.Join(texts(r), "|") != rejection {
			t.Errorf("answer %s: want the block, got %v", answer, r)
		}
	}
}
