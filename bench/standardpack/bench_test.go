package standardpack

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/bench/benchloop"
	"github.com/oarc/oarc/bench/internal/benchtest"
	"github.com/oarc/oarc/bench/internal/celeval"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

var packDir = filepath.Join("..", "standard-pack")

// engines are the three ways of evaluating the standard pack that the
// benchmark compares, each bound to env once.
func engines(t testing.TB, env lycaon.Env) []benchtest.Engine {
	t.Helper()
	set, diags := compiler.LoadPack(packDir, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	ce, err := celeval.New(set, env)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := New(env)
	var missing *runtime.MissingError
	if err != nil && !errors.As(err, &missing) {
		t.Fatal(err)
	}
	h, err := NewHand(env)
	if err != nil && !errors.As(err, &missing) {
		t.Fatal(err)
	}
	s := runtime.NewSession("bench")
	return []benchtest.Engine{
		{Name: "generated", Eval: func(ctx context.Context, occ *lycaon.Occurrence, d *runtime.Decision) error {
			return ev.Evaluate(ctx, occ, s, d)
		}},
		{Name: "celgo", Eval: ce.Evaluate},
		{Name: "hand", Eval: func(ctx context.Context, occ *lycaon.Occurrence, d *runtime.Decision) error {
			return h.Evaluate(ctx, occ, s, d)
		}},
	}
}

func validator(d runtime.Detection, err error) lycaon.Validator {
	return func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) { return d, err }
}

// TestEnginesAgree checks that the generated code, cel-go and the
// hand-written evaluator give the expected decision on every standard
// input, and that they agree on variations of the inputs and the Env that
// make every other rule fire or fail (missing, failing, panicking and
// answering validators; unsupplied profiles on a selector's fact, absorbed
// or not; missing map keys; anchors without rules and no anchor at all).
func TestEnginesAgree(t *testing.T) {
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'x'
	}
	all := runtime.ProfileSession | runtime.ProfileTool | runtime.ProfileContentSafety | runtime.ProfileContentProvenance
	vars := []benchtest.Variation{
		{Name: "etc-write", Occ: func(o *lycaon.Occurrence) {
			o.Facts.Tool = "write"
			o.Facts.ToolArgs = map[string]any{"path": "/etc/passwd"}
		}},
		{Name: "triage", Occ: func(o *lycaon.Occurrence) {
			o.Facts.Tool = "edit"
			o.Facts.SessionPosture = "spec"
			o.Facts.Lycaon.ToolIsState = true
		}},
		{Name: "payment", Occ: func(o *lycaon.Occurrence) { o.Facts.Tool = "disburse_payment" }},
		{Name: "payment-ok", Allows: true, Occ: func(o *lycaon.Occurrence) {
			o.Facts.Tool = "disburse_payment"
			o.Facts.PrincipalRoles = []string{"treasury"}
		}},
		{Name: "spec-posture", Base: 2, Occ: func(o *lycaon.Occurrence) {
			o.Facts.SessionPosture = "spec"
			o.Facts.Lycaon.TurnTools = []string{"curl"}
		}},
		{Name: "untrusted-fetch", Base: 1, Occ: func(o *lycaon.Occurrence) { o.Facts.ContentContainsUntrusted = true }},
		{Name: "untrusted-bash", Base: 2, Occ: func(o *lycaon.Occurrence) {
			o.Facts.ToolArgs = map[string]any{"command": "ls"}
			o.Facts.ContentContainsUntrusted = true
		}},
		{Name: "long-command-nudge", Occ: func(o *lycaon.Occurrence) {
			o.Facts.Tool = "bash"
			o.Facts.ToolArgs = map[string]any{"command": string(long)}
			o.Kept = &runtime.KeptOverride{Has: runtime.KeptRepeatCount, RepeatCount: 3}
		}},
		{Name: "injection", Occ: func(o *lycaon.Occurrence) { o.Facts.PromptInjectionScore = 0.9 }},
		{Name: "secret", Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"score": 0.5}, {"score": 0.95}}
		}},
		{Name: "secret-int", Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"score": int64(1)}}
		}},
		{Name: "secret-no-score", Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"kind": "x"}}
		}},
		{Name: "secret-string-score", Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"score": "high"}}
		}},
		{Name: "missing-validator", Env: func(env *lycaon.Env) { delete(env.Validators, "injection.v1") }},
		{Name: "failing-validator", Env: func(env *lycaon.Env) {
			env.Validators["secrets.v1"] = validator(runtime.Detection{}, errors.New("down"))
		}},
		{Name: "panicking-validator", Env: func(env *lycaon.Env) {
			env.Validators["injection.v1"] = func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) { panic("boom") }
		}},
		{Name: "validator-facts", Env: func(env *lycaon.Env) {
			env.Validators["injection.v1"] = validator(runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{
				Has: runtime.HasPromptInjectionScore, PromptInjectionScore: 0.95}}, nil)
		}},
		{Name: "validator-secret-facts", Base: 1, Env: func(env *lycaon.Env) {
			env.Validators["secrets.v1"] = validator(runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{
				Has: runtime.HasSecretMatches, SecretMatches: []map[string]any{{"score": 0.99}}}}, nil)
		}},
		{Name: "validators-miss", Allows: true, Occ: func(o *lycaon.Occurrence) { o.Facts.PromptInjectionScore = 0.9 },
			Env: func(env *lycaon.Env) {
				env.Validators["injection.v1"] = validator(runtime.Detection{}, nil)
				env.Validators["secrets.v1"] = validator(runtime.Detection{}, nil)
			}},
		{Name: "canceled", Ctx: func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
		{Name: "no-tool-profile", Base: 1, Occ: func(o *lycaon.Occurrence) { o.Profiles = runtime.ProfileSession }},
		{Name: "no-session-read", Allows: true, Occ: func(o *lycaon.Occurrence) { o.Profiles = all &^ runtime.ProfileSession }},
		{Name: "no-session-bash", Base: 2, Occ: func(o *lycaon.Occurrence) { o.Profiles = all &^ runtime.ProfileSession }},
		{Name: "no-content-safety", Occ: func(o *lycaon.Occurrence) { o.Profiles = all &^ runtime.ProfileContentSafety }},
		{Name: "no-provenance-fetch", Base: 1, Occ: func(o *lycaon.Occurrence) { o.Profiles = all &^ runtime.ProfileContentProvenance }},
		{Name: "no-profiles", Base: 2, Occ: func(o *lycaon.Occurrence) { o.Profiles = runtime.NoProfiles }},
		{Name: "anchor-without-rules", Allows: true, Occ: func(o *lycaon.Occurrence) { o.Anchor = lycaon.ToolPostInvoke }},
		{Name: "no-anchor", Occ: func(o *lycaon.Occurrence) { o.Anchor = 0 }},
	}
	benchtest.Agree(t, packDir, engines, vars)
}

