package redisstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/internal/replicarules"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
)

// replica is one replica of a host: its own client, store and evaluator.
type replica struct {
	store *redisstore.Store
	ev    *replicarules.Evaluator
}

func newReplica(t testing.TB, addr, prefix string) *replica {
	t.Helper()
	st, err := redisstore.New(redistest.Client(t, addr), redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	return &replica{store: st, ev: newEvaluator(t)}
}

func newEvaluator(t testing.TB) *replicarules.Evaluator {
	ev, err := replicarules.New(lycaon.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// call is an occurrence of the replicas' pack at tool.pre_invoke: in
// the tally phase or the repeat phase, always the same call (grep, no
// arguments), so that the session's record counts each as a repeat of the
// one before.
func call(phase string) lycaon.Occurrence {
	occ := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "grep"
	occ.Facts.Lycaon.Phase = phase
	return occ
}

// grepCall is call's occurrence as the record keeps it.
func grepCall(code string) runtime.Call {
	fp, _, err := runtime.ArgsFingerprint(nil, nil)
	if err != nil {
		panic(err)
	}
	return runtime.Call{Tool: "grep", Fingerprint: fp, HasFingerprint: true, Code: code}
}

// warm records three calls like call's in the session (as a fixture's
// history does), so that the next call's repeat_count is 3: the repeat
// phase's rules then fire from its first call.
func warm(t testing.TB, st runtime.Store, session string) {
	t.Helper()
	c := grepCall("")
	if err := st.Apply(context.Background(), session, &runtime.Update{Calls: []runtime.Call{c, c, c}}); err != nil {
		t.Fatal(err)
	}
}

func counter(t testing.TB, st runtime.Store, session, rule string, c runtime.Counter) int64 {
	t.Helper()
	k, ok := (*replicarules.Evaluator)(nil).CounterKey(rule, c)
	if !ok {
		t.Fatalf("no counter %s.%s", rule, c)
	}
	dst := make([]int64, 1)
	if err := runtime.ReadCounters(context.Background(), st, session, []runtime.CounterKey{k}, dst); err != nil {
		t.Fatal(err)
	}
	return dst[0]
}

// TestReplicasEscalation: calls of one session alternate between two
// replicas; the nudge-twice-then-block escalation fires exactly when it
// does in one process.
func TestReplicasEscalation(t *testing.T) {
	addr := redistest.Addr(t)
	prefix := redistest.Prefix(t, redistest.Client(t, addr))
	replicas := []*replica{newReplica(t, addr, prefix), newReplica(t, addr, prefix)}
	one := newEvaluator(t)
	inProcess := runtime.NewSession("s")
	warm(t, inProcess.Store(), "s")
	warm(t, replicas[0].store, "s")
	var got, want []string
	for i := range 30 {
		occ := call("repeat")
		r := replicas[i%2]
		var d, dp runtime.Decision
		r.ev.Evaluate(ctx, &occ, r.store.Session("s"), &d)
		one.Evaluate(ctx, &occ, inProcess, &dp)
		if len(d.Errors) > 0 {
			t.Fatalf("call %d: %v", i, d.Errors)
		}
		got = append(got, d.Effect.String()+":"+strings.Join(d.Codes, "+"))
		want = append(want, dp.Effect.String()+":"+strings.Join(dp.Codes, "+"))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("two replicas:\n%v\none process:\n%v", got, want)
	}
	if want[0] != "nudge:NUDGE_REPEAT" || want[1] != "nudge:NUDGE_REPEAT" || want[2] != "block:ESCALATE" {
		t.Fatalf("the escalation is not nudge, nudge, block: %v", want[:3])
	}
	if n := counter(t, replicas[1].store, "s", "ESCALATE", runtime.Breaker); n != 10 {
		t.Fatalf("ESCALATE.breaker = %d, want 10", n)
	}
}

// The workload of one replica in TestReplicasConcurrent, and what it saw.
const (
	goroutines = 4
	perG       = 60
)

type tally struct {
	Tally, Escalate, Nudge, Torn, Errors int
	Start, End                           int64 // unix nanoseconds
}

// drive runs the replica's share: goroutines evaluating calls of session,
// every other call a tally, the others repeated calls.
func drive(t testing.TB, r *replica, session string) tally {
	var mu sync.Mutex
	sum := tally{Start: time.Now().UnixNano()}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var d runtime.Decision
			for i := range perG {
				occ := call("repeat")
				if (g+i)%2 == 0 {
					occ = call("tally")
				}
				r.ev.Evaluate(ctx, &occ, r.store.Session(session), &d)
				mu.Lock()
				sum.Errors += len(d.Errors)
				for _, c := range d.Codes {
					switch c {
					case "TALLY":
						sum.Tally++
					case "ESCALATE":
						sum.Escalate++
					case "NUDGE_REPEAT":
						sum.Nudge++
					case "TORN":
						sum.Torn++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sum.End = time.Now().UnixNano()
	return sum
}

// TestReplicaProcess is the second replica of TestReplicasConcurrent, run
// in a process of its own; it does nothing when run on its own.
func TestReplicaProcess(t *testing.T) {
	prefix := os.Getenv("OARC_REPLICA_PREFIX")
	if prefix == "" {
		return
	}
	r := newReplica(t, redistest.Addr(t), prefix)
	fmt.Println("ready")
	// The go: a line on stdin.
	bufio.NewReader(os.Stdin).ReadString('\n')
	sum := drive(t, r, "s")
	json.NewEncoder(os.Stdout).Encode(sum)
}

// TestReplicasConcurrent: two replicas, this process and another, drive one
// session at the same time (goroutines in each). No update is lost: every
// tally and every block is counted, exactly; no snapshot ever holds half
// of an occurrence's updates (TORN would fire); nothing fails.
func TestReplicasConcurrent(t *testing.T) {
	addr := redistest.Addr(t)
	prefix := redistest.Prefix(t, redistest.Client(t, addr))
	cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "OARC_REPLICA_PREFIX="+prefix)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	local := newReplica(t, addr, prefix)
	warm(t, local.store, "s")
	out := bufio.NewReader(stdout)
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("the other replica did not start: %v\n%s", err, errOut.String())
		}
		if line == "ready\n" {
			break
		}
	}
	// Both start together.
	stdin.Write([]byte("go\n"))
	mine := drive(t, local, "s")
	var theirs tally
	rest, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the other replica: %v\n%s%s", err, rest, errOut.String())
	}
	line := string(rest)
	if i := strings.Index(line, "{"); i >= 0 {
		line = line[i:]
	}
	if err := json.NewDecoder(strings.NewReader(line)).Decode(&theirs); err != nil {
		t.Fatalf("the other replica's answer %q: %v", rest, err)
	}
	t.Logf("this replica %+v, the other %+v", mine, theirs)
	if theirs.Start > mine.End || mine.Start > theirs.End {
		t.Fatalf("the replicas did not run at the same time")
	}
	total := tally{Tally: mine.Tally + theirs.Tally, Escalate: mine.Escalate + theirs.Escalate, Nudge: mine.Nudge + theirs.Nudge, Torn: mine.Torn + theirs.Torn, Errors: mine.Errors + theirs.Errors}
	calls := 2 * goroutines * perG
	if total.Errors != 0 || total.Torn != 0 {
		t.Fatalf("errors or torn snapshots: %+v", total)
	}
	if total.Tally != calls/2 {
		t.Fatalf("%d tallies, want %d", total.Tally, calls/2)
	}
	st := local.store
	if f, b := counter(t, st, "s", "TALLY", runtime.Fire), counter(t, st, "s", "TALLY", runtime.Breaker); f != int64(calls/2) || b != int64(calls/2) {
		t.Fatalf("TALLY counters fire %d breaker %d, want %d each", f, b, calls/2)
	}
	if b := counter(t, st, "s", "ESCALATE", runtime.Breaker); b != int64(total.Escalate) || total.Escalate == 0 {
		t.Fatalf("ESCALATE.breaker %d, %d blocks", b, total.Escalate)
	}
	// Every repeated call nudged or blocked, never both, never neither:
	// both rules read NUDGE_REPEAT.fire in one snapshot (< 2, >= 2).
	if total.Nudge+total.Escalate != calls/2 {
		t.Fatalf("%d nudges and %d blocks over %d repeated calls", total.Nudge, total.Escalate, calls/2)
	}
	// The session's record lost no call either: every call was the same
	// grep, so the run of identical calls is all of them (the three of
	// warm's and the replicas'), and the blocks of grep with ESCALATE are
	// the blocks counted.
	var h runtime.History
	snap := runtime.Snapshot{History: &h, Query: runtime.HistoryQuery{Codes: []string{"ESCALATE", "TALLY"}, Tool: "grep", Names: true}}
	if err := st.Read(ctx, "s", &snap); err != nil {
		t.Fatal(err)
	}
	if n := int64(3 + calls); h.Calls != n || h.Run != n || h.LastRepeat != n-1 || len(h.Tools) != runtime.RecentLimit {
		t.Fatalf("the record after %d calls: %d calls, a run of %d (last read %d), %d names", n, h.Calls, h.Run, h.LastRepeat, len(h.Tools))
	}
	if !slices.Equal(h.Totals, []int64{int64(total.Escalate), 0}) || !slices.Equal(h.TotalsKnown, []bool{true, true}) {
		t.Fatalf("blocks of grep by code %v %v, want [%d 0]", h.Totals, h.TotalsKnown, total.Escalate)
	}
}

// TestReplicasProvenance: one replica records what the agent saw, the
// other evaluates the egress; nodes recorded concurrently by both are one
// graph.
func TestReplicasProvenance(t *testing.T) {
	addr := redistest.Addr(t)
	prefix := redistest.Prefix(t, redistest.Client(t, addr))
	a, b := newReplica(t, addr, prefix), newReplica(t, addr, prefix)
	sa, sb := a.store.Session("p"), b.store.Session("p")
	var wg sync.WaitGroup
	for i, s := range []*runtime.Session{sa, sb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				n := runtime.Node{ID: fmt.Sprintf("r%d-%d", i, j), Kind: runtime.ToolResult, Tool: "read_document", Origin: "drive", TrustTier: "trusted"}
				if i == 1 && j == 49 {
					n.Labels = []string{"confidential"}
				}
				if err := s.Record(ctx, n); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	sa.Record(ctx, runtime.Node{ID: "w", Kind: runtime.ToolResult, Tool: "http_fetch", Origin: "web", TrustTier: "untrusted"})
	var parents []string
	for i := range 2 {
		for j := range 50 {
			parents = append(parents, "r"+strconv.Itoa(i)+"-"+strconv.Itoa(j))
		}
	}
	sa.Record(ctx, runtime.Node{ID: "m1", Kind: runtime.Message, Origin: "agent", Parents: parents})
	sa.Record(ctx, runtime.Node{ID: "m2", Kind: runtime.Message, Origin: "agent", Parents: []string{"m1", "w"}})
	egress := func(inputs ...string) runtime.Decision {
		occ := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Inputs: inputs}
		occ.Facts.Tool = "http_post"
		var d runtime.Decision
		b.ev.Evaluate(ctx, &occ, sb, &d)
		return d
	}
	if d := egress("m1"); d.Effect != runtime.Allow || len(d.Errors) > 0 {
		t.Fatalf("trusted only: %v %v", d.Effect, d.Errors)
	}
	if d := egress("m2"); d.Effect != runtime.Block || d.Code != "UNTRUSTED_EGRESS" || len(d.Errors) > 0 {
		t.Fatalf("confidential and untrusted: %v %v %v", d.Effect, d.Code, d.Errors)
	}
	if !slices.Equal(egress("m2").Provenance.Tools, []string{"http_fetch", "read_document"}) {
		t.Fatalf("tools in scope")
	}
	// An input no replica recorded: a provenance error at the read, and
	// the rule fails closed.
	d := egress("m2", "nope")
	if d.Effect != runtime.Block || len(d.Errors) != 1 || d.Errors[0].Err.Kind != runtime.ErrProvenance {
		t.Fatalf("unknown input: %v %v", d.Effect, d.Errors)
	}
}
