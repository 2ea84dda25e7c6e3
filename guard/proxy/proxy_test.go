package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// The test binary is also the fake upstream MCP server: with
// OARC_FAKE_UPSTREAM set it serves stdin/stdout as fakeServer says.
func TestMain(m *testing.M) {
	if os.Getenv("OARC_FAKE_SLEEPER") != "" {
		// A child of the fake upstream, holding its output open.
		time.Sleep(60 * time.Second)
		os.Exit(0)
	}
	if os.Getenv("OARC_FAKE_UPSTREAM") != "" {
		// startWith waits for this file before the client speaks.
		os.WriteFile(filepath.Join(os.Getenv("OARC_FAKE_DIR"), "ready"), nil, 0o644)
		fakeServer(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const awsKey = "AKIAIOSFODNN7EXAMPLE"

// fakeServer is a scripted MCP server over newline-delimited JSON-RPC.
// Its read_text_file misbehaves on request (by path), write_file leaves a
// file in OARC_FAKE_DIR so a test sees whether a call reached it.
func fakeServer(in io.Reader, out io.Writer) {
	w := bufio.NewWriter(out)
	send := func(s string) { w.WriteString(s + "\n"); w.Flush() }
	// late is the id of a read_text_file of /late, answered (with a
	// secret) only when x/release comes.
	var late string
	// toCancel is the id of a read_text_file of /cancel; cancels the
	// requestIds of the cancellations received. x/cancels answers
	// {"target":T,"others":N}: whether toCancel was cancelled, and how many
	// other ids were.
	var toCancel string
	var cancels []string
	// tasks says that the session is of the tasks revision (2025-11-25).
	var tasks bool
	// linger: after its input closes, the server takes 2 s to exit.
	linger := false
	defer func() {
		if linger {
			time.Sleep(2 * time.Second)
		}
	}()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	if os.Getenv("OARC_FAKE_UNIVERSAL") != "" {
		sc.Split(universalLines)
	}
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Version string `json:"protocolVersion"`
				Client  struct {
					Name string `json:"name"`
				} `json:"clientInfo"`
				Name      string            `json:"name"`
				Arguments map[string]string `json:"arguments"`
				RequestID json.RawMessage   `json:"requestId"`
				// A retried call of a multi round-trip request.
				RequestState   string          `json:"requestState"`
				InputResponses json.RawMessage `json:"inputResponses"`
				Meta           struct {
					Token json.RawMessage `json:"progressToken"`
					Caps  struct {
						Extensions map[string]json.RawMessage `json:"extensions"`
					} `json:"io.modelcontextprotocol/clientCapabilities"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Method == "notifications/cancelled" {
			cancels = append(cancels, string(m.Params.RequestID))
		}
		if m.ID == nil {
			continue
		}
		id := string(m.ID)
		res := func(r string) { send(`{"result":` + r + `,"jsonrpc":"2.0","id":` + id + `}`) }
		switch m.Method {
		case "x/hang":
			continue
		case "x/linger":
			linger = true
			res(`{}`)
			continue
		case "x/deaf":
			// The server stops reading its input, and does not exit by
			// itself for 30 s; its pid is in OARC_FAKE_DIR/deaf.
			os.WriteFile(filepath.Join(os.Getenv("OARC_FAKE_DIR"), "deaf"), []byte(strconv.Itoa(os.Getpid())), 0o644)
			res(`{}`)
			time.Sleep(30 * time.Second)
		case "x/deaf-tree":
			// x/deaf, with a child of the server's own that shares its
			// output (as npx's node does); its pid is in
			// OARC_FAKE_DIR/deaf-child.
			child := exec.Command(os.Args[0])
			child.Env = append(os.Environ(), "OARC_FAKE_SLEEPER=1")
			child.Stdout = os.Stdout
			if child.Start() == nil {
				os.WriteFile(filepath.Join(os.Getenv("OARC_FAKE_DIR"), "deaf-child"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
			}
			os.WriteFile(filepath.Join(os.Getenv("OARC_FAKE_DIR"), "deaf"), []byte(strconv.Itoa(os.Getpid())), 0o644)
			res(`{}`)
			time.Sleep(30 * time.Second)
		case "x/cancels":
			target, others := false, 0
			for _, c := range cancels {
				if c == toCancel {
					target = true
				} else {
					others++
				}
			}
			res(fmt.Sprintf(`{"target":%v,"others":%d}`, target, others))
			continue
		case "x/release":
			if late != "" {
				send(`{"jsonrpc":"2.0","id":` + late + `,"result":{"content":[{"type":"text","text":"late ` + awsKey + `"}]}}`)
				late = ""
			}
			res(`{}`)
			continue
		case "initialize":
			if m.Params.Client.Name == "unanswered" {
				// A server that never answers initialize.
				continue
			}
			v := "2025-06-18"
			if m.Params.Version == "2025-03-26" {
				v = m.Params.Version
			}
			if m.Params.Version == "2025-11-25" {
				tasks = true
				// A server of the revision with tasks that runs
				// task-augmented tools/call (server-everything does).
				res(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"Fake FS-Server","version":"1"}}`)
				continue
			}
			res(`{"protocolVersion":"` + v + `","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"Fake FS-Server","version":"1"}}`)
		case "tools/list":
			if tasks {
				// A server of the tasks revision lists a tool it runs
				// only as a task, and one it may.
				res(`{"tools":[{"name":"get-sum","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"trigger-long-running-operation","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},{"name":"echo","inputSchema":{"type":"object"}}]}`)
				continue
			}
			res(`{"tools":[{"name":"read_text_file","inputSchema":{"type":"object"}},{"name":"move_file","inputSchema":{"type":"object"}},{"name":"write_file","inputSchema":{"type":"object"}},{"name":"echo","inputSchema":{"type":"object"}},{"name":"rule_status","description":"the upstream's own","inputSchema":{"type":"object"}}]}`)
		case "resources/read":
			send(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
			res(`{"contents":[{"uri":"file:///r","text":"resource text"}]}`)
		case "tasks/get":
			// A task of the tasks extension (2026-07-28), completed: its
			// result inline, a tool result.
			res(`{"resultType":"complete","taskId":"t-1","status":"completed","result":{"content":[{"type":"text","text":"task result ` + awsKey + `"}]}}`)
		case "tasks/result":
			// The result of a task, were there one: a tool result.
			res(`{"content":[{"type":"text","text":"task result ` + awsKey + `"}]}`)
		case "tools/call":
			switch m.Params.Name {
			case "write_file":
				os.WriteFile(filepath.Join(os.Getenv("OARC_FAKE_DIR"), "written"), []byte(m.Params.Arguments["content"]), 0o644)
				res(`{"content":[{"type":"text","text":"ok"}]}`)
				continue
			}
			var raw struct {
				Params map[string]json.RawMessage `json:"params"`
			}
			json.Unmarshal(sc.Bytes(), &raw)
			if a, ok := raw.Params["arguments"]; len(m.Params.Arguments) == 0 {
				// No arguments: they are answered as they reached the
				// upstream.
				if !ok {
					a = json.RawMessage("absent")
				}
				res(`{"content":[{"type":"text","text":` + strconv.Quote("arguments "+string(a)) + `}]}`)
				continue
			}
			switch m.Params.Arguments["path"] {
			case "/secret":
				res(`{"content":[{"type":"text","text":"key ` + awsKey + `"}],"structuredContent":{"content":"key ` + awsKey + `"}}`)
			case "/cr":
				// A carriage return where JSON allows white space, around
				// what is a frame of its own to a reader that ends lines
				// at a carriage return.
				send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"a":` + "\r" + `{"jsonrpc":"2.0","id":99,"result":{"content":[{"type":"text","text":"` + awsKey + `"}]}}` + "\r" + `}}}`)
			case "/hang":
			case "/cancel":
				toCancel = id
			case "/late":
				late = id
			case "/die":
				os.Exit(3)
			case "/huge":
				res(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 3<<20) + `"}]}`)
			case "/huge-request":
				// A request of the server's own, too large, whose id (the
				// server's) is that of the call; then the answer.
				send(`{"jsonrpc":"2.0","id":` + id + `,"method":"sampling/createMessage","params":{"x":"` + strings.Repeat("x", 3<<20) + `"}}`)
				res(`{"content":[{"type":"text","text":"answered"}]}`)
			case "/malformed":
				send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + awsKey + `"}`)
			case "/not-jsonrpc":
				// A log line on stdout, then a response of another
				// protocol version.
				send(`Server started, key ` + awsKey)
				send(`{"jsonrpc":"1.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + awsKey + `"}]}}`)
			case "/string-id":
				send(`{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[{"type":"text","text":"` + awsKey + `"}]}}`)
			case "/both":
				send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + awsKey + `"}]},"error":{"code":1,"message":"x"}}`)
			case "/folded":
				send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":1,"message":"x"},"reſult":{"content":[{"type":"text","text":"` + awsKey + `"}]}}`)
			case "/null-id":
				send(`{"jsonrpc":"2.0","id":null,"result":{"content":[{"type":"text","text":"` + awsKey + `"}]}}`)
			case "/server-request":
				// A request of the server's own, malformed, whose id
				// (the server's) is that of the call; then the answer.
				send(`{"jsonrpc":"1.0","id":` + id + `,"method":"sampling/createMessage","params":{}}`)
				res(`{"content":[{"type":"text","text":"answered"}]}`)
			case "/unknown-id":
				send(`{"jsonrpc":"2.0","id":987654,"result":{"content":[{"type":"text","text":"unevaluated ` + awsKey + `"}]}}`)
			case "/ambiguous":
				send(`{"jsonrpc":"2.0","id":` + id + `,"method":"x","result":{"content":[{"type":"text","text":"` + awsKey + `"}]}}`)
			case "/error":
				send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"message":"bad path"}}`)
			case "/error-folded":
				// An error code spelt twice: a client decoding with
				// encoding/json reads the last ("Code"), others "code".
				send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32602,"Code":0,"message":"bad path"}}`)
			case "/error-folded-alone":
				send(`{"jsonrpc":"2.0","id":` + id + `,"error":{"CODE":-32602,"message":"bad path"}}`)
			case "/progress":
				// arguments.n notifications (3 if absent), 150 ms apart.
				n, err := strconv.Atoi(m.Params.Arguments["n"])
				if err != nil {
					n = 3
				}
				for i := 1; i <= n; i++ {
					send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(m.Params.Meta.Token) + `,"progress":` + fmt.Sprint(i) + `,"total":` + fmt.Sprint(n) + `}}`)
					time.Sleep(150 * time.Millisecond)
				}
				res(`{"content":[{"type":"text","text":"done"}]}`)
			case "/task":
				// A server of the tasks extension (2026-07-28) that makes
				// a task of a plain call: the result comes later, by
				// tasks/get, with the task id.
				res(`{"resultType":"task","task":{"taskId":"t-` + awsKey + `","status":"working"}}`)
			case "/task-if-declared":
				// A server of the tasks extension makes a task of a call
				// only when the client declared the extension.
				if _, ok := m.Params.Meta.Caps.Extensions["io.modelcontextprotocol/tasks"]; ok {
					res(`{"resultType":"task","taskId":"t-1","status":"working"}`)
					continue
				}
				res(`{"resultType":"complete","content":[{"type":"text","text":"done at once"}]}`)
			case "/not-a-result":
				// A result of a 2026-07-28 server that is no CallToolResult.
				res(`{"content":"text","resultType":"complete"}`)
			case "/mrtr":
				// A server of 2026-07-28 with a question of its own: the
				// client answers it by retrying the call.
				if m.Params.RequestState != "up-state" {
					res(`{"resultType":"input_required","requestState":"up-state","inputRequests":{"up/q":{"method":"elicitation/create","params":{"mode":"form","message":"which?","requestedSchema":{"type":"object","properties":{"x":{"type":"string"}}}}}}}`)
					continue
				}
				var in map[string]any
				json.Unmarshal(m.Params.InputResponses, &in)
				b, _ := json.Marshal(in)
				res(`{"resultType":"complete","content":[{"type":"text","text":` + strconv.Quote("the upstream got "+string(b)) + `}]}`)
			case "/batch":
				send(`[{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]}}]`)
			default:
				state := ""
				if m.Params.RequestState != "" || m.Params.InputResponses != nil {
					// Never sent by a client that talks to this server.
					state = " with a requestState " + m.Params.RequestState + " and inputResponses " + string(m.Params.InputResponses)
				}
				res(`{"content":[{"type":"text","text":` + strconv.Quote("hello from "+m.Params.Arguments["path"]+state) + `}]}`)
			}
		default:
			res(`{}`)
		}
	}
}

