package interp_test

import (
	"testing"

	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
)

// The reference reads a validator's answer as the generated code does: a
// detector fact with a value is supplied whether or not the validator set
// its Has bit (runtime.DetectorFacts.Supplied), so that spans a validator
// found are redacted and its score is read (codegen's
// TestValidatorFactsWithoutHas for the generated code).
func TestValidatorFactsWithoutHas(t *testing.T) {
	set := load(t, `{"oar":"1.0","id":"R","kind":"detector","detector":"s.v","anchor":"content.output","effect":"transform",`+
		`"requires":{"profiles":["content-safety"]},"when":"secret_matches.exists(m, m.score > 0.5)","transform":{"redact":["secret_matches"]}}`)
	e, err := interp.New(set)
	if err != nil {
		t.Fatal(err)
	}
	occ := &interp.Occurrence{Anchor: "content.output", Content: "héllo wörld", Validators: map[string]func() (runtime.Detection, error){
		"s.v": func() (runtime.Detection, error) {
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{SecretMatches: []map[string]any{{"start": int64(2), "end": int64(5), "score": 0.9}}}}, nil
		},
	}}
	if d := e.Evaluate(occ, interp.NewSession()); d.Effect != "transform" || d.Content != "hé[REDACTED] wörld" {
		t.Errorf("spans given without Has: %s %q, want transform %q", d.Effect, d.Content, "hé[REDACTED] wörld")
	}
}
