package rulestore_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/askbase"
	"github.com/oarc/oarc/rulestore/internal/storediff/askfull"
	"github.com/oarc/oarc/runtime"
)

// TestStoreRuleSharesValidator: a validator is called at most once per
// occurrence, rules naming the same id sharing the answer (spec 5.5), and
// a store's rules are in the same decision as the compiled ones (spec
// 12): a store rule naming the validator of a compiled rule of its anchor
// reads the answer the compiled rule got, as the same rule compiled does,
// instead of calling the validator again (a second call costs a model
// call, and may answer otherwise).
func TestStoreRuleSharesValidator(t *testing.T) {
	set, ds := compiler.Load([]string{"testdata/packs/askbase", "testdata/packs/askmon"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{})
	if _, err := s.Add(rulestore.Draft{Rule: ruleJSON(t, filepath.Join("testdata/packs/askextra/policy/X_INJECT.yaml"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote("X_INJECT"); err != nil {
		t.Fatal(err)
	}
	// The validator says something else at each call: the first answer
	// hits both rules, a second one neither.
	calls := 0
	env := lycaon.Env{Validators: map[string]lycaon.Validator{
		"inj.v1": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) {
			calls++
			if calls%2 == 0 {
				return runtime.Detection{}, nil
			}
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasPromptInjectionScore, PromptInjectionScore: 0.9}}, nil
		},
	}}
	compiled, err := askfull.New(env)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := askbase.New(env, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ev   evaluator
	}{{"compiled", compiled}, {"store", stored}} {
		calls = 0
		occ := &lycaon.Occurrence{Anchor: lycaon.ContentOutput, Content: "hello", Profiles: runtime.ProfileContentSafety}
		var d runtime.Decision
		if err := c.ev.Evaluate(context.Background(), occ, runtime.NewSession("v"), &d); err != nil {
			t.Fatal(err)
		}
		if calls != 1 || !slices.Contains(d.Codes, "B_INJECT") || !slices.Contains(d.Codes, "X_INJECT") {
			t.Errorf("%s: %d validator calls, codes %v; want 1 call, B_INJECT and X_INJECT firing", c.name, calls, d.Codes)
		}
	}
}