// client drives a proxy running in-process, in front of the fake upstream.
type client struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan int
	dir  string
	errs *syncWriter
}

func start(t *testing.T, flags ...string) *client {
	t.Helper()
	return startWith(t, Config{Set: func(o ...runtime.Option) (guard.Set, error) {
		return testset.Guard(lycaon.Env{}, nil, o...)
	}}, flags...)
}

// startWith is start with the proxy's Config.
func startWith(t *testing.T, cfg Config, flags ...string) *client {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("OARC_FAKE_UPSTREAM", "1")
	t.Setenv("OARC_FAKE_DIR", dir)
	// Under the race detector the fake upstream is a race binary too,
	// which sleeps a second at its exit (GORACE's atexit_sleep_ms, 1000 by
	// default, read when a process starts): every test's wait for the
	// upstream to exit took that second, and a request with a -timeout
	// under it timed out meanwhile.
	t.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, done: make(chan int, 1), dir: dir, errs: &syncWriter{b: &strings.Builder{}}}
	c.out = bufio.NewScanner(outR)
	c.out.Buffer(make([]byte, 1<<20), 64<<20)
	args := append(flags, "--", os.Args[0])
	go func() {
		code := Main(args, inR, outW, c.errs, cfg)
		outW.Close()
		c.done <- code
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not exit after its input closed")
		}
	})
	c.waitUpstream()
	return c
}

