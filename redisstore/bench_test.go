package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/oarc/oarc/examples/host/rules"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// roundTrips counts the commands a client sends: each is one round trip
// (the store pipelines nothing).
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}

// serverMicros returns the microseconds the server spent in scripts
// (EVALSHA and EVAL) so far, from INFO commandstats.
func serverMicros(b *testing.B, c *redis.Client) float64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	total := 0.0
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "cmdstat_evalsha:") && !strings.HasPrefix(line, "cmdstat_eval:") {
			continue
		}
		for _, f := range strings.Split(line[strings.Index(line, ":")+1:], ",") {
			if v, ok := strings.CutPrefix(f, "usec="); ok {
				var n float64
				fmt.Sscan(v, &n)
				total += n
			}
		}
	}
	return total
}

// starterEnv is what examples/host/rules needs at the anchors measured.
func starterEnv() lycaon.Env {
	return lycaon.Env{
		Validators: map[string]lycaon.Validator{
			"injection.v1": func(_ context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
				return runtime.Detection{Hit: strings.Contains(occ.Content, "gnore previous"), Facts: runtime.DetectorFacts{Has: runtime.HasPromptInjectionScore, PromptInjectionScore: 0.1}}, nil
			},
			"secrets.v2": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) { return runtime.Detection{}, nil },
		},
		Providers: lycaon.Providers{
			PathOutsideScope: func(_ context.Context, _ *lycaon.Occurrence, p string) (bool, error) {
				return !strings.HasPrefix(p, "/home/agent/project/"), nil
			},
		},
	}
}

// benchCases are occurrences of examples/starter's rules: at an anchor
// whose rules read a counter, one that gets to the read (a repeated call,
// which the session's record counts: a read, and an update every time:
// nudge, nudge, block) and one that does not (bash calls whose arguments
// alternate: no rule gets past repeat_count, which reads the record, and
// the call is recorded); and at an anchor whose rules read none (a tool
// result). The arguments of an occurrence are args[i%2] at its i-th
// evaluation when args is set.
func benchCases() []struct {
	name string
	occ  lycaon.Occurrence
	args []map[string]any
} {
	grep := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	grep.Facts.Tool, grep.Facts.ToolArgs = "grep", map[string]any{"pattern": "TODO"}
	bash := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	bash.Facts.Tool, bash.Facts.ToolArgs = "bash", map[string]any{"command": "ls -la"}
	result := lycaon.Occurrence{Anchor: lycaon.ContentToolResult, Content: "total 0\ndrwxr-xr-x 2 agent agent 40 ."}
	return []struct {
		name string
		occ  lycaon.Occurrence
		args []map[string]any
	}{
		{"reads-counters", grep, nil},
		{"counters-not-reached", bash, []map[string]any{bash.Facts.ToolArgs, {"command": "pwd"}}},
		{"no-counter-rules", result, nil},
	}
}

// BenchmarkOccurrence: the cost of one occurrence with the session in the
// process and in Redis on loopback, and the round trips it makes
// (roundtrips/op).
func BenchmarkOccurrence(b *testing.B) {
	addr := redistest.Addr(b)
	ev, err := rules.New(starterEnv())
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range benchCases() {
		for _, where := range []string{"process", "redis"} {
			b.Run(bc.name+"/"+where, func(b *testing.B) {
				var s *runtime.Session
				var c *redis.Client
				hook := &roundTrips{}
				if where == "process" {
					s = runtime.NewSession("bench")
				} else {
					c = redistest.Client(b, addr)
					c.AddHook(hook)
					st := redistest.Store(b, c, redisstore.Options{})
					if err := st.Load(context.Background()); err != nil {
						b.Fatal(err)
					}
					s = st.Session("bench")
				}
				occ := bc.occ
				var d runtime.Decision
				ctx := context.Background()
				// Three calls before: the repeated call's repeat_count is
				// then 3 or more, as the session's record keeps it.
				for range 4 {
					ev.Evaluate(ctx, &occ, s, &d)
				}
				if len(d.Errors) > 0 {
					b.Fatal(d.Errors)
				}
				var us0 float64
				var cpu0 int64
				if c != nil {
					us0, cpu0 = serverMicros(b, c), mainCPU(b, c)
				}
				hook.n.Store(0)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if bc.args != nil {
						occ.Facts.ToolArgs = bc.args[i%2]
					}
					ev.Evaluate(ctx, &occ, s, &d)
				}
				b.StopTimer()
				if len(d.Errors) > 0 {
					b.Fatal(d.Errors)
				}
				b.ReportMetric(float64(hook.n.Load())/float64(b.N), "roundtrips/op")
				if c != nil {
					b.ReportMetric((serverMicros(b, c)-us0)/float64(b.N), "server-us/op")
					b.ReportMetric(float64(mainCPU(b, c)-cpu0)/float64(b.N), "server-cpu-us/op")
				}
			})
		}
	}
}

