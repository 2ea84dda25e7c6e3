package redisstore_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oarc/oarc/redisstore/harnessstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/wire"
)

// fixtureGroups are the fixtures of the session's state (counters,
// escalations and breakers, flows, provenance, deny by default, the
// record of tool calls) that run against both stores: each group is one
// harness run (paths given together form one compilation set, as `oarc
// test` has them).
var fixtureGroups = []struct {
	name  string
	paths []string
	min   int  // fixtures at least: the corpus must not silently shrink
	state bool // some rule reads counters or provenance; else the store is never touched
}{
	{"counters", []string{"../conformance/s5_eval/packs/counters"}, 8, true},
	{"flow+provenance", []string{"../conformance/s5_eval/flow.json", "../conformance/s5_eval/provenance.json"}, 20, true},
	{"deny", []string{"../conformance/s5_eval/packs/deny"}, 3, false},
	// The session facts the engine keeps (spec 5.10): the record of tool
	// calls, in the session's hash, read and applied with the counters.
	{"kept", []string{"../conformance/s5_eval/kept.json"}, 36, true},
	{"kept-blocks", []string{"../conformance/s5_eval/packs/kept_blocks"}, 1, true},
	{"kept-deny", []string{"../conformance/s5_eval/packs/kept_deny"}, 1, true},
	{"starter", []string{"../examples/starter"}, 30, true},
	{"device", []string{"../conformance/sets/device/project", "../conformance/sets/device/stock"}, 3, true},
	{"acme", []string{"../examples/acme/rules"}, 3, true},
	{"dataflow", []string{"../examples/dataflow/payments", "../examples/dataflow/project"}, 10, true},
}

// TestFixturesBothStores runs the same fixture files with the runner's
// sessions in the process and in Redis: every fixture passes in both (the
// Redis run against the reference evaluator too), and every decision of
// every step is the same in both.
func TestFixturesBothStores(t *testing.T) {
	addr := redistest.Addr(t)
	c := redistest.Client(t, addr)
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	store := &harness.StoreModule{Path: "github.com/oarc/oarc/redisstore", Dir: dir, Import: "github.com/oarc/oarc/redisstore/harnessstore", GoSum: sum}
	t.Setenv(harnessstore.EnvAddr, addr)
	for _, g := range fixtureGroups {
		t.Run(g.name, func(t *testing.T) {
			harness.RunnerStore = nil
			inProcess := harness.Run(g.paths, harness.Options{Engines: harness.Generated})
			prefix := redistest.Prefix(t, c)
			t.Setenv(harnessstore.EnvPrefix, prefix)
			harness.RunnerStore = store
			inRedis := harness.Run(g.paths, harness.Options{Engines: harness.Both})
			harness.RunnerStore = nil
			if len(inRedis) < g.min || len(inRedis) != len(inProcess) {
				t.Fatalf("%d fixtures in Redis, %d in the process, want at least %d", len(inRedis), len(inProcess), g.min)
			}
			steps := 0
			for i, r := range inRedis {
				p := inProcess[i]
				if p.Status != harness.Pass {
					t.Errorf("in the process: %s %s: %s\n%s", p.Status, p.File, p.Name, strings.Join(p.Messages, "\n"))
				}
				if r.Status != harness.Pass {
					t.Errorf("in Redis: %s %s: %s\n%s", r.Status, r.File, r.Name, strings.Join(r.Messages, "\n"))
				}
				if r.Name != p.Name || !reflect.DeepEqual(r.Got["generated"], p.Got["generated"]) {
					t.Errorf("%s %s: the stores disagree:\nin Redis:       %v\nin the process: %v", r.File, r.Name, r.Got["generated"], p.Got["generated"])
				}
				if l, ok := r.Got["generated"].([]wire.Response); ok {
					steps += len(l)
				} else {
					steps++
				}
			}
			// The sessions were in Redis: the runner wrote their keys (and
			// none when no rule reads a session's state).
			keys, err := c.Keys(t.Context(), prefix+"*").Result()
			if err != nil || (len(keys) > 0) != g.state {
				t.Errorf("%d session keys under %s: %v", len(keys), prefix, err)
			}
			t.Logf("%d fixtures, %d occurrences, %d session keys in Redis", len(inRedis), steps, len(keys))
		})
	}
}