// waitUpstream waits until the upstream runs (the fake upstream and the
// JavaScript ones write OARC_FAKE_DIR/ready first), or the proxy exited.
// The tests' -timeout bounds initialize too, and starting a process on a
// loaded machine (a race binary, node) took longer than a -timeout of
// 400ms, even 3s: initialize timed out (1 run in ~50 of the package
// under load) though the upstream would have answered at once.
func (c *client) waitUpstream() {
	c.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if _, err := os.Stat(filepath.Join(c.dir, "ready")); err == nil {
			return
		}
		select {
		case code := <-c.done:
			c.done <- code
			return
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the upstream did not start: %s", c.errs.String())
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// String is what was written so far.
func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (c *client) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, s+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads one message, failing after a timeout.
func (c *client) recv() map[string]any {
	c.t.Helper()
	b := c.recvRaw()
	var m map[string]any
	if err := json.Unmarshal([]byte(b), &m); err != nil {
		c.t.Fatalf("not JSON from the proxy: %s", b)
	}
	return m
}

// recvRaw reads one message as the proxy wrote it.
func (c *client) recvRaw() string {
	c.t.Helper()
	ch := make(chan []byte, 1)
	go func() {
		if c.out.Scan() {
			ch <- append([]byte(nil), c.out.Bytes()...)
		} else {
			ch <- nil
		}
	}()
	select {
	case b := <-ch:
		if b == nil {
			c.t.Fatal("the proxy closed its output")
		}
		return string(b)
	case <-time.After(10 * time.Second):
		c.t.Fatal("no message from the proxy")
	}
	return ""
}

func (c *client) init() {
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := c.recv(); m["id"] != float64(0) || m["result"] == nil {
		c.t.Fatalf("initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func call(id int, tool string, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func resultOf(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", m)
	}
	return r
}

func texts(r map[string]any) []string {
	var out []string
	items, _ := r["content"].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			s, _ := m["text"].(string)
			out = append(out, s)
		}
	}
	return out
}

