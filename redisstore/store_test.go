package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

var ctx = context.Background()

func newStore(t *testing.T, opts redisstore.Options) (*redisstore.Store, *redis.Client) {
	t.Helper()
	c := redistest.Client(t, redistest.Addr(t))
	return redistest.Store(t, c, opts), c
}

func fire(rule string) runtime.CounterKey {
	return runtime.CounterKey{Rule: rule, Counter: runtime.Fire}
}

func breaker(rule string) runtime.CounterKey {
	return runtime.CounterKey{Rule: rule, Counter: runtime.Breaker}
}

func read(t *testing.T, s runtime.Store, session string, keys ...runtime.CounterKey) []int64 {
	t.Helper()
	dst := make([]int64, len(keys))
	if err := runtime.ReadCounters(ctx, s, session, keys, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestNewRequiresContextDeadlines(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	if _, err := redisstore.New(c, redisstore.Options{}); err == nil || !strings.Contains(err.Error(), "ContextTimeoutEnabled") {
		t.Fatalf("a client that ignores deadlines: %v", err)
	}
	c2 := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	defer c2.Close()
	if _, err := redisstore.New(c2, redisstore.Options{TTL: -time.Second}); err == nil {
		t.Fatal("a negative TTL is accepted")
	}
}

// TestPrefixBraces: a prefix with a brace would move a session's hash tag
// (its keys could land in different slots, or two sessions share one): New
// refuses it.
func TestPrefixBraces(t *testing.T) {
	c := redis.NewClient(redisstore.ClientOptions("127.0.0.1:1"))
	defer c.Close()
	for _, p := range []string{"a{b", "a}b", "{x}:", "oarc:{"} {
		if _, err := redisstore.New(c, redisstore.Options{Prefix: p, Warn: func(string) {}}); err == nil || !strings.Contains(err.Error(), "brace") {
			t.Errorf("prefix %q: %v", p, err)
		}
	}
	if _, err := redisstore.New(c, redisstore.Options{Prefix: "app:sessions:", Warn: func(string) {}}); err != nil {
		t.Fatal(err)
	}
}

// Counters: absent ones are 0; updates apply in order (increments, then
// a reset, then more); a counter is the rule's, whatever its slot.
func TestCounters(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	if got := read(t, s, "a", fire("R"), breaker("R")); !reflect.DeepEqual(got, []int64{0, 0}) {
		t.Fatalf("fresh session: %v", got)
	}
	ups := []runtime.CounterUpdate{
		{Key: fire("R")}, {Key: fire("R")}, {Key: breaker("R")},
		{Key: fire("R"), Reset: true}, {Key: fire("R")},
		{Key: fire("Q")}, {Key: breaker("Q"), Reset: true},
	}
	if err := runtime.ApplyCounters(ctx, s, "a", ups); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "a", fire("R"), breaker("R"), fire("Q"), breaker("Q")); !reflect.DeepEqual(got, []int64{1, 1, 1, 0}) {
		t.Fatalf("after the updates: %v", got)
	}
	// Another build puts R in another slot: the same counter.
	moved := runtime.CounterKey{Slot: 42, Rule: "R", Counter: runtime.Fire}
	if got := read(t, s, "a", moved); got[0] != 1 {
		t.Fatalf("R in another slot reads %d", got[0])
	}
	// Sessions are apart.
	if got := read(t, s, "b", fire("R")); got[0] != 0 {
		t.Fatalf("session b reads a's counter: %d", got[0])
	}
	// One hash per session, and its marker; counters by rule and
	// counter; a reset counter takes no room.
	keys, err := c.Keys(ctx, prefix+"{a}*").Result()
	slices.Sort(keys)
	if err != nil || len(keys) != 2 || !strings.HasSuffix(keys[0], "{a}") || keys[1] != keys[0]+":m" {
		t.Fatalf("session keys: %v %v", keys, err)
	}
	h, _ := c.HGetAll(ctx, keys[0]).Result()
	g := h["g"]
	delete(h, "tokens")
	delete(h, "g")
	if !reflect.DeepEqual(h, map[string]string{"c:R.fire": "1", "c:R.breaker": "1", "c:Q.fire": "1", "seq": "1"}) || len(g) != 16 {
		t.Fatalf("session hash: %v (generation %q)", h, g)
	}
	if m, _ := c.HGetAll(ctx, keys[1]).Result(); !reflect.DeepEqual(m, map[string]string{"g": g, "s": "1", "r": "0", "n": "1:6:0:0:0:" + g}) {
		t.Fatalf("session marker: %v", m)
	}
}

// An occurrence's updates are all or nothing: when one cannot be applied
// (a counter that holds garbage), none is, and the store knows it.
func TestApplyAllOrNothing(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	if err := runtime.ApplyCounters(ctx, s, "a", []runtime.CounterUpdate{{Key: fire("A")}}); err != nil {
		t.Fatal(err)
	}
	keys, _ := c.Keys(ctx, prefix+"{a}").Result()
	c.HSet(ctx, keys[0], "c:B.fire", "garbage")
	recount(c, keys[0])
	before, _ := c.HGetAll(ctx, keys[0]).Result()
	err := runtime.ApplyCounters(ctx, s, "a", []runtime.CounterUpdate{{Key: fire("A")}, {Key: fire("B")}, {Key: fire("C")}})
	if !errors.Is(err, redisstore.ErrCorrupt) || !errors.Is(err, runtime.ErrNotApplied) || !strings.Contains(err.Error(), `counter B.fire holds "garbage", not a counter`) {
		t.Fatalf("apply over garbage: %v", err)
	}
	if h, _ := c.HGetAll(ctx, keys[0]).Result(); !reflect.DeepEqual(h, before) || h["c:A.fire"] != "1" {
		t.Fatalf("a failed apply wrote: %q, was %q", h, before)
	}
	if err := runtime.ReadCounters(ctx, s, "a", []runtime.CounterKey{fire("B")}, make([]int64, 1)); !errors.Is(err, redisstore.ErrCorrupt) {
		t.Fatalf("reading garbage: %v", err)
	}
}

// Concurrent occurrences lose no update, and a reader never sees half of
// one: every update adds one to both counters.
func TestConcurrentUpdates(t *testing.T) {
	s, _ := newStore(t, redisstore.Options{})
	const writers, each = 8, 50
	both := []runtime.CounterUpdate{{Key: fire("T")}, {Key: breaker("T")}}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	torn := make(chan []int64, 1)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			dst := make([]int64, 2)
			if err := runtime.ReadCounters(ctx, s, "s", []runtime.CounterKey{fire("T"), breaker("T")}, dst); err == nil && dst[0] != dst[1] {
				select {
				case torn <- dst:
				default:
				}
			}
		}
	}()
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := runtime.ApplyCounters(ctx, s, "s", both); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	select {
	case got := <-torn:
		t.Fatalf("a reader saw half an update: %v", got)
	default:
	}
	if got := read(t, s, "s", fire("T"), breaker("T")); got[0] != writers*each || got[1] != writers*each {
		t.Fatalf("totals %v, want %d each", got, writers*each)
	}
}

