package rulestore_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/hostargs"
	"github.com/oarc/oarc/rulestore/internal/storediff/hostargs/acme"
	"github.com/oarc/oarc/runtime"
)

// TestStoreHostFunctionOfLists: a store rule calls a host function whose
// parameters are lists and maps through the provider the host registered,
// with the arguments' Go values, as a compiled rule does (spec 12: the
// store's rules read what compiled rules read; docs/hosts.md: providers
// are typed). Before, the generated LiveProvide answered only functions of
// string, int, bool and double parameters: acme.f had "no provider" for
// every store rule, and the rule failed closed.
func TestStoreHostFunctionOfLists(t *testing.T) {
	set, ds := compiler.Load([]string{"testdata/packs/hostargs"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{Now: clock()})
	rule, _ := json.Marshal(map[string]any{"oar": "1.0", "id": "S_LISTS", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
		"when": `acme.f(acme.l, acme.m, [{"k": 1}], 2) && acme.f(["a"], {"k": [1, "b"]}, [acme.m], 3)`})
	if _, err := s.Add(rulestore.Draft{Rule: rule}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote("S_LISTS"); err != nil {
		t.Fatal(err)
	}
	var calls [][]any
	ev, err := hostargs.New(acme.Env{Providers: acme.Providers{
		AcmeF: func(_ context.Context, _ *acme.Occurrence, l []string, m map[string]any, lm []map[string]any, n int64) (bool, error) {
			calls = append(calls, []any{l, m, lm, n})
			return true, nil
		},
		AcmeG: func(context.Context, *acme.Occurrence, string) (bool, error) { return false, nil },
	}}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	occ := acme.Occurrence{Anchor: acme.ToolPreInvoke}
	occ.Facts.Acme.L = []string{"x"}
	occ.Facts.Acme.M = map[string]any{"k": int64(7)}
	var d runtime.Decision
	if err := ev.Evaluate(context.Background(), &occ, nil, &d); err != nil {
		t.Fatal(err)
	}
	if d.Effect != runtime.Block || d.Code != "S_LISTS" || len(d.Errors) != 0 || len(d.FailedClosed) != 0 {
		t.Fatalf("the store rule: %v %s codes %v failed closed %v errors %+v", d.Effect, d.Code, d.Codes, d.FailedClosed, d.Errors)
	}
	want := [][]any{
		// The compiled rule's call (acme.g then answers false).
		{[]string{"x"}, map[string]any{"k": int64(7)}, []map[string]any{{"k": int64(1)}}, int64(1)},
		// The store rule's.
		{[]string{"x"}, map[string]any{"k": int64(7)}, []map[string]any{{"k": int64(1)}}, int64(2)},
		{[]string{"a"}, map[string]any{"k": []any{int64(1), "b"}}, []map[string]any{{"k": int64(7)}}, int64(3)},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("the provider's calls:\n got %#v\nwant %#v", calls, want)
	}
}
