package codegen_test

import (
	"context"
	"errors"
	"github.com/oarc/oarc/testkit/racecheck"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	basic "github.com/oarc/oarc/codegen/testdata/basic/golden"
	state "github.com/oarc/oarc/codegen/testdata/state/golden"
	"github.com/oarc/oarc/runtime"
)

type result struct {
	Effect    string
	Code      string
	Codes     []string
	Monitored []string
	Errors    int
}

func eval(p *runtime.Pack, env *runtime.Env, occ *runtime.Occurrence, s *runtime.Session) (result, *runtime.Decision) {
	var d runtime.Decision
	p.Evaluate(context.Background(), env, occ, s, &d)
	return result{d.Effect.String(), d.Code, append([]string{}, d.Codes...), append([]string{}, d.Monitored...), len(d.Errors)}, &d
}

func check(t *testing.T, name string, got, want result) {
	t.Helper()
	if want.Codes == nil {
		want.Codes = []string{}
	}
	if want.Monitored == nil {
		want.Monitored = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %+v\n want %+v", name, got, want)
	}
}

func TestBasicGolden(t *testing.T) {
	occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
	occ.Facts.Tool = "sh"
	occ.Facts.ToolArgs = map[string]any{"command": `a` + "`" + `b"cc/42`}
	got, d := eval(basic.Pack, nil, occ, nil)
	check(t, "regex with quotes", got, result{Effect: "block", Code: "QUOTES", Codes: []string{"QUOTES"}})
	if want := "Say \"hi\" `now` */ // and next line \u202e  end\nFix: Backslash \\ and percent %v\nCode: QUOTES"; d.Rejection() != want {
		t.Errorf("rejection:\n%q\nwant\n%q", d.Rejection(), want)
	}

	// The selector of ROLES needs every clause; the rule is monitored.
	// DYN_ARGS is (a && b && has(mode)) ? mode == "x" : true: with no
	// tool_args the && is false (absorbing the missing-key errors), so the
	// rule fires.
	occ = &runtime.Occurrence{Anchor: "tool.pre_invoke"}
	occ.Facts.PrincipalRoles = []string{"ops", "dev"}
	occ.Facts.Principal = "agent:x"
	occ.Facts.Lycaon.WorkersIdle = true
	occ.Facts.Lycaon.RepeatCount = 2
	got, _ = eval(basic.Pack, nil, occ, nil)
	check(t, "monitored", got, result{Effect: "nudge", Code: "DYN_ARGS", Codes: []string{"DYN_ARGS"}, Monitored: []string{"ROLES"}})

	occ.Facts.ToolArgs = map[string]any{"limit": int64(101), "items": []any{map[string]any{"size": 4.0}}, "mode": "y"}
	got, _ = eval(basic.Pack, nil, occ, nil)
	check(t, "dyn args", got, result{Effect: "allow", Monitored: []string{"ROLES"}})

	// Profiles: ROLES needs session; not supplied is an error that fails
	// closed, but the rule is monitored. PROVIDER_SCOPE needs filesystem
	// and fails open.
	occ.Profiles = runtime.ProfileTool
	got, _ = eval(basic.Pack, nil, occ, nil)
	check(t, "profile missing", got, result{Effect: "allow", Monitored: []string{"ROLES"}, Errors: 2})
}

func TestStateEscalation(t *testing.T) {
	s := state.NewSession()
	occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
	occ.Facts.Lycaon.RepeatCount = 3
	for i, want := range []result{
		{Effect: "nudge", Code: "NUDGE_REPEAT", Codes: []string{"NUDGE_REPEAT"}},
		{Effect: "nudge", Code: "NUDGE_REPEAT", Codes: []string{"NUDGE_REPEAT"}},
		{Effect: "block", Code: "BLOCK_REPEAT", Codes: []string{"BLOCK_REPEAT"}},
		{Effect: "nudge", Code: "NUDGE_REPEAT", Codes: []string{"NUDGE_REPEAT"}},
	} {
		got, _ := eval(state.Pack, nil, occ, s)
		check(t, "step", got, want)
		_ = i
	}
	slot := state.Pack.Slot("NUDGE_REPEAT")
	if f, b := s.Get(slot, runtime.Fire), s.Get(slot, runtime.Breaker); f != 1 || b != 1 {
		t.Errorf("NUDGE_REPEAT counters after reset and one more firing = %d, %d; want 1, 1", f, b)
	}
}

func TestStateFlow(t *testing.T) {
	occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
	occ.Facts.Lycaon.Phase = "build"
	for _, tc := range []struct {
		names []string
		block bool
	}{
		{[]string{"read_secret", "bash"}, true},
		{[]string{"read_secret", "read_secret", "http_fetch"}, true},
		{[]string{"read_secret", "ls", "bash"}, false},               // contiguous
		{[]string{"read_secret", "bash", "a", "b", "c", "d"}, false}, // within 5
		{[]string{"x", "read_secret", "bash", "a", "b", "c"}, true},
		{nil, false},
	} {
		occ.Facts.Lycaon.RecentToolNames = tc.names
		got, _ := eval(state.Pack, nil, occ, nil)
		if (got.Code == "EXFIL") != tc.block {
			t.Errorf("flow over %v: %+v, want block=%v", tc.names, got, tc.block)
		}
	}
}

