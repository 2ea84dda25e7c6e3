package redisstore_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// The words of a decision's error for the updates of a tool.pre_invoke
// occurrence that could not be applied (the replicas' set keeps the
// session's record: the call is recorded with the counters).
const (
	updatesNotApplied   = "session store: session updates (counters and the record of the call) not applied: "
	updatesNotConfirmed = "session store: session updates (counters and the record of the call) not confirmed (the store may have applied them): "
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
	warm(t, inProcess.Store(), "s")
	warm(t, replicas[0].store, "s")
	step := func(i int) (runtime.Decision, string) {
		d, _ := evaluate(replicas[i%2], "s", call("repeat"), time.Second)
		var dp runtime.Decision
		occ := call("repeat")
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
		d, took := evaluate(replicas[i%2], "s", call("repeat"), time.Second)
		rules, all := storeErrors(&d)
		// Both rules read the counter: both fail closed; their updates
		// are reported as not applied.
		if d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "NUDGE_REPEAT,ESCALATE," {
			t.Fatalf("server down, call %d: %s, errors %v", i, outcome(&d), d.Errors)
		}
		if msg := d.Errors[2].Err.Error(); !strings.HasPrefix(msg, updatesNotApplied+"redis: ") || !strings.Contains(msg, "connection refused") {
			t.Fatalf("the unapplied updates: %q", msg)
		}
		// Unreachable is not late: it fails at once.
		if took > 300*time.Millisecond {
			t.Fatalf("a call to a stopped server took %v", took)
		}
	}
	// Provenance: an error at the read, the egress rule fails closed; the
	// call could not be recorded, reported.
	occ := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Inputs: []string{"r"}}
	occ.Facts.Tool = "http_post"
	d, _ := evaluate(replicas[1], "s", occ, time.Second)
	if rules, all := storeErrors(&d); d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "UNTRUSTED_EGRESS," {
		t.Fatalf("provenance with the server down: %s %v", outcome(&d), d.Errors)
	}
	if err := replicas[0].store.Session("s").Record(ctx, runtime.Node{ID: "x", Kind: runtime.Message}); err == nil {
		t.Fatal("recording with the server down did not fail")
	}
	// The same occurrence with a tally: a counter read fails, the rules
	// reading it fail closed.
	d, _ = evaluate(replicas[0], "s", call("tally"), time.Second)
	if rules, all := storeErrors(&d); d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "TALLY,TORN," {
		t.Fatalf("tally with the server down: %s %v", outcome(&d), d.Errors)
	}

	srv.Start(t)
	// The replicas reconnect by themselves: go-redis probes the server
	// once a second after dials failed.
	start := time.Now()
	for _, r := range replicas {
		for {
			err := runtime.ReadCounters(ctx, r.store, "s", []runtime.CounterKey{fire("NUDGE_REPEAT")}, make([]int64, 1))
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
	if d, _ := evaluate(r, "s", call("tally"), time.Second); d.Effect != runtime.Nudge || len(d.Errors) > 0 {
		t.Fatalf("before: %s %v", outcome(&d), d.Errors)
	}
	srv.Pause(t)
	const deadline = 150 * time.Millisecond
	d, took := evaluate(r, "s", call("tally"), deadline)
	srv.Resume(t)
	if rules, all := storeErrors(&d); d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "TALLY,TORN," {
		t.Fatalf("late: %s %v", outcome(&d), d.Errors)
	}
	if took > deadline+300*time.Millisecond {
		t.Fatalf("a late store held the evaluation %v past a deadline of %v", took, deadline)
	}
	if d, _ := evaluate(r, "s", call("tally"), time.Second); d.Effect != runtime.Nudge || len(d.Errors) > 0 {
		t.Fatalf("after: %s %v", outcome(&d), d.Errors)
	}
	if n := counter(t, r.store, "s", "TALLY", runtime.Fire); n != 2 {
		t.Fatalf("TALLY.fire = %d, want 2 (the late occurrence's updates were not applied)", n)
	}
}

// proxy forwards connections to a server. It can drop answers (closing
// the connection), as a network that loses a reply does: the next ones
// (drop), or the answer to a request that match accepts; after a drop it
// can refuse new connections (refuse: it closes its listener, as a server
// that went down). retarget sends new connections elsewhere and closes
// the open ones, as a failover does.
type proxy struct {
	l       net.Listener
	mu      sync.Mutex
	target  string
	open    []net.Conn
	match   func(request []byte) bool
	drop    atomic.Int32
	dropped atomic.Int32
	refuse  atomic.Bool
}

func newProxy(t *testing.T, target string) *proxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, target: target}
	t.Cleanup(func() {
		l.Close()
		p.retarget("")
	})
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

