package interp_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
)

func load(t *testing.T, doc string) *compiler.Set {
	t.Helper()
	set, ds := compiler.LoadRuleDoc("r.json", []byte(doc), "", compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	return set
}

// TestConcurrentEvaluations: one Engine serves concurrent evaluations
// (the catalog's functions are bound per evaluation, not to the engine),
// each with the answers of its own occurrence and session.
func TestConcurrentEvaluations(t *testing.T) {
	set := load(t, `{"oar":"1.0","id":"C","kind":"policy","anchor":"tool.pre_invoke","effect":"block","requires":{"profiles":["tool","filesystem"]},`+
		`"when":"tool_arg_int(\"n\") == fire_count_of(\"C\") && path_outside_scope(tool)"}`)
	e, err := interp.New(set)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := interp.NewSession()
			tool := fmt.Sprintf("t%d", g)
			for i := range 50 {
				s.SetCounters("C", int64(i), 0)
				occ := &interp.Occurrence{Anchor: "tool.pre_invoke", Facts: map[string]any{"tool": tool, "tool_args": map[string]any{"n": int64(i)}},
					Providers: map[string]func([]any) (any, error){"path_outside_scope": func(args []any) (any, error) { return args[0] == tool, nil }}}
				if d := e.Evaluate(occ, s); d.Effect != "block" || len(d.Errors) != 0 {
					t.Errorf("goroutine %d step %d: %+v", g, i, d)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestProviderPanic: a provider that panics ends the rule's evaluation
// with a panic error, which no operator absorbs (spec 6), and the rule
// fails closed whatever its on_error.
func TestProviderPanic(t *testing.T) {
	set := load(t, `{"oar":"1.0","id":"P","kind":"policy","anchor":"tool.pre_invoke","effect":"block","on_error":"fail_open","requires":{"profiles":["filesystem"]},`+
		`"when":"true || path_outside_scope(\"x\")"}`)
	set2 := load(t, `{"oar":"1.0","id":"P","kind":"policy","anchor":"tool.pre_invoke","effect":"block","on_error":"fail_open","requires":{"profiles":["filesystem"]},`+
		`"when":"path_outside_scope(\"x\") || true"}`)
	for _, st := range []*compiler.Set{set, set2} {
		e, err := interp.New(st)
		if err != nil {
			t.Fatal(err)
		}
		d := e.Evaluate(&interp.Occurrence{Anchor: "tool.pre_invoke",
			Providers: map[string]func([]any) (any, error){"path_outside_scope": func([]any) (any, error) { panic("boom") }}}, nil)
		if st == set {
			// Never called: true || ... does not reach it.
			if d.Effect != "block" || len(d.Errors) != 0 {
				t.Errorf("short-circuit: %+v", d)
			}
			continue
		}
		if d.Effect != "block" || len(d.Errors) != 1 || d.Errors[0].Kind != runtime.ErrPanic || !cmp.Equal(d.FailedClosed, []string{"P"}) {
			t.Errorf("panic: %+v", d)
		}
	}
}