// TestZeroAllocs is the promise of the runtime, and of the lower bound:
// evaluating the standard pack allocates nothing once the decision's
// buffers have grown, on every input and at an anchor without rules.
func TestZeroAllocs(t *testing.T) {
	ins, occs, env := benchtest.Load(t, packDir)
	occs = append(occs, fixedCostOccurrence())
	ctx := context.Background()
	for _, e := range engines(t, env) {
		if e.Name == "celgo" {
			continue // cel-go allocates; nothing promises otherwise
		}
		for i, occ := range occs {
			name := "fixed-cost"
			if i < len(ins) {
				name = ins[i].Name
			}
			var d runtime.Decision
			benchtest.ZeroAllocs(t, e.Name+"/"+name, func() { e.Eval(ctx, occ, &d) })
		}
	}
}

// BenchmarkStandard evaluates the three standard inputs with the generated
// code, cel-go and the hand-written evaluator.
func BenchmarkStandard(b *testing.B) {
	ins, occs, env := benchtest.Load(b, packDir)
	var names []string
	for _, in := range ins {
		names = append(names, in.Name)
	}
	benchtest.Bench(b, engines(b, env), names, occs)
}

// fixedCostOccurrence is an occurrence at an anchor that has no rules in
// the pack (tool.post_invoke): the generated Evaluate's default branch.
func fixedCostOccurrence() *lycaon.Occurrence {
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPostInvoke}
	occ.Facts.Tool = "read"
	return occ
}

// BenchmarkFixedCost is the cost of an occurrence at an anchor without
// rules.
func BenchmarkFixedCost(b *testing.B) {
	_, _, env := benchtest.Load(b, packDir)
	benchtest.Bench(b, engines(b, env), []string{"no-rules"}, []*lycaon.Occurrence{fixedCostOccurrence()})
}

// noopEval is an engine that does nothing; a package variable, so that
// calls to it are not inlined (as calls to the engines are not).
var noopEval = func(context.Context, *lycaon.Occurrence, *runtime.Decision) error { return nil }

// BenchmarkFixedCostDirect is BenchmarkFixedCost without the harness: the
// generated Evaluate called straight from b.Loop, and the loop alone (the
// harness's Loop with an empty function, its two indirect calls), so that
// what the harness itself costs can be read off.
func BenchmarkFixedCostDirect(b *testing.B) {
	_, _, env := benchtest.Load(b, packDir)
	ev, err := New(env)
	var missing *runtime.MissingError
	if err != nil && !errors.As(err, &missing) {
		b.Fatal(err)
	}
	occ := fixedCostOccurrence()
	ctx := context.Background()
	b.Run("generated", func(b *testing.B) {
		var d runtime.Decision
		b.ReportAllocs()
		for b.Loop() {
			ev.Evaluate(ctx, occ, nil, &d)
		}
		if d.Effect != runtime.Allow {
			b.Fatalf("effect %v, want allow", d.Effect)
		}
	})
	b.Run("harness", func(b *testing.B) {
		var d runtime.Decision
		benchloop.Loop(b, func() { noopEval(ctx, occ, &d) })
	})
}