// TestRecordRefuses: the store refuses the nodes runtime's MemStore
// refuses under the same runtime.Limits, with the same words, and records
// nothing of them: no id, an unknown kind, a duplicate, an unknown parent,
// a node over the per-node labels or parents, one that would pass the
// session's bytes (runtime.NodeSize) or distinct strings, one past the
// session's nodes. Before, the store had only the node limit: the others
// were MemStore's alone.
func TestRecordRefuses(t *testing.T) {
	lim := runtime.Limits{Nodes: 5, Labels: 2, Parents: 2, Bytes: 600, Strings: 5}
	s, _ := newStore(t, redisstore.Options{Limits: lim})
	sess := s.Session("s")
	mem := runtime.NewStoreSession(runtime.NewMemStoreLimits(lim), "s")
	for i, tc := range []struct {
		n    runtime.Node
		want string // "": recorded
	}{
		{runtime.Node{ID: "a", Kind: runtime.Message}, ""},
		{runtime.Node{Kind: runtime.Message}, "needs an id"},
		{runtime.Node{ID: "a", Kind: runtime.Message}, `record "a": a node with this id is already recorded`},
		{runtime.Node{ID: "b"}, "unknown node kind"},
		{runtime.Node{ID: "c", Kind: runtime.ToolResult, Parents: []string{"a", "zz"}}, `record "c": parent "zz" is not recorded`},
		{runtime.Node{ID: "l", Kind: runtime.Message, Labels: []string{"x", "y", "z"}}, `record "l": 3 labels, more than the limit of 2 per node`},
		{runtime.Node{ID: "p", Kind: runtime.Message, Parents: []string{"a", "a", "a"}}, `record "p": 3 parents, more than the limit of 2 per node`},
		{runtime.Node{ID: "big", Kind: runtime.ToolResult, Tool: strings.Repeat("t", 600)}, `record "big": the session's provenance would exceed its limit of 600 bytes`},
		// Strings: a message's tool is none; labels count, "" too.
		{runtime.Node{ID: "s1", Kind: runtime.Message, Tool: "m", Labels: []string{"x", ""}, Parents: []string{"a", "a"}}, ""},
		{runtime.Node{ID: "s2", Kind: runtime.ToolResult, Tool: "x", Origin: "o", TrustTier: "t", Labels: []string{"", "x"}}, ""},
		{runtime.Node{ID: "s3", Kind: runtime.ToolResult, Tool: "u", Origin: "v", Labels: []string{"x"}}, `record "s3": the session's provenance would hold more than its limit of 5 distinct tools, origins, trust tiers and labels`},
		// The refusal of a fresh string comes before a duplicate's.
		{runtime.Node{ID: "a", Kind: runtime.Message, Origin: "new", TrustTier: "newer"}, `record "a": the session's provenance would hold more than its limit of 5 distinct`},
		{runtime.Node{ID: "s4", Kind: runtime.ToolResult, Tool: "x", Origin: "t", Labels: []string{"o"}}, ""},
		{runtime.Node{ID: "s5", Kind: runtime.Message, Parents: []string{"s4"}}, ""},
		{runtime.Node{ID: "d", Kind: runtime.Message}, `record "d": the session holds its limit of 5 nodes`},
	} {
		err, merr := sess.Record(ctx, tc.n), mem.Record(ctx, tc.n)
		if tc.want == "" {
			if err != nil || merr != nil {
				t.Fatalf("%d %+v: %v in Redis, %v in the process", i, tc.n, err, merr)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("%d %+v: %v, want %q, not applied", i, tc.n, err, tc.want)
		}
		// The same words as in the process.
		if merr == nil || err == nil || merr.Error() != err.Error() {
			t.Errorf("%d %+v: %v in Redis, %v in the process", i, tc.n, err, merr)
		}
	}
	// A refused node is not recorded, not even partly; nothing was
	// evicted.
	var sc runtime.Scope
	for _, id := range []string{"c", "l", "p", "big", "s3", "d"} {
		if err := s.Scope(ctx, "s", []string{id}, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) || !strings.Contains(err.Error(), `input "`+id+`" is not recorded`) {
			t.Errorf("refused node %s in scope: %v", id, err)
		}
	}
	if err := s.Scope(ctx, "s", []string{"a", "s1", "s2", "s4", "s5"}, &sc); err != nil {
		t.Fatalf("a node was evicted: %v", err)
	}
	want := runtime.Scope{Tools: []string{"x"}, Origins: []string{"o", "t"}, TrustTiers: []string{"t"}, Labels: []string{"", "o", "x"}}
	if !reflect.DeepEqual(sc, want) {
		t.Fatalf("scope %+v, want %+v", sc, want)
	}
}

func TestIncomplete(t *testing.T) {
	addr := redistest.Addr(t)
	c := redistest.Client(t, addr)
	prefix := redistest.Prefix(t, c)
	s, err := redisstore.New(c, redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	// Another replica: its own client and store.
	other, err := redisstore.New(redistest.Client(t, addr), redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	sess := s.Session("s")
	sess.Record(ctx, runtime.Node{ID: "a", Kind: runtime.Message, Labels: []string{"x"}})
	var sc runtime.Scope
	if err := s.Scope(ctx, "s", []string{"a"}, &sc); err != nil || !reflect.DeepEqual(sc.Labels, []string{"x"}) {
		t.Fatalf("scope: %v %+v", err, sc)
	}
	if err := other.MarkIncomplete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	err = s.Scope(ctx, "s", []string{"a"}, &sc)
	if !errors.Is(err, runtime.ErrUnknownProvenance) || !strings.Contains(err.Error(), "marked incomplete") {
		t.Fatalf("incomplete: %v", err)
	}
	// An occurrence without inputs too (spec 5.7: the host that lost
	// history cannot show that it depends on nothing). Before, the store
	// answered an empty scope without asking the server.
	if err := s.Scope(ctx, "s", nil, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) {
		t.Fatalf("incomplete, no inputs: %v", err)
	}
	// A complete session without inputs: an empty scope.
	if err := s.Scope(ctx, "other", nil, &sc); err != nil || len(sc.Tools)+len(sc.Origins)+len(sc.TrustTiers)+len(sc.Labels) != 0 {
		t.Fatalf("no inputs: %v %+v", err, sc)
	}
}

// randomGraph records a random graph (chains, fan-in, forests; tools,
// origins, tiers and labels drawn from small sets, empty values and
// repeated labels included) into the stores, the same nodes in each.
func randomGraph(t *testing.T, r *rand.Rand, n int, stores ...runtime.Store) []string {
	t.Helper()
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	var ids []string
	for i := range n {
		node := runtime.Node{ID: fmt.Sprintf("n%d", i), Kind: runtime.Message}
		if r.IntN(3) == 0 {
			node.Kind = runtime.ToolResult
		}
		node.Tool = pick("", "read_document", "http_fetch", "bash", "search", fmt.Sprintf("tool%d", r.IntN(40)))
		node.Origin = pick("", "", "user", "web", "email", fmt.Sprintf("https://site%d.example/", r.IntN(60)))
		node.TrustTier = pick("", "trusted", "untrusted")
		for range r.IntN(3) {
			node.Labels = append(node.Labels, pick("", "confidential", "pii", "secret", fmt.Sprintf("label%d", r.IntN(30))))
		}
		switch {
		case i == 0 || r.IntN(8) == 0: // a root
		case r.IntN(2) == 0: // a chain
			node.Parents = []string{ids[i-1]}
		default: // fan-in
			for range 1 + r.IntN(3) {
				node.Parents = append(node.Parents, ids[r.IntN(i)])
			}
		}
		for _, s := range stores {
			if err := s.RecordNode(ctx, "g", node); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, node.ID)
	}
	return ids
}

// The scope in Redis is the scope in the process, with summaries (the
// default bound, a bound so small that most ancestries outgrow it) and
// without (every scope walks the graph).
func TestScopeMatchesMemStore(t *testing.T) {
	for _, sb := range []int{0, 90, -1} {
		t.Run(fmt.Sprintf("summaries=%d", sb), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(sb+7), 3))
			s, _ := newStore(t, redisstore.Options{SummaryBytes: sb})
			mem := runtime.NewMemStore(0)
			ids := randomGraph(t, r, 400, s, mem)
			for range 300 {
				var inputs []string
				for range r.IntN(4) {
					inputs = append(inputs, ids[r.IntN(len(ids))])
				}
				var got, want runtime.Scope
				if err := s.Scope(ctx, "g", inputs, &got); err != nil {
					t.Fatal(err)
				}
				if err := mem.Scope(ctx, "g", inputs, &want); err != nil {
					t.Fatal(err)
				}
				norm := func(sc *runtime.Scope) {
					for _, l := range []*[]string{&sc.Tools, &sc.Origins, &sc.TrustTiers, &sc.Labels} {
						if len(*l) == 0 {
							*l = nil
						}
					}
				}
				norm(&got)
				norm(&want)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("inputs %v:\nredis   %+v\nprocess %+v", inputs, got, want)
				}
			}
			var sc runtime.Scope
			if err := s.Scope(ctx, "g", []string{ids[0], "nope"}, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) || !strings.Contains(err.Error(), `input "nope" is not recorded`) {
				t.Fatalf("unknown input: %v", err)
			}
		})
	}
}

