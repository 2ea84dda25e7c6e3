package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }

// FuzzFrames feeds random frames from both sides through the proxy's
// relay: each line of the input is a frame, from the client when it
// starts with 'c', else from the upstream. Nothing panics, everything the
// client receives is one JSON object per line (or, for a batch of the
// client, one array of error responses), and every result it
// receives for a tools/call went through the guard (its _meta has
// oarc/node or oarc/code): nothing is forwarded unevaluated, and no
// secret is left in its text units (spec 11: the text items, embedded
// text resources and structuredContent's strings; other members, images
// and blobs pass unchanged).
func FuzzFrames(f *testing.F) {
	for _, s := range []string{
		"c" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/a"}}}` + "\nu" + `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"AKIAIOSFODNN7EXAMPLE"}]}}`,
		"c" + `{"jsonrpc":"2.0","id":"x","method":"tools/list"}` + "\nu" + `{"jsonrpc":"2.0","id":"x","result":{"tools":[{"name":"move_file"},{"name":"read_text_file"}]}}`,
		"c" + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","path":"/b"}}}` + "\nu" + `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"x"}}`,
		"c" + `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file"}}` + "\nu" + `{"jsonrpc":"2.0","id":3,"id":4,"result":{}}` + "\nu" + `{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"a":["\u00e9 ghp_0123456789abcdefghijABCDEFGHIJ012345"]}}}`,
		"c[1,2]\nc{\nu[]\nu{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1}}",
		"c" + `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}` + "\nu" + `{"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"fs"}}}`,
		"c" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	} {
		f.Add([]byte(s))
	}
	set, err := testset.Guard(lycaon.Env{}, nil)
	if err != nil {
		f.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var toClient, toUp bytes.Buffer
		p := &proxy{o: options{maxMessage: DefaultMaxMessage, notes: true, quiet: true}, g: g, out: bufio.NewWriter(&toClient), up: nopCloser{&toUp}, pending: map[string]*pending{}, upstream: map[string]*pending{}, serverKnown: true}
		p.conn = g.NewConn(runtime.NewSession("f"), guard.Server{ID: "fs", Configured: true, Enabled: true}, guard.ConnOptions{AllInputs: true})
		calls := map[string]bool{}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			if line[0] == 'c' {
				if fr, why := parse(line[1:]); why == "" && fr.kind == request && fr.method == "tools/call" {
					calls[string(fr.id)] = true
				}
				p.fromClient(line[1:])
			} else {
				p.fromUpstream(line[1:])
			}
		}
		p.out.Flush()
		sc := bufio.NewScanner(&toClient)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			if bytes.HasPrefix(sc.Bytes(), []byte("[")) {
				// The answer to a batch of the client: errors only.
				var ms []struct {
					Error  map[string]any  `json:"error"`
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal(sc.Bytes(), &ms); err != nil || len(ms) == 0 {
					t.Fatalf("the client received %q: %v", sc.Bytes(), err)
				}
				for _, m := range ms {
					if m.Error == nil || m.Result != nil {
						t.Fatalf("the answer to a batch holds a result: %s", sc.Bytes())
					}
				}
				continue
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("the client received %q: %v", sc.Bytes(), err)
			}
			res, ok := m["result"]
			if !ok || !calls[compact(m["id"])] {
				continue
			}
			var r struct {
				Meta map[string]any `json:"_meta"`
			}
			if json.Unmarshal(res, &r) != nil || r.Meta["oarc/node"] == nil && r.Meta["oarc/code"] == nil {
				t.Fatalf("a tools/call result reached the client unevaluated: %s", sc.Bytes())
			}
			if u := textUnits(res); strings.Contains(u, "AKIAIOSFODNN7EXAMPLE") {
				t.Fatalf("a secret reached the client in the result's text: %s", res)
			}
		}
	})
}

// textUnits is the text spec 11 makes a result's content: text items'
// text, embedded resources' text and every string of structuredContent,
// as a client decoding the result reads them (the last of duplicated
// members, as encoding/json does; the guard re-encodes such items).
func textUnits(res json.RawMessage) string {
	var r struct {
		Content []struct {
			Type     string `json:"type"`
			Text     any    `json:"text"`
			Resource struct {
				Text any `json:"text"`
			} `json:"resource"`
		} `json:"content"`
		Structured any `json:"structuredContent"`
	}
	if json.Unmarshal(res, &r) != nil {
		return string(res) // unreadable: all of it counts
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			walk(c.Text)
		case "resource":
			walk(c.Resource.Text)
		}
	}
	walk(r.Structured)
	return b.String()
}
