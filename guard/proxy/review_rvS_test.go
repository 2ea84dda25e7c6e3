package proxy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// argBlock is a compilation set with one rule at tool.pre_invoke: it
// blocks a call whose argument content is "evil".
type argBlock struct{}

func (argBlock) Info() *guard.Info {
	return &guard.Info{Name: "argblock", Anchors: []guard.Anchor{guard.PreInvoke}}
}

func (argBlock) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Args["content"] == "evil" {
		d.Effect, d.Code = runtime.Block, "NO_EVIL"
	}
	return nil
}

// A tools/call whose envelope or params have a second member whose name
// differs from params or arguments only by case (here the long s, U+017F,
// which folds to s and sorts after it) was evaluated on the member spelt
// exactly and forwarded with both: an upstream in Go that decodes the
// message with encoding/json matches names without regard to case and
// keeps the last, so it ran the arguments no rule read (the fake upstream
// wrote "evil"). Such a call is refused, never forwarded.
func TestProxyFoldedEnvelopeNames(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/o","content":"fine"},"argument\u017f":{"path":"/o","content":"evil"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/o","content":"fine"}},"param\u017f":{"name":"write_file","arguments":{"path":"/o","content":"evil"}}}`,
	} {
		c := startWith(t, Config{Set: func(...runtime.Option) (guard.Set, error) { return argBlock{}, nil }}, "-server-id", "fs")
		c.init()
		c.send(msg)
		m := c.recv()
		if e, _ := m["error"].(map[string]any); m["id"] != float64(1) || e == nil || !strings.Contains(e["message"].(string), "differ only by case") {
			t.Fatalf("%s: want an error answer to 1 that says why, got %v", msg, m)
		}
		// The fake upstream answered a ping after the call: it saw the call
		// by then, were it forwarded.
		c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
		if m := c.recv(); m["id"] != "p" {
			t.Fatalf("want the ping's answer, got %v", m)
		}
		if b, err := os.ReadFile(filepath.Join(c.dir, "written")); err == nil {
			t.Errorf("%s: the upstream wrote %q (answer %v)", msg, b, m)
		}
	}
}
