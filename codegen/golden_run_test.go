package codegen_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	basic "github.com/oarc/oarc/codegen/testdata/basic/golden"
	state "github.com/oarc/oarc/codegen/testdata/state/golden"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/racecheck"
)

// evaluator is what both golden packages' Evaluators are.
type evaluator interface {
	Evaluate(context.Context, *lycaon.Occurrence, *runtime.Session, *runtime.Decision) error
	CounterKey(string, runtime.Counter) (runtime.CounterKey, bool)
}

func envOf(env *lycaon.Env) lycaon.Env {
	if env == nil {
		return lycaon.Env{}
	}
	return *env
}

func basicEv(env *lycaon.Env) evaluator { ev, _ := basic.New(envOf(env)); return ev }
func stateEv(env *lycaon.Env) evaluator { ev, _ := state.New(envOf(env)); return ev }

// counter reads a rule's counter from a session's store.
func counter(t *testing.T, ev evaluator, s *runtime.Session, rule string, c runtime.Counter) int64 {
	t.Helper()
	k, ok := ev.CounterKey(rule, c)
	if !ok {
		t.Fatalf("no rule %s", rule)
	}
	dst := []int64{0}
	if err := runtime.ReadCounters(context.Background(), s.Store(), s.ID(), []runtime.CounterKey{k}, dst); err != nil {
		t.Fatal(err)
	}
	return dst[0]
}

type result struct {
	Effect    string
	Code      string
	Codes     []string
	Monitored []string
	Errors    int
}

func eval(mk func(*lycaon.Env) evaluator, env *lycaon.Env, occ *lycaon.Occurrence, s *runtime.Session) (result, *runtime.Decision) {
	var d runtime.Decision
	mk(env).Evaluate(context.Background(), occ, s, &d)
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
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "sh"
	occ.Facts.ToolArgs = map[string]any{"command": `a` + "`" + `b"cc/42`}
	got, d := eval(basicEv, nil, occ, nil)
	check(t, "regex with quotes", got, result{Effect: "block", Code: "QUOTES", Codes: []string{"QUOTES"}})
	if want := "Say \"hi\" `now` */ // and next line \uFFFD  end\nFix: Backslash \\ and percent %v\nCode: QUOTES"; d.Rejection() != want {
		t.Errorf("rejection:\n%q\nwant\n%q", d.Rejection(), want)
	}

	// The selector of ROLES needs every clause; the rule is monitored.
	// DYN_ARGS is (a && b && has(mode)) ? mode == "x" : true: with no
	// tool_args the && is false (absorbing the missing-key errors), so the
	// rule fires.
	occ = &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.PrincipalRoles = []string{"ops", "dev"}
	occ.Facts.Principal = "agent:x"
	occ.Facts.Lycaon.WorkersIdle = true
	occ.Kept = &runtime.KeptOverride{Has: runtime.KeptRepeatCount, RepeatCount: 2}
	got, _ = eval(basicEv, nil, occ, nil)
	check(t, "monitored", got, result{Effect: "nudge", Code: "DYN_ARGS", Codes: []string{"DYN_ARGS"}, Monitored: []string{"ROLES"}})

	occ.Facts.ToolArgs = map[string]any{"limit": int64(101), "items": []any{map[string]any{"size": 4.0}}, "mode": "y"}
	got, _ = eval(basicEv, nil, occ, nil)
	check(t, "dyn args", got, result{Effect: "allow", Monitored: []string{"ROLES"}})

	// Profiles: ROLES needs session; not supplied is an error that fails
	// closed, but the rule is monitored. PROVIDER_SCOPE needs filesystem,
	// but its selector (tool: write) is false, which absorbs the missing
	// profile (spec 5.1): no error.
	occ.Profiles = runtime.ProfileTool
	got, _ = eval(basicEv, nil, occ, nil)
	check(t, "profile missing", got, result{Effect: "allow", Monitored: []string{"ROLES"}, Errors: 1})
	occ.Facts.Tool = "write"
	got, _ = eval(basicEv, nil, occ, nil)
	check(t, "profile missing, selector true", got, result{Effect: "allow", Monitored: []string{"ROLES"}, Errors: 2})
}

func TestStateEscalation(t *testing.T) {
	s := runtime.NewSession("s")
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Kept = &runtime.KeptOverride{Has: runtime.KeptRepeatCount, RepeatCount: 3}
	for i, want := range []result{
		{Effect: "nudge", Code: "NUDGE_REPEAT", Codes: []string{"NUDGE_REPEAT"}},
		{Effect: "nudge", Code: "NUDGE_REPEAT", Codes: []string{"NUDGE_REPEAT"}},
		{Effect: "block", Code: "BLOCK_REPEAT", Codes: []string{"BLOCK_REPEAT"}},
		{Effect: "nudge", Code: "NUDGE_REPEAT", Codes: []string{"NUDGE_REPEAT"}},
	} {
		got, _ := eval(stateEv, nil, occ, s)
		check(t, "step", got, want)
		_ = i
	}
	// Its fire counter is reset by BLOCK_REPEAT and counts the firing
	// after. Its breaker, which no rule reads, is not kept by the store
	// (spec 5.9), though on_fire increments it.
	ev := stateEv(nil)
	if f, b := counter(t, ev, s, "NUDGE_REPEAT", runtime.Fire), counter(t, ev, s, "NUDGE_REPEAT", runtime.Breaker); f != 1 || b != 0 {
		t.Errorf("NUDGE_REPEAT counters after reset and one more firing = %d, %d; want 1, 0", f, b)
	}
}

