package conformance

import (
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/oarc/oarc/testkit/difftest"
	"github.com/oarc/oarc/testkit/harness"
)

var (
	diffExprs   = flag.Int("diff.exprs", 1500, "expressions in the differential test")
	diffFacts   = flag.Int("diff.facts", 100, "fact sets each expression is evaluated with")
	diffSeed    = flag.Int64("diff.seed", 1, "seed of the differential test")
	diffClassic = flag.Bool("diff.classic", false, "the first generator's distribution only: none of the biased productions")
)

// report fails the test on every mismatch. They are grouped by what the
// engines said (error kinds, not messages), and the shortest expressions
// of each group are shown first, ready to reduce.
func report(t *testing.T, rep *difftest.DiffReport) {
	t.Helper()
	groups := map[string][]difftest.Mismatch{}
	var keys []string
	for _, m := range rep.Mismatches {
		k := mismatchKind(m.Reference) + " vs " + mismatchKind(m.Generated)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], m)
	}
	sort.Strings(keys)
	shown := 0
	for _, k := range keys {
		ms := groups[k]
		sort.SliceStable(ms, func(i, j int) bool { return len(ms[i].When) < len(ms[j].When) })
		t.Errorf("%d mismatches: reference %s", len(ms), k)
		for i, m := range ms {
			if i == 3 || shown == 20 {
				break
			}
			shown++
			t.Errorf("mismatch (rule %s):\n%s", m.Rule, m)
		}
	}
}

// mismatchKind is an outcome without its message: "true", "false",
// "error:kind", or the first words of a generation failure.
func mismatchKind(s string) string {
	if i := strings.Index(s, " ("); i >= 0 && strings.HasPrefix(s, "error:") {
		return s[:i]
	}
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// TestDifferential compares the generated code with the reference on
// random expressions and facts: 100,000 cases by default (fewer when the
// compiler rejects some expressions, for cost or as unsupported).
func TestDifferential(t *testing.T) {
	rep, err := difftest.Differential(difftest.DiffOptions{Seed: *diffSeed, Expressions: *diffExprs, PackSize: 250, FactSets: *diffFacts, Classic: *diffClassic})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rules (%d rejected by the compiler: %v), %d cases: %d true, %d false, %d errors, %d mismatches",
		rep.Rules, rep.Rejected, rep.RejectedBy, rep.Cases, rep.True, rep.False, rep.Errors, len(rep.Mismatches))
	var tags []string
	for t := range rep.Productions {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		t.Logf("biased production %-10s %s", tag, rep.Productions[tag])
	}
	if want := min(100_000, *diffExprs**diffFacts/2); rep.Cases < want {
		t.Errorf("only %d cases compared, want at least %d", rep.Cases, want)
	}
	if rep.True == 0 || rep.False == 0 || rep.Errors == 0 {
		t.Errorf("the generator should produce true, false and error outcomes")
	}
	report(t, rep)
}

// fuzzPack is the pack the fuzz target evaluates: fixed expressions, built
// once per process. Rules the code generator fails on are left out (and
// logged): TestDifferential fails on them.
var fuzzPack = sync.OnceValues(func() (*fuzzState, error) {
	rep := difftest.NewReport()
	packs, err := difftest.BuildDiffPacksInto(difftest.NewGen(7), 300, 300, rep)
	if err != nil {
		return nil, err
	}
	runner, err := difftest.BuildRunner(packs, rep)
	if err != nil {
		return nil, err
	}
	return &fuzzState{pack: packs[0], runner: runner, dropped: rep.Mismatches}, nil
})

type fuzzState struct {
	pack    *difftest.DiffPack
	runner  *harness.Runner
	dropped []difftest.Mismatch
}

// FuzzDifferential draws fact values from the fuzzer's input and compares
// both engines on a fixed set of generated expressions.
func FuzzDifferential(f *testing.F) {
	for _, s := range []int64{0, 1, 42, -7, 1 << 40} {
		f.Add(s)
	}
	if st, err := fuzzPack(); err == nil {
		for _, m := range st.dropped {
			f.Logf("left out, the code generator fails on it (rule %s):\n%s", m.Rule, m)
		}
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		st, err := fuzzPack()
		if err != nil {
			t.Fatal(err)
		}
		g := difftest.NewGenFrom(rand.New(rand.NewSource(seed)))
		rep := &difftest.DiffReport{}
		if err := difftest.CompareInput(st.runner, 0, st.pack, g.Input(), rep); err != nil {
			t.Fatal(err)
		}
		report(t, rep)
	})
}

var (
	provRules    = flag.Int("prov.rules", 400, "rules in the provenance differential")
	provSessions = flag.Int("prov.sessions", 600, "sessions in the provenance differential")
	provSeed     = flag.Int64("prov.seed", 1, "seed of the provenance differential")
)

// TestProvenanceDifferential compares the generated code, walking the
// runtime's graph, with the reference, walking its own, on random rules
// over the provenance facts and random sessions.
func TestProvenanceDifferential(t *testing.T) {
	rep, shapes, err := difftest.ProvenanceDifferential(difftest.ProvenanceOptions{Seed: *provSeed, Rules: *provRules, Sessions: *provSessions})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rules (%d over the cost limit), %d cases: %d true, %d false, %d errors, %d mismatches; sessions: %v",
		rep.Rules, rep.Rejected, rep.Cases, rep.True, rep.False, rep.Errors, len(rep.Mismatches), shapes)
	if rep.True == 0 || rep.False == 0 || rep.Errors == 0 {
		t.Errorf("the generator should produce true, false and error outcomes")
	}
	for _, s := range []string{"chain", "diamonds", "fan-in", "fan-out-in", "forest", "dag", "empty", "unrecorded input", "incomplete", "no inputs", "no profile"} {
		if shapes[s] == 0 {
			t.Errorf("no session of shape %q", s)
		}
	}
	report(t, rep)
}

// provPack is the pack FuzzProvenance evaluates: fixed rules, built once
// per process.
var provPack = sync.OnceValues(func() (*fuzzState, error) {
	rep := difftest.NewReport()
	p, err := difftest.ProvenancePack(difftest.NewProvGen(11), 300, rep)
	if err != nil {
		return nil, err
	}
	runner, err := difftest.BuildRunner([]*difftest.DiffPack{p}, rep)
	if err != nil {
		return nil, err
	}
	return &fuzzState{pack: p, runner: runner, dropped: rep.Mismatches}, nil
})

// fuzzSessions numbers the fuzzer's sessions: each starts afresh.
var fuzzSessions atomic.Int64

// FuzzProvenance draws sessions (graphs, inputs, steps) from the fuzzer's
// input and compares both engines on fixed provenance rules.
func FuzzProvenance(f *testing.F) {
	for _, s := range []int64{0, 1, 42, -7, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		st, err := provPack()
		if err != nil {
			t.Fatal(err)
		}
		g := difftest.NewProvGen(seed)
		rep := &difftest.DiffReport{}
		if err := difftest.CompareSession(st.runner, 0, st.pack, g.Session(fmt.Sprint("fuzz", fuzzSessions.Add(1))), rep); err != nil {
			t.Fatal(err)
		}
		report(t, rep)
	})
}
