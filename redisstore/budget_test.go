package redisstore_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// maxCPUMicros is the most CPU time of the server's main thread a test
// lets one call take: a few milliseconds (the default budget costs about
// 1-5 ms on a loaded 2-core machine; the walk it replaces took 0.3 s for
// one chain of 8,192 nodes, 2.2 s for 65,536).
const maxCPUMicros = 20000

// mainCPU returns the CPU time the server's main thread (the one that runs
// commands and scripts) used so far, in microseconds. Unlike SLOWLOG's
// wall-clock durations, it does not count the time the server waited for
// a CPU on a loaded machine.
func mainCPU(t testing.TB, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, l := range strings.Split(info, "\r\n") {
		for _, k := range []string{"used_cpu_sys_main_thread:", "used_cpu_user_main_thread:"} {
			if v, ok := strings.CutPrefix(l, k); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				total += f
			}
		}
	}
	return int64(total * 1e6)
}

// scriptMicros returns the longest script run (EVALSHA, EVAL) among the
// server's slow log entries, in microseconds of wall-clock time, and
// resets the log. The server logs every command (slowlog-log-slower-than
// 0).
func scriptMicros(t *testing.T, c *redis.Client) (longest int64, runs int) {
	t.Helper()
	logs, err := c.SlowLogGet(ctx, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		if len(l.Args) > 0 && (strings.EqualFold(l.Args[0], "evalsha") || strings.EqualFold(l.Args[0], "eval")) {
			runs++
			longest = max(longest, l.Duration.Microseconds())
		}
	}
	c.Do(ctx, "SLOWLOG", "RESET")
	return longest, runs
}

// TestHostileSessionBounded: a session of 65,536 nodes, each with a label
// of its own, so that ancestry summaries overflow early and every later
// node is stored open. Before, the scope of its newest nodes walked the
// whole graph on the server's single thread (1.26 s, and a retry after the
// client's deadline started another walk). Now every call, recording
// included, stays within the step budget: the scope is an error (kind
// store in an evaluation: the rule fails closed), never a part of the
// answer, and the server's time per call stays a few milliseconds
// (measured as the CPU time of its main thread, INFO cpu; SLOWLOG's
// wall-clock durations are logged too).
func TestHostileSessionBounded(t *testing.T) {
	srv := redistest.StartServer(t, false, "--slowlog-log-slower-than", "0", "--slowlog-max-len", "4096")
	c := redistest.Client(t, srv.Addr)
	// A host that raised the limits (the default distinct-string limit
	// refuses this session's 4,097th label): the step budget still bounds
	// each call.
	r := replicaOn(t, srv.Addr, redisstore.Options{Prefix: "p:", Limits: runtime.Limits{Nodes: 1 << 17, Strings: 1 << 17}})
	if err := r.store.Load(ctx); err != nil {
		t.Fatal(err)
	}
	const chains, each = 8, 8192
	tips := make([]string, chains)
	var wg sync.WaitGroup
	start := time.Now()
	for g := range chains {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prev := ""
			for i := range each {
				n := runtime.Node{ID: fmt.Sprintf("n%d-%d", g, i), Kind: runtime.ToolResult, Tool: "fetch", Labels: []string{fmt.Sprintf("label-%d-%d", g, i)}}
				if prev != "" {
					n.Parents = []string{prev}
				}
				if err := r.store.RecordNode(ctx, "hostile", n); err != nil {
					t.Error(err)
					return
				}
				prev = n.ID
			}
			tips[g] = prev
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	recordMax, records := scriptMicros(t, c)
	t.Logf("recorded %d nodes in %v; the last %d recordings took at most %d µs wall-clock each (SLOWLOG)", chains*each, time.Since(start).Round(time.Millisecond), records, recordMax)
	if n, _ := c.HGet(ctx, "p:{hostile}", "nodes").Int(); n != chains*each {
		t.Fatalf("%d nodes", n)
	}
	for _, inputs := range [][]string{tips[:1], tips, {"n0-100"}} {
		var sc runtime.Scope
		scriptMicros(t, c)
		before := mainCPU(t, c)
		err := r.store.Scope(ctx, "hostile", inputs, &sc)
		cpu := mainCPU(t, c) - before
		wall, runs := scriptMicros(t, c)
		t.Logf("scope of %d inputs: %d µs of the server's CPU (with an INFO), %d µs wall-clock in SLOWLOG (%d run): %v", len(inputs), cpu, wall, runs, err)
		if runs != 1 || cpu > maxCPUMicros {
			t.Errorf("a scope of the hostile session took %d µs of the server's CPU in %d runs", cpu, runs)
		}
		if len(inputs) > 1 || inputs[0] != "n0-100" {
			if err == nil || !strings.Contains(err.Error(), "needs more than the budget") || len(sc.Labels) != 0 {
				t.Errorf("a scope over the budget: %v, %d labels", err, len(sc.Labels))
			}
			continue
		}
		// A node early in a chain still has its summary: its scope is
		// answered, whole.
		want := make([]string, 101)
		for i := range want {
			want[i] = fmt.Sprintf("label-0-%d", i)
		}
		slices.Sort(want)
		if err != nil || !slices.Equal(sc.Labels, want) {
			t.Errorf("the scope of an early node: %v %v", err, sc.Labels)
		}
	}
	// A recording merges its parents' summaries within the budget too: a
	// node whose parents are the first 30 of every chain (each with a
	// summary of its own, 3,720 values in all) is stored without one, and
	// its scope is over the budget.
	var parents []string
	for g := range chains {
		for i := range 30 {
			parents = append(parents, fmt.Sprintf("n%d-%d", g, i))
		}
	}
	before := mainCPU(t, c)
	err := r.store.RecordNode(ctx, "hostile", runtime.Node{ID: "fan-in", Kind: runtime.Message, Parents: parents})
	cpu := mainCPU(t, c) - before
	t.Logf("recording a node of %d parents with summaries: %d µs of the server's CPU: %v", len(parents), cpu, err)
	if err != nil || cpu > maxCPUMicros {
		t.Errorf("a recording of %d parents: %v, %d µs of the server's CPU", len(parents), err, cpu)
	}
	if rec, _ := c.HGet(ctx, "p:{hostile}", "n:fan-in").Result(); !strings.HasPrefix(rec, "o") {
		t.Errorf("a node whose summary is over the budget is stored %.1q", rec)
	}
	if err := r.store.Scope(ctx, "hostile", []string{"fan-in"}, &runtime.Scope{}); err == nil || !strings.Contains(err.Error(), "needs more than the budget") {
		t.Errorf("the scope of the fan-in: %v", err)
	}
	// In an evaluation, the egress rule fails closed at its read.
	d := egress(r, "hostile", tips[0])
	if d.Effect != runtime.Block || len(d.Errors) != 1 || d.Errors[0].Err.Kind != runtime.ErrStore {
		t.Fatalf("an egress over the budget: %s %v", outcome(&d), d.Errors)
	}
}
