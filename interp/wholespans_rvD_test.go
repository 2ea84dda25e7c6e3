package interp_test

import (
	"errors"
	"testing"

	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
)

// TestFailedClosedTransformSpans: a transform rule that fires only by
// failing closed redacts the whole content when its spans are unknown
// (its validator failed, or it failed before it) and its known spans
// otherwise: the validator's once it answered, also when its when then
// panics (a provider's panic), as the generated code does
// (docs/choices-runtime.md).
func TestFailedClosedTransformSpans(t *testing.T) {
	set := load(t, `{"oar":"1.0","id":"D","kind":"detector","anchor":"content.tool_result","effect":"transform","detector":"v",`+
		`"requires":{"profiles":["content-safety","filesystem"]},"when":"path_outside_scope(\"x\")",`+
		`"transform":{"redact":["secret_matches"],"replacement":"#"}}`)
	e, err := interp.New(set)
	if err != nil {
		t.Fatal(err)
	}
	answer := func() (runtime.Detection, error) {
		return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasSecretMatches,
			SecretMatches: []map[string]any{{"start": int64(1), "end": int64(3)}}}}, nil
	}
	for _, tc := range []struct {
		name, want string
		validator  func() (runtime.Detection, error)
	}{
		{"panic after the answer", "a#defg", answer},
		{"validator failed", "#", func() (runtime.Detection, error) { return runtime.Detection{}, errors.New("down") }},
	} {
		d := e.Evaluate(&interp.Occurrence{Anchor: "content.tool_result", Content: "abcdefg",
			Facts:      map[string]any{"secret_matches": []map[string]any{{"start": int64(5), "end": int64(6)}}},
			Validators: map[string]func() (runtime.Detection, error){"v": tc.validator},
			Providers:  map[string]func([]any) (any, error){"path_outside_scope": func([]any) (any, error) { panic("boom") }}}, nil)
		if d.Effect != "transform" || len(d.FailedClosed) != 1 || d.Content != tc.want {
			t.Errorf("%s: %s %v content %q, want %q", tc.name, d.Effect, d.FailedClosed, d.Content, tc.want)
		}
	}
}
