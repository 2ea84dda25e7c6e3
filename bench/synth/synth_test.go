package synth_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/bench/benchloop"
	"github.com/oarc/oarc/bench/synth"
	"github.com/oarc/oarc/bench/synth/n10"
	"github.com/oarc/oarc/bench/synth/n100"
	"github.com/oarc/oarc/bench/synth/n1000"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// evaluator is what the generated packages have in common.
type evaluator interface {
	Evaluate(context.Context, *lycaon.Occurrence, *runtime.Session, *runtime.Decision) error
}

type pack struct {
	n  int
	ev evaluator
}

func packs(t testing.TB) []pack {
	t.Helper()
	var out []pack
	for _, p := range []struct {
		n   int
		new func() (evaluator, error)
	}{
		{10, func() (evaluator, error) { return n10.New(lycaon.Env{}) }},
		{100, func() (evaluator, error) { return n100.New(lycaon.Env{}) }},
		{1000, func() (evaluator, error) { return n1000.New(lycaon.Env{}) }},
	} {
		ev, err := p.new()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pack{p.n, ev})
	}
	return out
}

// TestCommittedUpToDate regenerates the committed packages and compares.
func TestCommittedUpToDate(t *testing.T) {
	for _, n := range []int{10, 100, 1000} {
		if n >= 1000 && testing.Short() {
			continue
		}
		name := fmt.Sprintf("n%d", n)
		want, err := synth.Generate(n, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(name, "rules_oarc.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/rules_oarc.go is stale: run go generate ./bench/synth", name)
		}
	}
}

// TestBenchmarkOccurrence checks what the benchmark measures: on every pack
// the occurrence gets the same decision (R00009 warns), exactly ten rules
// of the anchor select its tool, and the fixed-cost occurrences allow.
func TestBenchmarkOccurrence(t *testing.T) {
	ctx := context.Background()
	for _, p := range packs(t) {
		s := runtime.NewSession("bench")
		var d runtime.Decision
		if err := p.ev.Evaluate(ctx, synth.Occurrence(), s, &d); err != nil {
			t.Fatal(err)
		}
		got := []any{d.Effect, d.Code, append([]string{}, d.Codes...), len(d.Errors)}
		want := []any{runtime.Warn, "R00009", []string{"R00009"}, 0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("n=%d (-want +got):\n%s", p.n, diff)
		}
		for _, occ := range []*lycaon.Occurrence{synth.NoMatchOccurrence(), synth.NoRulesOccurrence()} {
			if err := p.ev.Evaluate(ctx, occ, s, &d); err != nil || d.Effect != runtime.Allow || len(d.Codes)+len(d.Errors) != 0 {
				t.Errorf("n=%d, %s/%s: %v %v %v %v", p.n, occ.Anchor, occ.Facts.Tool, err, d.Effect, d.Codes, d.Errors)
			}
		}
		matching := 0
		for _, text := range synth.Rules(p.n) {
			if strings.Contains(text, "anchor: "+synth.NoRulesAnchor.String()+"\n") {
				t.Errorf("n=%d: a rule is at %s", p.n, synth.NoRulesAnchor)
			}
			if strings.Contains(text, "anchor: "+synth.Anchor+"\n") && strings.Contains(text, "tool: "+synth.Tool) ||
				strings.Contains(text, "anchor: "+synth.Anchor+"\n") && strings.Contains(text, "["+synth.Tool+",") {
				matching++
			}
		}
		if matching != synth.Matching {
			t.Errorf("n=%d: %d rules select %s at %s, want %d", p.n, matching, synth.Tool, synth.Anchor, synth.Matching)
		}
	}
}

// TestZeroAllocs: scaling does not make evaluation allocate, nor do the
// fixed-cost paths.
func TestZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	ctx := context.Background()
	for _, p := range packs(t) {
		for _, occ := range []*lycaon.Occurrence{synth.Occurrence(), synth.NoMatchOccurrence(), synth.NoRulesOccurrence()} {
			var d runtime.Decision
			s := runtime.NewSession("bench")
			p.ev.Evaluate(ctx, occ, s, &d)
			if n := testing.AllocsPerRun(100, func() { p.ev.Evaluate(ctx, occ, s, &d) }); n != 0 {
				t.Errorf("n=%d, %s/%s: %v allocations per evaluation", p.n, occ.Anchor, occ.Facts.Tool, n)
			}
		}
	}
}

func bench(b *testing.B, ev evaluator, occ *lycaon.Occurrence) {
	ctx := context.Background()
	var d runtime.Decision
	s := runtime.NewSession("bench")
	ev.Evaluate(ctx, occ, s, &d)
	benchloop.Loop(b, func() { ev.Evaluate(ctx, occ, s, &d) })
}

// BenchmarkScaling evaluates the benchmark occurrence against packs of N
// rules. bench/scaling.sh adds n=10000 from a temporary module.
func BenchmarkScaling(b *testing.B) {
	for _, p := range packs(b) {
		b.Run(fmt.Sprintf("n=%d", p.n), func(b *testing.B) { bench(b, p.ev, synth.Occurrence()) })
	}
}

// BenchmarkFixedCost is what an occurrence costs when no rule can fire:
// at an anchor without rules (no-rules: the generated Evaluate's default
// branch), and at the rules' anchor with a tool no rule selects
// (no-match: the anchor is entered, its tool switch finds no case).
func BenchmarkFixedCost(b *testing.B) {
	for _, p := range packs(b) {
		b.Run(fmt.Sprintf("no-rules/n=%d", p.n), func(b *testing.B) { bench(b, p.ev, synth.NoRulesOccurrence()) })
	}
	for _, p := range packs(b) {
		b.Run(fmt.Sprintf("no-match/n=%d", p.n), func(b *testing.B) { bench(b, p.ev, synth.NoMatchOccurrence()) })
	}
}
