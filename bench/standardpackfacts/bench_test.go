package standardpackfacts

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/oarc/oarc/bench/internal/benchtest"
	"github.com/oarc/oarc/bench/internal/celeval"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

var packDir = filepath.Join("..", "standard-pack-facts")

// engines are the three ways of evaluating the pack that the benchmark
// compares, each bound to env once.
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
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHand(env)
	if err != nil {
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

// TestEnginesAgree checks that the generated code, cel-go and the
// hand-written evaluator give the expected decision on every input, and
// that they agree on variations that make every other rule fire or fail.
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
		{Name: "payment-injection", Occ: func(o *lycaon.Occurrence) {
			o.Facts.Tool = "disburse_payment"
			o.Facts.PromptInjectionScore = 0.9
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
		{Name: "injection-before-rm", Base: 2, Occ: func(o *lycaon.Occurrence) { o.Facts.PromptInjectionScore = 0.9 }},
		{Name: "injection-edit", Occ: func(o *lycaon.Occurrence) {
			o.Facts.Tool = "edit"
			o.Facts.PromptInjectionScore = 0.9
		}},
		{Name: "secret", Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"score": 0.5}, {"score": 0.95}}
		}},
		{Name: "secret-fetch", Base: 1, Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"score": 0.95}}
		}},
		{Name: "secret-int", Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"score": int64(1)}}
		}},
		{Name: "secret-no-score", Occ: func(o *lycaon.Occurrence) {
			o.Facts.SecretMatches = []map[string]any{{"kind": "x"}}
		}},
		{Name: "secret-string-score", Base: 2, Occ: func(o *lycaon.Occurrence) {
			o.Facts.ToolArgs = map[string]any{"command": "ls"}
			o.Facts.SecretMatches = []map[string]any{{"score": "high"}}
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

// TestZeroAllocs: the generated code and the lower bound allocate nothing
// on every input once the decision's buffers have grown.
func TestZeroAllocs(t *testing.T) {
	ins, occs, env := benchtest.Load(t, packDir)
	ctx := context.Background()
	for _, e := range engines(t, env) {
		if e.Name == "celgo" {
			continue // cel-go allocates; nothing promises otherwise
		}
		for i, occ := range occs {
			var d runtime.Decision
			benchtest.ZeroAllocs(t, e.Name+"/"+ins[i].Name, func() { e.Eval(ctx, occ, &d) })
		}
	}
}

// BenchmarkFacts evaluates the three inputs with the generated code,
// cel-go and the hand-written evaluator.
func BenchmarkFacts(b *testing.B) {
	ins, occs, env := benchtest.Load(b, packDir)
	var names []string
	for _, in := range ins {
		names = append(names, in.Name)
	}
	benchtest.Bench(b, engines(b, env), names, occs)
}
