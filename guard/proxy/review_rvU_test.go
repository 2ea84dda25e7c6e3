package proxy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// exited waits up to d for the proxy to return, and gives its status
// back to the channel for startWith's cleanup.
func (c *client) exited(d time.Duration) bool {
	select {
	case code := <-c.done:
		c.done <- code
		return true
	case <-time.After(d):
		return false
	}
}

// When the client closes its input the proxy exits (and stops its
// upstream) promptly, also when the client no longer reads what the proxy
// writes: a request of the client timed out while the upstream took its
// time to exit, the proxy's answer to it waited for a reader that never
// came, and the proxy's exit waited for that write, for ever (the race
// detector's second of sleep at the exit of the fake upstream made
// TestProxyReusedIDLateAnswer run into it). The client is gone: no answer
// is owed to it any more, and none is waited for.
func TestProxyExitsWhenClientGoes(t *testing.T) {
	// A -timeout long enough for initialize on a loaded machine, while
	// the fake upstream starts (see TestProxyTimeoutCancelsUpstream).
	c := start(t, "-server-id", "fs", "-timeout", "2s")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":"l","method":"x/linger"}`)
	if m := c.recv(); m["id"] != "l" {
		t.Fatalf("x/linger: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"x/hang"}`)
	c.in.Close()
	// The upstream exits 2 s after its input closes.
	if !c.exited(6 * time.Second) {
		t.Fatal("the proxy did not exit after its input closed")
	}
}

// An upstream that no longer reads its input holds up a write of the
// proxy to it: when the client closes its input, the proxy still stops
// the upstream within 5 s and exits, rather than wait for the write.
func TestProxyExitsWhenUpstreamDeaf(t *testing.T) {
	c := start(t, "-server-id", "fs", "-timeout", "0")
	// With the elicitation capability a tools/call is evaluated, and
	// forwarded, off the client's reader.
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := c.recv(); m["id"] != float64(0) {
		t.Fatalf("initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":"d","method":"x/deaf"}`)
	if m := c.recv(); m["id"] != "d" {
		t.Fatalf("x/deaf: %v", m)
	}
	// More than a pipe holds: the write to the upstream blocks.
	c.send(call(1, "read_text_file", `{"path":"/ok","pad":"`+strings.Repeat("x", 1<<20)+`"}`))
	time.Sleep(200 * time.Millisecond)
	c.in.Close()
	start := time.Now()
	if !c.exited(8 * time.Second) {
		t.Fatal("the proxy did not exit after its input closed")
	}
	if d := time.Since(start); d > 6500*time.Millisecond {
		t.Errorf("the proxy took %v to stop its upstream (want about 5 s)", d)
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "deaf"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if proc, err := os.FindProcess(pid); err == nil && proc.Signal(syscall.Signal(0)) == nil {
		t.Errorf("the upstream (pid %d) still runs after the proxy exited", pid)
	}
}

// A malformed message of the upstream that answers a pending request (its
// id is the request's, or the request's number written as a string) gets
// the request an error at once, rather than after -timeout; nothing of it
// reaches the client. One that answers no pending request (an id null, a
// line that is not JSON, a request of the server's own) is logged.
func TestProxyMalformedAnswerAtOnce(t *testing.T) {
	// A -timeout longer than recv waits: the error must come first.
	c := start(t, "-server-id", "fs", "-timeout", "30s")
	c.init()
	for i, path := range []string{"/malformed", "/not-jsonrpc", "/string-id", "/both", "/ambiguous"} {
		id := 20 + i
		c.send(call(id, "read_text_file", `{"path":"`+path+`"}`))
		raw := c.recvRaw()
		if strings.Contains(raw, awsKey) {
			t.Fatalf("%s: the malformed answer reached the client: %s", path, raw)
		}
		var m struct {
			ID    any `json:"id"`
			Error struct {
				Code    float64 `json:"code"`
				Message string  `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(raw), &m); err != nil || m.ID != float64(id) || m.Error.Code != codeUpstream ||
			!strings.Contains(m.Error.Message, "malformed") {
			t.Errorf("%s: want error -32001 for id %d at once, got %s", path, id, raw)
		}
	}
	// Not attributable: logged, and the call goes on.
	c.send(call(30, "read_text_file", `{"path":"/server-request"}`))
	if r := resultOf(t, c.recv()); texts(r)[0] != "answered" {
		t.Fatalf("after a malformed request of the server: %v", r)
	}
	c.send(call(31, "read_text_file", `{"path":"/null-id"}`))
	c.send(call(32, "read_text_file", `{"path":"/ok"}`))
	if m := c.recv(); m["id"] != float64(32) {
		t.Fatalf("want the answer to 32, got %v", m)
	}
	errs := c.errs.String()
	for _, want := range []string{
		"dropped a message of the MCP server that answers no pending request: not a JSON object",
		`dropped a message of the MCP server that answers no pending request: jsonrpc is not "2.0"`,
		"dropped a message of the MCP server that answers no pending request: the id is not a string or a number",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, awsKey) {
		t.Errorf("stderr holds the upstream's content:\n%s", errs)
	}
}

// An upstream that never answers initialize: at -timeout the client gets
// the error, and stderr a hint at what to look at.
func TestProxyInitializeHint(t *testing.T) {
	c := start(t, "-server-id", "fs", "-timeout", "300ms")
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"unanswered","version":"1"}}}`)
	if m := c.recv(); m["id"] != float64(0) || m["error"] == nil {
		t.Fatalf("want the timeout error of initialize, got %v", m)
	}
	errs := c.errs.String()
	for _, want := range []string{"did not answer initialize within 300ms", "run the command alone"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// A member whose name is one of JSON-RPC's spelt otherwise ("Method",
// "reſult" with U+017F) is the member itself to a peer in Go that decodes
// with encoding/json, though the message has no member of that name to
// collide with: a client's response with a "Method" and "params" was
// forwarded (responses pass) and ran at a Go upstream as a tools/call no
// rule evaluated; an upstream's error answer with a "reſult" reached a Go
// client with a tool result no rule evaluated. Both are refused as
// malformed.
func TestProxyEnvelopeNameSpeltOtherwise(t *testing.T) {
	c := start(t, "-server-id", "fs", "-timeout", "30s")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":5,"result":{},"Method":"tools/call","params":{"name":"write_file","arguments":{"path":"/o","content":"evil"}}}`)
	if m := c.recv(); m["error"] == nil || !strings.Contains(fmt.Sprint(m["error"]), `"Method"`) {
		t.Fatalf("want an error that names the member, got %v", m)
	}
	// The fake upstream (encoding/json) answered a ping after it: it saw
	// the message by then, were it forwarded.
	c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := c.recv(); m["id"] != "p" {
		t.Fatalf("want the ping's answer, got %v", m)
	}
	if c.written() {
		t.Fatal("a tools/call the guard never saw ran at the upstream")
	}
	c.send(call(6, "read_text_file", `{"path":"/folded"}`))
	raw := c.recvRaw()
	if strings.Contains(raw, awsKey) {
		t.Fatalf("the member reached the client: %s", raw)
	}
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil || m["id"] != float64(6) || m["error"] == nil {
		t.Fatalf("want an error for 6 at once, got %s", raw)
	}
}