// A conversation's chain of messages shares one summary, and its scope is
// one round trip however long the chain.
func TestSummariesShared(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	sess := s.Session("chain")
	sess.Record(ctx, runtime.Node{ID: "r", Kind: runtime.ToolResult, Tool: "read_document", Origin: "drive", TrustTier: "trusted", Labels: []string{"confidential"}})
	sess.Record(ctx, runtime.Node{ID: "w", Kind: runtime.ToolResult, Tool: "http_fetch", Origin: "web", TrustTier: "untrusted"})
	prev := "r"
	for i := range 2000 {
		id := fmt.Sprintf("m%d", i)
		n := runtime.Node{ID: id, Kind: runtime.Message, Origin: "agent", Parents: []string{prev}}
		if i == 1000 {
			n.Parents = append(n.Parents, "w")
		}
		if err := sess.Record(ctx, n); err != nil {
			t.Fatal(err)
		}
		prev = id
	}
	keys, _ := c.Keys(ctx, prefix+"{chain}").Result()
	if len(keys) != 1 {
		t.Fatalf("session keys %v", keys)
	}
	if n, _ := c.HGet(ctx, keys[0], "summaries").Int(); n > 5 {
		t.Fatalf("a chain of 2000 messages holds %d summaries", n)
	}
	if n, _ := c.HGet(ctx, keys[0], "nodes").Int(); n != 2002 {
		t.Fatalf("%d nodes", n)
	}
	var sc runtime.Scope
	if err := s.Scope(ctx, "chain", []string{prev}, &sc); err != nil {
		t.Fatal(err)
	}
	want := runtime.Scope{Tools: []string{"http_fetch", "read_document"}, Origins: []string{"agent", "drive", "web"}, TrustTiers: []string{"trusted", "untrusted"}, Labels: []string{"confidential"}}
	if !reflect.DeepEqual(sc, want) {
		t.Fatalf("scope %+v", sc)
	}
	if err := s.Scope(ctx, "chain", []string{"m999"}, &sc); err != nil || !reflect.DeepEqual(sc.TrustTiers, []string{"trusted"}) {
		t.Fatalf("scope before the fetch: %v %+v", err, sc)
	}
}

