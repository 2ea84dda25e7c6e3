package proxy

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	oarcruntime "github.com/oarc/oarc/runtime"
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
// the client closes its input: the proxy returned, and the goroutine that
// waited for the answer waited on for -ask-timeout (here a minute) after
// it, in a process that runs proxies in-process. No answer can come any
// more: the call is blocked at once (the client may still read), and
// nothing waits after the proxy.
func TestReviewRvEAskEndsWithProxy(t *testing.T) {
	before := asking()
	c := start(t, "-server-id", "everything", "-ask-timeout", "1m")
	c.askDeploy()
	c.in.Close()
	m := c.recv()
	r := resultOf(t, m)
	if meta, _ := r["_meta"].(map[string]any); m["id"] != float64(1) || r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" {
		t.Fatalf("want the call blocked, got %v", m)
	}
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

// nodeDelayed is a JavaScript MCP server (JSON.parse, JSON.stringify:
// ids beyond 2^53 come back rounded) whose tools/call answers after
// arguments.delay ms with the call's arguments.path.
const nodeDelayed = `
require('fs').writeFileSync(require('path').join(process.env.OARC_FAKE_DIR, 'ready'), '');
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  let result = {}, delay = 0;
  if (m.method === 'initialize') result = {protocolVersion: '2025-06-18', capabilities: {tools: {}}, serverInfo: {name: 'node', version: '1'}};
  if (m.method === 'tools/call') { result = {content: [{type: 'text', text: 'path ' + m.params.arguments.path}]}; delay = m.params.arguments.delay || 0; }
  setTimeout(() => process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, result}) + '\n'), delay);
});
`

// TestReviewRvEIDsBeyondFloat: client ids that are integers beyond
// float64's precision (12345678901234567891 and ...892 are one double,
// which a JavaScript peer writes back as 12345678901234567000) are two
// requests: the upstream only ever sees the proxy's own small ids, so its
// rounding cannot give one call the other's result, and each answer goes
// back under the client's id as written. A cancellation of a third id
// that rounds to the same double cancels neither.
func TestReviewRvEIDsBeyondFloat(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	cfg := Config{Set: func(o ...oarcruntime.Option) (guard.Set, error) {
		return testset.Guard(lycaon.Env{}, nil, o...)
	}}
	c := startWith(t, cfg, "-server-id", "fs", "-timeout", "5s", "--", node, "-e", nodeDelayed)
	c.init()
	c.send(`{"jsonrpc":"2.0","id":12345678901234567891,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a","delay":400}}}`)
	c.send(`{"jsonrpc":"2.0","id":12345678901234567892,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"b"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567000}}`)
	for _, want := range []struct{ id, text string }{{"12345678901234567892", "path b"}, {"12345678901234567891", "path a"}} {
		raw := c.recvRaw()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(raw), &m) != nil || string(m.ID) != want.id || len(m.Result.Content) == 0 || m.Result.Content[0].Text != want.text {
			t.Fatalf("want %s for id %s, got %s", want.text, want.id, raw)
		}
	}
}

// TestReviewRvEUnreadableAskAnswer: the client's answer to the proxy's
// elicitation that the proxy cannot take as a message (in a JSON-RPC
// batch, which the proxy does not relay; malformed) was dropped like a
// response to no request, and the call waited -ask-timeout: it is no
// answer, and the call is blocked at once.
func TestReviewRvEUnreadableAskAnswer(t *testing.T) {
	for name, answer := range map[string]string{
		"batch":     `[{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"approve":true}}}]`,
		"jsonrpc":   `{"jsonrpc":"1.0","id":%s,"result":{"action":"accept","content":{"approve":true}}}`,
		"both":      `{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"approve":true}},"error":{"code":1,"message":"x"}}`,
		"folded":    `{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"approve":true}},"reſult":{}}`,
		"batch-bad": `[{"jsonrpc":"1.0","id":%s,"result":{"action":"accept","content":{"approve":true}}}]`,
	} {
		t.Run(name, func(t *testing.T) {
			c := start(t, "-server-id", "everything", "-ask-timeout", "1m")
			m := c.askDeploy()
			id, _ := json.Marshal(m["id"])
			c.send(strings.ReplaceAll(answer, "%s", string(id)))
			start := time.Now()
			r := resultOf(t, c.recv())
			meta, _ := r["_meta"].(map[string]any)
			if r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" || time.Since(start) > 3*time.Second {
				t.Fatalf("want the block at once, got %v after %v", r, time.Since(start))
			}
		})
	}
}
