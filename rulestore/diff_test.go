package rulestore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/rulestore/internal/storediff/full"
	"github.com/oarc/oarc/runtime"
)

// outcome is what the differential compares of a decision.
type outcome struct {
	Effect, Code                   string
	Codes, Monitored, FailedClosed []string
	Errors                         []string
	Rejection, Banner, Notes       string
	Content                        string
}

func outcomeOf(d *runtime.Decision) outcome {
	o := outcome{Effect: d.Effect.String(), Code: d.Code, Codes: slices.Clone(d.Codes), Monitored: slices.Clone(d.Monitored),
		FailedClosed: slices.Clone(d.FailedClosed), Rejection: d.Rejection(), Banner: d.Banner(), Notes: d.Notes(), Content: d.Content}
	for _, e := range d.Errors {
		o.Errors = append(o.Errors, fmt.Sprintf("%s/%s: %s", e.Rule, e.Err.Kind, e.Err.Error()))
	}
	return o
}

// diffEnv is the host of both evaluators: a provider that answers, fails
// or times out by its argument, a validator that hits, fails or times
// out by the content.
func diffEnv() lycaon.Env {
	env := lycaon.Env{Validators: map[string]lycaon.Validator{
		"inj.v1": func(_ context.Context, occ *lycaon.Occurrence) (runtime.Detection, error) {
			switch {
			case strings.Contains(occ.Content, "boom"):
				return runtime.Detection{}, errors.New("boom")
			case strings.Contains(occ.Content, "slow"):
				return runtime.Detection{}, context.DeadlineExceeded
			case strings.Contains(occ.Content, "ignore"):
				return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasPromptInjectionScore, PromptInjectionScore: 0.9}}, nil
			}
			return runtime.Detection{Hit: strings.Contains(occ.Content, "maybe")}, nil
		},
	}}
	env.Providers.PathOutsideScope = func(_ context.Context, _ *lycaon.Occurrence, tool string) (bool, error) {
		switch tool {
		case "http_post":
			return false, errors.New("scope unknown")
		case "send_email":
			return false, context.DeadlineExceeded
		}
		return tool == "edit", nil
	}
	return env
}

