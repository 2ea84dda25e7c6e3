package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// replicaOn is a replica of its own on addr with opts (prefix included).
func replicaOn(t *testing.T, addr string, opts redisstore.Options) *replica {
	t.Helper()
	st, err := redisstore.New(redistest.Client(t, addr), opts)
	if err != nil {
		t.Fatal(err)
	}
	return &replica{store: st, ev: newEvaluator(t)}
}

// lost reports whether d is what a lost session gives at a repeated call:
// both counter rules fail closed with an error of kind store saying the
// session is lost, and the updates are reported as not applied.
func lost(d *runtime.Decision) bool {
	rules, all := storeErrors(d)
	return d.Effect == runtime.Block && all && strings.Join(rules, ",") == "NUDGE_REPEAT,ESCALATE," &&
		strings.Contains(d.Errors[0].Err.Error(), " lost: ") &&
		strings.HasPrefix(d.Errors[2].Err.Error(), updatesNotApplied)
}

// egress evaluates an egress whose provenance inputs are inputs.
func egress(r *replica, session string, inputs ...string) runtime.Decision {
	occ := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Inputs: inputs}
	occ.Facts.Tool = "http_post"
	var d runtime.Decision
	c, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r.ev.Evaluate(c, &occ, r.store.Session(session), &d)
	return d
}

// TestLossFlushAll: the server loses everything (FLUSHALL; a restart
// without persistence is the same) in the middle of a session driven by
// two replicas. The escalation does not restart from zero: every call is a
// store error at the read (the rules fail closed), on both replicas, and
// so is a provenance read, until the host resets the session. For a TTL
// after the loss a session that does not exist cannot be proven new (it
// may be one the server lost): it fails closed too, on the old replicas
// and on one started after the loss, until reset. Then sessions are new
// again.
func TestLossFlushAll(t *testing.T) {
	srv := redistest.StartServer(t, false)
	const ttl = 1500 * time.Millisecond
	opts := redisstore.Options{Prefix: "p:", TTL: ttl}
	replicas := []*replica{replicaOn(t, srv.Addr, opts), replicaOn(t, srv.Addr, opts)}
	warm(t, replicas[0].store, "s")
	for i, want := range []string{"nudge:NUDGE_REPEAT", "nudge:NUDGE_REPEAT"} {
		if d, _ := evaluate(replicas[i%2], "s", call("repeat"), time.Second); outcome(&d) != want || len(d.Errors) > 0 {
			t.Fatalf("call %d: %s %v", i, outcome(&d), d.Errors)
		}
	}
	if err := replicas[0].store.Session("s").Record(ctx, runtime.Node{ID: "r", Kind: runtime.ToolResult, Tool: "read_document", TrustTier: "untrusted", Labels: []string{"confidential"}}); err != nil {
		t.Fatal(err)
	}
	c := redistest.Client(t, srv.Addr)
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	lossAt := time.Now()
	for i := range 4 {
		if d, _ := evaluate(replicas[i%2], "s", call("repeat"), time.Second); !lost(&d) {
			t.Fatalf("after FLUSHALL, call %d: %s %v; want the lost session to fail closed", i, outcome(&d), d.Errors)
		}
	}
	if d := egress(replicas[1], "s", "r"); d.Effect != runtime.Block || len(d.Errors) != 2 || d.Errors[0].Err.Kind != runtime.ErrStore || !strings.HasPrefix(d.Errors[1].Err.Error(), updatesNotApplied) {
		t.Fatalf("provenance after FLUSHALL: %s %v", outcome(&d), d.Errors)
	}
	if err := replicas[1].store.Session("s").Record(ctx, runtime.Node{ID: "x", Kind: runtime.Message}); !errors.Is(err, redisstore.ErrSessionLost) || !errors.Is(err, runtime.ErrNotApplied) {
		t.Fatalf("recording in a lost session: %v", err)
	}
	// A session that does not exist, on an old replica and on one started
	// after the loss.
	late := replicaOn(t, srv.Addr, opts)
	for i, r := range []*replica{replicas[0], late} {
		if d, _ := evaluate(r, fmt.Sprint("new", i), call("repeat"), time.Second); !lost(&d) {
			t.Fatalf("a session unknown after the loss, replica %d: %s %v", i, outcome(&d), d.Errors)
		}
	}
	// The host resets s: it starts over, on both replicas, its record of
	// calls too (the repeats count from the first call again).
	if err := replicas[1].store.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"allow:", "allow:", "allow:", "nudge:NUDGE_REPEAT", "nudge:NUDGE_REPEAT", "block:ESCALATE"} {
		if d, _ := evaluate(replicas[i%2], "s", call("repeat"), time.Second); outcome(&d) != want || len(d.Errors) > 0 {
			t.Fatalf("after the reset, call %d: %s %v, want %s", i, outcome(&d), d.Errors, want)
		}
	}
	// A TTL after the loss, a session never seen is new (one the server
	// lost would have expired by now); new0, refused and still in use,
	// stays refused.
	time.Sleep(time.Until(lossAt.Add(ttl - 200*time.Millisecond)))
	if d, _ := evaluate(late, "new0", call("repeat"), time.Second); !lost(&d) {
		t.Fatalf("a session refused as lost: %s %v", outcome(&d), d.Errors)
	}
	time.Sleep(time.Until(lossAt.Add(ttl + 1100*time.Millisecond)))
	for i, r := range []*replica{replicas[1], late} {
		if d, _ := evaluate(r, fmt.Sprint("fresh", i), call("repeat"), time.Second); outcome(&d) != "allow:" || len(d.Errors) > 0 {
			t.Fatalf("a new session a TTL after the loss, replica %d: %s %v", i, outcome(&d), d.Errors)
		}
	}
	if d, _ := evaluate(late, "new0", call("repeat"), time.Second); !lost(&d) {
		t.Fatalf("a session refused as lost and still in use: %s %v", outcome(&d), d.Errors)
	}
}