func (c *client) written() bool {
	_, err := os.Stat(filepath.Join(c.dir, "written"))
	return err == nil
}

// A blocked call never reaches the upstream; an allowed one does.
func TestProxyBlockAndAllow(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(call(1, "move_file", `{"source":"a","destination":"b"}`))
	m := c.recv()
	r := resultOf(t, m)
	if m["id"] != float64(1) || r["isError"] != true || r["_meta"].(map[string]any)["oarc/code"] != "NOT_ALLOWLISTED" {
		t.Fatalf("block: %v", m)
	}
	c.send(call(2, "write_file", `{"path":"/o","content":"x"}`))
	r = resultOf(t, c.recv())
	if r["isError"] == true || !c.written() || r["_meta"].(map[string]any)["oarc/node"] != "r1" {
		t.Fatalf("allowed write: %v (written %v)", r, c.written())
	}
}

// Provenance: after a read from an untrusted server, the write is blocked
// and never reaches it.
func TestProxyProvenance(t *testing.T) {
	c := start(t, "-server-id", "fs", "-trust", "untrusted")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/mail"}`))
	resultOf(t, c.recv())
	c.send(call(2, "write_file", `{"path":"/o","content":"x"}`))
	r := resultOf(t, c.recv())
	if r["_meta"].(map[string]any)["oarc/code"] != "UNTRUSTED_WRITE" || c.written() {
		t.Fatalf("write after untrusted read: %v (written %v)", r, c.written())
	}
}

