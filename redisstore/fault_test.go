package redisstore_test

import (
	"context"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// outcome is a decision in short: effect and codes.
func outcome(d *runtime.Decision) string {
	return d.Effect.String() + ":" + strings.Join(d.Codes, "+")
}

// storeErrors returns the rules whose errors are of kind store ("" for
// the updates that could not be applied) and whether every error is.
func storeErrors(d *runtime.Decision) ([]string, bool) {
	var rules []string
	all := true
	for _, e := range d.Errors {
		if e.Err.Kind != runtime.ErrStore {
			all = false
		}
		rules = append(rules, e.Rule)
	}
	return rules, all
}

// evaluate evaluates occ under a deadline, as a host does.
func evaluate(r *replica, session string, occ lycaon.Occurrence, timeout time.Duration) (runtime.Decision, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var d runtime.Decision
	start := time.Now()
	r.ev.Evaluate(ctx, &occ, r.store.Session(session), &d)
	return d, time.Since(start)
}

// TestFaultStopRestart stops the server in the middle of a session driven
// by two replicas, then starts it again (with its append-only file, so it
// comes back with the sessions). While it is down every counter read and
// provenance read is an error of kind store at the read (the rules fail
// closed: a block, never a silent allow), every update that could not be
// applied is reported, and recording fails to the host. When it is back
// the same replicas (no restart) carry on where the session was, exactly
// as one process that saw only the calls that succeeded.
func TestFaultStopRestart(t *testing.T) {
	srv := redistest.StartServer(t, true)
	c := redistest.Client(t, srv.Addr)
	prefix := redistest.Prefix(t, c)
	replicas := []*replica{newReplica(t, srv.Addr, prefix), newReplica(t, srv.Addr, prefix)}
	one := newEvaluator(t)
	inProcess := runtime.NewSession("s")
	step := func(i int) (runtime.Decision, string) {
		d, _ := evaluate(replicas[i%2], "s", call("repeat", 3), time.Second)
		var dp runtime.Decision
		occ := call("repeat", 3)
		one.Evaluate(ctx, &occ, inProcess, &dp)
		return d, outcome(&dp)
	}
	for i := range 4 { // nudge, nudge, block, nudge
		d, want := step(i)
		if got := outcome(&d); got != want || len(d.Errors) > 0 {
			t.Fatalf("before the outage, call %d: %s %v, want %s", i, got, d.Errors, want)
		}
	}
	if err := replicas[0].store.Session("s").Record(ctx, runtime.Node{ID: "r", Kind: runtime.ToolResult, Tool: "read_document", TrustTier: "untrusted", Labels: []string{"confidential"}}); err != nil {
		t.Fatal(err)
	}

	srv.Stop(t)
	for i := range 4 {
		d, took := evaluate(replicas[i%2], "s", call("repeat", 3), time.Second)
		rules, all := storeErrors(&d)
		// Both rules read the counter: both fail closed; their updates
		// are reported as not applied.
		if d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "NUDGE_REPEAT,ESCALATE," {
			t.Fatalf("server down, call %d: %s, errors %v", i, outcome(&d), d.Errors)
		}
		if msg := d.Errors[2].Err.Error(); !strings.HasPrefix(msg, "session store: counter updates not applied: redis: ") || !strings.Contains(msg, "connection refused") {
			t.Fatalf("the unapplied updates: %q", msg)
		}
		// Unreachable is not late: it fails at once.
		if took > 300*time.Millisecond {
			t.Fatalf("a call to a stopped server took %v", took)
		}
	}
	// Provenance: an error at the read, the egress rule fails closed.
	occ := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Inputs: []string{"r"}}
	occ.Facts.Tool = "http_post"
	d, _ := evaluate(replicas[1], "s", occ, time.Second)
	if rules, all := storeErrors(&d); d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "UNTRUSTED_EGRESS" {
		t.Fatalf("provenance with the server down: %s %v", outcome(&d), d.Errors)
	}
	if err := replicas[0].store.Session("s").Record(ctx, runtime.Node{ID: "x", Kind: runtime.Message}); err == nil {
		t.Fatal("recording with the server down did not fail")
	}
	// The same occurrence with a tally: a counter read fails, the rules
	// reading it fail closed.
	d, _ = evaluate(replicas[0], "s", call("tally", 0), time.Second)
	if rules, all := storeErrors(&d); d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "TALLY,TORN," {
		t.Fatalf("tally with the server down: %s %v", outcome(&d), d.Errors)
	}

	srv.Start(t)
	// The replicas reconnect by themselves: go-redis probes the server
	// once a second after dials failed.
	start := time.Now()
	for _, r := range replicas {
		for {
			err := r.store.ReadCounters(ctx, "s", []runtime.CounterKey{fire("NUDGE_REPEAT")}, make([]int64, 1))
			if err == nil {
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("no recovery 5s after the restart: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("the replicas answer again %v after the restart", time.Since(start).Round(time.Millisecond))
	for i := 4; i < 10; i++ {
		d, want := step(i)
		if got := outcome(&d); got != want || len(d.Errors) > 0 {
			t.Fatalf("after the restart, call %d: %s %v, want %s", i, got, d.Errors, want)
		}
	}
	if n := counter(t, replicas[0].store, "s", "ESCALATE", runtime.Breaker); n != 3 {
		t.Fatalf("ESCALATE.breaker = %d after 3 blocks that were applied", n)
	}
	d, _ = evaluate(replicas[1], "s", occ, time.Second)
	if d.Effect != runtime.Block || d.Code != "UNTRUSTED_EGRESS" || len(d.Errors) > 0 {
		t.Fatalf("provenance after the restart: %s %v", outcome(&d), d.Errors)
	}
}

// TestFaultLate pauses the server: a store that answers too late. Reads
// end at the caller's deadline (not the client's timeouts) with an error
// of kind store, the rules fail closed, the updates are reported and not
// applied; when the server resumes, the session is as it was.
func TestFaultLate(t *testing.T) {
	srv := redistest.StartServer(t, false)
	c := redistest.Client(t, srv.Addr)
	r := newReplica(t, srv.Addr, redistest.Prefix(t, c))
	if d, _ := evaluate(r, "s", call("tally", 0), time.Second); d.Effect != runtime.Nudge || len(d.Errors) > 0 {
		t.Fatalf("before: %s %v", outcome(&d), d.Errors)
	}
	srv.Pause(t)
	const deadline = 150 * time.Millisecond
	d, took := evaluate(r, "s", call("tally", 0), deadline)
	srv.Resume(t)
	if rules, all := storeErrors(&d); d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "TALLY,TORN," {
		t.Fatalf("late: %s %v", outcome(&d), d.Errors)
	}
	if took > deadline+300*time.Millisecond {
		t.Fatalf("a late store held the evaluation %v past a deadline of %v", took, deadline)
	}
	if d, _ := evaluate(r, "s", call("tally", 0), time.Second); d.Effect != runtime.Nudge || len(d.Errors) > 0 {
		t.Fatalf("after: %s %v", outcome(&d), d.Errors)
	}
	if n := counter(t, r.store, "s", "TALLY", runtime.Fire); n != 2 {
		t.Fatalf("TALLY.fire = %d, want 2 (the late occurrence's updates were not applied)", n)
	}
}

// proxy forwards connections to a server and can drop the next answer
// (closing the connection), as a network that loses a reply does.
type proxy struct {
	l       net.Listener
	target  string
	drop    atomic.Int32
	dropped atomic.Int32
}

func newProxy(t *testing.T, target string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, target: target}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.handle(c)
		}
	}()
	return p
}

func (p *proxy) handle(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	go func() {
		io.Copy(s, c)
		s.Close()
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if p.drop.Load() > 0 {
				p.drop.Add(-1)
				p.dropped.Add(1)
				c.Close()
				s.Close()
				return
			}
			c.Write(buf[:n])
		}
		if err != nil {
			c.Close()
			return
		}
	}
}

