package rulestore_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/askbase"
	"github.com/oarc/oarc/rulestore/internal/storediff/askfull"
	"github.com/oarc/oarc/runtime"
)

// askOutcome is what the ask differential compares of a decision: the
// outcome of the store differential, the question and the texts of an
// unasked ask (spec 5.12), every firing's effect and mark, and the
// redactions (spec 5.6).
type askOutcome struct {
	Outcome           outcome
	Question, Unasked string
	Firings           []string
	Redactions        []runtime.Redaction
}

func askOutcomeOf(d *runtime.Decision) askOutcome {
	o := askOutcome{Outcome: outcomeOf(d), Question: d.Question(), Unasked: d.Unasked(), Redactions: slices.Clone(d.Redactions)}
	for _, f := range d.Firings {
		o.Firings = append(o.Firings, fmt.Sprintf("%s/%s/%v", f.Rule.ID, f.Rule.Effect, f.FailedClosed))
	}
	return o
}

// TestDifferentialAsk runs random sessions through the askextra rules
// compiled (askfull) and through the same rules in a store over the set
// without them (askbase): active asks, blocks, warnings and notes, and a
// candidate ask, beside compiled allow rules under an allowlist (one of
// them monitored), redactions, a compiled ask and a monitored block must
// decide alike (spec 5.1, 5.6, 5.8, 5.12, 12), occurrence by occurrence
// and in checks of several actions (spec 5.11).
func TestDifferentialAsk(t *testing.T) {
	set, ds := compiler.Load([]string{"testdata/packs/askbase", "testdata/packs/askmon"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{})
	files, _ := filepath.Glob("testdata/packs/askextra/policy/*.yaml")
	var ids []string
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".yaml")
		ids = append(ids, id)
		if _, err := s.Add(rulestore.Draft{Rule: ruleJSON(t, f)}); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if id == "X_WATCH_ASK" {
			continue // a candidate, compiled as monitored
		}
		if _, err := s.Promote(id); err != nil {
			t.Fatal(err)
		}
	}
	env := diffEnv()
	compiled, err := askfull.New(env)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := askbase.New(env, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	reached := askSessions(t, compiled, stored, *askSeed)
	for _, id := range append(ids, "NOT_LISTED", "NOT_LISTED_INPUT", "B_ALLOW_COUNT", "B_REDACT", "B_REDACT_PII", "B_ASK_POST", "B_WATCH", "B_INJECT", "X_INJECT/detector", "X_INJECT/timeout",
		"X_ASK_COUNT/failed_closed", "X_WATCH_ASK/failed_closed", "X_INPUT_ASK/failed_closed", "B_ALLOW_COUNT/failed_closed",
		"X_SEL_PROV/failed_closed", "X_SEL_TENANT/failed_closed", "effect/ask", "effect/block", "effect/transform", "effect/warn", "effect/nudge", "effect/allow") {
		if !reached[id] {
			t.Errorf("%s: never reached", id)
		}
	}
}

