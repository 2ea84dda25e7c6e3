package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// TestFoldedResultNamesWithheld: a result in which one object (the
// result, a content item, its resource, structuredContent at any depth)
// has two names that differ only by case reached the client with both:
// the rules read and redacted the one spelt exactly, and a client in Go
// that decodes the result with encoding/json reads the last of them (the
// key here). Such a result is withheld with OAR_GUARD.
func TestFoldedResultNamesWithheld(t *testing.T) {
	for _, res := range []string{
		`{"content":[{"type":"text","text":"fine","TEXT":"key ` + awsKey + `"}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"fine","Text":"key ` + awsKey + `"}}]}`,
		`{"content":[{"type":"text","text":"ok"}],"structuredContent":{"v":"fine"},"\u017ftructuredContent":{"v":"key ` + awsKey + `"}}`,
		`{"content":[{"type":"text","text":"ok"}],"structuredContent":{"a":[{"v":"fine","V":1}]}}`,
		`{"content":[{"type":"text","text":"ok"}],"isError":false,"i\u017fError":true}`,
	} {
		c := proxyConn(newGuard(t), fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		if k.Blocked() != nil {
			t.Fatalf("the call is blocked: %s", k.Blocked())
		}
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), awsKey) || !strings.Contains(string(out), "differ only by case") {
			t.Errorf("%s: code %q, out %s", res, k.Code(), out)
		}
	}
	// Without result bindings every string value of structuredContent is
	// a text unit the rules read, whatever its name: names there that
	// differ only by case hide nothing, and go through.
	g, err := guard.New(noBindings{})
	if err != nil {
		t.Fatal(err)
	}
	k := proxyConn(g, fs).Begin(context.Background(), nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	if out := k.Finish(context.Background(), json.RawMessage(`{"content":[],"structuredContent":{"v":"fine","V":"key"}}`), 0, guard.FinishOptions{}); k.Code() != "" {
		t.Errorf("structuredContent without bindings: code %q, out %s", k.Code(), out)
	}
	// Names that differ otherwise go through.
	c := proxyConn(newGuard(t), fs)
	k = c.Begin(context.Background(), nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	if out := k.Finish(context.Background(), json.RawMessage(`{"content":[{"type":"text","text":"ok"}],"structuredContent":{"a":{"a":1},"b":{"a":2}}}`), 0, guard.FinishOptions{}); k.Code() != "" {
		t.Errorf("a result without such names: code %q, out %s", k.Code(), out)
	}
}

// noBindings is a set without result bindings that allows every call.
type noBindings struct{}

func (noBindings) Info() *guard.Info {
	return &guard.Info{Name: "nobindings", Anchors: []guard.Anchor{guard.PreInvoke, guard.ToolResult}}
}

func (noBindings) Evaluate(_ context.Context, _ *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	return nil
}

// TestFoldedToolListNames: under deny-by-default tools/list keeps the
// tools an allow rule may allow, by their member "name". A tool that
// also had "NAME" ({"name":"read_text_file","NAME":"move_file"}) was kept
// for read_text_file, and a client in Go that decodes the listing with
// encoding/json listed move_file, which no allow rule allows; a "toolſ"
// (U+017F) beside "tools" gave it the whole listing, unnarrowed. Such a
// tool is left out as ambiguous, and such a listing is refused.
func TestFoldedToolListNames(t *testing.T) {
	g := newGuard(t)
	out, err := proxyConn(g, fs).FilterTools(json.RawMessage(`{"tools":[{"name":"read_text_file","NAME":"move_file"},{"name":"write_file"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "move_file") || !strings.Contains(string(out), "write_file") {
		t.Errorf("a tool with name and NAME: %s", out)
	}
	if out, err := proxyConn(g, fs).FilterTools(json.RawMessage(`{"tools":[{"name":"write_file"}],"tool\u017f":[{"name":"move_file"}]}`)); err == nil {
		t.Errorf("a listing with tools and tool\u017f: %s", out)
	}
}
