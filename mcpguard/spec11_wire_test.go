package mcpguard_test

// The proxy on the wire: a scripted upstream (this test binary with
// spec11RawArg) that answers a tools/call with the bytes its arguments
// give, and a client that writes and reads raw frames.

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/proxy"
	"github.com/oarc/oarc/runtime"
)

const spec11RawArg = "oarc-spec11-raw"

// serveSpec11Raw answers initialize, and a tools/call with the result
// whose bytes are the base64 of its argument "raw" (each call's tool name
// logged to the file args[0]); other requests with an empty result.
func serveSpec11Raw(args []string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		result := []byte(`{}`)
		switch m.Method {
		case "initialize":
			result = []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
		case "tools/call":
			if f, err := os.OpenFile(args[0], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, m.Params.Name)
				f.Close()
			}
			raw, _ := m.Params.Arguments["raw"].(string)
			b, err := base64.StdEncoding.DecodeString(raw)
			if err != nil || len(b) == 0 {
				b = []byte(`{"content":[{"type":"text","text":"ran"}]}`)
			}
			result = b
		}
		os.Stdout.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":`))
		os.Stdout.Write(result)
		os.Stdout.Write([]byte("}\n"))
	}
	return 0
}

// rawProxy is the proxy in front of serveSpec11Raw with a raw client.
type rawProxy struct {
	in  io.WriteCloser
	out *bufio.Reader
	log string
}

func newRawProxy(t *testing.T) *rawProxy {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "ran")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := proxy.Main([]string{"-quiet", "-server-id", "srv", "--", self, spec11RawArg, log}, inR, outW, io.Discard, proxy.Config{
			Set: func(opts ...runtime.Option) (guard.Set, error) { return s11Set(t, s11Opts{}, opts...), nil },
		})
		outW.Close()
		done <- code
	}()
	p := &rawProxy{in: inW, out: bufio.NewReaderSize(outR, 1<<20), log: log}
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not exit")
		}
	})
	p.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	p.read(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *rawProxy) send(t *testing.T, frame string) {
	t.Helper()
	if _, err := io.WriteString(p.in, frame+"\n"); err != nil {
		t.Fatal(err)
	}
}

// read reads the next frame, within 10 s.
func (p *rawProxy) read(t *testing.T) string {
	t.Helper()
	type line struct {
		s   string
		err error
	}
	c := make(chan line, 1)
	go func() {
		s, err := p.out.ReadString('\n')
		c <- line{s, err}
	}()
	select {
	case l := <-c:
		if l.err != nil {
			t.Fatalf("reading the proxy: %v", l.err)
		}
		return strings.TrimSuffix(l.s, "\n")
	case <-time.After(10 * time.Second):
		t.Fatal("no answer from the proxy")
	}
	return ""
}

