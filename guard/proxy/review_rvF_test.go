package proxy

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// blocklist is a compilation set with one rule, a blocklist entry (no
// deny-by-default): it blocks the tool named, mcp_S_T, and allows every
// other call. The proxy's tests that need a set whose block depends on
// the server id use it.
type blocklist struct {
	tool string
	// seen are the tool facts of the occurrences evaluated.
	seen []string
}

func (b *blocklist) Info() *guard.Info {
	return &guard.Info{Name: "blocklist", Anchors: []guard.Anchor{guard.PreInvoke}}
}

func (b *blocklist) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	b.seen = append(b.seen, o.Tool)
	if o.Tool == b.tool {
		d.Effect, d.Code = runtime.Block, "NO_WRITE"
	}
	return nil
}

// A tools/call that arrives before the upstream answered initialize,
// without -server-id, cannot be evaluated with the facts spec 11 gives it
// (tool = mcp_S_T, S from serverInfo.name): the server id is not known.
// It is blocked with OAR_GUARD and never forwarded, as a call the guard
// could not evaluate; evaluated with the id "" it escaped every rule that
// names the server (here a blocklist of mcp_fake_fs_server_write_file),
// and MCP servers of the TypeScript SDK run calls before initialize.
func TestProxyCallBeforeInitialize(t *testing.T) {
	set := &blocklist{tool: "mcp_fake_fs_server_write_file"}
	c := startWith(t, Config{Set: func(...runtime.Option) (guard.Set, error) { return set, nil }})
	c.send(call(1, "write_file", `{"path":"/o","content":"x"}`))
	text, isErr, code := c.callTextOf(1)
	if !isErr || code != guard.CodeGuard || !strings.Contains(text, "initialize") || c.written() {
		t.Fatalf("a call before initialize: %q %v %q (written %v)", text, isErr, code, c.written())
	}
	c.init()
	c.send(call(2, "write_file", `{"path":"/o","content":"x"}`))
	if _, isErr, code := c.callTextOf(2); !isErr || code != "NO_WRITE" || c.written() {
		t.Fatalf("a call after initialize: %v %q (written %v)", isErr, code, c.written())
	}
	c.send(call(3, "read_text_file", `{"path":"/a"}`))
	if text, isErr, _ := c.callTextOf(3); isErr || text != "hello from /a" {
		t.Fatalf("an allowed call: %q %v", text, isErr)
	}
	if strings.Join(set.seen, ",") != "mcp_fake_fs_server_write_file,mcp_fake_fs_server_read_text_file" {
		t.Fatalf("evaluated: %v", set.seen)
	}
}

// callTextOf reads the answer to call id: its text, isError and
// _meta["oarc/code"].
func (c *client) callTextOf(id int) (string, bool, string) {
	c.t.Helper()
	m := c.recv()
	if m["id"] != float64(id) {
		c.t.Fatalf("want the answer to %d, got %v", id, m)
	}
	r := resultOf(c.t, m)
	code := ""
	if meta, ok := r["_meta"].(map[string]any); ok {
		code, _ = meta["oarc/code"].(string)
	}
	return strings.Join(texts(r), "|"), r["isError"] == true, code
}