func TestStateFlow(t *testing.T) {
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
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
		occ.Kept = &runtime.KeptOverride{Has: runtime.KeptRecentToolNames, RecentToolNames: tc.names}
		got, _ := eval(stateEv, nil, occ, nil)
		if (got.Code == "EXFIL") != tc.block {
			t.Errorf("flow over %v: %+v, want block=%v", tc.names, got, tc.block)
		}
	}
}

func TestStateDetectorAndTransform(t *testing.T) {
	var calls atomic.Int32
	env := &lycaon.Env{Validators: map[string]lycaon.Validator{
		"injection.v1": func(ctx context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
			calls.Add(1)
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasPromptInjectionScore, PromptInjectionScore: 0.9}}, nil
		},
		"secrets.v2": func(ctx context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
			return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasSecretMatches, SecretMatches: []map[string]any{
				{"start": int64(2), "end": int64(5), "score": 0.9},
				{"start": int64(4), "end": int64(7), "score": 0.9},
				{"start": int64(9), "end": int64(100), "score": 0.9},
				{"start": 1.0, "end": 2.0, "score": 0.9},
			}}}, nil
		},
	}}
	occ := &lycaon.Occurrence{Anchor: lycaon.ContentInput}
	got, _ := eval(stateEv, env, occ, nil)
	check(t, "detector facts replace the host's", got, result{Effect: "block", Code: "INJECT", Codes: []string{"INJECT"}})
	if calls.Load() != 1 {
		t.Errorf("validator called %d times, want 1", calls.Load())
	}
	got, _ = eval(stateEv, &lycaon.Env{}, occ, nil)
	check(t, "unregistered validator fails closed", got, result{Effect: "block", Code: "INJECT", Codes: []string{"INJECT"}, Errors: 1})

	occ = &lycaon.Occurrence{Anchor: lycaon.ContentOutput, Content: "héllo wörld ✓✓✓"}
	got, d := eval(stateEv, env, occ, nil)
	check(t, "transform", got, result{Effect: "transform", Code: "REDACT", Codes: []string{"REDACT"}})
	if want := "hé[REDACTED]ör[REDACTED]"; d.Content != want {
		t.Errorf("content = %q, want %q", d.Content, want)
	}

	env.Validators["secrets.v2"] = func(ctx context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
		<-ctx.Done()
		return runtime.Detection{}, ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var dd runtime.Decision
	stateEv(env).Evaluate(ctx, occ, nil, &dd)
	if len(dd.Errors) != 1 || dd.Errors[0].Err.Kind != runtime.ErrCanceled || dd.Effect != runtime.Transform {
		t.Errorf("cancelled context: %+v", dd)
	}
}

// TestValidatorPanic forces a panic through a validator: the rule fails
// closed with an error instead of crashing the host.
func TestValidatorPanic(t *testing.T) {
	env := &lycaon.Env{Validators: map[string]lycaon.Validator{
		"injection.v1": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) {
			panic(errors.New("boom"))
		},
	}}
	got, d := eval(stateEv, env, &lycaon.Occurrence{Anchor: lycaon.ContentInput}, nil)
	check(t, "panicking validator", got, result{Effect: "block", Code: "INJECT", Codes: []string{"INJECT"}, Errors: 1})
	failedClosed(t, "panicking validator", d, "INJECT")
}

// failedClosed checks that exactly the rules ids fired only by failing
// closed (spec 5.1): a firing that failed closed must say so, or an agent
// is told it broke a rule it did not break.
func failedClosed(t *testing.T, name string, d *runtime.Decision, ids ...string) {
	t.Helper()
	if !slices.Equal(d.FailedClosed, ids) {
		t.Errorf("%s: failed_closed = %q, want %q", name, d.FailedClosed, ids)
	}
}

