package redisstore_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
)

// TestGraphListsWithHoles: the graph's lists (a summary's four lists, an
// open node's labels and parents, the labels and parents a node keeps for
// provenance_nodes) are read only as the scripts write them, a msgpack
// array of strings. An array with a nil before a string, or a map, is not one: Lua's
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

// TestGraphValuesWithMore: a summary, a node stored open and a node's
// listed fields are read only as the scripts write them, one msgpack
// array of exactly four, six or eight values: one followed by more bytes
// (cmsgpack unpacks every object of a string, and the scripts took the
// first) or holding more values is not one. Before, a summary or an open
// node with more after it read as the values before, where the same
// trailing bytes in a node's fields were corrupt.
func TestGraphValuesWithMore(t *testing.T) {
	str := func(s string) string { return string([]byte{byte(0xa0 + len(s))}) + s }
	summary := "\x91" + str("read") + "\x90\x90\x91" + str("l")
	open := "\x01\xa0" + str("x") + "\xa0\x91" + str("0123456789abcdef") + "\x91" + str("a")
	listed := "\x02\x01\xa0" + str("x") + "\xa0\x91" + str("0123456789abcdef") + "\x91" + str("a") + "\xa0"
	for _, tc := range []struct {
		name, field, value string
		nodes              bool
	}{
		{name: "summary as written", field: "s:1", value: "\x94" + summary},
		{name: "summary and more bytes", field: "s:1", value: "\x94" + summary + "\x90"},
		{name: "summary of five lists", field: "s:1", value: "\x95" + summary + "\x90"},
		{name: "open node as written", field: "n:o", value: "o\x96" + open},
		{name: "open node and more bytes", field: "n:o", value: "o\x96" + open + "\x90"},
		{name: "open node of seven values", field: "n:o", value: "o\x97" + open + "\x90"},
		{name: "fields as written", field: "d:o", nodes: true, value: "\x98" + listed},
		{name: "fields of nine values", field: "d:o", nodes: true, value: "\x99" + listed + "\xa0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c, prefix := newStoreAt(t, redisstore.Options{SummaryBytes: 20})
			session := "more"
			for _, n := range []runtime.Node{
				{ID: "a", Kind: runtime.ToolResult, Tool: "read", Labels: []string{"l"}},
				{ID: "o", Kind: runtime.Message, Origin: "x", Labels: []string{"0123456789abcdef"}, Parents: []string{"a"}},
			} {
				if err := s.RecordNode(ctx, session, n); err != nil {
					t.Fatal(err)
				}
			}
			h := prefix + "{" + session + "}"
			if v := c.HGet(ctx, h, tc.field).Val(); strings.HasSuffix(tc.name, "as written") && v != tc.value {
				t.Fatalf("%s = %q, the test writes %q as the store writes it", tc.field, v, tc.value)
			}
			c.HSet(ctx, h, tc.field, tc.value)
			sc := runtime.Scope{WantNodes: tc.nodes}
			err := s.Scope(ctx, session, []string{"o"}, &sc)
			if strings.HasSuffix(tc.name, "as written") {
				if err != nil || !slices.Equal(sc.Tools, []string{"read"}) {
					t.Fatalf("%v %+v", err, sc)
				}
				return
			}
			if !errors.Is(err, redisstore.ErrCorrupt) {
				t.Fatalf("%s = %q: %v (tools %q, labels %q, %d nodes), want ErrCorrupt", tc.field, tc.value, err, sc.Tools, sc.Labels, len(sc.Nodes))
			}
		})
	}
}
