// Package benchtest is what the tests and benchmarks of the benchmark packs
// share: the engines under comparison, the outcome they must agree on, the
// agreement test over inputs and variations, the allocation assertion and
// the benchmark loop.
package benchtest

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/bench/benchloop"
	"github.com/oarc/oarc/bench/internal/benchinput"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// Engine is one way of evaluating a pack, bound to an Env.
type Engine struct {
	Name string
	Eval func(ctx context.Context, occ *lycaon.Occurrence, d *runtime.Decision) error
}

// Engines builds the engines under comparison for an Env.
type Engines func(t testing.TB, env lycaon.Env) []Engine

// Outcome is what the engines must agree on.
type Outcome struct {
	Effect       string
	Code         string
	Rule         string // d.Rule's id
	Codes        []string
	FailedClosed []string
	Firings      []string // the firings' rules, "(failed closed)" after those that failed closed
	Errors       []string // the rules of the errors
}

// OutcomeOf is the outcome of a decision.
func OutcomeOf(d *runtime.Decision) Outcome {
	o := Outcome{Effect: d.Effect.String(), Code: d.Code, Codes: slices.Clone(d.Codes), FailedClosed: slices.Clone(d.FailedClosed)}
	if d.Rule != nil {
		o.Rule = d.Rule.ID
	}
	for _, f := range d.Firings {
		id := "<nil rule>"
		if f.Rule != nil {
			id = f.Rule.ID
		}
		o.Firings = append(o.Firings, firingLabel(id, f.FailedClosed))
	}
	for _, e := range d.Errors {
		o.Errors = append(o.Errors, e.Rule)
	}
	return o
}

// firings is the Outcome's Firings of a decision with those codes, of
// which failedClosed failed closed.
func firings(codes, failedClosed []string) []string {
	var out []string
	for _, c := range codes {
		out = append(out, firingLabel(c, slices.Contains(failedClosed, c)))
	}
	return out
}

// firingLabel is a firing as an Outcome lists it.
func firingLabel(id string, failedClosed bool) string {
	if failedClosed {
		return id + " (failed closed)"
	}
	return id
}

// Variation changes a copy of an input (Base, its index) or of the Env so
// that another rule decides, or fails.
type Variation struct {
	Name   string
	Base   int
	Occ    func(o *lycaon.Occurrence)
	Env    func(env *lycaon.Env)
	Ctx    func() context.Context // nil: context.Background()
	Allows bool                   // the variation's decision is allow (nothing fired)
}

// Load loads a pack's inputs and checks there are the three standard ones.
func Load(t testing.TB, dir string) ([]benchinput.Input, []*lycaon.Occurrence, lycaon.Env) {
	t.Helper()
	ins, occs, env, err := benchinput.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 3 {
		t.Fatalf("%d inputs, want 3", len(ins))
	}
	return ins, occs, env
}

// Agree checks that every engine gives the expected decision on every input
// of the pack in dir, and that the engines agree on the variations.
func Agree(t *testing.T, dir string, engines Engines, vars []Variation) {
	ins, occs, env := Load(t, dir)
	engs := engines(t, env)
	ctx := context.Background()
	for i, in := range ins {
		for _, e := range engs {
			var d runtime.Decision
			if err := e.Eval(ctx, occs[i], &d); err != nil {
				t.Errorf("%s/%s: %v", e.Name, in.Name, err)
			}
			got := OutcomeOf(&d)
			want := Outcome{Effect: in.Expected.Decision, Code: in.Expected.Code, Rule: in.Expected.Code,
				Codes: in.Expected.Codes, FailedClosed: in.Expected.FailedClosed, Firings: firings(in.Expected.Codes, in.Expected.FailedClosed), Errors: got.Errors}
			if len(got.Errors) != in.Expected.Errors {
				t.Errorf("%s/%s: %d errors %v, want %d", e.Name, in.Name, len(got.Errors), got.Errors, in.Expected.Errors)
			}
			if diff := cmp.Diff(want, got, cmp.Comparer(sameList)); diff != "" {
				t.Errorf("%s/%s (-want +got):\n%s", e.Name, in.Name, diff)
			}
		}
	}
	for _, v := range vars {
		_, occs, env := Load(t, dir)
		o := occs[v.Base]
		if v.Occ != nil {
			v.Occ(o)
		}
		if v.Env != nil {
			v.Env(&env)
		}
		engs := engines(t, env)
		vctx := ctx
		if v.Ctx != nil {
			vctx = v.Ctx()
		}
		var outs []Outcome
		for _, e := range engs {
			var d runtime.Decision
			e.Eval(vctx, o, &d)
			outs = append(outs, OutcomeOf(&d))
		}
		for j := 1; j < len(engs); j++ {
			if diff := cmp.Diff(outs[0], outs[j], cmp.Comparer(sameList)); diff != "" {
				t.Errorf("%s: %s and %s disagree (-%s +%s):\n%s", v.Name, engs[0].Name, engs[j].Name, engs[0].Name, engs[j].Name, diff)
			}
		}
		t.Logf("%s: %+v", v.Name, outs[0])
		if fired := outs[0].Effect != "allow" || len(outs[0].Errors) > 0; fired == v.Allows {
			t.Errorf("%s: decision %+v, want allow: %v", v.Name, outs[0], v.Allows)
		}
	}
}

// sameList compares string lists, nil and empty alike.
func sameList(a, b []string) bool { return slices.Equal(a, b) }

// ZeroAllocs asserts that f allocates nothing (after one call that grows
// the decision's buffers). It skips under the race detector.
func ZeroAllocs(t *testing.T, name string, f func()) {
	t.Helper()
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	f()
	if n := testing.AllocsPerRun(200, f); n != 0 {
		t.Errorf("%s: %v allocations per evaluation, want 0", name, n)
	}
}

// Bench runs b.Run(engine, b.Run(input, ...)) over the engines and inputs.
func Bench(b *testing.B, engs []Engine, names []string, occs []*lycaon.Occurrence) {
	ctx := context.Background()
	for _, e := range engs {
		b.Run(e.Name, func(b *testing.B) {
			for i, name := range names {
				b.Run(name, func(b *testing.B) {
					var d runtime.Decision
					occ := occs[i]
					e.Eval(ctx, occ, &d) // grow the decision's buffers
					benchloop.Loop(b, func() { e.Eval(ctx, occ, &d) })
				})
			}
		})
	}
}
