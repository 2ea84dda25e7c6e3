package proxy

import (
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
	c := start(t, "-server-id", "fs", "-timeout", "200ms")
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
