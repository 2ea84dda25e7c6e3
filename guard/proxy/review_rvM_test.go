package proxy

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// askAfter is a set with one rule: an ask at tool.post_invoke (a person
// approves showing a result), nothing before the call.
type askAfter struct{}

func (askAfter) Info() *guard.Info {
	return &guard.Info{Name: "askafter", Anchors: []guard.Anchor{guard.PreInvoke, guard.PostInvoke}}
}

func (askAfter) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Anchor != guard.PostInvoke {
		return nil
	}
	r := &runtime.Rule{ID: "ASK_SHOW", Effect: runtime.Ask, Copy: runtime.Copy{Title: "A person approves showing a result"}}
	d.Effect, d.Code, d.Rule = runtime.Ask, r.ID, r
	d.Firings = append(d.Firings, runtime.Firing{Rule: r})
	return nil
}

func startAskAfter(t *testing.T, flags ...string) *client {
	return startWith(t, Config{Set: func(...runtime.Option) (guard.Set, error) { return askAfter{}, nil }}, flags...)
}

// TestReviewRvMAskAfterCallKeepsRelaying: a question asked after the call
// (an ask rule at tool.post_invoke) waited for the person's answer on the
// proxy's reader of the upstream: nothing else the upstream said reached
// the client meanwhile (here the answer to a ping), for up to
// -ask-timeout, and requests it had answered timed out.
func TestReviewRvMAskAfterCallKeepsRelaying(t *testing.T) {
	c := startAskAfter(t, "-server-id", "fs", "-ask-timeout", "5s")
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.recv()
	c.send(call(1, "read_text_file", `{"path":"/a"}`))
	m := c.recv()
	if m["method"] != "elicitation/create" {
		t.Fatalf("want the question after the call, got %v", m)
	}
	askID, _ := json.Marshal(m["id"])
	start := time.Now()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(2) || time.Since(start) > 2*time.Second {
		t.Fatalf("want the ping's answer at once, got %v after %v", m, time.Since(start))
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(askID) + `,"result":{"action":"accept","content":{"approve":true}}}`)
	r := resultOf(t, c.recv())
	if r["isError"] == true || strings.Join(texts(r), "|") != "hello from /a" {
		t.Fatalf("approved result: %v", r)
	}
}

// TestReviewRvMAskAfterCallCancelled: the client cancels a call whose
// result waits for a person's approval: the question is withdrawn and
// the call gets no answer, as one cancelled while a question before it
// waits (TestProxyAskCancelled).
func TestReviewRvMAskAfterCallCancelled(t *testing.T) {
	c := startAskAfter(t, "-server-id", "fs", "-ask-timeout", "5s")
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.recv()
	c.send(call(1, "read_text_file", `{"path":"/a"}`))
	m := c.recv()
	if m["method"] != "elicitation/create" {
		t.Fatalf("want the question after the call, got %v", m)
	}
	start := time.Now()
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	n := c.recv()
	if n["method"] != "notifications/cancelled" || n["params"].(map[string]any)["requestId"] != m["id"] || time.Since(start) > 2*time.Second {
		t.Fatalf("want the question %v withdrawn at once, got %v after %v", m["id"], n, time.Since(start))
	}
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(3) {
		t.Fatalf("the cancelled call was answered: %v", m)
	}
}

