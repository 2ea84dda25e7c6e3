package rulestore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/rulestore/internal/storediff/baselazy"
	"github.com/oarc/oarc/runtime"
)

// A store's rules read a fact the set was not generated -lazy for from
// Facts (LiveFact), so an Env.Lazy provider of it was ignored: a store
// rule "block when session_posture == triage" read "" while the provider
// said triage, and the call went through. New checked only the facts the
// compiled rules read. With a rule store, whose rules may read any fact,
// New refuses a lazy provider of any fact the set does not read lazily
// (runtime.ErrLazyIgnored), and accepts those it does.
func TestLazyProviderIgnoredByStoreRules(t *testing.T) {
	set, ds := compiler.Load([]string{"testdata/packs/base"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{})
	if _, err := s.Add(rulestore.Draft{Rule: []byte(`{"oar":"1.0","id":"X_TRIAGE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","requires":{"profiles":["session"]},"when":"session_posture == \"triage\"","copy":{"title":"triage"}}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote("X_TRIAGE"); err != nil {
		t.Fatal(err)
	}
	env := diffEnv()
	env.Lazy.SessionPosture = func(context.Context, *lycaon.Occurrence) (string, error) { return "triage", nil }
	ev, err := base.New(env, runtime.WithRuleStore(s))
	if err == nil || !errors.Is(err, runtime.ErrLazyIgnored) {
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
		occ.Facts.Tool = "ls"
		var d runtime.Decision
		if ev != nil {
			ev.Evaluate(context.Background(), occ, nil, &d)
		}
		t.Fatalf("New = %v; want ErrLazyIgnored (the store rule read %v %s)", err, d.Effect, d.Code)
	}
	// Without a store, the set's own rules do not read it: accepted.
	if _, err := base.New(env); errors.Is(err, runtime.ErrLazyIgnored) {
		t.Errorf("without a store: %v", err)
	}
	// A fact the set reads lazily: accepted with the store.
	lenv := diffEnv()
	lenv.Lazy.PiiEntities = func(context.Context, *lycaon.Occurrence) ([]map[string]any, error) { return nil, nil }
	if _, err := baselazy.New(lenv, runtime.WithRuleStore(s)); errors.Is(err, runtime.ErrLazyIgnored) {
		t.Errorf("a lazy fact of the set: %v", err)
	}
}
