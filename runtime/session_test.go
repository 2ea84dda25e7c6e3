package runtime

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/oarc/oarc/testkit/racecheck"
)

var ctx = context.Background()

func TestNodeLimit(t *testing.T) {
	m := NewMemStore(3)
	s := NewStoreSession(m, "s")
	for i := 0; i < 3; i++ {
		if err := s.Record(ctx, Node{ID: fmt.Sprint(i), Kind: Message}); err != nil {
			t.Fatal(err)
		}
	}
	err := s.Record(ctx, Node{ID: "3", Kind: Message})
	if err == nil || !strings.Contains(err.Error(), "limit of 3 nodes") {
		t.Fatalf("over the limit: %v", err)
	}
	// Nothing was evicted: the first node is still in scope.
	var sc Scope
	if err := m.Scope(ctx, "s", []string{"0"}, &sc); err != nil {
		t.Fatalf("node 0 was evicted: %v", err)
	}
	if NewMemStore(0).g.lim.Nodes != DefaultNodeLimit {
		t.Errorf("default limit")
	}
}

func TestRecordRefuses(t *testing.T) {
	s := NewSession("s")
	s.Record(ctx, Node{ID: "a", Kind: Message})
	for _, tc := range []struct {
		n    Node
		want string
	}{
		{Node{Kind: Message}, "needs an id"},
		{Node{ID: "a", Kind: Message}, "already recorded"},
		{Node{ID: "b"}, "unknown node kind"},
		{Node{ID: "c", Kind: ToolResult, Parents: []string{"a", "zz"}}, `parent "zz" is not recorded`},
	} {
		if err := s.Record(ctx, tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.n, err, tc.want)
		}
	}
	// A refused node is not recorded, not even partly.
	var sc Scope
	if err := s.Store().Scope(ctx, "s", []string{"c"}, &sc); !errors.Is(err, ErrUnknownProvenance) {
		t.Errorf("refused node in scope: %v", err)
	}
}

