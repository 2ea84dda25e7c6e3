package redisstore_test

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/impl"
	"github.com/redis/go-redis/v9"
)

// TestTenantsShareNothing: sessions of two tenants with one id (spec
// 5.11), made as a host makes them (Store.Session with
// runtime.WithTenant, Session.InTenant), are two hashes of the server,
// whatever bytes tenant and id hold ("a:b" with "c" and "a" with "b:c");
// what one records, counts and resets leaves the other as it was, and the
// other cannot name its nodes.
func TestTenantsShareNothing(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	a := s.Session("c", runtime.WithTenant("a:b"))
	b := s.Session("b:c", runtime.WithTenant("a"))
	plain := s.Session("c")
	if a.InTenant("a").Key() != s.Session("c", runtime.WithTenant("a")).Key() || a.InTenant("a:b").Key() != a.Key() {
		t.Fatal("InTenant and WithTenant disagree")
	}
	for i, sess := range []*runtime.Session{a, b, plain} {
		if err := sess.Record(ctx, runtime.Node{ID: "doc", Kind: runtime.ToolResult, Tool: "read", Labels: []string{string(rune('x' + i))}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := runtime.ApplyCounters(ctx, s, a.Key(), []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Record(ctx, runtime.Node{ID: "m", Kind: runtime.Message, Parents: []string{"doc"}}); err != nil {
		t.Fatal(err)
	}
	keys, err := c.Keys(ctx, prefix+"{*}").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 {
		t.Fatalf("three sessions in %d hashes: %q", len(keys), keys)
	}
	for i, sess := range []*runtime.Session{a, b, plain} {
		var sc runtime.Scope
		if err := sess.Store().Scope(ctx, sess.Key(), []string{"doc"}, &sc); err != nil || !slices.Equal(sc.Labels, []string{string(rune('x' + i))}) {
			t.Errorf("session %d: %v %q", i, err, sc.Labels)
		}
	}
	if got := read(t, s, b.Key(), fire("R")); got[0] != 0 {
		t.Errorf("the other tenant reads %d", got[0])
	}
	if err := s.Scope(ctx, b.Key(), []string{"m"}, &runtime.Scope{WantNodes: true}); !errors.Is(err, runtime.ErrUnknownProvenance) {
		t.Errorf("the other tenant names a node of the first: %v", err)
	}
	if err := s.ResetSession(ctx, b.Key()); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, a.Key(), fire("R")); got[0] != 1 {
		t.Errorf("after the other tenant's reset: %d", got[0])
	}
	sc := runtime.Scope{WantNodes: true}
	if err := s.Scope(ctx, a.Key(), []string{"m"}, &sc); err != nil || len(sc.Nodes) != 2 {
		t.Errorf("after the other tenant's reset: %v %+v", err, sc.Nodes)
	}
}

// TestNodeFieldsCorrupt: a scope that lists nodes reads the fields each
// node keeps (d:ID) only in the form the store writes them; anything else,
// in an input or an ancestor, or a node recorded without them (an older
// version of the store), is an error wrapping ErrCorrupt, never a node
// listed with defaults nor a node left out; the facts' own walk does not
// read them.
func TestNodeFieldsCorrupt(t *testing.T) {
	// Values are Lua expressions, packed by the server's cmsgpack as the
	// scripts pack them.
	pack := func(fields string) string { return "cmsgpack.pack({" + fields + "})" }
	good := pack(`1, 2, 'read', '', '', {}, {}, '{"a":1}'`)
	for _, tc := range []struct{ name, value, delete string }{
		{name: "not msgpack", value: `'\193'`},
		{name: "trailing bytes", value: good + ` .. '\1'`},
		{name: "a string", value: `cmsgpack.pack('x')`},
		{name: "short", value: pack(`1, 2, 'read'`)},
		{name: "seq zero", value: pack(`0, 2, 'read', '', '', {}, {}, ''`)},
		{name: "seq fraction", value: pack(`1.5, 2, 'read', '', '', {}, {}, ''`)},
		{name: "kind", value: pack(`1, 3, 'read', '', '', {}, {}, ''`)},
		{name: "labels", value: pack(`1, 2, 'read', '', '', {1}, {}, ''`)},
		{name: "message with args", value: pack(`1, 1, '', '', '', {}, {}, '{}'`)},
		{name: "args not an object", value: pack(`1, 2, 'read', '', '', {}, {}, '[1]'`)},
		{name: "args not JSON", value: pack(`1, 2, 'read', '', '', {}, {}, '{"a":'`)},
		{name: "args too long", value: pack(`1, 2, 'read', '', '', {}, {}, '{"a":"' .. string.rep('x', ` + strconv.Itoa(runtime.MaxNodeArgs) + `) .. '"}'`)},
		{name: "one place twice", value: pack(`2, 2, 'read', '', '', {}, {}, ''`)},
		{name: "unknown parent", value: pack(`1, 2, 'read', '', '', {}, {'zz'}, ''`)},
		{name: "fields lost", delete: "d:doc"},
		{name: "input fields lost", delete: "d:m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c, prefix := newStoreAt(t, redisstore.Options{})
			session := "corrupt"
			h := prefix + "{" + session + "}"
			for _, n := range []runtime.Node{
				{ID: "doc", Kind: runtime.ToolResult, Tool: "read", Args: map[string]any{"a": 1}},
				{ID: "m", Kind: runtime.Message, Parents: []string{"doc"}},
			} {
				if err := s.RecordNode(ctx, session, n); err != nil {
					t.Fatal(err)
				}
			}
			sc := runtime.Scope{WantNodes: true}
			if err := s.Scope(ctx, session, []string{"m"}, &sc); err != nil || len(sc.Nodes) != 2 {
				t.Fatalf("before: %v %+v", err, sc.Nodes)
			}
			if tc.delete != "" {
				c.HDel(ctx, h, tc.delete)
				recount(c, h)
			} else if err := c.Eval(ctx, "redis.call('HSET', KEYS[1], 'd:doc', "+tc.value+")", []string{h}).Err(); err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			err := s.Scope(ctx, session, []string{"m"}, &sc)
			if !errors.Is(err, redisstore.ErrCorrupt) || len(sc.Nodes) != 0 {
				t.Fatalf("a scope listing nodes: %v, %d nodes, want ErrCorrupt and none", err, len(sc.Nodes))
			}
			sc.WantNodes = false
			if err := s.Scope(ctx, session, []string{"m"}, &sc); err != nil || !slices.Equal(sc.Tools, []string{"read"}) {
				t.Fatalf("the facts without the nodes: %v %+v", err, sc)
			}
		})
	}
}

// TestNodeArgsLimit: a tool result's arguments are kept up to
// runtime.MaxNodeArgs bytes of JSON and listed as recorded; past it, or
// not serialisable, the node is refused as MemStore refuses it, with its
// words, known not applied, and nothing is recorded.
func TestNodeArgsLimit(t *testing.T) {
	s, _, _ := newStoreAt(t, redisstore.Options{})
	fill := func(n int) map[string]any { return map[string]any{"a": strings.Repeat("x", n-len(`{"a":""}`))} }
	for _, tc := range []struct {
		n    runtime.Node
		want string
	}{
		{runtime.Node{ID: "big", Kind: runtime.ToolResult, Args: fill(runtime.MaxNodeArgs + 1)}, "more than the limit of 65536"},
		{runtime.Node{ID: "nan", Kind: runtime.ToolResult, Args: map[string]any{"x": math.NaN()}}, "its arguments"},
		// Over two limits: named in MemStore's order, the arguments first.
		{runtime.Node{ID: "both", Kind: runtime.ToolResult, Args: fill(runtime.MaxNodeArgs + 1), Labels: make([]string, runtime.DefaultLabelLimit+1)}, "its arguments"},
	} {
		mem := runtime.NewMemStore(0)
		werr := mem.RecordNode(ctx, "args", tc.n)
		err := s.RecordNode(ctx, "args", tc.n)
		if err == nil || werr == nil || err.Error() != werr.Error() || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("%s: %v, MemStore %v", tc.n.ID, err, werr)
		}
	}
	at := runtime.Node{ID: "at", Kind: runtime.ToolResult, Tool: "t", Args: fill(runtime.MaxNodeArgs)}
	if err := s.RecordNode(ctx, "args", at); err != nil {
		t.Fatal(err)
	}
	sc := runtime.Scope{WantNodes: true}
	if err := s.Scope(ctx, "args", []string{"at", "big"}, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) {
		t.Fatalf("a refused node: %v", err)
	}
	want, _ := runtime.NodeArgsJSON(at)
	if err := s.Scope(ctx, "args", []string{"at"}, &sc); err != nil || len(sc.Nodes) != 1 || sc.Nodes[0].ArgsJSON != want || len(want) != runtime.MaxNodeArgs {
		t.Fatalf("arguments at the limit: %v", err)
	}
}

// TestScopeNodesOneRoundTrip: listing the nodes of a scope is the scope
// script's one round trip, which walks every node in scope within the
// step budget (Options.ScopeBudget: a node and each of its labels and
// parents a step); a scope that needs more is an error listing nothing,
// never a part of the scope, even where summaries answer the facts alone.
func TestScopeNodesOneRoundTrip(t *testing.T) {
	const n = 300 // a node and a parent each: about 600 steps
	for _, tc := range []struct {
		budget int
		ok     bool
	}{{1000, true}, {500, false}} {
		c := redistest.Client(t, redistest.Addr(t))
		hook := &roundTrips{}
		c.AddHook(hook)
		s := redistest.Store(t, c, redisstore.Options{ScopeBudget: tc.budget})
		prev := ""
		for i := range n {
			node := runtime.Node{ID: "m" + strconv.Itoa(i), Kind: runtime.Message, Origin: "agent"}
			if prev != "" {
				node.Parents = []string{prev}
			}
			if err := s.RecordNode(ctx, "chain", node); err != nil {
				t.Fatal(err)
			}
			prev = node.ID
		}
		hook.n.Store(0)
		sc := runtime.Scope{WantNodes: true}
		err := s.Scope(ctx, "chain", []string{"m5", prev, "m5"}, &sc)
		if got := hook.n.Load(); got != 1 {
			t.Errorf("budget %d: %d round trips", tc.budget, got)
		}
		if !tc.ok {
			if err == nil || !strings.Contains(err.Error(), "budget") || len(sc.Nodes) != 0 {
				t.Errorf("budget %d: %v, %d nodes", tc.budget, err, len(sc.Nodes))
			}
			sc.WantNodes = false
			if err := s.Scope(ctx, "chain", []string{prev}, &sc); err != nil || !slices.Equal(sc.Origins, []string{"agent"}) {
				t.Errorf("budget %d, the facts alone (summaries): %v", tc.budget, err)
			}
			continue
		}
		if err != nil || len(sc.Nodes) != n {
			t.Fatalf("budget %d: %v, %d nodes", tc.budget, err, len(sc.Nodes))
		}
		want := []string{"m5", prev}
		for i := range n - 1 {
			if i != 5 {
				want = append(want, "m"+strconv.Itoa(i))
			}
		}
		for i, node := range sc.Nodes {
			if node.ID != want[i] || node.Input != (i < 2) {
				t.Fatalf("node %d: %+v, want %s", i, node, want[i])
			}
		}
	}
}

// TestProvenanceNodesEvaluated: provenance_nodes as the generated code
// reads it (runtime/impl's Exec.ProvenanceNodes) is the same list of maps
// through a Redis session of a tenant as through a session in the
// process: the arguments decoded from the JSON the store kept (numbers as
// the engine reads them), a message's tool and arguments empty, labels as
// recorded, the inputs first.
func TestProvenanceNodesEvaluated(t *testing.T) {
	s, _, _ := newStoreAt(t, redisstore.Options{})
	nodes := []runtime.Node{
		{ID: "doc", Kind: runtime.ToolResult, Tool: "read_document", Origin: "drive", TrustTier: "trusted", Labels: []string{"confidential", "pii", "confidential"},
			Args: map[string]any{"path": "/q3.xlsx", "n": 3, "x": 1.5, "big": int64(1) << 60, "l": []any{nil, true, map[string]any{"é": "\x00"}}}},
		{ID: "web", Kind: runtime.ToolResult, Tool: "http_fetch", Origin: "web", TrustTier: "untrusted"},
		{ID: "m1", Kind: runtime.Message, Tool: "ignored", Origin: "agent", Parents: []string{"doc"}},
		{ID: "m2", Kind: runtime.Message, Origin: "agent", Parents: []string{"m1", "web"}},
	}
	for _, sessions := range [][2]*runtime.Session{
		{s.Session("s", runtime.WithTenant("acme")), runtime.NewSession("s", runtime.WithTenant("acme"))},
		{s.Session("s"), runtime.NewSession("s")},
	} {
		for _, sess := range sessions {
			for _, n := range nodes {
				if err := sess.Record(ctx, n); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, inputs := range [][]string{{"m2"}, {"web", "m2", "web"}, {"doc"}, nil} {
			var got [2][]map[string]any
			for i, sess := range sessions {
				x := &impl.Exec{Ctx: ctx, D: &runtime.Decision{}, S: sess, Inputs: inputs}
				l, err := x.ProvenanceNodes()
				if err.Kind != 0 {
					t.Fatalf("%q: %v", inputs, err)
				}
				got[i] = l
			}
			if !reflect.DeepEqual(got[0], got[1]) {
				t.Fatalf("inputs %q:\nredis   %v\nprocess %v", inputs, got[0], got[1])
			}
			if len(inputs) == 1 && inputs[0] == "m2" && (len(got[0]) != 4 || got[0][1]["id"] != "doc" || got[0][1]["args"].(map[string]any)["path"] != "/q3.xlsx" || got[0][3]["id"] != "m1" || got[0][3]["tool"] != "") {
				t.Fatalf("the scope of m2: %v", got[0])
			}
		}
	}
}
