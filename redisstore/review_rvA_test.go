package redisstore_test

import (
	"errors"
	"testing"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
)

// TestGraphListsWithHoles: the graph's lists (a summary's four lists, an
// open node's labels and parents, the labels and parents a node keeps for
// provenance_nodes) are read only as the scripts write them, a msgpack
// array of strings. An array holding a nil, or a map, is not one: Lua's
// ipairs stops at the first nil and walks no key of a map, so such a list
// read as the strings before the hole, or as none. Before, a label after
// the hole was missing from the scope, and a parent after it was never
// walked (its tool, origin, tier and labels missing): a laxer decision
// from a corrupt value. Now every such value is ErrCorrupt.
func TestGraphListsWithHoles(t *testing.T) {
	str := func(s string) string { return string([]byte{byte(0xa0 + len(s))}) + s }
	for _, tc := range []struct {
		name, field, value string
		nodes              bool
	}{
		// {{'read'}, {}, {}, {'l', nil, 'secret'}}
		{name: "summary label after a nil", field: "s:1", value: "\x94\x91" + str("read") + "\x90\x90\x93" + str("l") + "\xc0" + str("secret")},
		// {{'read'}, {}, {}, {x = 'secret'}}
		{name: "summary labels a map", field: "s:1", value: "\x94\x91" + str("read") + "\x90\x90\x81" + str("x") + str("secret")},
		// {1, '', 'x', '', {}, {nil, 'a'}}: the open node's parent a
		// after a nil.
		{name: "open parent after a nil", field: "n:o", value: "o\x96\x01\xa0" + str("x") + "\xa0\x90\x92\xc0" + str("a")},
		// {1, '', 'x', '', {nil, 'secret'}, {'a'}}
		{name: "open label after a nil", field: "n:o", value: "o\x96\x01\xa0" + str("x") + "\xa0\x92\xc0" + str("secret") + "\x91" + str("a")},
		// d:o = {2, 1, '', 'x', '', {}, {nil, 'a'}, ''}
		{name: "listed parent after a nil", field: "d:o", nodes: true, value: "\x98\x02\x01\xa0" + str("x") + "\xa0\x90\x92\xc0" + str("a") + "\xa0"},
		// d:a = {1, 2, 'read', '', '', {nil, 'l'}, {}, ''}
		{name: "listed label after a nil", field: "d:a", nodes: true, value: "\x98\x01\x02" + str("read") + "\xa0\xa0\x92\xc0" + str("l") + "\x90\xa0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c, prefix := newStoreAt(t, redisstore.Options{SummaryBytes: 20})
			session := "holes"
			for _, n := range []runtime.Node{
				{ID: "a", Kind: runtime.ToolResult, Tool: "read", Labels: []string{"l"}},
				// o: stored open (its summary would outgrow 20 bytes).
				{ID: "o", Kind: runtime.Message, Origin: "x", Labels: []string{"0123456789abcdef"}, Parents: []string{"a"}},
			} {
				if err := s.RecordNode(ctx, session, n); err != nil {
					t.Fatal(err)
				}
			}
			h := prefix + "{" + session + "}"
			if v := c.HGet(ctx, h, "n:a").Val(); v != "s1" {
				t.Fatalf("n:a = %q, want s1", v)
			}
			if v := c.HGet(ctx, h, "n:o").Val(); v == "" || v[0] != 'o' {
				t.Fatalf("n:o = %q, want a node stored open", v)
			}
			c.HSet(ctx, h, tc.field, tc.value)
			sc := runtime.Scope{WantNodes: tc.nodes}
			err := s.Scope(ctx, session, []string{"o"}, &sc)
			if !errors.Is(err, redisstore.ErrCorrupt) {
				t.Fatalf("%s = %q: %v (tools %q, labels %q, %d nodes), want ErrCorrupt", tc.field, tc.value, err, sc.Tools, sc.Labels, len(sc.Nodes))
			}
		})
	}
}
