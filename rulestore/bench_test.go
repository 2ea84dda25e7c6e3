package rulestore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/oarc/oarc/bench/benchloop"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// benchStore is a store of n active rules at tool.pre_invoke, each
// reading the call's command as a learned rule does, none of which fires
// on the benchmark's call (every rule is evaluated).
func benchStore(b *testing.B, n int) *rulestore.Store {
	s, err := rulestore.New("bench", nil, discard{}, baseSet(b), rulestore.Options{Cap: 100})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		doc := fmt.Sprintf(`{"oar":"1.0","id":"LEARNED_%d","kind":"policy","anchor":"tool.pre_invoke","effect":"block","requires":{"profiles":["tool"]},"when":"tool == \"bash\" && tool_arg_string(\"command\").contains(\"never-%d\")","copy":{"title":"Learned %d"}}`, i, i, i)
		if _, err := s.Add(rulestore.Draft{Rule: []byte(doc)}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Promote(fmt.Sprintf("LEARNED_%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkStoreRules is the cost of 0 (no store), 1, 10 and 50 store
// rules per occurrence, on top of the compiled rules of the anchor
// (BENCHMARKS.md).
func BenchmarkStoreRules(b *testing.B) {
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: "bash", ToolArgs: map[string]any{"command": "ls -la /tmp/project"}}}
	for _, n := range []int{0, 1, 10, 50} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			var opts []runtime.Option
			if n > 0 {
				opts = append(opts, runtime.WithRuleStore(benchStore(b, n)))
			}
			ev, err := base.New(lycaon.Env{}, opts...)
			if err != nil {
				b.Fatal(err)
			}
			s := runtime.NewSession("bench")
			var d runtime.Decision
			ctx := context.Background()
			benchloop.Loop(b, func() { ev.Evaluate(ctx, occ, s, &d) })
			if d.Effect != runtime.Nudge {
				b.Fatalf("decision %v %v", d.Effect, d.Codes)
			}
		})
	}
}
