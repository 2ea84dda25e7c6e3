package codegen_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	lazy "github.com/oarc/oarc/codegen/testdata/lazy/golden"
	state "github.com/oarc/oarc/codegen/testdata/state/golden"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// Issue 19 (lazy derived facts): a fact generated with -lazy is read
// through Env.Lazy when the host sets a provider, at most once per
// occurrence, only when a rule gets to it, with the context; a provider's
// error is an evaluation error of the rule that read it (its on_error
// applies); without a provider the fact is read from Facts.
func TestLazyFacts(t *testing.T) {
	calls := map[string]int{}
	posture, postureErr := "spec", error(nil)
	type ctxKey struct{}
	env := lycaon.Env{Validators: map[string]lycaon.Validator{"inj.v1": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) { return runtime.Detection{}, nil }}, Lazy: lycaon.LazyFacts{
		SessionPosture: func(ctx context.Context, _ *lycaon.Occurrence) (string, error) {
			if ctx.Value(ctxKey{}) != "host" {
				t.Errorf("the provider did not get the evaluation's context")
			}
			calls["session_posture"]++
			return posture, postureErr
		},
		ContentSources: func(context.Context, *lycaon.Occurrence) ([]string, error) {
			calls["content_sources"]++
			return []string{"web"}, nil
		},
	}}
	ev, err := lazy.New(env)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), ctxKey{}, "host")
	eval := func(tool string) *runtime.Decision {
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
		occ.Facts.Tool = tool
		occ.Facts.SessionPosture = "never read"
		var d runtime.Decision
		ev.Evaluate(ctx, occ, nil, &d)
		return &d
	}
	// bash: R1 and R2 read session_posture (R2 in its selector): one call;
	// R2 gets to content_sources: one call.
	d := eval("bash")
	if !reflect.DeepEqual(d.Codes, []string{"R1", "R2"}) || calls["session_posture"] != 1 || calls["content_sources"] != 1 {
		t.Errorf("bash: %v, calls %v", d.Codes, calls)
	}
	// ls: no rule gets to either fact: no call.
	clear(calls)
	if d := eval("ls"); len(d.Codes) != 0 || len(calls) != 0 {
		t.Errorf("ls: %v, calls %v", d.Codes, calls)
	}
	// A failing provider: R1 and R2 fail closed (one call, one error each),
	// R3 (fail_open) does not fire.
	postureErr = errors.New("down")
	clear(calls)
	d = eval("bash")
	if !reflect.DeepEqual(d.FailedClosed, []string{"R1", "R2"}) || len(d.Errors) != 2 || d.Errors[0].Err.Kind != runtime.ErrProvider || calls["session_posture"] != 1 {
		t.Errorf("failing provider: %+v, calls %v", d, calls)
	}
	d = eval("write")
	if len(d.Codes) != 0 || len(d.Errors) != 1 || d.Errors[0].Rule != "R3" {
		t.Errorf("failing provider, fail_open: %+v", d)
	}
	// No provider: the facts are read from Facts.
	plain, _ := lazy.New(lycaon.Env{})
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool, occ.Facts.SessionPosture = "write", "triage"
	var pd runtime.Decision
	plain.Evaluate(ctx, occ, nil, &pd)
	if pd.Code != "R3" {
		t.Errorf("without a provider: %+v", pd)
	}
	if !racecheck.Enabled {
		postureErr = nil
		if n := testing.AllocsPerRun(200, func() { plain.Evaluate(ctx, occ, nil, &pd) }); n != 0 {
			t.Errorf("%v allocations without a provider", n)
		}
	}
}

// Issue 19 (per-anchor read sets): Reads says, as data, what each anchor's
// rules read.
func TestReads(t *testing.T) {
	got := lazy.Reads(lycaon.ToolPreInvoke)
	want := runtime.Reads{Facts: []string{"content_sources", "session_posture", "tool"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lazy pack: %+v, want %+v", got, want)
	}
	if r := lazy.Reads(lycaon.ToolPostInvoke); !reflect.DeepEqual(r, runtime.Reads{}) {
		t.Errorf("an anchor without rules: %+v", r)
	}
	st := state.Reads(lycaon.ToolPreInvoke)
	if !st.Counters || len(st.Kept) == 0 || len(st.Validators) == 0 {
		t.Errorf("state pack at tool.pre_invoke: %+v", st)
	}
}

// Reads left out a transform's span facts when its when did not read
// them: R6 (redact pii_entities when content.contains("ssn")) read
// nothing the host fills, so a host that filled only what Reads listed
// never gave the spans and the transform redacted nothing.
func TestReadsSpanFacts(t *testing.T) {
	if r := lazy.Reads(lycaon.ContentToolResult); !reflect.DeepEqual(r.Facts, []string{"pii_entities"}) {
		t.Errorf("content.tool_result: %+v; want the facts [pii_entities]", r)
	}
}