// An upstream that no longer reads its input, and a client request
// larger than a pipe holds, written by the client's reader: the write
// waited for ever, and so did the request, the client's other messages
// and the proxy's exit (its input's end was never read). A write to the
// upstream that does not finish within -timeout stops the upstream (the
// frame is cut short: its input is unusable), and the proxy fails the
// pending requests and exits as when the upstream dies.
func TestProxyUpstreamDeafWrite(t *testing.T) {
	c := start(t, "-server-id", "fs", "-timeout", "1s")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":"d","method":"x/deaf"}`)
	if m := c.recv(); m["id"] != "d" {
		t.Fatalf("x/deaf: %v", m)
	}
	c.send(call(1, "read_text_file", `{"path":"/ok","pad":"`+strings.Repeat("x", 1<<20)+`"}`))
	if m := c.recv(); m["id"] != float64(1) || m["error"] == nil {
		t.Fatalf("want an error for 1, got %v", m)
	}
	if !c.exited(8 * time.Second) {
		t.Fatal("the proxy did not exit after its upstream stopped")
	}
	if code := <-c.done; code != 1 {
		t.Errorf("exit status %d, want 1", code)
	} else {
		c.done <- code
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "deaf"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if proc, err := os.FindProcess(pid); err == nil && proc.Signal(syscall.Signal(0)) == nil {
		t.Errorf("the upstream (pid %d) still runs after the proxy exited", pid)
	}
	if !strings.Contains(c.errs.String(), "did not read its input") {
		t.Errorf("stderr does not say why:\n%s", c.errs.String())
	}
}