// TestReviewRvMAskAfterCallModern: a client of 2026-07-28 that can
// answer a question (by retrying the call) gets, for an ask after the
// call, the ask rule's rejection, as from the middleware
// (TestAskAnswerCoversItsQuestion): the call ran, there is no round to
// send a question back in. The proxy said no one could be asked.
func TestReviewRvMAskAfterCallModern(t *testing.T) {
	c := startAskAfter(t, "-server-id", "fs")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`)
	m := c.recv()
	r := resultOf(t, m)
	meta, _ := r["_meta"].(map[string]any)
	want := "A person approves showing a result\nCode: ASK_SHOW"
	if r["isError"] != true || meta["oarc/code"] != "ASK_SHOW" || strings.Join(texts(r), "|") != want {
		t.Fatalf("want the rule's rejection %q, got %v", want, m)
	}
}

// TestReviewRvMURLOnlyElicitation: a client that declared elicitation in
// URL mode only ({"elicitation":{"url":{}}}, MCP 2025-11-25) cannot
// answer a form, and MCP forbids a server to send it one: no one can be
// asked, and the call is blocked with the rejection that says so, in
// initialize's capabilities or a 2026-07-28 request's, as the middleware
// does (TestReviewRvMURLOnlyElicitation in mcpguard). The proxy sent it
// the form.
func TestReviewRvMURLOnlyElicitation(t *testing.T) {
	const unasked = "This action needs a person's approval, and no person could be asked; it is blocked.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	check := func(t *testing.T, m map[string]any) {
		t.Helper()
		r := resultOf(t, m)
		meta, _ := r["_meta"].(map[string]any)
		if m["id"] != float64(1) || r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" || strings.Join(texts(r), "|") != unasked {
			t.Fatalf("want the block %q, got %v", unasked, m)
		}
	}
	t.Run("2025-11-25", func(t *testing.T) {
		c := start(t, "-server-id", "everything", "-ask-timeout", "2s")
		c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"t","version":"1"}}}`)
		c.recv()
		c.send(call(1, "deploy", `{"path":"prod"}`))
		check(t, c.recv())
	})
	t.Run("2026-07-28", func(t *testing.T) {
		c := start(t, "-server-id", "everything")
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"path":"prod"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}}}}`)
		check(t, c.recv())
	})
}

// TestReviewRvMMaxMessageExact: -max-message N is the largest message:
// one of exactly N bytes (its newline is not part of it) is relayed, one
// of N+1 refused. The newline counted, so the largest was N-1.
func TestReviewRvMMaxMessageExact(t *testing.T) {
	var lines []string
	readFrames(strings.NewReader(strings.Repeat("a", 1024)+"\n"+strings.Repeat("b", 1025)+"\n"+strings.Repeat("c", 1024)+"\r\n"+strings.Repeat("d", 1024)), 1024,
		func(b []byte) { lines = append(lines, string(b[:1])) },
		func(head, _ []byte) { lines = append(lines, "refused "+string(head[:1])) })
	if got := strings.Join(lines, ","); got != "a,refused b,c,d" {
		t.Errorf("frames %s, want a,refused b,c,d", got)
	}
}

// TestReviewRvMHugeClientResponseAnswersNothing: a client's answer to a
// request of the upstream (its id the upstream's) larger than
// -max-message was answered, as a request is, with an error under that
// id: the client took it for the answer to its own pending request of
// the same id. A response gets no answer; it is dropped and logged.
func TestReviewRvMHugeClientResponseAnswersNothing(t *testing.T) {
	c := start(t, "-server-id", "fs", "-max-message", "1024")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"x/hang"}`)
	c.send(`{"jsonrpc":"2.0","id":7,"result":{"content":{"type":"text","text":"` + strings.Repeat("a", 2000) + `"}}}`)
	c.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(8) {
		t.Fatalf("want the ping's answer, got %v", m)
	}
	if !strings.Contains(c.errs.String(), "larger than -max-message") {
		t.Errorf("stderr does not say what was dropped: %s", c.errs.String())
	}
}

// A request too large whose params come before its method is still a
// request: it gets its error.
func TestReviewRvMHugeClientRequestParamsFirst(t *testing.T) {
	c := start(t, "-server-id", "fs", "-max-message", "1024")
	c.init()
	c.send(`{"params":{"result":"` + strings.Repeat("a", 2000) + `"},"jsonrpc":"2.0","method":"ping","id":9}`)
	if m := c.recv(); m["id"] != float64(9) || m["error"] == nil {
		t.Fatalf("want an error for the request, got %v", m)
	}
}

// TestReviewRvMMalformedClientResponseAnswersNothing: a malformed
// response of the client (a result and an error; an id that is an
// object beside a result) was answered with an error under its id, the
// upstream's: the client took it for the answer to its own pending
// request of that id. A response gets no answer; it is dropped and
// logged.
func TestReviewRvMMalformedClientResponseAnswersNothing(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"x/hang"}`)
	c.send(`{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`)
	c.send(`{"jsonrpc":"2.0","id":7,"Result":{}}`)
	c.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(8) {
		t.Fatalf("want the ping's answer, got %v", m)
	}
	if !strings.Contains(c.errs.String(), "refused a client message") {
		t.Errorf("stderr does not say what was dropped: %s", c.errs.String())
	}
}

// The same in a batch: its malformed responses get no error under their
// ids (TestProxyBatch: its requests do).
func TestReviewRvMMalformedClientResponseInBatch(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"x/hang"}`)
	c.send(`[{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}]`)
	c.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(8) {
		t.Fatalf("want the ping's answer, got %v", m)
	}
}

// TestReviewRvMCapabilityNamesExact: a capability is declared under its
// name spelt exactly ("elicitation"), as the SDKs read it; the proxy
// read "Elicitation" as the capability (encoding/json matches names
// without regard to case) and sent an elicitation to a client that had
// declared none, where the middleware says no one could be asked.
func TestReviewRvMCapabilityNamesExact(t *testing.T) {
	const unasked = "This action needs a person's approval, and no person could be asked; it is blocked.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	check := func(t *testing.T, m map[string]any) {
		t.Helper()
		r := resultOf(t, m)
		if m["id"] != float64(1) || strings.Join(texts(r), "|") != unasked {
			t.Fatalf("want the block %q, got %v", unasked, m)
		}
	}
	t.Run("initialize", func(t *testing.T) {
		c := start(t, "-server-id", "everything", "-ask-timeout", "2s")
		c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"Elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
		c.recv()
		c.send(call(1, "deploy", `{"path":"prod"}`))
		check(t, c.recv())
	})
	t.Run("2026-07-28", func(t *testing.T) {
		c := start(t, "-server-id", "everything")
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"path":"prod"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"ELICITATION":{}}}}}`)
		check(t, c.recv())
	})
}
