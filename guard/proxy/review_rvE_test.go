package proxy

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"
)

// asking counts the goroutines of this process that wait in the proxy's
// ask (a person's answer to a question of spec 5.12).
func asking() int {
	b := make([]byte, 1<<20)
	for {
		n := runtime.Stack(b, true)
		if n < len(b) {
			return strings.Count(string(b[:n]), "proxy.(*proxy).ask(")
		}
		b = make([]byte, 2*len(b))
	}
}

// TestReviewRvEAskEndsWithProxy: a call waits for a person's answer when
// the client goes (closes its input): the proxy returns, and the
// goroutine that waited for the answer waited on for -ask-timeout (here a
// minute) after it, in a process that runs proxies in-process. It ends
// with the proxy, the call neither forwarded nor answered (the client is
// gone).
func TestReviewRvEAskEndsWithProxy(t *testing.T) {
	before := asking()
	c := start(t, "-server-id", "everything", "-ask-timeout", "1m")
	c.askDeploy()
	c.in.Close()
	select {
	case <-c.done:
		c.done <- 0 // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not exit after its input closed")
	}
	for wait := time.Now().Add(2 * time.Second); asking() > before && time.Now().Before(wait); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := asking(); n > before {
		t.Fatalf("%d goroutines still wait for a person's answer after the proxy returned", n-before)
	}
}

// TestReviewRvEHugeAskAnswer: the client's answer to the proxy's
// elicitation is larger than -max-message: it cannot be read, so it is
// no answer, and the call is blocked at once, not after -ask-timeout
// (the answer was dropped as a response to no request of the client's).
func TestReviewRvEHugeAskAnswer(t *testing.T) {
	for _, where := range []string{"head", "tail"} {
		t.Run(where, func(t *testing.T) {
			c := start(t, "-server-id", "everything", "-ask-timeout", "1m", "-max-message", "1024")
			m := c.askDeploy()
			id, _ := json.Marshal(m["id"])
			pad := strings.Repeat("a", 4000)
			if where == "head" {
				c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{"approve":true,"pad":"` + pad + `"}}}`)
			} else {
				c.send(`{"jsonrpc":"2.0","result":{"action":"accept","content":{"approve":true,"pad":"` + pad + `"}},"id":` + string(id) + `}`)
			}
			start := time.Now()
			r := resultOf(t, c.recv())
			meta, _ := r["_meta"].(map[string]any)
			if r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" || time.Since(start) > 3*time.Second {
				t.Fatalf("want the block at once, got %v after %v", r, time.Since(start))
			}
		})
	}
}

// TestReviewRvEAskAfterCancelNotShown: the client cancels a call before
// the proxy has put its question to the person: the question is not
// shown at all (it was sent, then withdrawn at once, a person seeing a
// question about a call that cannot run), and the call is not
// forwarded.
func TestReviewRvEAskAfterCancelNotShown(t *testing.T) {
	release := make(chan struct{})
	panicHook = func(w, method string) {
		if w == "request" && method == "tools/call" {
			<-release
		}
	}
	t.Cleanup(func() { panicHook = nil })
	c := start(t, "-server-id", "everything", "-ask-timeout", "1m")
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.recv()
	c.send(call(1, "deploy", `{"path":"prod"}`))
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(2) {
		t.Fatalf("want the ping's answer, got %v", m)
	}
	// The cancellation was handled: the call's evaluation goes on now.
	close(release)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(3) {
		t.Fatalf("want the second ping's answer, got %v", m)
	}
}