func TestScope(t *testing.T) {
	s := NewSession("s")
	for _, n := range []Node{
		{ID: "r", Kind: ToolResult, Tool: "read_document", Origin: "drive", TrustTier: "trusted", Labels: []string{"confidential"}},
		{ID: "w", Kind: ToolResult, Tool: "http_fetch", Origin: "web", TrustTier: "untrusted", Labels: []string{"pii", "confidential"}},
		{ID: "sum", Kind: Message, Tool: "ignored", Parents: []string{"r"}},
		{ID: "m", Kind: Message, Origin: "agent", Parents: []string{"sum", "w", "r"}},
		{ID: "other", Kind: Message, Labels: []string{"secret"}},
	} {
		if err := s.Record(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	var sc Scope
	if err := s.Store().Scope(ctx, "s", []string{"m"}, &sc); err != nil {
		t.Fatal(err)
	}
	want := Scope{Tools: []string{"http_fetch", "read_document"}, Origins: []string{"agent", "drive", "web"},
		TrustTiers: []string{"trusted", "untrusted"}, Labels: []string{"confidential", "pii"}}
	if !reflect.DeepEqual(sc, want) {
		t.Errorf("scope %+v\nwant %+v", sc, want)
	}
	if err := s.MarkIncomplete(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Store().Scope(ctx, "s", []string{"m"}, &sc); !errors.Is(err, ErrUnknownProvenance) || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("incomplete: %v", err)
	}
}

// TestScopeAllocs: once the buffers have grown, computing a scope of 1,000
// nodes out of 10,000 allocates nothing.
func TestScopeAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	s := bigGraph(t, 10000, 1000)
	var sc Scope
	in := []string{"top"}
	s.Store().Scope(ctx, "s", in, &sc)
	if n := testing.AllocsPerRun(20, func() { s.Store().Scope(ctx, "s", in, &sc) }); n != 0 {
		t.Errorf("%v allocations per scope", n)
	}
	if len(sc.Tools) != 10 || len(sc.Labels) != 1000 {
		t.Errorf("scope: %d tools, %d labels", len(sc.Tools), len(sc.Labels))
	}
}

// bigGraph records n nodes, of which the last inScope (and the node
// "top" above them) are in the scope of "top".
func bigGraph(t testing.TB, n, inScope int) *Session {
	s := NewSession("s")
	for i := 0; i < n; i++ {
		node := Node{ID: fmt.Sprint(i), Kind: ToolResult, Tool: fmt.Sprint("t", i%10), Labels: []string{fmt.Sprint("l", i%2000)}}
		if i > n-inScope {
			node.Parents = []string{fmt.Sprint(i - 1)}
		}
		if err := s.Record(ctx, node); err != nil {
			t.Fatal(err)
		}
	}
	s.Record(ctx, Node{ID: "top", Kind: Message, Parents: []string{fmt.Sprint(n - 1)}})
	return s
}

func BenchmarkScope(b *testing.B) {
	s := bigGraph(b, 10000, 1000)
	var sc Scope
	in := []string{"top"}
	b.ReportAllocs()
	for b.Loop() {
		s.Store().Scope(ctx, "s", in, &sc)
	}
}

// TestConcurrentRecordAndScope: recording and evaluation are safe
// concurrently (run under -race).
func TestConcurrentRecordAndScope(t *testing.T) {
	s := NewSession("s")
	s.Record(ctx, Node{ID: "root", Kind: Message, Labels: []string{"x"}})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				s.Record(ctx, Node{ID: fmt.Sprint(w, "-", i), Kind: Message, Parents: []string{"root"}})
			}
		}(w)
		go func() {
			defer wg.Done()
			var sc Scope
			for i := 0; i < 200; i++ {
				if err := s.Store().Scope(ctx, "s", []string{"root"}, &sc); err != nil || len(sc.Labels) != 1 {
					t.Errorf("scope %v %+v", err, sc)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestCountersAtomic: the updates of one occurrence are applied together,
// and a session shared by two compilation sets keeps both sets' counters.
func TestCounters(t *testing.T) {
	m := NewMemStore(0)
	a := CounterKey{Slot: 0, Rule: "A", Counter: Fire}
	b := CounterKey{Slot: 0, Rule: "B", Counter: Fire} // another set's slot 0
	ApplyCounters(ctx, m, "s", []CounterUpdate{{Key: a}, {Key: a}, {Key: b}})
	dst := make([]int64, 2)
	ReadCounters(ctx, m, "s", []CounterKey{a, b}, dst)
	if dst[0] != 2 || dst[1] != 1 {
		t.Errorf("counters %v", dst)
	}
	ApplyCounters(ctx, m, "s", []CounterUpdate{{Key: a, Reset: true}, {Key: b, Reset: true}, {Key: b}})
	ReadCounters(ctx, m, "s", []CounterKey{a, b}, dst)
	if dst[0] != 0 || dst[1] != 1 {
		t.Errorf("after reset %v", dst)
	}
	if racecheck.Enabled {
		return
	}
	ups := []CounterUpdate{{Key: a}}
	if n := testing.AllocsPerRun(100, func() { ApplyCounters(ctx, m, "s", ups); ReadCounters(ctx, m, "s", []CounterKey{a}, dst[:1]) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// Issue 18.13: the graph is bounded by size, not only by nodes: one node
// with a million labels, or as many parents, is refused, and so is a node
// that would take the session past its byte limit; nothing is evicted and
// the session stays usable.
func TestRecordSizeLimits(t *testing.T) {
	m := NewMemStoreLimits(Limits{Bytes: 4096})
	s := NewStoreSession(m, "s")
	if err := s.Record(ctx, Node{ID: "p", Kind: Message}); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 1_000_000)
	for i := range many {
		many[i] = strconv.Itoa(i)
	}
	if err := s.Record(ctx, Node{ID: "labels", Kind: Message, Labels: many}); err == nil || !strings.Contains(err.Error(), "limit of 256 per node") {
		t.Errorf("a million labels: %v", err)
	}
	parents := make([]string, DefaultParentLimit+1)
	for i := range parents {
		parents[i] = "p"
	}
	if err := s.Record(ctx, Node{ID: "parents", Kind: Message, Parents: parents}); err == nil || !strings.Contains(err.Error(), "limit of 256 per node") {
		t.Errorf("257 parents: %v", err)
	}
	big := Node{ID: "big", Kind: ToolResult, Tool: strings.Repeat("t", 4000)}
	if err := s.Record(ctx, big); err == nil || !strings.Contains(err.Error(), "limit of 4096 bytes") {
		t.Errorf("over the byte limit: %v", err)
	}
	few := NewStoreSession(NewMemStoreLimits(Limits{Strings: 3}), "f")
	if err := few.Record(ctx, Node{ID: "a", Kind: ToolResult, Tool: "t", Origin: "o", Labels: []string{"o", "t"}}); err != nil {
		t.Errorf("two distinct strings: %v", err)
	}
	if err := few.Record(ctx, Node{ID: "b", Kind: Message, Labels: []string{"x", "y"}}); err == nil || !strings.Contains(err.Error(), "limit of 3 distinct") {
		t.Errorf("two more distinct strings: %v", err)
	}
	// What fits still records, and the first node is still there.
	if err := s.Record(ctx, Node{ID: "q", Kind: Message, Parents: []string{"p"}, Labels: []string{"x"}}); err != nil {
		t.Errorf("a small node after refusals: %v", err)
	}
	var sc Scope
	if err := m.Scope(ctx, "s", []string{"q"}, &sc); err != nil || len(sc.Labels) != 1 {
		t.Errorf("scope after refusals: %v %v", sc, err)
	}
	if m.g.bytes != NodeSize(Node{ID: "p"})+NodeSize(Node{ID: "q", Parents: []string{"p"}, Labels: []string{"x"}}) {
		t.Errorf("bytes counted %d", m.g.bytes)
	}
}

// The worst session the default limits admit (every node with the most
// labels and parents the byte limit allows) keeps a scope of the whole
// graph to a few milliseconds: the lock a scope holds is bounded.
func BenchmarkScopeWorstCase(b *testing.B) {
	m := NewMemStore(0)
	s := NewStoreSession(m, "s")
	var prev []string
	for i := 0; ; i++ {
		labels := make([]string, DefaultLabelLimit)
		for j := range labels {
			labels[j] = strconv.Itoa((i*DefaultLabelLimit + j) % (DefaultStringLimit - 1))
		}
		id := strconv.Itoa(i)
		if err := s.Record(ctx, Node{ID: id, Kind: Message, Labels: labels, Parents: prev}); err != nil {
			break
		}
		prev = append(prev, id)
		if len(prev) > 8 {
			prev = prev[1:]
		}
	}
	b.ReportMetric(float64(len(m.g.nodes)), "nodes")
	last := []string{strconv.Itoa(len(m.g.nodes) - 1)}
	var sc Scope
	for b.Loop() {
		if err := m.Scope(ctx, "s", last, &sc); err != nil {
			b.Fatal(err)
		}
	}
}

// NotApplied marks an error without changing its text; the refusals of a
// session without a store and of MemStore's Record are known not applied.
func TestNotApplied(t *testing.T) {
	base := errors.New("refused")
	err := NotApplied(base)
	if !errors.Is(err, ErrNotApplied) || !errors.Is(err, base) || err.Error() != "refused" || NotApplied(nil) != nil {
		t.Fatalf("NotApplied: %v", err)
	}
	if errors.Is(fmt.Errorf("x: %w", base), ErrNotApplied) {
		t.Fatal("an error not marked is known not applied")
	}
	var none Session
	if err := none.Record(ctx, Node{ID: "a", Kind: Message}); !errors.Is(err, ErrNotApplied) {
		t.Fatalf("a session without a store: %v", err)
	}
	if err := ApplyCounters(ctx, none.Store(), "", []CounterUpdate{{}}); !errors.Is(err, ErrNotApplied) {
		t.Fatalf("a session without a store: %v", err)
	}
	m := NewStoreSession(NewMemStore(2), "s")
	m.Record(ctx, Node{ID: "a", Kind: Message})
	if err := m.Record(ctx, Node{ID: "a", Kind: Message}); !errors.Is(err, ErrNotApplied) || !strings.Contains(err.Error(), "already recorded") {
		t.Fatalf("a refused record: %v", err)
	}
}

// Spec 5.11: two sessions with one id and different tenants are different
// sessions in every store. Their keys differ for every pair of (tenant,
// id), and a MemStore given to two of them refuses the second instead of
// letting them share counters, the record or provenance.
func TestTenants(t *testing.T) {
	keys := map[string][2]string{}
	parts := []string{"", "a", "b", "\x00", "\x00a", `"a"`, "a\x00b", "\x00\"\"\x00"}
	for _, tenant := range parts {
		for _, id := range parts {
			k := SessionKey(tenant, id)
			if prev, dup := keys[k]; dup {
				t.Errorf("(%q, %q) and (%q, %q) share the key %q", tenant, id, prev[0], prev[1], k)
			}
			keys[k] = [2]string{tenant, id}
		}
	}
	if SessionKey("", "s") != "s" {
		t.Errorf("the empty tenant changed a plain id's key")
	}
	a, b := NewSession("s", WithTenant("a")), NewSession("s", WithTenant("b"))
	if a.Tenant() != "a" || b.Tenant() != "b" || a.ID() != "s" || a.Key() == b.Key() {
		t.Errorf("tenants: %q %q %q %q", a.Tenant(), b.Tenant(), a.Key(), b.Key())
	}
	if err := a.Record(ctx, Node{ID: "n", Kind: Message, Labels: []string{"secret"}}); err != nil {
		t.Fatal(err)
	}
	var sc Scope
	if err := b.Store().Scope(ctx, b.Key(), []string{"n"}, &sc); !errors.Is(err, ErrUnknownProvenance) {
		t.Errorf("tenant b names tenant a's node: %v %v", sc, err)
	}
	m := NewMemStore(0)
	sa, sb := NewStoreSession(m, "s", WithTenant("a")), NewStoreSession(m, "s", WithTenant("b"))
	if err := sa.Record(ctx, Node{ID: "n", Kind: Message}); err != nil {
		t.Fatal(err)
	}
	if err := sb.Record(ctx, Node{ID: "m", Kind: Message}); err == nil || !errors.Is(err, ErrNotApplied) {
		t.Errorf("a MemStore shared by two tenants recorded for both: %v", err)
	}
	if err := ReadCounters(ctx, m, sb.Key(), []CounterKey{{Rule: "R"}}, make([]int64, 1)); err == nil {
		t.Errorf("a MemStore shared by two tenants read for the second")
	}
	if err := ApplyCounters(ctx, m, sb.Key(), []CounterUpdate{{Key: CounterKey{Rule: "R"}}}); !errors.Is(err, ErrNotApplied) {
		t.Errorf("a MemStore shared by two tenants applied for the second: %v", err)
	}
	if sa.InTenant("b").Key() != sb.Key() || sa.InTenant("b").Tenant() != "b" {
		t.Errorf("InTenant")
	}
}