// TestSessionsConcurrent shares sessions between 64 goroutines; run under
// -race. Every enforced firing adds exactly one to its fire counter.
func TestSessionsConcurrent(t *testing.T) {
	sessions := []*runtime.Session{runtime.NewSession("a"), runtime.NewSession("b")}
	ev := stateEv(nil)
	const workers, iters = 64, 200
	var wg sync.WaitGroup
	var tallies [2]atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var d runtime.Decision
			occ := &lycaon.Occurrence{Anchor: lycaon.ToolPostInvoke}
			for i := 0; i < iters; i++ {
				ev.Evaluate(context.Background(), occ, sessions[w%2], &d)
				if d.Code != "TALLY" {
					t.Errorf("got %s", d.Code)
					return
				}
				tallies[w%2].Add(1)
			}
		}(w)
	}
	wg.Wait()
	for i, s := range sessions {
		if got := counter(t, ev, s, "TALLY", runtime.Fire); got != tallies[i].Load() || got != workers/2*iters {
			t.Errorf("session %d: TALLY fired %d times, counted %d", i, got, tallies[i].Load())
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
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
		occ.Kept = &runtime.KeptOverride{Has: runtime.KeptRecentToolNames, RecentToolNames: tc.names}
		got, _ := eval(stateEv, nil, occ, nil)
		if (got.Code == "EXFIL_LOOSE") != tc.warn {
			t.Errorf("loose flow over %v: %+v, want warn=%v", tc.names, got, tc.warn)
		}
	}
}

// TestValidatorNotCalledWhenSelectorFails: the selector gates the
// validator, so a call of another tool costs no validator round trip.
func TestValidatorNotCalledWhenSelectorFails(t *testing.T) {
	var calls atomic.Int32
	env := &lycaon.Env{Validators: map[string]lycaon.Validator{
		"gated.v1": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) {
			calls.Add(1)
			return runtime.Detection{Hit: true}, nil
		},
	}}
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "read"
	got, _ := eval(stateEv, env, occ, nil)
	check(t, "other tool", got, result{Effect: "allow"})
	if calls.Load() != 0 {
		t.Fatalf("validator called %d times for a tool its rule does not select", calls.Load())
	}
	occ.Facts.Tool = "bash"
	got, _ = eval(stateEv, env, occ, nil)
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
	s := runtime.NewSession("s")
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "bash"
	occ.Facts.Lycaon.Phase = "build"
	occ.Kept = &runtime.KeptOverride{Has: runtime.KeptRepeatCount | runtime.KeptRecentToolNames, RepeatCount: 3,
		RecentToolNames: []string{"ls", "read_secret", "cat", "bash"}}
	env := &lycaon.Env{Validators: map[string]lycaon.Validator{
		"gated.v1": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) { return runtime.Detection{}, nil },
	}}
	var d runtime.Decision
	ctx := context.Background()
	ev := stateEv(env)
	ev.Evaluate(ctx, occ, s, &d)
	if n := testing.AllocsPerRun(500, func() { ev.Evaluate(ctx, occ, s, &d) }); n != 0 {
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
	env := &lycaon.Env{Providers: lycaon.Providers{
		PathOutsideScope: func(context.Context, *lycaon.Occurrence, string) (bool, error) { panic("provider bug") },
	}}
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	occ.Facts.Tool = "write"
	got, d := eval(basicEv, env, occ, nil)
	check(t, "provider panic", got, result{Effect: "warn", Code: "PROVIDER_SCOPE", Codes: []string{"PROVIDER_SCOPE", "DYN_ARGS"}, Errors: 1})
	if d.Errors[0].Rule != "PROVIDER_SCOPE" || d.Errors[0].Err.Kind != runtime.ErrPanic {
		t.Errorf("errors = %+v", d.Errors)
	}
	failedClosed(t, "provider panic", d, "PROVIDER_SCOPE")
	// Without a provider the same rule fails open.
	got, d = eval(basicEv, nil, occ, nil)
	check(t, "no provider", got, result{Effect: "nudge", Code: "DYN_ARGS", Codes: []string{"DYN_ARGS"}, Errors: 1})
	failedClosed(t, "no provider", d)
	// A provider that answers.
	env.Providers.PathOutsideScope = func(context.Context, *lycaon.Occurrence, string) (bool, error) { return true, nil }
	got, d = eval(basicEv, env, occ, nil)
	check(t, "provider answers", got, result{Effect: "warn", Code: "PROVIDER_SCOPE", Codes: []string{"PROVIDER_SCOPE", "DYN_ARGS"}})
	failedClosed(t, "provider answers", d)
}

// BenchmarkValidatorRoundTrip measures what consulting a validator costs a
// rule: the same occurrence with the detector rule's selector matching
// (validator called, answer cached for the occurrence) and not matching.
func BenchmarkValidatorRoundTrip(b *testing.B) {
	env := &lycaon.Env{Validators: map[string]lycaon.Validator{
		"gated.v1": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) {
			return runtime.Detection{Hit: false}, nil
		},
	}}
	for _, tool := range []string{"read", "bash"} {
		b.Run("tool="+tool, func(b *testing.B) {
			occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
			occ.Facts.Tool = tool
			var d runtime.Decision
			ctx := context.Background()
			ev := stateEv(env)
			b.ReportAllocs()
			for b.Loop() {
				ev.Evaluate(ctx, occ, nil, &d)
			}
		})
	}
}