func (p *proxy) retarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
	for _, c := range p.open {
		c.Close()
	}
	p.open = nil
}

func (p *proxy) handle(c net.Conn) {
	p.mu.Lock()
	target, match := p.target, p.match
	p.mu.Unlock()
	s, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.open = append(p.open, c, s)
	p.mu.Unlock()
	var armed atomic.Bool
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if match != nil && match(buf[:n]) {
					armed.Store(true)
				}
				if _, werr := s.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		s.Close()
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if armed.Load() || p.drop.Load() > 0 {
				if !armed.Load() {
					p.drop.Add(-1)
				}
				p.dropped.Add(1)
				if p.refuse.Load() {
					p.l.Close()
				}
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
// once, its calls recorded once. The same for recording a node: the retry
// is not refused as a duplicate.
func TestRetryAppliesOnce(t *testing.T) {
	addr := redistest.Addr(t)
	p := newProxy(t, addr)
	c := redis.NewClient(&redis.Options{Addr: p.l.Addr().String(), ContextTimeoutEnabled: true, PoolSize: 1})
	defer c.Close()
	prefix := redistest.Prefix(t, redistest.Client(t, addr))
	st, err := redisstore.New(c, redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Load(ctx); err != nil { // the connection is up, the scripts known
		t.Fatal(err)
	}
	p.drop.Store(1)
	if err := runtime.ApplyCounters(ctx, st, "s", []runtime.CounterUpdate{{Key: fire("R")}, {Key: breaker("R")}}); err != nil {
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
	// A client without retries of its own (ClientOptions): the store
	// retries, once, and the update counts once.
	c1 := redis.NewClient(redisstore.ClientOptions(p.l.Addr().String()))
	defer c1.Close()
	st1, err := redisstore.New(c1, redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	st1.Load(ctx)
	p.drop.Store(1)
	if err := runtime.ApplyCounters(ctx, st1, "s", []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatal(err)
	}
	if p.dropped.Load() != 3 {
		t.Fatal("no answer was dropped")
	}
	if got := read(t, st, "s", fire("R")); got[0] != 2 {
		t.Fatalf("a retried update counted %d times", got[0]-1)
	}
	// The record of calls: a retried update records its calls once (the
	// run of identical calls would say 4).
	p.drop.Store(1)
	u := runtime.Update{Calls: []runtime.Call{grepCall("X"), grepCall("X")}}
	if err := st1.Apply(ctx, "s", &u); err != nil {
		t.Fatal(err)
	}
	if p.dropped.Load() != 4 {
		t.Fatal("no answer was dropped")
	}
	var h runtime.History
	if err := st.Read(ctx, "s", &runtime.Snapshot{History: &h, Query: runtime.HistoryQuery{Codes: []string{"X"}, Tool: "grep"}}); err != nil {
		t.Fatal(err)
	}
	if h.Calls != 2 || h.Run != 2 || h.CodeRun != 2 || h.Totals[0] != 2 {
		t.Fatalf("a retried update recorded %+v", h)
	}
}

// TestLostAnswerNotConfirmed: the answer to an update is lost after the
// server applied it, and the retry cannot even connect (the server went
// down). The decision must not say the updates were not applied (a host
// that applies them again counts twice): they are not confirmed. The same
// for recording a node. When nothing was sent (the server was down from
// the start), the store knows, and says not applied.
func TestLostAnswerNotConfirmed(t *testing.T) {
	addr := redistest.Addr(t)
	direct := redistest.Client(t, addr)
	prefix := redistest.Prefix(t, direct)
	check, err := redisstore.New(direct, redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	// An update's request carries a counter field followed by its "+".
	isUpdate := func(req []byte) bool { return strings.Contains(string(req), ".fire\r\n$1\r\n+\r\n") }
	isRecord := func(req []byte) bool { return strings.Contains(string(req), "\r\nnode-x\r\n") }
	for _, tc := range []struct {
		name  string
		match func([]byte) bool
	}{{"update", isUpdate}, {"record", isRecord}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProxy(t, addr)
			p.mu.Lock() // its accept loop runs: handle reads match under the lock
			p.match = tc.match
			p.mu.Unlock()
			p.refuse.Store(true)
			r := replicaOn(t, p.l.Addr().String(), redisstore.Options{Prefix: prefix})
			if err := r.store.Load(ctx); err != nil {
				t.Fatal(err)
			}
			session := "s-" + tc.name
			if tc.name == "update" {
				d, _ := evaluate(r, session, call("tally"), time.Second)
				if p.dropped.Load() != 1 {
					t.Fatal("no answer was dropped")
				}
				if n := counter(t, check, session, "TALLY", runtime.Fire); n != 1 {
					t.Fatalf("the server applied the update %d times", n)
				}
				if len(d.Errors) != 1 || d.Errors[0].Rule != "" || d.Errors[0].Err.Kind != runtime.ErrStore ||
					!strings.HasPrefix(d.Errors[0].Err.Error(), updatesNotConfirmed+"redis: ") {
					t.Fatalf("an update whose answer was lost: %v", d.Errors)
				}
				return
			}
			err := r.store.Session(session).Record(ctx, runtime.Node{ID: "node-x", Kind: runtime.Message})
			if p.dropped.Load() != 1 {
				t.Fatal("no answer was dropped")
			}
			if err == nil || errors.Is(err, runtime.ErrNotApplied) || !strings.Contains(err.Error(), "not confirmed: the server may have recorded it") {
				t.Fatalf("a recording whose answer was lost: %v", err)
			}
			if err := check.RecordNode(ctx, session, runtime.Node{ID: "node-x", Kind: runtime.Message}); err == nil || !strings.Contains(err.Error(), "already recorded") {
				t.Fatalf("the node was not recorded: %v", err)
			}
		})
	}
	// Nothing sent: not applied.
	p := newProxy(t, addr)
	down := p.l.Addr().String()
	p.l.Close()
	r := replicaOn(t, down, redisstore.Options{Prefix: prefix})
	d, _ := evaluate(r, "s-down", call("tally"), time.Second)
	if msg := d.Errors[len(d.Errors)-1].Err.Error(); !strings.HasPrefix(msg, updatesNotApplied+"redis: ") || !strings.Contains(msg, "connection refused") {
		t.Fatalf("an update to a server that is down: %v", d.Errors)
	}
	if err := r.store.RecordNode(ctx, "s-down", runtime.Node{ID: "a", Kind: runtime.Message}); !errors.Is(err, runtime.ErrNotApplied) {
		t.Fatalf("a recording to a server that is down: %v", err)
	}
	// A client that retries on its own (go-redis's default, 3): a dial
	// error may follow an attempt that ran, so it is not confirmed.
	c3 := redis.NewClient(&redis.Options{Addr: down, ContextTimeoutEnabled: true})
	defer c3.Close()
	st3, err := redisstore.New(c3, redisstore.Options{Prefix: prefix, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.ApplyCounters(ctx, st3, "s-down", []runtime.CounterUpdate{{Key: fire("R")}}); err == nil || errors.Is(err, runtime.ErrNotApplied) {
		t.Fatalf("a client that retries by itself: %v", err)
	}
}

// TestNoDeadlineBounded: an evaluation without a deadline, against a
// server that stopped answering (paused), ends within two calls of
// Options.Timeout (DefaultTimeout, a second, bounds each call: the counter
// read, then the update of the rules failing closed); before, the client's
// own timeouts and retries held it about ten seconds.
func TestNoDeadlineBounded(t *testing.T) {
	srv := redistest.StartServer(t, false)
	r := replicaOn(t, srv.Addr, redisstore.Options{Prefix: "p:"})
	if d, _ := evaluate(r, "s", call("tally"), time.Second); d.Effect != runtime.Nudge || len(d.Errors) > 0 {
		t.Fatalf("before: %s %v", outcome(&d), d.Errors)
	}
	srv.Pause(t)
	defer srv.Resume(t)
	occ := call("tally")
	var d runtime.Decision
	start := time.Now()
	r.ev.Evaluate(context.Background(), &occ, r.store.Session("s"), &d)
	took := time.Since(start)
	t.Logf("an evaluation without a deadline, server paused: %v", took.Round(time.Millisecond))
	if rules, all := storeErrors(&d); d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "TALLY,TORN," {
		t.Fatalf("paused: %s %v", outcome(&d), d.Errors)
	}
	if took > 2*redisstore.DefaultTimeout+DefaultTimeoutSlack {
		t.Fatalf("an evaluation without a deadline took %v", took)
	}
}

// DefaultTimeoutSlack is how much longer than the timeout a test lets a
// call take (a loaded machine).
const DefaultTimeoutSlack = 700 * time.Millisecond