// A secret is redacted in the text and in structuredContent; tools/list is
// narrowed; the server id defaults to serverInfo.name, normalised.
func TestProxyRedactAndList(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/secret"}`))
	m := c.recv()
	b, _ := json.Marshal(m)
	if strings.Contains(string(b), awsKey) || !strings.Contains(string(b), `"structuredContent":{"content":"key [REDACTED]"}`) {
		t.Fatalf("redaction: %s", b)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r := resultOf(t, c.recv())
	tools := r["tools"].([]any)
	if len(tools) != 2 || tools[0].(map[string]any)["name"] != "read_text_file" || tools[1].(map[string]any)["name"] != "write_file" {
		t.Fatalf("tools/list: %v", r)
	}

	d := start(t, "-records", filepath.Join(t.TempDir(), "rec.jsonl"))
	d.init()
	d.send(call(1, "read_text_file", `{"path":"/a"}`))
	if r := resultOf(t, d.recv()); r["_meta"].(map[string]any)["oarc/code"] != "NOT_ALLOWLISTED" {
		t.Fatalf("server id fake_fs_server is not fs: %v", r)
	}
}

// Non-tool traffic passes: a resources/read and the notification the
// server sends before answering.
func TestProxyPassThrough(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(`{"jsonrpc":"2.0","id":"r-1","method":"resources/read","params":{"uri":"file:///r"}}`)
	if m := c.recv(); m["method"] != "notifications/resources/list_changed" {
		t.Fatalf("notification: %v", m)
	}
	if r := resultOf(t, c.recv()); r["contents"].([]any)[0].(map[string]any)["text"] != "resource text" {
		t.Fatalf("resources/read: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if m := c.recv(); m["id"] != float64(5) {
		t.Fatalf("ping: %v", m)
	}
}

// Hostile and broken traffic: each answered with an error, nothing
// forwarded unevaluated, nothing hangs.
func TestProxyHostile(t *testing.T) {
	c := start(t, "-server-id", "fs", "-timeout", "2s", "-max-message", "1048576")
	c.init()
	for _, tc := range []struct {
		name, send string
		code       float64
	}{
		{"malformed JSON from the client", `{"jsonrpc":"2.0","id":1,`, codeParse},
		{"no jsonrpc", `{"id":1,"method":"ping"}`, codeInvalidRequest},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"tools/call","result":{}}`, codeInvalidRequest},
		{"a call without a name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}`, codeInvalidParams},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, codeInvalidRequest},
		{"a task-augmented call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"content":"t"},"task":{"ttl":1000}}}`, codeInvalidParams},
	} {
		c.send(tc.send)
		m := c.recv()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != tc.code {
			t.Errorf("%s: %v", tc.name, m)
		}
	}
	if c.written() {
		t.Fatal("a refused message reached the server")
	}
	// The upstream never answers: an error after -timeout.
	c.send(call(10, "read_text_file", `{"path":"/hang"}`))
	if m := c.recv(); m["id"] != float64(10) || m["error"].(map[string]any)["code"] != float64(codeUpstream) {
		t.Fatalf("timeout: %v", m)
	}
	// The upstream's malformed answer is withheld; the client gets an
	// error at once, not garbage.
	c.send(call(11, "read_text_file", `{"path":"/malformed"}`))
	if m := c.recv(); m["id"] != float64(11) || m["error"] == nil {
		t.Fatalf("malformed: %v", m)
	}
	// A result for an id no request has is dropped (it would reach the
	// client unevaluated); the call itself times out.
	c.send(call(12, "read_text_file", `{"path":"/unknown-id"}`))
	if m := c.recv(); m["id"] != float64(12) || m["error"] == nil {
		t.Fatalf("unknown id: %v", m)
	}
	// A frame that is both a request and a response is withheld, the
	// request answered with an error.
	c.send(call(13, "read_text_file", `{"path":"/ambiguous"}`))
	if m := c.recv(); m["id"] != float64(13) || m["error"] == nil {
		t.Fatalf("ambiguous: %v", m)
	}
	c.send(call(14, "read_text_file", `{"path":"/batch"}`))
	if m := c.recv(); m["id"] != float64(14) || m["error"] == nil {
		t.Fatalf("batch from the upstream: %v", m)
	}
	// A result over -max-message is withheld with an error, never
	// truncated.
	c.send(call(15, "read_text_file", `{"path":"/huge"}`))
	if m := c.recv(); m["id"] != float64(15) || !strings.Contains(fmt.Sprint(m["error"]), "withheld") {
		t.Fatalf("huge: %v", m)
	}
	// A JSON-RPC error passes through, seen by tool.post_invoke.
	c.send(call(16, "read_text_file", `{"path":"/error"}`))
	if m := c.recv(); m["id"] != float64(16) || m["error"].(map[string]any)["code"] != float64(-32602) {
		t.Fatalf("error: %v", m)
	}
	// An error whose code is spelt otherwise, alone or beside "code",
	// reads one way to the rules and another to some client: it is
	// answered as malformed, never passed on.
	for i, path := range []string{"/error-folded", "/error-folded-alone"} {
		id := 160 + i
		c.send(call(id, "read_text_file", `{"path":"`+path+`"}`))
		if m := c.recv(); m["id"] != float64(id) || m["error"].(map[string]any)["code"] != float64(codeUpstream) ||
			!strings.Contains(fmt.Sprint(m["error"]), "malformed error") {
			t.Fatalf("%s: %v", path, m)
		}
	}
	// A duplicate pending id is refused.
	c.send(call(17, "read_text_file", `{"path":"/hang","n":1}`))
	c.send(call(17, "read_text_file", `{"path":"/hang","n":2}`))
	m := c.recv()
	if m["id"] != float64(17) || m["error"].(map[string]any)["code"] != float64(codeInvalidRequest) {
		t.Fatalf("duplicate id: %v", m)
	}
	c.recv() // the first one's timeout
	// Still serving.
	c.send(call(18, "read_text_file", `{"path":"/ok"}`))
	if r := resultOf(t, c.recv()); texts(r)[0] == "" {
		t.Fatalf("after all that: %v", r)
	}
}