// TestRetryAppliesOnce: the answer to an update is lost after the server
// applied it; go-redis retries on a new connection, and the update counts
// once. The same for recording a node: the retry is not refused as a
// duplicate.
func TestRetryAppliesOnce(t *testing.T) {
	addr := redistest.Addr(t)
	p := newProxy(t, addr)
	c := redis.NewClient(&redis.Options{Addr: p.l.Addr().String(), ContextTimeoutEnabled: true, PoolSize: 1})
	defer c.Close()
	st, err := redisstore.New(c, redisstore.Options{Prefix: redistest.Prefix(t, redistest.Client(t, addr))})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Load(ctx); err != nil { // the connection is up, the scripts known
		t.Fatal(err)
	}
	p.drop.Store(1)
	if err := st.ApplyCounters(ctx, "s", []runtime.CounterUpdate{{Key: fire("R")}, {Key: breaker("R")}}); err != nil {
		t.Fatal(err)
	}
	if p.dropped.Load() != 1 {
		t.Fatal("no answer was dropped")
	}
	if got := read(t, st, "s", fire("R"), breaker("R")); got[0] != 1 || got[1] != 1 {
		t.Fatalf("a retried update counted %v times", got)
	}
	p.drop.Store(1)
	if err := st.RecordNode(ctx, "s", runtime.Node{ID: "a", Kind: runtime.Message}); err != nil {
		t.Fatalf("a retried record: %v", err)
	}
	if p.dropped.Load() != 2 {
		t.Fatal("no answer was dropped")
	}
	if err := st.RecordNode(ctx, "s", runtime.Node{ID: "a", Kind: runtime.Message}); err == nil || !strings.Contains(err.Error(), "already recorded") {
		t.Fatalf("recording a again: %v", err)
	}
	// Without retries the lost answer is an error: not confirmed.
	c0 := redis.NewClient(&redis.Options{Addr: p.l.Addr().String(), ContextTimeoutEnabled: true, MaxRetries: -1})
	defer c0.Close()
	st0, _ := redisstore.New(c0, redisstore.Options{Prefix: "unused:"})
	st0.Load(ctx)
	p.drop.Store(1)
	if err := st0.ApplyCounters(ctx, "s", []runtime.CounterUpdate{{Key: fire("R")}}); err == nil || !strings.Contains(err.Error(), "not confirmed: the server may have applied them") {
		t.Fatalf("a lost answer without retries: %v", err)
	}
	redistest.DeleteKeys(c0, "unused:")
}
