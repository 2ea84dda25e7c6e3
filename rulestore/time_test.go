package rulestore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// timeStore is a store over the base set with time rules (spec 5.13)
// active: a block on a fourth call within a minute, and a block by the
// hour of a zone the call's arguments name.
func timeStore(t *testing.T) *rulestore.Store {
	t.Helper()
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, d := range []rulestore.Draft{
		{Rule: doc("T_BURST", `calls_within(60) >= 4`)},
		{Rule: doc("T_EDIT_BURST", `tool_calls_within("edit", tool_args.window) >= 2`)},
		{Rule: doc("T_NIGHT", `local_hour(tool_args.zone) >= 22 || local_weekday(tool_args.zone) == 0`)},
	} {
		a, err := s.Add(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Promote(a.Record.ID); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// errsOf lists a decision's errors as rule/kind: message.
func errsOf(d *runtime.Decision) []string {
	var out []string
	for _, e := range d.Errors {
		out = append(out, fmt.Sprintf("%s/%s: %s", e.Rule, e.Err.Kind, e.Err.Error()))
	}
	return out
}

// TestStoreTimeFunctions evaluates store rules that call the time
// functions: they read the occurrence's time and the session's calls
// (the current one counted), and fail with the compiled rules' errors.
func TestStoreTimeFunctions(t *testing.T) {
	ev, err := base.New(diffEnv(), runtime.WithRuleStore(timeStore(t)))
	if err != nil {
		t.Fatal(err)
	}
	s := runtime.NewSession("s")
	// Saturday 2026-03-07 12:00 UTC: 13:00 in Paris, 21:00 in Tokyo.
	at := time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC)
	eval := func(at time.Time, tool string, args map[string]any) *runtime.Decision {
		t.Helper()
		d := new(runtime.Decision)
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Time: at, Facts: lycaon.Facts{Tool: tool, ToolArgs: args}}
		if err := ev.Evaluate(context.Background(), occ, s, d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	ok := map[string]any{"zone": "Europe/Paris", "window": int64(30)}
	for i := range 3 {
		if d := eval(at.Add(time.Duration(i)*10*time.Second), "ls", ok); d.Code != "" || len(d.Errors) > 0 {
			t.Fatalf("call %d: %s %v", i, d.Code, errsOf(d))
		}
	}
	// The fourth call within the minute, counted at tool.pre_invoke.
	if d := eval(at.Add(30*time.Second), "ls", ok); d.Code != "T_BURST" || len(d.Errors) > 0 {
		t.Fatalf("fourth call: %q %v, want T_BURST", d.Code, errsOf(d))
	}
	// Two minutes later the window holds this call only.
	at = at.Add(2 * time.Minute)
	if d := eval(at, "edit", ok); d.Code != "" || len(d.Errors) > 0 {
		t.Fatalf("first edit: %q %v", d.Code, errsOf(d))
	}
	if d := eval(at.Add(20*time.Second), "edit", ok); d.Code != "T_EDIT_BURST" {
		t.Fatalf("second edit within 30s: %q %v, want T_EDIT_BURST", d.Code, errsOf(d))
	}
	// 22:00 in Tokyo: the hour of the occurrence's time, not the clock's.
	if d := eval(at.Add(time.Hour), "ls", map[string]any{"zone": "Asia/Tokyo", "window": int64(1)}); d.Code != "T_NIGHT" {
		t.Fatalf("22:00 in Tokyo: %q %v, want T_NIGHT", d.Code, errsOf(d))
	}
	// Bad windows and zones are the compiled rules' invalid_argument
	// errors, and fail closed (a block ends the occurrence).
	for i, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"zone": "UTC", "window": int64(0)}, `T_EDIT_BURST/invalid_argument: tool_calls_within: the window of a call count must be between 1 and 86400 seconds, got 0`},
		{map[string]any{"zone": "Mars/Olympus", "window": int64(1)}, `T_NIGHT/invalid_argument: local_hour: unknown time zone "Mars/Olympus"`},
		{map[string]any{"zone": "", "window": int64(1)}, `T_NIGHT/invalid_argument: local_hour: "" is not an IANA time zone name`},
	} {
		d := eval(at.Add(3*time.Hour+time.Duration(i)*10*time.Second), "edit", c.args)
		if got := errsOf(d); len(got) != 1 || got[0] != c.want || d.Effect != runtime.Block {
			t.Fatalf("%v: %s %v, want block with %s", c.args, d.Effect, got, c.want)
		}
	}
	// Back before the times the record dropped (a day ahead, then back):
	// the window reaches a dropped call, a store error.
	if d := eval(at.Add(26*time.Hour), "ls", ok); len(d.Errors) > 0 {
		t.Fatalf("a day later: %v", errsOf(d))
	}
	d := eval(at.Add(time.Minute), "ls", ok)
	if got := errsOf(d); len(got) != 1 || d.Errors[0].Rule != "T_BURST" || d.Errors[0].Err.Kind != runtime.ErrStore {
		t.Fatalf("back before dropped times: %v, want a T_BURST store error", got)
	}
}

// hiddenTimes is a runtime.RuleStore whose rules do not say that they
// read windows of calls.
type hiddenTimes struct{ *rulestore.Store }

func (h hiddenTimes) Live(anchor string) runtime.LiveRules {
	if lr := h.Store.Live(anchor); lr != nil {
		return struct{ runtime.LiveRules }{lr}
	}
	return nil
}

// TestStoreTimesUnreadFailsClosed: a store that does not tell the
// evaluator its rules read windows of calls gets the record's error (its
// times were not read), not a count of zero.
func TestStoreTimesUnreadFailsClosed(t *testing.T) {
	ev, err := base.New(diffEnv(), runtime.WithRuleStore(hiddenTimes{timeStore(t)}))
	if err != nil {
		t.Fatal(err)
	}
	d := new(runtime.Decision)
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: "ls", ToolArgs: map[string]any{"zone": "UTC", "window": int64(5)}}}
	if err := ev.Evaluate(context.Background(), occ, runtime.NewSession("s"), d); err != nil {
		t.Fatal(err)
	}
	got := errsOf(d)
	if len(got) != 1 || d.Errors[0].Rule != "T_BURST" || d.Errors[0].Err.Kind != runtime.ErrStore || d.Effect != runtime.Block {
		t.Fatalf("%s %v, want a T_BURST store error, blocked", d.Effect, got)
	}
}
