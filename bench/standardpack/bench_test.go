package standardpack

import (
	"context"
	"github.com/oarc/oarc/testkit/racecheck"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/bench/internal/celeval"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/runtime"
)

// engines are the three ways of evaluating the standard pack that the
// benchmark compares.
type engine struct {
	name string
	eval func(ctx context.Context, env *runtime.Env, occ *runtime.Occurrence, d *runtime.Decision)
}

func engines(t testing.TB) []engine {
	t.Helper()
	p, diags := compiler.LoadPack(filepath.Join("..", "standard-pack"), compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	ce, err := celeval.New(p)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession()
	return []engine{
		{"generated", func(ctx context.Context, env *runtime.Env, occ *runtime.Occurrence, d *runtime.Decision) {
			Evaluate(ctx, env, occ, s, d)
		}},
		{"celgo", ce.Evaluate},
		{"hand", EvaluateByHand},
	}
}

// outcome is what the three engines must agree on.
type outcome struct {
	Effect string
	Code   string
	Codes  []string
	Errors int
}

func outcomeOf(d *runtime.Decision) outcome {
	return outcome{d.Effect.String(), d.Code, append([]string{}, d.Codes...), len(d.Errors)}
}

// TestEnginesAgree checks that the generated code, cel-go and the
// hand-written function give the expected decision on every standard input,
// and that they agree on variations of the inputs that make other rules
// fire or fail.
func TestEnginesAgree(t *testing.T) {
	ins, occs, env := loadInputs(t)
	engs := engines(t)
	ctx := context.Background()
	for i, in := range ins {
		want := outcome{in.Expected.Decision, in.Expected.Code, append([]string{}, in.Expected.Codes...), in.Expected.Errors}
		for _, e := range engs {
			var d runtime.Decision
			e.eval(ctx, env, occs[i], &d)
			if diff := cmp.Diff(want, outcomeOf(&d)); diff != "" {
				t.Errorf("%s/%s (-want +got):\n%s", e.name, in.Name, diff)
			}
		}
	}
	// Variations: each makes a different rule decide.
	type variation struct {
		name   string
		base   int
		mutate func(o *runtime.Occurrence, env *runtime.Env)
	}
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'x'
	}
	vars := []variation{
		{"etc-write", 0, func(o *runtime.Occurrence, _ *runtime.Env) {
			o.Facts.Tool = "write"
			o.Facts.ToolArgs = map[string]any{"path": "/etc/passwd"}
		}},
		{"triage", 0, func(o *runtime.Occurrence, _ *runtime.Env) {
			o.Facts.Tool = "edit"
			o.Facts.SessionPosture = "spec"
			o.Facts.Lycaon.ToolIsState = true
		}},
		{"payment", 0, func(o *runtime.Occurrence, _ *runtime.Env) { o.Facts.Tool = "disburse_payment" }},
		{"payment-ok", 0, func(o *runtime.Occurrence, _ *runtime.Env) {
			o.Facts.Tool = "disburse_payment"
			o.Facts.PrincipalRoles = []string{"treasury"}
		}},
		{"spec-posture", 2, func(o *runtime.Occurrence, _ *runtime.Env) {
			o.Facts.SessionPosture = "spec"
			o.Facts.Lycaon.TurnTools = []string{"curl"}
		}},
		{"untrusted-fetch", 1, func(o *runtime.Occurrence, _ *runtime.Env) { o.Facts.ContentContainsUntrusted = true }},
		{"long-command-nudge", 0, func(o *runtime.Occurrence, _ *runtime.Env) {
			o.Facts.Tool = "bash"
			o.Facts.ToolArgs = map[string]any{"command": string(long)}
			o.Facts.Lycaon.RepeatCount = 3
		}},
		{"injection", 0, func(o *runtime.Occurrence, _ *runtime.Env) { o.Facts.PromptInjectionScore = 0.9 }},
		{"secret", 0, func(o *runtime.Occurrence, _ *runtime.Env) {
			o.Facts.SecretMatches = []map[string]any{{"score": 0.5}, {"score": 0.95}}
		}},
		{"secret-no-score", 0, func(o *runtime.Occurrence, _ *runtime.Env) {
			o.Facts.SecretMatches = []map[string]any{{"kind": "x"}}
		}},
		{"missing-validator", 0, func(_ *runtime.Occurrence, env *runtime.Env) { delete(env.Validators, "injection.v1") }},
		{"unsupplied-profile", 1, func(o *runtime.Occurrence, _ *runtime.Env) { o.Profiles = runtime.ProfileSession }},
	}
	for _, v := range vars {
		_, occs, env := loadInputs(t)
		o := occs[v.base]
		v.mutate(o, env)
		var outs []outcome
		for _, e := range engs {
			var d runtime.Decision
			e.eval(ctx, env, o, &d)
			outs = append(outs, outcomeOf(&d))
		}
		for j := 1; j < len(engs); j++ {
			if diff := cmp.Diff(outs[0], outs[j]); diff != "" {
				t.Errorf("%s: %s and %s disagree (-%s +%s):\n%s", v.name, engs[0].name, engs[j].name, engs[0].name, engs[j].name, diff)
			}
		}
		if outs[0].Effect == "allow" && v.name != "payment-ok" {
			t.Errorf("%s: nothing fired, the variation tests nothing: %+v", v.name, outs[0])
		}
	}
}

// TestHandZeroAllocs: the lower bound allocates nothing either.
func TestHandZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	ins, occs, env := loadInputs(t)
	ctx := context.Background()
	for i, in := range ins {
		var d runtime.Decision
		EvaluateByHand(ctx, env, occs[i], &d)
		if n := testing.AllocsPerRun(100, func() { EvaluateByHand(ctx, env, occs[i], &d) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation, want 0", in.Name, n)
		}
	}
}

// BenchmarkStandard evaluates the three standard inputs with the generated
// code, cel-go and the hand-written function.
func BenchmarkStandard(b *testing.B) {
	ins, occs, env := loadInputs(b)
	ctx := context.Background()
	for _, e := range engines(b) {
		b.Run(e.name, func(b *testing.B) {
			for i, in := range ins {
				b.Run(in.Name, func(b *testing.B) {
					var d runtime.Decision
					occ := occs[i]
					e.eval(ctx, env, occ, &d) // grow the decision's buffers
					b.ReportAllocs()
					for b.Loop() {
						e.eval(ctx, env, occ, &d)
					}
				})
			}
		})
	}
}