// A client that cancels a call: the late answer is dropped, the proxy goes
// on; progress notifications reach the client and keep the call alive
// past -timeout.
func TestProxyCancelAndProgress(t *testing.T) {
	// Ten notifications 150 ms apart: the call lasts 1.5 s, past its
	// -timeout of 1 s, which each notification restarts. (With 400 ms
	// and three notifications, a loaded machine under the race detector
	// delayed one past the 250 ms left: the call timed out.)
	c := start(t, "-server-id", "fs", "-timeout", "1s")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/cancel"}`))
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/progress","n":"10"},"_meta":{"progressToken":"p1"}}}`)
	var got []string
	for {
		m := c.recv()
		if m["id"] == float64(1) {
			t.Fatalf("an answer for the cancelled call: %v", m)
		}
		if m["method"] == "notifications/progress" {
			got = append(got, "progress")
			continue
		}
		if m["id"] == float64(2) {
			r := resultOf(t, m)
			if texts(r)[0] != "done" {
				t.Fatalf("progress call: %v", m)
			}
			break
		}
	}
	if len(got) != 10 {
		t.Errorf("progress notifications: %v", got)
	}
}

// The upstream dies mid-call: the client gets an error, not a hang, and
// the proxy exits.
func TestProxyUpstreamDies(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/hang"}`))
	c.send(call(2, "read_text_file", `{"path":"/die"}`))
	ids := map[float64]bool{}
	for i := 0; i < 2; i++ {
		m := c.recv()
		if m["error"] == nil {
			t.Fatalf("not an error: %v", m)
		}
		ids[m["id"].(float64)] = true
	}
	if !ids[1] || !ids[2] {
		t.Errorf("errors for %v", ids)
	}
	select {
	case code := <-c.done:
		c.done <- code
		if code != 1 {
			t.Errorf("exit status %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not exit after the upstream died")
	}
}

func TestProxyUsage(t *testing.T) {
	var out, errb strings.Builder
	cfg := Config{Set: func(o ...runtime.Option) (guard.Set, error) { return testset.Guard(lycaon.Env{}, nil, o...) }}
	if code := Main([]string{"-server-id", "x"}, strings.NewReader(""), &out, &errb, cfg); code != 2 || !strings.Contains(errb.String(), "-max-message") {
		t.Errorf("no command: %d %s", code, errb.String())
	}
	errb.Reset()
	if code := Main([]string{"-redis", "127.0.0.1:1", "--", "true"}, strings.NewReader(""), &out, &errb, cfg); code != 2 || !strings.Contains(errb.String(), "without Redis support") {
		t.Errorf("-redis without support: %d %s", code, errb.String())
	}
	errb.Reset()
	if code := Main([]string{"--", "/nonexistent/server"}, strings.NewReader(""), &out, &errb, cfg); code != 1 {
		t.Errorf("missing command: %d %s", code, errb.String())
	}
}

// TestProxyAsk: an ask decision (spec 5.12) is put to a client that
// declared the elicitation capability with elicitation/create (the
// question, a requested schema of one boolean approve); the call is
// forwarded only on action "accept" with approve true. A no, a decline,
// an error answer and no answer in time block it with the rule's
// rejection; a client without the capability gets the rejection that
// says that no one could be asked, and is never sent a request.
func TestProxyAsk(t *testing.T) {
	const rejection = "A person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	const unasked = "This action needs a person's approval, and no person could be asked; it is blocked.\n" + rejection
	for _, tc := range []struct {
		name   string
		caps   string
		answer string // the client's answer to the elicitation ("" none)
		want   string // "" : forwarded
	}{
		{"yes", `{"elicitation":{}}`, `"result":{"action":"accept","content":{"approve":true}}`, ""},
		{"no", `{"elicitation":{}}`, `"result":{"action":"accept","content":{"approve":false}}`, rejection},
		{"declines", `{"elicitation":{}}`, `"result":{"action":"decline"}`, rejection},
		{"cancels", `{"elicitation":{}}`, `"result":{"action":"cancel"}`, rejection},
		{"error", `{"elicitation":{}}`, `"error":{"code":-32603,"message":"no terminal"}`, rejection},
		{"no answer", `{"elicitation":{}}`, "", rejection},
		{"without the capability", `{}`, "", unasked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := start(t, "-server-id", "everything", "-ask-timeout", "200ms")
			c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + tc.caps + `,"clientInfo":{"name":"t","version":"1"}}}`)
			if m := c.recv(); m["id"] != float64(0) {
				t.Fatalf("initialize: %v", m)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.send(call(1, "deploy", `{"path":"prod"}`))
			m := c.recv()
			if tc.caps != `{}` {
				params, _ := m["params"].(map[string]any)
				schema, _ := params["requestedSchema"].(map[string]any)
				props, _ := schema["properties"].(map[string]any)
				approve, _ := props["approve"].(map[string]any)
				if m["method"] != "elicitation/create" || params["message"] != "This action needs a person's approval before it runs.\n"+rejection ||
					len(props) != 1 || approve["type"] != "boolean" {
					t.Fatalf("want an elicitation, got %v", m)
				}
				if tc.answer != "" {
					id, _ := json.Marshal(m["id"])
					c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,` + tc.answer + `}`)
				} else if n := c.recv(); n["method"] != "notifications/cancelled" || n["params"].(map[string]any)["requestId"] != m["id"] {
					// No answer in time: the question is withdrawn.
					t.Fatalf("want the elicitation %v cancelled, got %v", m["id"], n)
				}
				m = c.recv()
			}
			r := resultOf(t, m)
			if m["id"] != float64(1) {
				t.Fatalf("want the call's result, got %v", m)
			}
			if tc.want == "" {
				if r["isError"] == true || strings.Join(texts(r), "|") != "hello from prod" {
					t.Errorf("approved call: %v", r)
				}
				return
			}
			meta, _ := r["_meta"].(map[string]any)
			if r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" || strings.Join(texts(r), "|") != tc.want {
				t.Errorf("want the block %q, got %v", tc.want, r)
			}
			// The operator reads on stderr why no one was asked.
			const why = "the client did not declare the elicitation capability"
			if got := strings.Contains(c.errs.String(), why); got != (tc.want == unasked) {
				t.Errorf("stderr says %q: %v, want %v:\n%s", why, got, tc.want == unasked, c.errs.String())
			}
		})
	}
}