// callRaw sends a tools/call of echo whose upstream result is raw.
func (p *rawProxy) callRaw(t *testing.T, id int, raw []byte) string {
	t.Helper()
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"raw":%q}}}`, id, base64.StdEncoding.EncodeToString(raw)))
	return p.read(t)
}

// Spec 11: no copy of a redacted string survives anywhere in the result,
// whatever the upstream writes: a key in a text item beside invalid UTF-8
// or a lone surrogate, in a member given twice (the first of which some
// parsers keep), in a text item's annotations.
func TestSpec11WireRedaction(t *testing.T) {
	p := newRawProxy(t)
	for i, raw := range [][]byte{
		[]byte(`{"content":[{"type":"text","text":"k ` + s11AWS + "\xff" + ` z"}]}`),
		[]byte(`{"content":[{"type":"text","text":"k ` + s11AWS + `\ud800 z"}]}`),
		[]byte(`{"content":[{"type":"text","text":"k ` + s11AWS + `","text":"fine"}]}`),
		[]byte(`{"content":[{"type":"text","text":"fine","text":"k ` + s11AWS + `"}]}`),
		[]byte(`{"content":[{"type":"text","text":"k ` + s11AWS + `"}],"structuredContent":{"c":"` + s11AWS + `","c":"fine"}}`),
		[]byte(`{"content":[{"type":"text","text":"k ` + s11AWS + `","annotations":{"audience":["user"],"note":"` + s11AWS + `"}}]}`),
		[]byte(`{"content":[{"type":"text","text":"k ` + s11AWS + `"}],"content":[{"type":"text","text":"` + s11AWS + `"}]}`),
		[]byte(`{"content":[{"type":"text","text":"k ` + s11AWS + `"}],"isError":false,"extra":{"x":"` + s11AWS + `"}}`),
	} {
		out := p.callRaw(t, i+1, raw)
		if strings.Contains(out, s11AWS) || strings.Contains(out, "AKIAIOSF") {
			t.Errorf("upstream result %s: the key reached the client: %s", raw, out)
		}
		if !strings.Contains(out, fmt.Sprintf(`"id":%d`, i+1)) {
			t.Errorf("answer %s to call %d", out, i+1)
		}
	}
}

// Spec 11: a blocked call is never forwarded, and the guard never
// forwards a call it could not evaluate: a tools/call sent as a
// notification (no id, no answer to hold a decision) and one in a
// JSON-RPC batch never reach the upstream.
func TestSpec11WireCallsNotForwarded(t *testing.T) {
	p := newRawProxy(t)
	p.send(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	p.send(t, `[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}]`)
	batch := p.read(t)
	if !strings.HasPrefix(batch, "[") || !strings.Contains(batch, `"error"`) {
		t.Errorf("the batch was answered %s", batch)
	}
	// A call after them, to know the proxy handled them.
	out := p.callRaw(t, 8, nil)
	if !strings.Contains(out, `"id":8`) {
		t.Fatalf("answer %s", out)
	}
	b, _ := os.ReadFile(p.log)
	if got := strings.Fields(string(b)); len(got) != 1 {
		t.Errorf("the upstream ran %q, want the one call with an id alone", got)
	}
}

// Spec 11: content.tool_result is evaluated for a successful call, one
// without isError. An isError the guard cannot read as a boolean ("true",
// 1, null) must not let the result's text skip the rules: the result is
// evaluated (and the key redacted) or withheld.
func TestSpec11WireIsErrorNotABool(t *testing.T) {
	p := newRawProxy(t)
	for i, v := range []string{`"true"`, `1`, `"false"`, `null`, `{}`} {
		raw := []byte(`{"content":[{"type":"text","text":"k ` + s11AWS + `"}],"isError":` + v + `}`)
		out := p.callRaw(t, i+1, raw)
		if strings.Contains(out, s11AWS) {
			t.Errorf("isError %s: the key reached the client: %s", v, out)
		}
	}
}

// Spec 11: a copy of a redacted string written with JSON escapes is the
// same string to the client: in a text item or structuredContent it is
// redacted, in _meta, annotations, a member name or a resource link it
// withholds the result.
func TestSpec11WireEscapedCopies(t *testing.T) {
	p := newRawProxy(t)
	esc := `\u0041KIAIOSFODNN7EXAMPL\u0045`
	for i, raw := range []string{
		`{"content":[{"type":"text","text":"k ` + esc + `"}]}`,
		`{"content":[{"type":"text","text":"k ` + s11AWS + `"}],"structuredContent":{"c":"` + esc + `"}}`,
		`{"content":[{"type":"text","text":"k ` + s11AWS + `"}],"_meta":{"x":"` + esc + `"}}`,
		`{"content":[{"type":"text","text":"k ` + s11AWS + `","annotations":{"x":"` + esc + `"}}]}`,
		`{"content":[{"type":"text","text":"k ` + s11AWS + `"}],"structuredContent":{"` + esc + `":1}}`,
		`{"content":[{"type":"text","text":"k ` + s11AWS + `"},{"type":"resource_link","uri":"file:///a","name":"` + esc + `"}]}`,
		`{"content":[{"type":"text","text":"k ` + s11AWS + `"},{"type":"resource","resource":{"uri":"file:///` + esc + `","text":"t"}}]}`,
	} {
		out := p.callRaw(t, i+1, []byte(raw))
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		dec, _ := json.Marshal(m) // escapes decoded
		if strings.Contains(string(dec), s11AWS) || strings.Contains(out, esc) {
			t.Errorf("upstream result %s: the key reached the client: %s", raw, out)
		}
	}
}

// Spec 11, The proxy: everything other than tools passes through: a
// request of a method the guard does not know reaches the upstream and
// its answer the client, under the client's id.
func TestSpec11WireUnknownMethod(t *testing.T) {
	p := newRawProxy(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}`)
	p.send(t, `{"jsonrpc":"2.0","id":"x-1","method":"vendor/thing","params":{"a":1}}`)
	out := p.read(t)
	var m map[string]any
	json.Unmarshal([]byte(out), &m)
	if m["id"] != "x-1" || !reflect.DeepEqual(m["result"], map[string]any{}) || m["error"] != nil {
		t.Errorf("vendor/thing was answered %s", out)
	}
}

// Spec 11: a result the guard cannot evaluate is withheld with OAR_GUARD;
// the rejection that replaces it must not show the agent what the
// upstream put where the guard does not read (a content type, a
// resultType, member names that differ only by case).
func TestSpec11WireWithheldRejectionQuotesNothing(t *testing.T) {
	p := newRawProxy(t)
	for i, raw := range []string{
		`{"content":[{"type":"` + s11AWS + `","text":"x"}]}`,
		`{"content":[{"type":"text","text":"x"}],"resultType":"` + s11AWS + `"}`,
		`{"content":[{"type":"text","text":"x"}],"` + s11AWS + `":1,"` + strings.ToLower(s11AWS) + `":2}`,
	} {
		out := p.callRaw(t, i+1, []byte(raw))
		if !strings.Contains(out, "OAR_GUARD") || strings.Contains(strings.ToUpper(out), s11AWS) {
			t.Errorf("upstream result %s: %s", raw, out)
		}
	}
}