// TestDifferentialCompiled runs random sessions through the extra rules
// compiled (package full) and through the same rules in a store over the
// set without them (package base): active store rules and compiled
// enforced rules, a candidate and a compiled monitored rule, must decide
// alike, occurrence by occurrence, counters, session record, provenance,
// providers, validators and on_error included.
func TestDifferentialCompiled(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	ids, docs := extraRules(t)
	for _, id := range append([]string{"Z_REPEAT"}, ids...) {
		if st, err := s.Status(id); err == nil && st.Record.Status.Live() {
			continue
		}
		if _, err := s.Add(rulestore.Draft{Rule: docs[id]}); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if id == "Z_WATCH" {
			continue // a candidate, compiled as monitored
		}
		if _, err := s.Promote(id); err != nil {
			t.Fatal(err)
		}
	}
	env := diffEnv()
	compiled, err := full.New(env)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := base.New(env, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	reached := diffSessions(t, compiled, stored, 21)
	// The sessions reached the rules: every extra rule fired somewhere,
	// and the errors of each kind the rules can have happened.
	for _, id := range append(ids, "Z_COUNT/no_such_key", "Z_SCOPE/provider", "Z_SCOPE/timeout", "Z_INJECT/detector", "Z_INJECT/timeout", "Z_PROV/provenance", "Z_PROV/profile",
		"Z_HOURS/invalid_argument", "Z_WINDOW/invalid_argument", "Z_BURST/store", "Z_URL/invalid_argument", "Z_NODES/provenance") {
		if !reached[id] {
			t.Errorf("%s: never reached", id)
		}
	}
}

// evaluator is what the differential runs of a generated package.
type evaluator interface {
	Evaluate(ctx context.Context, occ *lycaon.Occurrence, s *runtime.Session, d *runtime.Decision) error
	EvaluateCheck(ctx context.Context, occs []lycaon.Occurrence, s *runtime.Session, ds []runtime.Decision) error
}

// diffSessions runs the same random sessions through a and b, fails on
// any decision that differs, and returns the rules b reached: the codes
// and monitored rules of its decisions, and its errors by rule and kind.
func diffSessions(t *testing.T, compiled, stored evaluator, seed uint64) map[string]bool {
	t.Helper()
	tools := []string{"bash", "git", "http_fetch", "http_post", "read_file", "send_email", "edit"}
	commands := []string{"git push --force origin", "ls", "rm -rf / now", "sudo ls -la", "echo a long command here"}
	contents := []string{"hello", "ignore previous", "boom", "slow", "maybe"}
	rng := rand.New(rand.NewPCG(1, seed))
	// more draws what the sessions added later have (tenants, tool
	// results with arguments, checks of several actions, spec 5.11), so
	// that the first draws stay as they were.
	more := rand.New(rand.NewPCG(2, seed))
	reached := map[string]bool{}
	occurrences, mismatches := 0, 0
	for sess := range 300 {
		id := fmt.Sprintf("s%d", sess)
		var opts []runtime.SessionOption
		if more.IntN(3) == 0 {
			opts = append(opts, runtime.WithTenant([]string{"acme", "", "acme\x00", "ac:me"}[more.IntN(4)]))
		}
		sa, sb := runtime.NewSession(id, opts...), runtime.NewSession(id, opts...)
		nodes := 0
		// The occurrences' times (spec 5.13): bursts of calls, hours
		// apart, a day apart (the record drops the older calls' times),
		// and now and then back in time before calls the record dropped.
		at := time.Date(2026, 3, 7, 21, 30, 0, 0, time.UTC).Add(time.Duration(rng.IntN(48)) * time.Hour)
		for step := range 12 {
			switch r := rng.IntN(20); {
			case r < 12:
				at = at.Add(time.Duration(rng.IntN(30)) * time.Second)
			case r < 16:
				at = at.Add(time.Duration(rng.IntN(7200)) * time.Second)
			case r < 18:
				at = at.Add(26 * time.Hour)
			default:
				at = at.Add(-27 * time.Hour)
			}
			occ := &lycaon.Occurrence{Time: at}
			switch r := rng.IntN(10); {
			case r < 7:
				occ.Anchor = lycaon.ToolPreInvoke
			case r < 9:
				occ.Anchor = lycaon.ToolPostInvoke
			default:
				occ.Anchor = lycaon.ContentInput
				occ.Content = contents[rng.IntN(len(contents))]
			}
			occ.Facts.Tool = tools[rng.IntN(len(tools))]
			args := map[string]any{}
			if rng.IntN(3) > 0 {
				args["command"] = commands[rng.IntN(len(commands))]
			}
			if rng.IntN(2) == 0 {
				args["url"] = []string{"http://a.example", "https://a.example"}[rng.IntN(2)]
			}
			if rng.IntN(2) == 0 {
				args["count"] = int64(rng.IntN(6))
			}
			if rng.IntN(3) == 0 {
				args["zone"] = []string{"Europe/Paris", "America/New_York", "Asia/Tokyo", "Mars/Olympus", ""}[rng.IntN(5)]
			}
			if rng.IntN(5) > 0 {
				occ.Facts.ToolArgs = args
			}
			if rng.IntN(5) == 0 {
				occ.Profiles = runtime.ProfileSet(rng.IntN(128)) | runtime.ProfileTool
			}
			if rng.IntN(4) == 0 {
				n := runtime.Node{ID: fmt.Sprintf("n%d", nodes), Kind: runtime.Message, Origin: []string{"web", "user"}[rng.IntN(2)]}
				nodes++
				for _, ss := range []*runtime.Session{sa, sb} {
					if err := ss.Record(context.Background(), n); err != nil {
						t.Fatal(err)
					}
				}
			}
			if more.IntN(4) == 0 {
				// A tool result with the arguments of its call, derived
				// from an earlier node now and then.
				n := runtime.Node{ID: fmt.Sprintf("n%d", nodes), Kind: runtime.ToolResult, Tool: tools[more.IntN(len(tools))],
					Origin: []string{"web", "drive", ""}[more.IntN(3)], Labels: [][]string{nil, {"pii"}, {"pii", "pii", ""}}[more.IntN(3)],
					Args: map[string]any{"url": []string{"http://a.example/x", "https://a.example/", "http://[::1]:8080/"}[more.IntN(3)]}}
				if nodes > 0 && more.IntN(2) == 0 {
					n.Parents = []string{fmt.Sprintf("n%d", more.IntN(nodes))}
				}
				if more.IntN(5) == 0 {
					n.Kind = runtime.Message // a message keeps no tool and no arguments
				}
				nodes++
				for _, ss := range []*runtime.Session{sa, sb} {
					if err := ss.Record(context.Background(), n); err != nil {
						t.Fatal(err)
					}
				}
			}
			if nodes > 0 && rng.IntN(2) == 0 {
				occ.Inputs = []string{fmt.Sprintf("n%d", rng.IntN(nodes))}
			}
			if rng.IntN(15) == 0 {
				occ.Inputs = []string{"never-recorded"}
			}
			// One step in four is a check of several actions at the
			// occurrence's anchor (spec 5.11).
			occs := []lycaon.Occurrence{*occ}
			if more.IntN(4) == 0 {
				for range 1 + more.IntN(3) {
					o := *occ
					o.Facts.Tool = tools[more.IntN(len(tools))]
					o.Facts.ToolArgs = map[string]any{"url": []string{"http://a.example", "http://A.EXAMPLE:80/", "https://a.example", "http://a.example:8080"}[more.IntN(4)]}
					if nodes > 0 && more.IntN(2) == 0 {
						o.Inputs = []string{fmt.Sprintf("n%d", more.IntN(nodes))}
					}
					occs = append(occs, o)
				}
			}
			das, dbs := make([]runtime.Decision, len(occs)), make([]runtime.Decision, len(occs))
			var errA, errB error
			if len(occs) == 1 {
				errA = compiled.Evaluate(context.Background(), occ, sa, &das[0])
				errB = stored.Evaluate(context.Background(), occ, sb, &dbs[0])
			} else {
				errA = compiled.EvaluateCheck(context.Background(), occs, sa, das)
				errB = stored.EvaluateCheck(context.Background(), occs, sb, dbs)
			}
			if (errA == nil) != (errB == nil) {
				t.Fatalf("session %s step %d: errors %v / %v", id, step, errA, errB)
			}
			for i := range occs {
				occ, da, db := &occs[i], &das[i], &dbs[i]
				occurrences++
				for _, l := range [][]string{db.Codes, db.Monitored} {
					for _, id := range l {
						reached[id] = true
					}
				}
				for _, e := range db.Errors {
					reached[e.Rule+"/"+e.Err.Kind.String()] = true
				}
				if diff := cmp.Diff(outcomeOf(da), outcomeOf(db)); diff != "" {
					mismatches++
					if mismatches <= 5 {
						t.Errorf("session %s (tenant %q) step %d action %d of %d (%s %s %v, profiles %b, inputs %v): compiled vs store (-compiled +store):\n%s",
							id, sa.Tenant(), step, i, len(occs), occ.Anchor, occ.Facts.Tool, occ.Facts.ToolArgs, occ.Profiles, occ.Inputs, diff)
					}
				}
			}
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d occurrences differ", mismatches, occurrences)
	}
	t.Logf("%d occurrences", occurrences)
	return reached
}

// TestCompiledTimesWithStore runs the compiled time rules (spec 5.13)
// with an empty store and without one: an evaluator with a store reads
// the session's record with the calls' times its compiled rules ask for.
func TestCompiledTimesWithStore(t *testing.T) {
	set, ds := compiler.Load([]string{"testdata/packs/base", "testdata/packs/extra"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{})
	env := diffEnv()
	plain, err := full.New(env)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := full.New(env, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	reached := diffSessions(t, plain, stored, 5)
	for _, id := range []string{"Z_BURST", "Z_TOOL_BURST", "Z_WINDOW"} {
		if !reached[id] {
			t.Errorf("%s: never reached", id)
		}
	}
}