// BenchmarkOccurrenceParallel: occurrences that read and update counters,
// from GOMAXPROCS goroutines at once, each its own session: the
// throughput one replica gets from one server on loopback.
func BenchmarkOccurrenceParallel(b *testing.B) {
	addr := redistest.Addr(b)
	ev, err := rules.New(starterEnv())
	if err != nil {
		b.Fatal(err)
	}
	c := redistest.Client(b, addr)
	hook := &roundTrips{}
	c.AddHook(hook)
	st := redistest.Store(b, c, redisstore.Options{})
	if err := st.Load(context.Background()); err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := st.Session(fmt.Sprint("p", next.Add(1)))
		occ := benchCases()[0].occ
		var d runtime.Decision
		for pb.Next() {
			ev.Evaluate(context.Background(), &occ, s, &d)
			if len(d.Errors) > 0 {
				b.Error(d.Errors)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(hook.n.Load())/float64(b.N), "roundtrips/op")
}

// BenchmarkScope: a provenance scope (one round trip) over a session of a
// chain of n messages after a fetch of untrusted content, with summaries
// (the default) and without (the server walks the whole ancestry, here
// with a budget that lets it), and listing the nodes (provenance_nodes:
// the server walks every node's fields, the client orders them).
func BenchmarkScope(b *testing.B) {
	addr := redistest.Addr(b)
	for _, n := range []int{100, 1000} {
		for _, sb := range []int{0, -1, -2} {
			name := fmt.Sprintf("chain=%d/summaries", n)
			switch sb {
			case -1:
				name = fmt.Sprintf("chain=%d/walk", n)
			case -2:
				name = fmt.Sprintf("chain=%d/nodes", n)
				sb = 0
			}
			nodes := strings.HasSuffix(name, "/nodes")
			b.Run(name, func(b *testing.B) {
				c := redistest.Client(b, addr)
				hook := &roundTrips{}
				c.AddHook(hook)
				// The walk of 1,000 nodes is over the default budget: the
				// benchmark measures what it costs.
				st := redistest.Store(b, c, redisstore.Options{SummaryBytes: sb, ScopeBudget: 1 << 20})
				ctx := context.Background()
				st.RecordNode(ctx, "s", runtime.Node{ID: "w", Kind: runtime.ToolResult, Tool: "http_fetch", Origin: "web", TrustTier: "untrusted", Labels: []string{"pii"}})
				prev := "w"
				for i := range n {
					id := fmt.Sprint("m", i)
					if err := st.RecordNode(ctx, "s", runtime.Node{ID: id, Kind: runtime.Message, Origin: "agent", Parents: []string{prev}}); err != nil {
						b.Fatal(err)
					}
					prev = id
				}
				sc := runtime.Scope{WantNodes: nodes}
				us0 := serverMicros(b, c)
				hook.n.Store(0)
				b.ResetTimer()
				for range b.N {
					if err := st.Scope(ctx, "s", []string{prev}, &sc); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if len(sc.TrustTiers) != 1 || nodes && len(sc.Nodes) != n+1 {
					b.Fatalf("scope %+v", sc)
				}
				b.ReportMetric(float64(hook.n.Load())/float64(b.N), "roundtrips/op")
				b.ReportMetric((serverMicros(b, c)-us0-1)/float64(b.N), "server-us/op")
			})
		}
	}
}

// BenchmarkRecord: recording a node (one round trip), a message whose
// parent is the previous one.
func BenchmarkRecord(b *testing.B) {
	c := redistest.Client(b, redistest.Addr(b))
	hook := &roundTrips{}
	c.AddHook(hook)
	st := redistest.Store(b, c, redisstore.Options{Limits: runtime.Limits{Nodes: 1 << 30}})
	ctx := context.Background()
	st.RecordNode(ctx, "s", runtime.Node{ID: "m", Kind: runtime.ToolResult, Tool: "read_document", Labels: []string{"confidential"}})
	us0 := serverMicros(b, c)
	hook.n.Store(0)
	b.ResetTimer()
	prev := "m"
	for i := range b.N {
		id := fmt.Sprint("m", i)
		if err := st.RecordNode(ctx, "s", runtime.Node{ID: id, Kind: runtime.Message, Origin: "agent", Parents: []string{prev}}); err != nil {
			b.Fatal(err)
		}
		prev = id
	}
	b.StopTimer()
	b.ReportMetric(float64(hook.n.Load())/float64(b.N), "roundtrips/op")
	b.ReportMetric((serverMicros(b, c)-us0)/float64(b.N), "server-us/op")
}

// BenchmarkPing is the floor: one PING round trip on this machine.
func BenchmarkPing(b *testing.B) {
	c := redistest.Client(b, redistest.Addr(b))
	ctx := context.Background()
	c.Ping(ctx)
	b.ResetTimer()
	for range b.N {
		if err := c.Ping(ctx).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionScripts: the server's time for each script an
// occurrence runs, with the record of tool calls and without: a read of
// two counters, alone and with the record (two codes; the 64 names only
// when the query asks for them, HistoryQuery.Names); an
// update of one counter, alone and with the occurrence's call. The
// server's time is reported twice: its time in the scripts (server-us,
// wall-clock, which a loaded machine inflates) and the CPU time of its
// main thread, requests and answers included (server-cpu-us).
func BenchmarkSessionScripts(b *testing.B) {
	c := redistest.Client(b, redistest.Addr(b))
	st := redistest.Store(b, c, redisstore.Options{})
	ctx := context.Background()
	if err := st.Load(ctx); err != nil {
		b.Fatal(err)
	}
	keys := []runtime.CounterKey{{Rule: "REPEATED_CALL_NUDGE", Counter: runtime.Fire}, {Rule: "REPEATED_CALL_ESCALATE", Counter: runtime.Breaker}}
	call := runtime.Call{Tool: "grep", HasFingerprint: true}
	warm := runtime.Update{Counters: []runtime.CounterUpdate{{Key: keys[0]}, {Key: keys[1]}}}
	for range runtime.RecentLimit {
		warm.Calls = append(warm.Calls, runtime.Call{Tool: "read_file", Code: "RM_RF"})
	}
	if err := st.Apply(ctx, "s", &warm); err != nil {
		b.Fatal(err)
	}
	q := runtime.HistoryQuery{Codes: []string{"RM_RF", "OTHER"}, Tool: "read_file"}
	for _, bc := range []struct {
		name string
		op   func() error
	}{
		{"read/counters", func() error {
			return st.Read(ctx, "s", &runtime.Snapshot{Keys: keys, Counters: make([]int64, 2)})
		}},
		{"read/counters+record", func() error {
			return st.Read(ctx, "s", &runtime.Snapshot{Keys: keys, Counters: make([]int64, 2), History: new(runtime.History), Query: q})
		}},
		{"read/counters+record+names", func() error {
			qn := q
			qn.Names = true
			return st.Read(ctx, "s", &runtime.Snapshot{Keys: keys, Counters: make([]int64, 2), History: new(runtime.History), Query: qn})
		}},
		{"apply/counter", func() error {
			return st.Apply(ctx, "s", &runtime.Update{Counters: []runtime.CounterUpdate{{Key: keys[0]}}})
		}},
		{"apply/counter+call", func() error {
			return st.Apply(ctx, "s", &runtime.Update{Counters: []runtime.CounterUpdate{{Key: keys[0]}}, Calls: []runtime.Call{call}})
		}},
		{"apply/blocked-call", func() error {
			return st.Apply(ctx, "s", &runtime.Update{Calls: []runtime.Call{{Tool: "read_file", Code: "RM_RF"}}})
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			us0, cpu0 := serverMicros(b, c), mainCPU(b, c)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := bc.op(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric((serverMicros(b, c)-us0)/float64(b.N), "server-us/op")
			b.ReportMetric(float64(mainCPU(b, c)-cpu0)/float64(b.N), "server-cpu-us/op")
		})
	}
}
