package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// A tools/call whose params name the arguments otherwise ("Arguments",
// "argumentſ" with U+017F), with no "arguments" beside them: the guard
// evaluates the call without arguments, and an upstream in Go decoding
// the params with encoding/json reads them as the arguments, so the tool
// ran with arguments no rule read. Refused, as a top-level member spelt
// otherwise is (folded).
func TestReviewRvYParamsNameSpeltOtherwise(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	for i, params := range []string{
		`{"name":"read_text_file","Arguments":{"path":"/secret"}}`,
		`{"name":"read_text_file","argumentſ":{"path":"/secret"}}`,
		`{"name":"write_file","ARGUMENTS":{"path":"/o","content":"x"}}`,
	} {
		c.send(`{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":` + params + `}`)
		m := c.recv()
		if _, ok := m["error"]; !ok {
			t.Errorf("params %s: want an error, never forwarded; got %v", params, m)
		}
		if r, ok := m["result"].(map[string]any); ok && strings.Contains(strings.Join(texts(r), "|"), "hello from /") {
			t.Errorf("params %s: the upstream ran the call with arguments the guard did not read: %v", params, r)
		}
	}
	if c.written() {
		t.Error("write_file reached the upstream with arguments the guard did not read")
	}
}

// A tool result with a member the guard reads spelt otherwise, alone
// ("Text" for a content item's text, "Content" for the content,
// "ſtructuredContent"): the guard reads no text there and passes the
// result on, and a client in Go decoding it with encoding/json reads
// that member as the one the guard did not read, a secret no rule
// redacted. Withheld, never forwarded.
func TestReviewRvYResultNameSpeltOtherwise(t *testing.T) {
	cfg := Config{Set: func(o ...runtime.Option) (guard.Set, error) { return testset.Guard(lycaon.Env{}, nil, o...) }}
	var out bytes.Buffer
	p, err := newProxy(options{serverID: "fs", notes: true}, cfg, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for i, res := range []string{
		`{"content":[{"type":"text","Text":"key ` + awsKey + `"}]}`,
		`{"Content":[{"type":"text","text":"key ` + awsKey + `"}]}`,
		`{"content":[],"ſtructuredContent":{"a":"key ` + awsKey + `"}}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///k","TEXT":"key ` + awsKey + `"}}]}`,
		`{"content":[{"type":"resource","Resource":{"uri":"file:///k","text":"key ` + awsKey + `"}}]}`,
	} {
		out.Reset()
		id := json.RawMessage(strconv.Itoa(i + 1))
		q := &pending{id: id, key: string(id), method: "tools/call", ctx: context.Background(), stop: func() {}}
		q.call = p.conn.Begin(context.Background(), id, "read_text_file", json.RawMessage(`{"path":"/p`+strconv.Itoa(i)+`"}`))
		// Pending until answered, as a call the proxy forwarded is.
		p.pending[q.key] = q
		f, why := parse([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + res + `}`))
		if why != "" {
			t.Fatalf("%s: %s", res, why)
		}
		p.respond(f, q)
		if got := out.String(); strings.Contains(got, awsKey) || !strings.Contains(got, "OAR_GUARD") {
			t.Errorf("result %s: want it withheld (OAR_GUARD), got %s", res, got)
		}
	}
}

// With -timeout 0 no write to the upstream has a deadline. A client
// without the elicitation capability has its calls (and every other
// message) written to the upstream by the proxy's reader of its input: a
// write held up by an upstream that no longer reads kept the reader from
// seeing the input close, so the proxy never exited (docs/mcp.md says
// its exit does not wait for such a write).
func TestReviewRvYExitsWhenUpstreamDeafOnReader(t *testing.T) {
	c := start(t, "-server-id", "fs", "-timeout", "0")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":"d","method":"x/deaf"}`)
	if m := c.recv(); m["id"] != "d" {
		t.Fatalf("x/deaf: %v", m)
	}
	c.send(call(1, "read_text_file", `{"path":"/ok","pad":"`+strings.Repeat("x", 1<<20)+`"}`))
	time.Sleep(200 * time.Millisecond)
	c.in.Close()
	if !c.exited(8 * time.Second) {
		t.Fatal("the proxy did not exit after its input closed")
	}
}

// A message of the upstream larger than -max-message that is a request of
// its own (its id is the server's, which may be the number the proxy gave
// a pending request) answers no request: the pending call is not failed
// with "the MCP server's answer is larger", and gets its real answer.
func TestReviewRvYHugeServerRequestAnswersNothing(t *testing.T) {
	c := start(t, "-server-id", "fs", "-max-message", "1048576")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/huge-request"}`))
	r := resultOf(t, c.recv())
	if got := strings.Join(texts(r), "|"); got != "answered" {
		t.Errorf("want the call's answer, got %v", r)
	}
}

// A client of MCP 2026-07-28 that declares the tasks extension in a
// call's capabilities lets the server answer the call with a task, whose
// result (tasks/get) the guard never sees: the proxy withholds such an
// answer, so the call failed although the upstream ran it, and its result
// waited upstream for a tasks/get. The proxy leaves the extension out of
// the capabilities it forwards, as it leaves the tasks capability of
// 2025-11-25 out of initialize: the server answers the call itself.
func TestReviewRvYTasksExtensionNotForwarded(t *testing.T) {
	c := start(t, "-server-id", "fs")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	c.send(modernCall(1, "read_text_file", `{"path":"/task-if-declared"}`, meta, ""))
	r := resultOf(t, c.recv())
	if got := strings.Join(texts(r), "|"); got != "done at once" || r["isError"] == true {
		t.Errorf("want the call answered by the server itself, got %v", r)
	}
}

// tasks/get of the tasks extension (2026-07-28) brings a completed task's
// result inline: a tool result of a call the guard did not see answered,
// as tasks/result of 2025-11-25 does (which the proxy refuses). Withheld.
func TestReviewRvYTaskGetResultWithheld(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t-1"}}`)
	raw := c.recvRaw()
	if strings.Contains(raw, awsKey) || !strings.Contains(raw, `"error"`) {
		t.Errorf("want the task's result withheld with an error, got %s", raw)
	}
}