// TestLossEvicted: the session's hash disappears before its expiry (what
// an eviction does; here DEL). Its marker says it must exist: reads fail
// (ErrSessionLost), updates and recordings are refused (not applied), on
// the replica that served it and on one that never did, until the host
// resets the session.
func TestLossEvicted(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	forgetful, err := redisstore.New(redistest.Client(t, redistest.Addr(t)), redisstore.Options{Prefix: prefix, Remember: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.ApplyCounters(ctx, s, "s", []runtime.CounterUpdate{{Key: fire("R")}, {Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordNode(ctx, "s", runtime.Node{ID: "a", Kind: runtime.Message}); err != nil {
		t.Fatal(err)
	}
	c.Del(ctx, prefix+"{s}")
	for _, st := range []*redisstore.Store{forgetful, s} {
		if err := runtime.ReadCounters(ctx, st, "s", []runtime.CounterKey{fire("R")}, make([]int64, 1)); !errors.Is(err, redisstore.ErrSessionLost) {
			t.Fatalf("reading an evicted session: %v", err)
		}
		var sc runtime.Scope
		if err := st.Scope(ctx, "s", []string{"a"}, &sc); !errors.Is(err, redisstore.ErrSessionLost) || errors.Is(err, runtime.ErrUnknownProvenance) {
			t.Fatalf("a scope of an evicted session: %v", err)
		}
		if err := runtime.ApplyCounters(ctx, st, "s", []runtime.CounterUpdate{{Key: fire("R")}}); !errors.Is(err, redisstore.ErrSessionLost) || !errors.Is(err, runtime.ErrNotApplied) {
			t.Fatalf("updating an evicted session: %v", err)
		}
		if err := st.RecordNode(ctx, "s", runtime.Node{ID: "b", Kind: runtime.Message}); !errors.Is(err, redisstore.ErrSessionLost) {
			t.Fatalf("recording in an evicted session: %v", err)
		}
		if err := st.MarkIncomplete(ctx, "s"); !errors.Is(err, redisstore.ErrSessionLost) {
			t.Fatalf("marking an evicted session: %v", err)
		}
	}
	if n, _ := c.Exists(ctx, prefix+"{s}").Result(); n != 0 {
		t.Fatal("a refused call wrote the session")
	}
	if err := forgetful.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*redisstore.Store{s, forgetful} {
		if got := read(t, st, "s", fire("R")); got[0] != 0 {
			t.Fatalf("after a reset: %v", got)
		}
	}
	if err := runtime.ApplyCounters(ctx, s, "s", []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, forgetful, "s", fire("R")); got[0] != 1 {
		t.Fatalf("after a reset and an update: %v", got)
	}
}

// TestLossBothKeysGone: the session's hash and its marker both disappear
// before the expiry (an eviction under volatile-lru may take both). A store
// that does not remember the session cannot tell (the limit the docs
// state: New warns about evicting servers); the replica that served it
// remembers its deadline, refuses it as lost, and marks it so: from then
// on every replica refuses it, until a reset.
func TestLossBothKeysGone(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	forgetful, err := redisstore.New(redistest.Client(t, redistest.Addr(t)), redisstore.Options{Prefix: prefix, Remember: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.ApplyCounters(ctx, s, "s", []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	c.Del(ctx, prefix+"{s}", prefix+"{s}:m")
	if got := read(t, forgetful, "s", fire("R")); got[0] != 0 {
		t.Fatalf("a store that never saw the session: %v", got)
	}
	for _, st := range []*redisstore.Store{s, forgetful} {
		if err := runtime.ReadCounters(ctx, st, "s", []runtime.CounterKey{fire("R")}, make([]int64, 1)); !errors.Is(err, redisstore.ErrSessionLost) {
			t.Fatalf("a session gone before its expiry: %v", err)
		}
	}
	if err := s.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, forgetful, "s", fire("R")); got[0] != 0 {
		t.Fatalf("after a reset: %v", got)
	}
}

// TestLossRealEviction: a server with little memory and volatile-lru
// evicts sessions (they have an expiry) when filled. New warns about the
// policy; the evicted session fails closed as lost, never a fresh zero.
func TestLossRealEviction(t *testing.T) {
	srv := redistest.StartServer(t, false, "--maxmemory", "3mb", "--maxmemory-policy", "volatile-lru")
	var warnings []string
	r := replicaOn(t, srv.Addr, redisstore.Options{Prefix: "p:", Warn: func(m string) { warnings = append(warnings, m) }})
	if len(warnings) != 1 || !strings.Contains(warnings[0], `maxmemory-policy is "volatile-lru"`) {
		t.Fatalf("warnings %q", warnings)
	}
	warm(t, r.store, "s")
	for i, want := range []string{"nudge:NUDGE_REPEAT", "nudge:NUDGE_REPEAT"} {
		if d, _ := evaluate(r, "s", call("repeat"), time.Second); outcome(&d) != want || len(d.Errors) > 0 {
			t.Fatalf("call %d: %s %v", i, outcome(&d), d.Errors)
		}
	}
	// Fill the server with keys that expire, used after the session, until
	// the session is evicted.
	c := redistest.Client(t, srv.Addr)
	value := strings.Repeat("v", 1024)
	evicted := false
	for i := 0; i < 200 && !evicted; i++ {
		p := c.Pipeline()
		for j := range 100 {
			p.Set(ctx, fmt.Sprintf("fill:%d:%d", i, j), value, time.Hour)
		}
		p.Exec(ctx)
		n, err := c.Exists(ctx, "p:{s}").Result()
		if err != nil {
			t.Fatal(err)
		}
		evicted = n == 0
	}
	if !evicted {
		t.Fatal("the session was not evicted")
	}
	info, _ := c.Info(ctx, "stats").Result()
	t.Logf("evicted: %s", strings.TrimSpace(info[strings.Index(info, "evicted_keys:"):][:strings.Index(info[strings.Index(info, "evicted_keys:"):], "\n")]))
	if d, _ := evaluate(r, "s", call("repeat"), time.Second); !lost(&d) {
		t.Fatalf("an evicted session: %s %v; want it to fail closed as lost", outcome(&d), d.Errors)
	}
}

// TestLossFailover: a replica of the server is promoted while it lacks the
// last writes (they were applied on the old primary after the replica
// stopped following it). The store that saw them applied remembers more
// mutations than the promoted server holds: the session is lost (an error
// at the read, not a nudge the lost state allows), for every replica of
// the host once one has noticed, until reset.
func TestLossFailover(t *testing.T) {
	primary := redistest.StartServer(t, false)
	standby := redistest.StartServer(t, false)
	p := newProxy(t, primary.Addr)
	opts := redisstore.Options{Prefix: "p:"}
	r := replicaOn(t, p.l.Addr().String(), opts)
	other := replicaOn(t, p.l.Addr().String(), redisstore.Options{Prefix: "p:", Remember: -1})
	cs := redistest.Client(t, standby.Addr)
	host, port, _ := strings.Cut(primary.Addr, ":")
	if err := cs.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		t.Fatal(err)
	}
	warm(t, r.store, "s")
	if d, _ := evaluate(r, "s", call("repeat"), time.Second); outcome(&d) != "nudge:NUDGE_REPEAT" || len(d.Errors) > 0 {
		t.Fatalf("call 0: %s %v", outcome(&d), d.Errors)
	}
	// The standby holds the first nudge, then stops following.
	cp := redistest.Client(t, primary.Addr)
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := cp.Do(ctx, "WAIT", 1, 200).Int()
		if err == nil && n == 1 {
			if v, _ := cs.HGet(ctx, "p:{s}", "c:NUDGE_REPEAT.fire").Result(); v == "1" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby does not follow the primary: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cs.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		t.Fatal(err)
	}
	if d, _ := evaluate(r, "s", call("repeat"), time.Second); outcome(&d) != "nudge:NUDGE_REPEAT" || len(d.Errors) > 0 {
		t.Fatalf("call 1: %s %v", outcome(&d), d.Errors)
	}
	// Failover: the host's connections now reach the standby.
	p.retarget(standby.Addr)
	for i := range 3 {
		if d, _ := evaluate(r, "s", call("repeat"), time.Second); !lost(&d) {
			t.Fatalf("after the failover, call %d: %s %v; want the session lost (the standby lacks the second nudge)", i, outcome(&d), d.Errors)
		}
	}
	if d, _ := evaluate(other, "s", call("repeat"), time.Second); !lost(&d) {
		t.Fatalf("after the failover, a replica that did not see the lost write: %s %v", outcome(&d), d.Errors)
	}
	if err := other.store.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	// The session starts over, its record of calls too: no repeat yet.
	if d, _ := evaluate(r, "s", call("repeat"), time.Second); outcome(&d) != "allow:" || len(d.Errors) > 0 {
		t.Fatalf("after the reset: %s %v", outcome(&d), d.Errors)
	}
}

// TestIdleExpiryIsFresh: a session idle longer than its TTL starts over,
// without an error, on the replica that served it (it remembers the
// deadline, which has passed) and on another, in an evaluation.
func TestIdleExpiryIsFresh(t *testing.T) {
	addr := redistest.Addr(t)
	prefix := redistest.Prefix(t, redistest.Client(t, addr))
	const ttl = 300 * time.Millisecond
	a := replicaOn(t, addr, redisstore.Options{Prefix: prefix, TTL: ttl})
	b := replicaOn(t, addr, redisstore.Options{Prefix: prefix, TTL: ttl})
	// sequence makes six identical calls; the record expires with the
	// counters, so the repeats count from the first call again. It
	// returns how long the calls took.
	sequence := func() (time.Duration, string) {
		start := time.Now()
		for i, want := range []string{"allow:", "allow:", "allow:", "nudge:NUDGE_REPEAT", "nudge:NUDGE_REPEAT", "block:ESCALATE"} {
			if d, _ := evaluate([]*replica{a, b}[i%2], "s", call("repeat"), time.Second); outcome(&d) != want || len(d.Errors) > 0 {
				return time.Since(start), fmt.Sprintf("call %d: %s %v, want %s", i, outcome(&d), d.Errors, want)
			}
		}
		return 0, ""
	}
	for _, wait := range []time.Duration{0, ttl + 100*time.Millisecond, ttl + 1200*time.Millisecond} {
		for attempt := 1; ; attempt++ {
			time.Sleep(wait)
			took, failed := sequence()
			if failed == "" {
				break
			}
			// Calls that took longer than the TTL together may have let
			// the session expire between two of them (a loaded machine):
			// the premise, not the store, failed. Calls quicker than the
			// TTL cannot have, and fail the test.
			if took < ttl || attempt == 3 {
				t.Fatalf("idle %v: %s (the calls took %v)", wait, failed, took)
			}
			t.Logf("idle %v: %s after %v, longer than the TTL: again", wait, failed, took)
			wait = ttl + 100*time.Millisecond
		}
	}
}

// TestWarnPolicy: New warns about a server that may evict sessions, or
// that will not say (CONFIG refused, as managed servers do), and never
// refuses it; a noeviction server gives no warning.
func TestWarnPolicy(t *testing.T) {
	srv := redistest.StartServer(t, false)
	c := redistest.Client(t, srv.Addr)
	if err := c.Do(ctx, "ACL", "SETUSER", "noconfig", "on", "nopass", "~*", "&*", "+@all", "-config").Err(); err != nil {
		t.Fatal(err)
	}
	warned := func(o *redis.Options) []string {
		var w []string
		client := redis.NewClient(o)
		defer client.Close()
		st, err := redisstore.New(client, redisstore.Options{Warn: func(m string) { w = append(w, m) }})
		if err != nil || st == nil {
			t.Fatalf("New refused the server: %v", err)
		}
		return w
	}
	if w := warned(redisstore.ClientOptions(srv.Addr)); len(w) != 0 {
		t.Fatalf("noeviction: %q", w)
	}
	for _, policy := range []string{"allkeys-lru", "volatile-ttl", "allkeys-random"} {
		c.ConfigSet(ctx, "maxmemory-policy", policy)
		if w := warned(redisstore.ClientOptions(srv.Addr)); len(w) != 1 || !strings.Contains(w[0], policy) {
			t.Fatalf("%s: %q", policy, w)
		}
	}
	o := redisstore.ClientOptions(srv.Addr)
	o.Username, o.Password = "noconfig", "any" // nopass: any password
	if w := warned(o); len(w) != 1 || !strings.Contains(w[0], "could not read the server's maxmemory-policy") {
		t.Fatalf("CONFIG refused: %q", w)
	}
}

// TestRememberConcurrent: answers arriving in any order (many goroutines
// on one session, with resets) never make the store take its own session
// for a lost one.
func TestRememberConcurrent(t *testing.T) {
	s, _, _ := newStoreAt(t, redisstore.Options{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				var err error
				switch {
				case g == 0 && i%10 == 9:
					err = s.ResetSession(ctx, "s")
				case (g+i)%2 == 0:
					err = runtime.ApplyCounters(ctx, s, "s", []runtime.CounterUpdate{{Key: fire("R")}})
				default:
					err = runtime.ReadCounters(ctx, s, "s", []runtime.CounterKey{fire("R")}, make([]int64, 1))
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestLossMarkerWithoutExpiry: a session's marker that lost its expiry (a
// PERSIST, or a copy of the keys by a tool that drops expiries) still says
// that the session was written, and its hash is gone (evicted, deleted).
// The session is lost, as with a marker whose expiry is ahead, on a store
// that does not remember it too. Before, the script took a marker with no
// expiry (PTTL -1) for one about to expire: the session was new, its
// counters and record 0 (a silent reset of every escalation).
func TestLossMarkerWithoutExpiry(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{Remember: -1})
	if err := runtime.ApplyCounters(ctx, s, "s", []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	c.Persist(ctx, prefix+"{s}:m")
	c.Del(ctx, prefix+"{s}")
	if err := runtime.ReadCounters(ctx, s, "s", []runtime.CounterKey{fire("R")}, make([]int64, 1)); !errors.Is(err, redisstore.ErrSessionLost) {
		t.Fatalf("a session whose hash is gone and whose marker has no expiry: %v, want ErrSessionLost", err)
	}
	if err := runtime.ApplyCounters(ctx, s, "s", []runtime.CounterUpdate{{Key: fire("R")}}); !errors.Is(err, redisstore.ErrSessionLost) || !errors.Is(err, runtime.ErrNotApplied) {
		t.Fatalf("updating it: %v", err)
	}
	if err := s.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "s", fire("R")); got[0] != 0 {
		t.Fatalf("after a reset: %v", got)
	}
}