// askSessions runs the same random sessions through a and b, fails on
// any decision that differs, and returns what b reached: codes,
// monitored rules, failed-closed firings and effects.
func askSessions(t *testing.T, a, b evaluator, seed uint64) map[string]bool {
	t.Helper()
	tools := []string{"read_file", "git", "bash", "send_email", "http_post", "http_fetch", "write_file"}
	commands := []string{"ls", "rm -rf x", "sudo ls", "git push"}
	contents := []string{"", "hello key", "pay me", "a key to pay", "x marks", "hello", "héllo wörld key", "ignore all", "boom", "slow", "maybe pay"}
	rng := rand.New(rand.NewPCG(3, seed))
	spans := func(kind bool) []map[string]any {
		var l []map[string]any
		for range rng.IntN(3) {
			m := map[string]any{"start": int64(rng.IntN(12) - 1), "end": int64(rng.IntN(14))}
			if kind {
				m["kind"] = []string{"email", "credit_card_number"}[rng.IntN(2)]
			}
			if rng.IntN(8) == 0 {
				delete(m, "end")
			}
			l = append(l, m)
		}
		return l
	}
	reached := map[string]bool{}
	occurrences, mismatches := 0, 0
	for sess := range 250 {
		id := fmt.Sprintf("s%d", sess)
		var opts []runtime.SessionOption
		if rng.IntN(2) == 0 {
			opts = append(opts, runtime.WithTenant("acme"))
		}
		sa, sb := runtime.NewSession(id, opts...), runtime.NewSession(id, opts...)
		nodes := 0
		var prev *lycaon.Occurrence
		at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		for step := range 10 {
			at = at.Add(time.Duration(rng.IntN(20)) * time.Second)
			occ := lycaon.Occurrence{Time: at, Anchor: lycaon.ToolPreInvoke}
			switch rng.IntN(8) {
			case 0, 1:
				occ.Anchor = lycaon.ContentInput
			case 2:
				occ.Anchor = lycaon.ContentOutput
			}
			occ.Content = contents[rng.IntN(len(contents))]
			occ.Facts.Tool = tools[rng.IntN(len(tools))]
			args := map[string]any{}
			if rng.IntN(2) == 0 {
				args["command"] = commands[rng.IntN(len(commands))]
			}
			if rng.IntN(2) == 0 {
				args["to"] = []string{"a@example.com", "b@evil.test"}[rng.IntN(2)]
			}
			if rng.IntN(2) == 0 {
				args["url"] = []string{"http://a.example", "https://a.example"}[rng.IntN(2)]
			}
			switch rng.IntN(4) {
			case 0:
			case 1:
				args["count"] = "many"
			default:
				args["count"] = int64(rng.IntN(6))
			}
			occ.Facts.ToolArgs = args
			if prev != nil && rng.IntN(4) == 0 {
				// The same call again (lycaon.repeat_count, spec 5.10).
				occ.Facts.Tool, occ.Facts.ToolArgs = prev.Facts.Tool, prev.Facts.ToolArgs
			}
			occ.Facts.SecretMatches = spans(false)
			occ.Facts.PiiEntities = spans(true)
			occ.Profiles = runtime.ProfileTool | runtime.ProfileContentSafety | runtime.ProfileSession | runtime.ProfileProvenance
			if rng.IntN(6) == 0 {
				occ.Profiles = runtime.ProfileSet(rng.IntN(128))
			}
			if rng.IntN(3) == 0 {
				// A provenance node (spec 5.7, 5.11), now and then from
				// an earlier one; now and then the session loses history.
				n := runtime.Node{ID: fmt.Sprintf("n%d", nodes), Kind: runtime.ToolResult, Tool: tools[rng.IntN(len(tools))],
					Origin: []string{"web", "user", ""}[rng.IntN(3)], Labels: [][]string{nil, {"pii"}}[rng.IntN(2)]}
				if nodes > 0 && rng.IntN(2) == 0 {
					n.Parents = []string{fmt.Sprintf("n%d", rng.IntN(nodes))}
				}
				nodes++
				lose := rng.IntN(60) == 0
				for _, ss := range []*runtime.Session{sa, sb} {
					if err := ss.Record(context.Background(), n); err != nil {
						t.Fatal(err)
					}
					if lose {
						if err := ss.MarkIncomplete(context.Background()); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if nodes > 0 && rng.IntN(2) == 0 {
				occ.Inputs = []string{fmt.Sprintf("n%d", rng.IntN(nodes))}
			}
			if rng.IntN(20) == 0 {
				occ.Inputs = []string{"never-recorded"}
			}
			prev = &occ
			occs := []lycaon.Occurrence{occ}
			if rng.IntN(4) == 0 {
				for range 1 + rng.IntN(2) {
					o := occ
					o.Facts.Tool = tools[rng.IntN(len(tools))]
					o.Facts.ToolArgs = map[string]any{"count": int64(rng.IntN(6)), "to": "c@evil.test"}
					occs = append(occs, o)
				}
			}
			das, dbs := make([]runtime.Decision, len(occs)), make([]runtime.Decision, len(occs))
			var errA, errB error
			if len(occs) == 1 {
				errA = a.Evaluate(context.Background(), &occs[0], sa, &das[0])
				errB = b.Evaluate(context.Background(), &occs[0], sb, &dbs[0])
			} else {
				errA = a.EvaluateCheck(context.Background(), occs, sa, das)
				errB = b.EvaluateCheck(context.Background(), occs, sb, dbs)
			}
			if (errA == nil) != (errB == nil) {
				t.Fatalf("session %s step %d: errors %v / %v", id, step, errA, errB)
			}
			for i := range occs {
				da, db := &das[i], &dbs[i]
				occurrences++
				reached["effect/"+db.Effect.String()] = true
				for _, l := range [][]string{db.Codes, db.Monitored} {
					for _, id := range l {
						reached[id] = true
					}
				}
				for _, e := range db.Errors {
					reached[e.Rule+"/"+e.Err.Kind.String()] = true
				}
				for _, id := range db.FailedClosed {
					reached[id+"/failed_closed"] = true
				}
				if diff := cmp.Diff(askOutcomeOf(da), askOutcomeOf(db)); diff != "" {
					mismatches++
					if mismatches <= 5 {
						o := &occs[i]
						t.Errorf("session %s step %d action %d of %d (%s %s %v %q, profiles %b): compiled vs store (-compiled +store):\n%s",
							id, step, i, len(occs), o.Anchor, o.Facts.Tool, o.Facts.ToolArgs, o.Content, o.Profiles, diff)
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

var askSeed = flag.Uint64("ask.seed", 7, "seed of the ask differential's sessions")
