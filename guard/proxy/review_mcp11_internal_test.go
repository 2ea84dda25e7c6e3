package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// A question the proxy withdrew (no answer within -ask-timeout, or the
// call cancelled) stayed among its pending elicitations, as a nil entry
// that drops the late answer, for the life of the process: one more for
// every question withdrawn. The proxy now keeps no entry for it and
// knows its own questions by their ids (tagged under a key of the
// process, as its requestStates are): a late answer, or a second answer
// to one answered, is still dropped, never relayed to the upstream, and
// an id of the same form that the proxy did not make is not taken for
// one of its own.
func TestProxyWithdrawnAsksBounded(t *testing.T) {
	var out bytes.Buffer
	p := &proxy{o: options{askTimeout: time.Millisecond, quiet: true}, stderr: io.Discard, out: bufio.NewWriter(&out),
		pending: map[string]*pending{}, upstream: map[string]*pending{}, asks: map[string]chan *frame{}, elicit: true}
	for range 50 {
		if ok, err := p.ask(context.Background(), "deploy?"); ok || err == nil {
			t.Fatalf("an unanswered question: %v, %v", ok, err)
		}
	}
	if n := len(p.asks); n != 0 {
		t.Errorf("%d entries kept for questions withdrawn", n)
	}
	var ids []json.RawMessage
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == "elicitation/create" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) != 50 {
		t.Fatalf("%d questions put, want 50", len(ids))
	}
	ans := &frame{top: map[string]json.RawMessage{"result": json.RawMessage(`{"action":"accept","content":{"approve":true}}`)}}
	for _, id := range ids[:3] {
		if !p.answer(id, ans) {
			t.Errorf("the late answer to the withdrawn question %s was not taken for the proxy's (it would be relayed upstream)", id)
		}
	}
	forged := strings.Replace(string(ids[0]), "oarc-ask-", "oarc-ask-9", 1)
	for _, id := range []string{`"oarc-ask-1"`, forged, `"oarc-ask-` + strings.Repeat("0", 64) + `"`, `7`} {
		if p.answer(json.RawMessage(id), ans) {
			t.Errorf("%s taken for an answer to the proxy's question", id)
		}
	}
}

// idSet records the server id of each call at tool.pre_invoke, and
// allows it.
type idSet struct{ ids chan string }

func (idSet) Info() *guard.Info {
	return &guard.Info{Name: "ids", Anchors: []guard.Anchor{guard.PreInvoke}}
}

func (s idSet) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Anchor == guard.PreInvoke {
		s.ids <- o.ServerID
	}
	return nil
}

// Without -server-id, the proxy said the server id was known (from the
// upstream's initialize result) before it gave the id to the guard: a
// call read in between (a client that does not wait for initialize's
// answer) was evaluated with the server id "", and escaped every rule
// that names the server. The id is given before it is said to be known.
func TestProxyServerIDBeforeKnown(t *testing.T) {
	s := idSet{ids: make(chan string, 4)}
	var c *client
	initializedHook = func() {
		c.send(call(1, "read_text_file", `{"path":"/a"}`))
		select {
		case id := <-s.ids:
			if id != "fake_fs_server" {
				t.Errorf("a call evaluated with server id %q, want fake_fs_server", id)
			}
		case <-time.After(2 * time.Second):
			// Not evaluated yet: the id was not said to be known.
		}
	}
	defer func() { initializedHook = nil }()
	c = startWith(t, Config{Set: func(...runtime.Option) (guard.Set, error) { return s, nil }})
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	for range 2 {
		c.recv()
	}
}
