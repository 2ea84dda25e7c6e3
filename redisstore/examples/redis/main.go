// Command redis is a host of two replicas that keep their sessions in
// Redis (spec 5.9): each replica has its own client, store and evaluator
// of examples/starter's rules (examples/host/rules), as two processes
// behind a load balancer would, and the calls of one session alternate
// between them. The repeated grep is nudged twice and then blocked, as in
// one process, although no replica sees more than half of the calls.
//
//	redis-server --port 6390 --save '' --appendonly no --daemonize yes
//	go run ./examples/redis -addr 127.0.0.1:6390 -ttl 1h
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/oarc/oarc/examples/host/rules"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// config is the host's configuration, from its flags.
type config struct {
	addr    string
	ttl     time.Duration
	prefix  string
	session string
	timeout time.Duration
}

func main() {
	var cfg config
	flag.StringVar(&cfg.addr, "addr", envOr("OARC_REDIS_ADDR", "127.0.0.1:6379"), "the Redis server (host:port; default $OARC_REDIS_ADDR)")
	flag.DurationVar(&cfg.ttl, "ttl", time.Hour, "how long an idle session is kept")
	flag.StringVar(&cfg.prefix, "prefix", "oarc-example:", "the prefix of the store's keys")
	flag.StringVar(&cfg.session, "session", fmt.Sprint("demo-", time.Now().UnixNano()), "the session's id")
	flag.DurationVar(&cfg.timeout, "timeout", 200*time.Millisecond, "the deadline of one evaluation")
	flag.Parse()
	if err := run(os.Stdout, cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// replica is one replica of the host.
type replica struct {
	name  string
	store *redisstore.Store
	ev    *rules.Evaluator
}

func newReplica(name string, cfg config) (*replica, func(), error) {
	client := redis.NewClient(redisstore.ClientOptions(cfg.addr))
	store, err := redisstore.New(client, redisstore.Options{Prefix: cfg.prefix, TTL: cfg.ttl})
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	ev, err := rules.New(env())
	if err != nil {
		client.Close()
		return nil, nil, err
	}
	return &replica{name: name, store: store, ev: ev}, func() { client.Close() }, nil
}

func run(w io.Writer, cfg config) error {
	var replicas []*replica
	for _, name := range []string{"replica-a", "replica-b"} {
		r, closeFn, err := newReplica(name, cfg)
		if err != nil {
			return err
		}
		defer closeFn()
		replicas = append(replicas, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := replicas[0].store.Load(ctx); err != nil {
		return fmt.Errorf("redis at %s: %v", cfg.addr, err)
	}
	fmt.Fprintf(w, "session %s in Redis at %s (idle sessions expire after %v)\n", cfg.session, cfg.addr, cfg.ttl)
	var d runtime.Decision
	for i, c := range calls() {
		r := replicas[i%2] // the load balancer's choice
		ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
		r.ev.Evaluate(ctx, &c.occ, r.store.Session(cfg.session), &d)
		cancel()
		fmt.Fprintf(w, "%-9s %-34s -> %s", r.name, c.what, d.Effect)
		if len(d.Codes) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(d.Codes, ", "))
		}
		fmt.Fprintln(w)
		for _, e := range d.Errors {
			fmt.Fprintf(w, "          error %s: %s\n", orDash(e.Rule), e.Err.Error())
		}
	}
	// The session's counters, as any replica reads them.
	k, _ := replicas[0].ev.CounterKey("REPEATED_CALL_NUDGE", runtime.Fire)
	n := make([]int64, 1)
	if err := runtime.ReadCounters(context.Background(), replicas[1].store, cfg.session, []runtime.CounterKey{k}, n); err != nil {
		return err
	}
	fmt.Fprintf(w, "REPEATED_CALL_NUDGE.fire = %d\n", n[0])
	return replicas[0].store.Delete(context.Background(), cfg.session)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// env is the host's providers and validators (toys, as in examples/host).
func env() lycaon.Env {
	return lycaon.Env{
		Providers: lycaon.Providers{
			PathOutsideScope: func(_ context.Context, occ *lycaon.Occurrence, _ string) (bool, error) {
				p, _ := occ.Facts.ToolArgs["path"].(string)
				return !strings.HasPrefix(p, "/home/agent/project/"), nil
			},
		},
		Validators: map[string]lycaon.Validator{
			"secrets.v2": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) { return runtime.Detection{}, nil },
			"injection.v1": func(_ context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
				d := runtime.Detection{Facts: runtime.DetectorFacts{Has: runtime.HasPromptInjectionScore, PromptInjectionScore: 0.1}}
				if strings.Contains(occ.Content, "gnore previous instructions") {
					d.Hit, d.Facts.PromptInjectionScore = true, 0.95
				}
				return d, nil
			},
		},
	}
}

type call struct {
	what string
	occ  lycaon.Occurrence
}

func calls() []call {
	tool := func(what, name string, args map[string]any) call {
		c := call{what: what, occ: lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}}
		c.occ.Facts.Tool, c.occ.Facts.ToolArgs = name, args
		return c
	}
	out := []call{
		tool("read README.md", "read", map[string]any{"path": "/home/agent/project/README.md"}),
		tool("write /etc/hosts", "write", map[string]any{"path": "/etc/hosts"}),
	}
	// The same grep over and over, on whichever replica is free: the
	// session's record (in Redis, with the counters) counts the repeats,
	// whichever replica saw the calls before.
	for i := 0; i <= 7; i++ {
		out = append(out, tool(fmt.Sprintf("grep TODO (repeat %d)", i), "grep", map[string]any{"pattern": "TODO"}))
	}
	return out
}
