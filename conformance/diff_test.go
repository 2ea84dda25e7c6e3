package conformance

import (
	"flag"
	"math/rand"
	"sort"
	"sync"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/difftest"
	"github.com/oarc/oarc/testkit/harness"
)

var (
	diffExprs   = flag.Int("diff.exprs", 1500, "expressions in the differential test")
	diffFacts   = flag.Int("diff.facts", 100, "fact sets each expression is evaluated with")
	diffSeed    = flag.Int64("diff.seed", 1, "seed of the differential test")
	diffClassic = flag.Bool("diff.classic", false, "the first generator's distribution only: none of the biased productions")
)

func report(t *testing.T, rep *difftest.DiffReport) {
	t.Helper()
	shown := 0
	for _, m := range rep.Mismatches {
		if shown++; shown <= 20 {
			t.Errorf("mismatch (rule %s):\n%s", m.Rule, m)
		}
	}
	if shown > 20 {
		t.Errorf("... and %d more mismatches", shown-20)
	}
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
// once per process.
var fuzzPack = sync.OnceValues(func() (*fuzzState, error) {
	packs, _, err := difftest.BuildDiffPacks(difftest.NewGen(7), 300, 300)
	if err != nil {
		return nil, err
	}
	runner, err := harness.Build([]*ir.Pack{compiler.Build(packs[0].Pack)})
	if err != nil {
		return nil, err
	}
	return &fuzzState{pack: packs[0], runner: runner}, nil
})

type fuzzState struct {
	pack   *difftest.DiffPack
	runner *harness.Runner
}

// FuzzDifferential draws fact values from the fuzzer's input and compares
// both engines on a fixed set of generated expressions.
func FuzzDifferential(f *testing.F) {
	for _, s := range []int64{0, 1, 42, -7, 1 << 40} {
		f.Add(s)
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