// Idle sessions expire after the TTL (a session is one hash: all of it at
// once, its marker a second later); every use refreshes the expiry. An
// expired session is a new one, without an error, for a store that
// remembers it as for one that does not.
func TestExpiry(t *testing.T) {
	const ttl = 400 * time.Millisecond
	s, c, prefix := newStoreAt(t, redisstore.Options{TTL: ttl})
	sess := s.Session("idle")
	if err := runtime.ApplyCounters(ctx, s, "idle", []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	sess.Record(ctx, runtime.Node{ID: "a", Kind: runtime.Message, Labels: []string{"x"}})
	sess.Record(ctx, runtime.Node{ID: "b", Kind: runtime.Message, Parents: []string{"a"}})
	sess.MarkIncomplete(ctx)
	keys, _ := c.Keys(ctx, prefix+"{idle}*").Result()
	slices.Sort(keys)
	if len(keys) != 2 {
		t.Fatalf("session keys: %v", keys)
	}
	for i, k := range keys {
		if d, _ := c.PTTL(ctx, k).Result(); d <= time.Duration(i)*time.Second || d > ttl+time.Duration(i)*time.Second {
			t.Fatalf("%s expires in %v", k, d)
		}
	}
	// Used every ttl/4 (a margin for a loaded machine): it stays.
	for range 8 {
		time.Sleep(ttl / 4)
		if got := read(t, s, "idle", fire("R")); got[0] != 1 {
			t.Fatalf("a session in use expired: %v", got)
		}
	}
	time.Sleep(ttl + 200*time.Millisecond)
	if n, _ := c.Exists(ctx, keys[0]).Result(); n != 0 {
		t.Fatal("the hash of an idle session remains")
	}
	// Its marker says it expired (not lost): a new session, no error.
	if got := read(t, s, "idle", fire("R")); got[0] != 0 {
		t.Fatalf("an expired counter reads %d", got[0])
	}
	time.Sleep(time.Second)
	if n, _ := c.Exists(ctx, keys...).Result(); n != 0 {
		t.Fatalf("%d keys of an idle session remain", n)
	}
	// Its provenance is gone: an input recorded before is unknown, never
	// an empty scope.
	var sc runtime.Scope
	if err := s.Scope(ctx, "idle", []string{"b"}, &sc); !errors.Is(err, runtime.ErrUnknownProvenance) {
		t.Fatalf("an expired input: %v", err)
	}
	// It starts over.
	if err := runtime.ApplyCounters(ctx, s, "idle", []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "idle", fire("R")); got[0] != 1 {
		t.Fatalf("after an expiry, a counter counts from %d", got[0]-1)
	}
}

// A session without an id cannot be shared: every call fails (a read is
// then an error at the read, never a zero).
func TestNoSessionID(t *testing.T) {
	s, _ := newStore(t, redisstore.Options{})
	if err := runtime.ReadCounters(ctx, s, "", []runtime.CounterKey{fire("R")}, make([]int64, 1)); err == nil {
		t.Error("read")
	}
	if err := runtime.ApplyCounters(ctx, s, "", []runtime.CounterUpdate{{Key: fire("R")}}); err == nil {
		t.Error("apply")
	}
	if err := s.RecordNode(ctx, "", runtime.Node{ID: "a", Kind: runtime.Message}); err == nil {
		t.Error("record")
	}
	if err := s.Scope(ctx, "", []string{"a"}, &runtime.Scope{}); err == nil || errors.Is(err, runtime.ErrUnknownProvenance) {
		t.Errorf("scope: %v", err)
	}
	if err := s.MarkIncomplete(ctx, ""); err == nil {
		t.Error("mark")
	}
}

// TestWarnRing: a Ring moves the sessions of a shard it finds down to the
// shards that are up, where a session is not there and, to a replica that
// does not remember it (the epoch is not checked in a Ring), new: a
// silent start from zero. New warns about it (a Cluster fails over to a
// shard's replica instead, and one server with replicas keeps every
// session in one place).
func TestWarnRing(t *testing.T) {
	r := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}, ContextTimeoutEnabled: true, MaxRetries: -1})
	defer r.Close()
	var w []string
	if _, err := redisstore.New(r, redisstore.Options{Timeout: 100 * time.Millisecond, Warn: func(m string) { w = append(w, m) }}); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(w, func(m string) bool { return strings.Contains(m, "a Ring") }) {
		t.Fatalf("a Ring: warnings %q", w)
	}
}

