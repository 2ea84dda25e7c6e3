package guard_test

import (
	"context"
	"sync"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// keyedStore keeps each session it is called with in its own MemStore, as
// a store shared by replicas keeps every session (a MemStore keeps one).
type keyedStore struct {
	mu   sync.Mutex
	m    map[string]*runtime.MemStore
	keys []string // the session keys of every call, in order
}

func (k *keyedStore) of(session string) *runtime.MemStore {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]*runtime.MemStore{}
	}
	k.keys = append(k.keys, session)
	if k.m[session] == nil {
		k.m[session] = runtime.NewMemStore(0)
	}
	return k.m[session]
}

func (k *keyedStore) Read(ctx context.Context, s string, sn *runtime.Snapshot) error {
	return k.of(s).Read(ctx, s, sn)
}
func (k *keyedStore) Apply(ctx context.Context, s string, u *runtime.Update) error {
	return k.of(s).Apply(ctx, s, u)
}
func (k *keyedStore) RecordNode(ctx context.Context, s string, n runtime.Node) error {
	return k.of(s).RecordNode(ctx, s, n)
}
func (k *keyedStore) MarkIncomplete(ctx context.Context, s string) error {
	return k.of(s).MarkIncomplete(ctx, s)
}
func (k *keyedStore) Scope(ctx context.Context, s string, in []string, sc *runtime.Scope) error {
	return k.of(s).Scope(ctx, s, in, sc)
}

// A shared session of a tenant (spec 5.11) finds its chain's last node in
// its own session, not in the session of the same id in the empty tenant:
// a restarted proxy of tenant "acme" that looked up the empty tenant's
// (empty) chain saw no node at all, so a write after an untrusted read was
// allowed, and its store calls went to a session of another tenant.
func TestSharedChainTenant(t *testing.T) {
	g := newGuard(t)
	ctx := context.Background()
	st := &keyedStore{}
	untrusted := fs
	untrusted.TrustTier = "untrusted"
	opts := guard.ConnOptions{AllInputs: true, Shared: true, Profiles: runtime.ProfileProvenance}
	sess := func() *runtime.Session { return runtime.NewStoreSession(st, "s", runtime.WithTenant("acme")) }
	a := g.NewConn(sess(), untrusted, opts)
	k := a.Begin(ctx, nil, "read_text_file", args(t, map[string]string{"p": "mail"}))
	if d := decode(t, k.Finish(ctx, textResult("x"), 0, guard.FinishOptions{})); d.Meta["oarc/node"] != "r1" {
		t.Fatalf("a's node: %v", d.Meta["oarc/node"])
	}
	// A restarted proxy (a new Conn on the same session of the tenant).
	c := g.NewConn(sess(), fs, opts)
	if k := c.Begin(ctx, nil, "write_file", args(t, map[string]string{"path": "/o"})); k.Code() != "UNTRUSTED_WRITE" {
		t.Errorf("write after an untrusted read, from a restarted proxy of the tenant: %q", k.Code())
	}
	want := sess().Key()
	for _, key := range st.keys {
		if key != want {
			t.Errorf("a store call for session %q, want only the tenant's session %q", key, want)
			break
		}
	}
}
