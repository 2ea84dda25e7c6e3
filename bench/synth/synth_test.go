package synth_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/oarc/oarc/testkit/racecheck"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/bench/synth"
	"github.com/oarc/oarc/bench/synth/n10"
	"github.com/oarc/oarc/bench/synth/n100"
	"github.com/oarc/oarc/bench/synth/n1000"
	"github.com/oarc/oarc/runtime"
)

type pack struct {
	n    int
	eval func(context.Context, *runtime.Env, *runtime.Occurrence, *runtime.Session, *runtime.Decision)
	sess func() *runtime.Session
}

var packs = []pack{
	{10, n10.Evaluate, n10.NewSession},
	{100, n100.Evaluate, n100.NewSession},
	{1000, n1000.Evaluate, n1000.NewSession},
}

// TestCommittedUpToDate regenerates the committed packages and compares.
func TestCommittedUpToDate(t *testing.T) {
	for _, p := range packs {
		if p.n >= 1000 && testing.Short() {
			continue
		}
		name := fmt.Sprintf("n%d", p.n)
		want, err := synth.Generate(p.n, name)
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
// the occurrence gets the same decision (R00009 warns), and exactly ten
// rules of the anchor select its tool.
func TestBenchmarkOccurrence(t *testing.T) {
	occ := synth.Occurrence()
	for _, p := range packs {
		var d runtime.Decision
		p.eval(context.Background(), nil, occ, p.sess(), &d)
		got := []any{d.Effect, d.Code, append([]string{}, d.Codes...), len(d.Errors)}
		want := []any{runtime.Warn, "R00009", []string{"R00009"}, 0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("n=%d (-want +got):\n%s", p.n, diff)
		}
		matching := 0
		for _, text := range synth.Rules(p.n) {
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

// TestZeroAllocs: scaling does not make evaluation allocate.
func TestZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	occ := synth.Occurrence()
	for _, p := range packs {
		var d runtime.Decision
		s := p.sess()
		p.eval(context.Background(), nil, occ, s, &d)
		if n := testing.AllocsPerRun(100, func() { p.eval(context.Background(), nil, occ, s, &d) }); n != 0 {
			t.Errorf("n=%d: %v allocations per evaluation", p.n, n)
		}
	}
}

// BenchmarkScaling evaluates the benchmark occurrence against packs of N
// rules. bench/scaling.sh adds n=10000 from a temporary module.
func BenchmarkScaling(b *testing.B) {
	occ := synth.Occurrence()
	ctx := context.Background()
	for _, p := range packs {
		b.Run(fmt.Sprintf("n=%d", p.n), func(b *testing.B) {
			var d runtime.Decision
			s := p.sess()
			p.eval(ctx, nil, occ, s, &d)
			b.ReportAllocs()
			for b.Loop() {
				p.eval(ctx, nil, occ, s, &d)
			}
		})
	}
}
