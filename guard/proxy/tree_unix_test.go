//go:build unix

package proxy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid runs (a zombie, not yet reaped by whoever
// inherited it, does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// An upstream stopped because it no longer reads its input is stopped
// with its children: a server started through npx runs as node, a child
// of npx, which holds the upstream's output open and would run on, deaf,
// after the proxy exited.
func TestProxyStopsUpstreamTree(t *testing.T) {
	c := start(t, "-server-id", "fs", "-timeout", "1s")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":"d","method":"x/deaf-tree"}`)
	if m := c.recv(); m["id"] != "d" {
		t.Fatalf("x/deaf-tree: %v", m)
	}
	c.send(call(1, "read_text_file", `{"path":"/ok","pad":"`+strings.Repeat("x", 1<<20)+`"}`))
	if m := c.recv(); m["id"] != float64(1) || m["error"] == nil {
		t.Fatalf("want an error for 1, got %v", m)
	}
	// One answer per request: the request timed out as the write to the
	// upstream failed, and both answered it.
	for c.out.Scan() {
		var m map[string]any
		if json.Unmarshal(c.out.Bytes(), &m) == nil && m["id"] == float64(1) {
			t.Errorf("a second answer to 1: %s", c.out.Bytes())
		}
	}
	if !c.exited(8 * time.Second) {
		t.Fatal("the proxy did not exit after its upstream stopped")
	}
	for _, f := range []string{"deaf", "deaf-child"} {
		b, err := os.ReadFile(filepath.Join(c.dir, f))
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(string(b))
		deadline := time.Now().Add(3 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s (pid %d) still runs after the proxy exited", f, pid)
		}
	}
}