func TestStateDetectorAndTransform(t *testing.T) {
	var calls atomic.Int32
	env := &runtime.Env{Validators: map[string]runtime.Validator{
		"injection.v1": func(ctx context.Context, occ *runtime.Occurrence) (runtime.Detection, error) {
			calls.Add(1)
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasPromptInjectionScore, PromptInjectionScore: 0.9}}, nil
		},
		"secrets.v2": func(ctx context.Context, occ *runtime.Occurrence) (runtime.Detection, error) {
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasSecretMatches, SecretMatches: []map[string]any{
				{"start": int64(2), "end": int64(5), "score": 0.9},
				{"start": int64(4), "end": int64(7), "score": 0.9},
				{"start": int64(9), "end": int64(100), "score": 0.9},
				{"start": 1.0, "end": 2.0, "score": 0.9},
			}}}, nil
		},
	}}
	occ := &runtime.Occurrence{Anchor: "content.input"}
	got, _ := eval(state.Pack, env, occ, nil)
	check(t, "detector facts replace the host's", got, result{Effect: "block", Code: "INJECT", Codes: []string{"INJECT"}})
	if calls.Load() != 1 {
		t.Errorf("validator called %d times, want 1", calls.Load())
	}
	got, _ = eval(state.Pack, &runtime.Env{}, occ, nil)
	check(t, "unregistered validator fails closed", got, result{Effect: "block", Code: "INJECT", Codes: []string{"INJECT"}, Errors: 1})

	occ = &runtime.Occurrence{Anchor: "content.output", Content: "héllo wörld ✓✓✓"}
	got, d := eval(state.Pack, env, occ, nil)
	check(t, "transform", got, result{Effect: "transform", Code: "REDACT", Codes: []string{"REDACT"}})
	if want := "hé[REDACTED]ör[REDACTED]"; d.Content != want {
		t.Errorf("content = %q, want %q", d.Content, want)
	}

	env.Validators["secrets.v2"] = func(ctx context.Context, occ *runtime.Occurrence) (runtime.Detection, error) {
		<-ctx.Done()
		return runtime.Detection{}, ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var dd runtime.Decision
	state.Evaluate(ctx, env, occ, nil, &dd)
	if len(dd.Errors) != 1 || dd.Errors[0].Err.Kind != runtime.ErrCanceled || dd.Effect != runtime.Transform {
		t.Errorf("cancelled context: %+v", dd)
	}
}

// TestValidatorPanic forces a panic through a validator: the rule fails
// closed with an error instead of crashing the host.
func TestValidatorPanic(t *testing.T) {
	env := &runtime.Env{Validators: map[string]runtime.Validator{
		"injection.v1": func(context.Context, *runtime.Occurrence) (runtime.Detection, error) {
			panic(errors.New("boom"))
		},
	}}
	got, _ := eval(state.Pack, env, &runtime.Occurrence{Anchor: "content.input"}, nil)
	check(t, "panicking validator", got, result{Effect: "block", Code: "INJECT", Codes: []string{"INJECT"}, Errors: 1})
}

// TestSessionsConcurrent shares sessions between 64 goroutines; run under
// -race. Every enforced firing adds exactly one to its fire counter.
func TestSessionsConcurrent(t *testing.T) {
	sessions := []*runtime.Session{state.NewSession(), state.NewSession()}
	const workers, iters = 64, 200
	var wg sync.WaitGroup
	var nudges [2]atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var d runtime.Decision
			occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
			occ.Facts.Lycaon.Phase = "build"
			occ.Facts.Lycaon.RecentToolNames = []string{"read_secret", "bash"}
			for i := 0; i < iters; i++ {
				state.Evaluate(context.Background(), nil, occ, sessions[w%2], &d)
				if d.Code != "EXFIL" {
					t.Errorf("got %s", d.Code)
					return
				}
				nudges[w%2].Add(1)
			}
		}(w)
	}
	wg.Wait()
	slot := state.Pack.Slot("EXFIL")
	for i, s := range sessions {
		if got := s.Get(slot, runtime.Fire); got != nudges[i].Load() || got != workers/2*iters {
			t.Errorf("session %d: EXFIL fired %d times, counted %d", i, got, nudges[i].Load())
		}
	}
}

func TestStateLooseFlow(t *testing.T) {
	for _, tc := range []struct {
		names []string
		warn  bool
	}{
		{[]string{"read_secret", "bash", "read_secret"}, true},
		{[]string{"read_secret", "x", "http_fetch", "y", "read_secret"}, true},
		{[]string{"read_secret", "read_secret", "bash"}, false},
		{[]string{"bash", "read_secret", "read_secret"}, false},
		{[]string{"read_secret", "read_secret", "bash", "read_secret"}, true},
	} {
		occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
		occ.Facts.Lycaon.RecentToolNames = tc.names
		got, _ := eval(state.Pack, nil, occ, nil)
		if (got.Code == "EXFIL_LOOSE") != tc.warn {
			t.Errorf("loose flow over %v: %+v, want warn=%v", tc.names, got, tc.warn)
		}
	}
}

