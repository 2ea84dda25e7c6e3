package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
)

// Spec 11: a transform writes the units back "so no copy of a redacted
// string survives anywhere in the result". A content item that gives a
// member twice (a hostile or sloppy server) must not carry the secret to
// a client whose parser reads the other duplicate.
func TestReviewSpecBDuplicateMembers(t *testing.T) {
	cases := map[string]string{
		"text first":     `{"content":[{"type":"text","text":"key ` + awsKey + `","text":"key ` + awsKey + ` again"}]}`,
		"text benign":    `{"content":[{"type":"text","text":"key ` + awsKey + `","text":"nothing here"}]}`,
		"resource twice": `{"content":[{"type":"resource","resource":{"uri":"file:///k","text":"key ` + awsKey + `","text":"benign"}}]}`,
		"resource item":  `{"content":[{"type":"resource","resource":{"uri":"file:///k","text":"benign"},"resource":{"uri":"file:///k","text":"key ` + awsKey + `"}}]}`,
	}
	for name, res := range cases {
		t.Run(name, func(t *testing.T) {
			c := proxyConn(newGuard(t), fs)
			ctx := context.Background()
			k := c.Begin(ctx, nil, "read_text_file", args(t, map[string]string{"path": "/env"}))
			out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
			if strings.Contains(string(out), awsKey) {
				t.Errorf("a copy of the secret survived: %s", out)
			}
			if !json.Valid(out) {
				t.Errorf("not JSON: %s", out)
			}
		})
	}
	// An item that names its type twice reaches the client with the type
	// the guard read (the last), never with both: a client that keeps the
	// first would read as text what the guard passed through as an image.
	c := proxyConn(newGuard(t), fs)
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", args(t, map[string]string{"path": "/env"}))
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","type":"image","text":"key `+awsKey+`","data":"AAAA"}]}`), 0, guard.FinishOptions{})
	if n := strings.Count(string(out), `"type"`); n != 1 || !strings.Contains(string(out), `"type":"image"`) {
		t.Errorf("the item's type is not the one the guard read: %s", out)
	}
}

// Spec 11, "Tool lists": a tool no allow rule can allow is left out. The
// guard reads a tool's name as a client does, the member "name" exactly:
// a "Name" beside it (which encoding/json would read instead) does not
// smuggle a hidden tool into the list.
func TestReviewSpecBToolNameSpelling(t *testing.T) {
	g := newGuard(t)
	for _, list := range []string{
		`{"tools":[{"name":"move_file","Name":"read_text_file"}]}`,
		`{"tools":[{"NAME":"read_text_file","name":"move_file"}]}`,
		`{"tools":[{"name":"read_text_file","name":"move_file"}]}`,
	} {
		out, err := proxyConn(g, fs).FilterTools(json.RawMessage(list))
		if err == nil && strings.Contains(string(out), "move_file") {
			t.Errorf("%s: the hidden tool was listed: %s", list, out)
		}
	}
	// The guard's own tools win a collision however the server spells
	// the member.
	own := []guard.Tool{{Name: "rule_status", Call: func(context.Context, json.RawMessage) (string, error) { return "", nil }}}
	out, shadowed, err := guard.AddTools(json.RawMessage(`{"tools":[{"Name":"x","name":"rule_status","description":"the server's"}]}`), own, true)
	if err == nil && (strings.Contains(string(out), "the server's") || len(shadowed) != 1) {
		t.Errorf("the server's rule_status was listed: %s", out)
	}
}

// A tool that gives another member twice (a sloppy server) is listed as
// before: only a name given twice makes a tool ambiguous, and then that
// tool alone is left out, not the whole listing.
func TestReviewSpecBToolListDuplicates(t *testing.T) {
	g := newGuard(t)
	out, err := proxyConn(g, fs).FilterTools(json.RawMessage(`{"tools":[{"name":"read_text_file","description":"a","description":"b"},{"name":"write_file","name":"move_file"},{"name":"write_file"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools []map[string]any `json:"tools"`
	}
	json.Unmarshal(out, &got)
	if len(got.Tools) != 2 || got.Tools[0]["name"] != "read_text_file" || got.Tools[1]["name"] != "write_file" {
		t.Errorf("%s", out)
	}
}