// TestClusterHashTags: in a Cluster (here of one node), a session's hash
// and marker are in one slot whatever its key holds: a key that starts
// with "}" (an id of the empty tenant) made P{}...}, an empty hash tag, so
// the two keys hashed whole to two slots and every call of the session
// failed (CROSSSLOT). Such keys, and the keys that start with NULs and
// then "}", get a tag of their own; no two keys share a session, and the
// others keep theirs.
func TestClusterHashTags(t *testing.T) {
	srv := redistest.StartServer(t, false, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	admin := redistest.Client(t, srv.Addr)
	if err := admin.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", "0", "16383").Err(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		info, _ := admin.ClusterInfo(ctx).Result()
		if strings.Contains(info, "cluster_state:ok") {
			break
		}
		if i == 200 {
			t.Fatalf("the cluster is not up: %s", info)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{srv.Addr}, ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	s, err := redisstore.New(c, redisstore.Options{Prefix: "p:", Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"x", "}x", "}", "}}", "\x00}x", "\x00\x00}x", "\x00", "a}b", "{x}", runtime.SessionKey("t", "}x"), runtime.SessionKey("", "\x00}x")}
	for i, k := range keys {
		ups := make([]runtime.CounterUpdate, i+1)
		for j := range ups {
			ups[j].Key = fire("R")
		}
		if err := runtime.ApplyCounters(ctx, s, k, ups); err != nil {
			t.Fatalf("session %q: %v", k, err)
		}
	}
	for i, k := range keys {
		if got := read(t, s, k, fire("R")); got[0] != int64(i+1) {
			t.Fatalf("session %q reads %d, want %d", k, got[0], i+1)
		}
	}
	if err := s.ResetSession(ctx, "}x"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "}x", fire("R")); got[0] != 0 {
		t.Fatalf("after a reset: %d", got[0])
	}
	if got := read(t, s, "\x00}x", fire("R")); got[0] != 5 {
		t.Fatalf("another session after the reset: %d", got[0])
	}
}