// TestValidatorNotCalledWhenSelectorFails: the selector gates the
// validator, so a call of another tool costs no validator round trip.
func TestValidatorNotCalledWhenSelectorFails(t *testing.T) {
	var calls atomic.Int32
	env := &runtime.Env{Validators: map[string]runtime.Validator{
		"gated.v1": func(context.Context, *runtime.Occurrence) (runtime.Detection, error) {
			calls.Add(1)
			return runtime.Detection{Hit: true}, nil
		},
	}}
	occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
	occ.Facts.Tool = "read"
	got, _ := eval(state.Pack, env, occ, nil)
	check(t, "other tool", got, result{Effect: "allow"})
	if calls.Load() != 0 {
		t.Fatalf("validator called %d times for a tool its rule does not select", calls.Load())
	}
	occ.Facts.Tool = "bash"
	got, _ = eval(state.Pack, env, occ, nil)
	check(t, "selected tool", got, result{Effect: "warn", Code: "GATED_DETECTOR", Codes: []string{"GATED_DETECTOR"}})
	if calls.Load() != 1 {
		t.Fatalf("validator called %d times, want 1", calls.Load())
	}
}

// TestStateZeroAllocs: counters, snapshots and flows allocate nothing.
func TestStateZeroAllocs(t *testing.T) {
	if racecheck.Enabled {
		t.Skip("allocation counts mean nothing under the race detector (sync.Pool drops items)")
	}
	s := state.NewSession()
	occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
	occ.Facts.Tool = "bash"
	occ.Facts.Lycaon.Phase = "build"
	occ.Facts.Lycaon.RepeatCount = 3
	occ.Facts.Lycaon.RecentToolNames = []string{"ls", "read_secret", "cat", "bash"}
	env := &runtime.Env{Validators: map[string]runtime.Validator{
		"gated.v1": func(context.Context, *runtime.Occurrence) (runtime.Detection, error) { return runtime.Detection{}, nil },
	}}
	var d runtime.Decision
	ctx := context.Background()
	state.Evaluate(ctx, env, occ, s, &d)
	if n := testing.AllocsPerRun(500, func() { state.Evaluate(ctx, env, occ, s, &d) }); n != 0 {
		t.Errorf("%v allocations per evaluation", n)
	}
	if len(d.Codes) == 0 {
		t.Errorf("nothing fired: %+v", d)
	}
}

// TestProviderPanic forces a panic through a provider: it is recovered at
// the anchor, the rule fails closed (even though its on_error is
// fail_open), and the rules after it are still evaluated.
func TestProviderPanic(t *testing.T) {
	env := &runtime.Env{Providers: runtime.Providers{
		PathOutsideScope: func(*runtime.Facts, string) (bool, error) { panic("provider bug") },
	}}
	occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
	occ.Facts.Tool = "write"
	got, d := eval(basic.Pack, env, occ, nil)
	check(t, "provider panic", got, result{Effect: "warn", Code: "PROVIDER_SCOPE", Codes: []string{"PROVIDER_SCOPE", "DYN_ARGS"}, Errors: 1})
	if d.Errors[0].Rule != "PROVIDER_SCOPE" || d.Errors[0].Err.Kind != runtime.ErrPanic {
		t.Errorf("errors = %+v", d.Errors)
	}
	// Without a provider the same rule fails open.
	got, _ = eval(basic.Pack, nil, occ, nil)
	check(t, "no provider", got, result{Effect: "nudge", Code: "DYN_ARGS", Codes: []string{"DYN_ARGS"}, Errors: 1})
	// A provider that answers.
	env.Providers.PathOutsideScope = func(f *runtime.Facts, _ string) (bool, error) { return true, nil }
	got, _ = eval(basic.Pack, env, occ, nil)
	check(t, "provider answers", got, result{Effect: "warn", Code: "PROVIDER_SCOPE", Codes: []string{"PROVIDER_SCOPE", "DYN_ARGS"}})
}

// BenchmarkValidatorRoundTrip measures what consulting a validator costs a
// rule: the same occurrence with the detector rule's selector matching
// (validator called, answer cached for the occurrence) and not matching.
func BenchmarkValidatorRoundTrip(b *testing.B) {
	env := &runtime.Env{Validators: map[string]runtime.Validator{
		"gated.v1": func(context.Context, *runtime.Occurrence) (runtime.Detection, error) {
			return runtime.Detection{Hit: false}, nil
		},
	}}
	for _, tool := range []string{"read", "bash"} {
		b.Run("tool="+tool, func(b *testing.B) {
			occ := &runtime.Occurrence{Anchor: "tool.pre_invoke"}
			occ.Facts.Tool = tool
			var d runtime.Decision
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				state.Evaluate(ctx, env, occ, nil, &d)
			}
		})
	}
}
