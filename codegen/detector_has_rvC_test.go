package codegen_test

import (
	"context"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// A host's own validator that finds secrets and fills SecretMatches, and
// sets Hit, but not the Has bit (docs/validators.md's span helper example
// did not set it either): the transform rule fired and rewrote nothing, so
// the secret it found went out, a silent leak. A detector fact the
// validator gives a value is supplied, Has or not; Has is needed only to
// supply an empty list or a zero score. The same holds for a score: a
// detector rule reading prompt_injection_score saw the host's 0 instead
// of the validator's 0.9 and let the injection through.
func TestValidatorFactsWithoutHas(t *testing.T) {
	env := &lycaon.Env{Validators: map[string]lycaon.Validator{
		"injection.v1": func(ctx context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{PromptInjectionScore: 0.9}}, nil
		},
		"secrets.v2": func(ctx context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{SecretMatches: []map[string]any{
				{"start": int64(2), "end": int64(5), "score": 0.9},
			}}}, nil
		},
	}}
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"direct", func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }},
		{"bound to a deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Minute)
		}},
	} {
		ctx, cancel := c.ctx()
		var d runtime.Decision
		occ := &lycaon.Occurrence{Anchor: lycaon.ContentOutput, Content: "héllo wörld"}
		stateEv(env).Evaluate(ctx, occ, nil, &d)
		if want := "hé[REDACTED] wörld"; d.Effect != runtime.Transform || d.Content != want {
			t.Errorf("%s: transform of spans given without Has: %v %q, want transform %q", c.name, d.Effect, d.Content, want)
		}
		occ = &lycaon.Occurrence{Anchor: lycaon.ContentInput}
		stateEv(env).Evaluate(ctx, occ, nil, &d)
		if d.Effect != runtime.Block || d.Code != "INJECT" {
			t.Errorf("%s: a score given without Has: %v %q, want block INJECT", c.name, d.Effect, d.Code)
		}
		cancel()
	}
}