// universalLines splits lines as Python's text stdin reads them, which
// the MCP Python SDK's stdio transport iterates (io.TextIOWrapper with
// universal newlines): "\n", "\r\n" and a lone "\r" each end a line, as
// they do for Node's readline.
func universalLines(data []byte, atEOF bool) (int, []byte, error) {
	for i, c := range data {
		switch {
		case c == '\n':
			return i + 1, data[:i], nil
		case c == '\r' && i+1 < len(data):
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		case c == '\r' && atEOF:
			return i + 1, data[:i], nil
		case c == '\r':
			return 0, nil, nil // a "\n" may follow
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// A carriage return is white space to JSON, and the end of a line to the
// MCP Python SDK's stdio transport (universal newlines) and to Node's
// readline. A client frame that the proxy reads as one request (a ping)
// but that holds, between two carriage returns, a tools/call of its own
// reached such an upstream as that call, never evaluated: every frame the
// proxy writes, to either side, has no carriage return.
func TestProxyCarriageReturn(t *testing.T) {
	t.Setenv("OARC_FAKE_UNIVERSAL", "1")
	c := start(t, "-server-id", "fs")
	c.init()
	smuggled := call(7, "write_file", `{"path":"/o","content":"x"}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":` + "\r" + smuggled + "\r" + `}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":` + "\r" + smuggled + "\r" + `}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	var ids []any
	for len(ids) == 0 || ids[len(ids)-1] != float64(2) {
		ids = append(ids, c.recv()["id"])
	}
	if c.written() {
		t.Fatal("a tools/call hidden behind carriage returns reached the upstream unevaluated")
	}
	if len(ids) != 2 || ids[0] != float64(1) {
		t.Fatalf("answers: %v", ids)
	}
	// And towards the client: a result with carriage returns in it
	// reaches the client without them.
	c.send(call(3, "read_text_file", `{"path":"/cr"}`))
	raw := c.recvRaw()
	if strings.Contains(raw, "\r") || !strings.Contains(raw, `"id":3`) {
		t.Fatalf("the client received %q", raw)
	}
}

// The result of a task (tasks/result, MCP 2025-11-25) is a tool result
// that never went through the guard: the proxy refuses task-augmented
// calls, so a client's tasks/result is about a task the guard did not
// see (one an upstream made of a plain call, one of another route), and
// is refused, never forwarded. The upstream's own tasks/result to the
// client (a task of the client's sampling or elicitation) passes.
func TestProxyTaskResult(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{"taskId":"t-1"}}`)
	raw := c.recvRaw()
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	e, _ := m["error"].(map[string]any)
	if strings.Contains(raw, awsKey) || m["id"] != float64(1) || e == nil || e["code"] != float64(codeInvalidParams) {
		t.Fatalf("tasks/result: %s", raw)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("ping: %v", m)
	}
}

// A lone surrogate (a \u escape) or invalid UTF-8 in a string is U+FFFD
// to the guard (encoding/json's reading), but JavaScript keeps the lone
// surrogate and other readers drop the bytes: text split so escaped
// from the rules' reading ("AKIA<lone surrogate>IOSF..." is no AWS key
// to the guard, and one to a reader that drops it). Every frame is
// relayed with its strings as the guard read them: the client gets
// U+FFFD, in the text the rules saw, and no lone surrogate.
func TestProxyLoneSurrogate(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	set := &blocklist{tool: "mcp_fs_none"}
	c := startWith(t, Config{Set: func(...runtime.Option) (guard.Set, error) { return set, nil }}, "-server-id", "fs", "--", node, "-e", nodeUpstream)
	c.init()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write\udc00_file","arguments":{}}}`)
	raw := c.recvRaw()
	if strings.Contains(strings.ToLower(raw), `\udc00`) || !strings.Contains(raw, "called write\uFFFD_file") {
		t.Fatalf("the client received %s", raw)
	}
	c.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"read\xff_file\",\"arguments\":{}}}")
	if raw := c.recvRaw(); !utf8.ValidString(raw) || !strings.Contains(raw, "called read\uFFFD_file") {
		t.Fatalf("the client received %q", raw)
	}
}

// askDeploy initializes c as a client that takes elicitations, calls
// deploy (id 1), and returns the proxy's elicitation/create for it.
func (c *client) askDeploy() map[string]any {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.recv()
	c.send(call(1, "deploy", `{"path":"prod"}`))
	m := c.recv()
	if m["method"] != "elicitation/create" {
		c.t.Fatalf("want an elicitation, got %v", m)
	}
	return m
}

// The answer to the proxy's elicitation is read by its members' exact
// names, as the middleware's SDK reads it: a yes only in "action":
// "accept" with "approve": true. encoding/json matched "Action" to
// action too, and an answer that declined under "action" and accepted
// under "Action" approved the call.
func TestProxyAskAnswerExact(t *testing.T) {
	for _, answer := range []string{
		`{"action":"decline","Action":"accept","content":{"approve":true}}`,
		`{"ACTION":"accept","content":{"approve":true}}`,
		`{"action":"accept","Content":{"approve":true}}`,
	} {
		c := start(t, "-server-id", "everything", "-ask-timeout", "5s")
		m := c.askDeploy()
		id, _ := json.Marshal(m["id"])
		c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + answer + `}`)
		if _, isErr, code := c.callTextOf(1); !isErr || code != "ASK_DEPLOY" {
			t.Errorf("answer %s: isError %v, code %q", answer, isErr, code)
		}
	}
}

// A call the client cancels while the proxy waits for a person's answer
// is not forwarded, and the question is withdrawn at once
// (notifications/cancelled for the proxy's elicitation), not left open
// for -ask-timeout: a person who approved it would believe it ran. The
// late answer is dropped, and the call never runs.
func TestProxyAskCancelled(t *testing.T) {
	c := start(t, "-server-id", "everything", "-ask-timeout", "1m")
	m := c.askDeploy()
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	n := c.recv()
	if n["method"] != "notifications/cancelled" || n["params"].(map[string]any)["requestId"] != m["id"] {
		t.Fatalf("want the elicitation %v cancelled, got %v", m["id"], n)
	}
	id, _ := json.Marshal(m["id"])
	c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{"approve":true}}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(2) {
		t.Fatalf("want the ping's answer, got %v", m)
	}
}
