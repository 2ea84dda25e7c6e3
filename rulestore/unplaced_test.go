package rulestore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// TestLiveRuleNamingNoAnchorFailsEverywhere: a live rule of the store
// whose document names no anchor of the catalog (an anchor the catalog
// no longer has, a record damaged by hand: no anchor, one that is not a
// string) was reported when the store loaded and then left out of every
// evaluation, the one rule that does not load that did not fail closed:
// an active block rule damaged in its anchor stopped blocking. No one
// can tell which anchor it guarded, so it now fails at every anchor of
// the catalog, with its effect where the anchor's planes allow it (else
// block, else warn), as its on_error says.
func TestLiveRuleNamingNoAnchorFailsEverywhere(t *testing.T) {
	anchorless := map[string]func(string) string{
		"renamed": func(r string) string {
			return strings.Replace(r, `"anchor":"tool.pre_invoke"`, `"anchor":"tool.nowhere"`, 1)
		},
		"missing":    func(r string) string { return strings.Replace(r, `"anchor":"tool.pre_invoke",`, ``, 1) },
		"not a text": func(r string) string { return strings.Replace(r, `"anchor":"tool.pre_invoke"`, `"anchor":7`, 1) },
		"a list": func(r string) string {
			return strings.Replace(r, `"anchor":"tool.pre_invoke"`, `"anchor":["tool.pre_invoke"]`, 1)
		},
	}
	eval := func(t *testing.T, s *rulestore.Store, a lycaon.Anchor) *runtime.Decision {
		t.Helper()
		ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
		if err != nil {
			t.Fatal(err)
		}
		d := new(runtime.Decision)
		occ := &lycaon.Occurrence{Anchor: a, Facts: lycaon.Facts{Tool: "ls"}}
		if err := ev.Evaluate(context.Background(), occ, runtime.NewSession("s1"), d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	storeErr := func(d *runtime.Decision, id string) string {
		for _, e := range d.Errors {
			if e.Rule == id && e.Err.Kind == runtime.ErrRuleStore {
				return e.Err.S
			}
		}
		return ""
	}
	for name, damage := range anchorless {
		t.Run(name, func(t *testing.T) {
			rec := damage(record("U_BLOCK", "active", `tool == "rm"`, ""))
			if !strings.Contains(rec, "U_BLOCK") || rec == record("U_BLOCK", "active", `tool == "rm"`, "") {
				t.Fatalf("the record was not damaged: %s", rec)
			}
			s, err := rulestore.Open(writeFile(t, rec+"\n"), baseSet(t), rulestore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if len(s.Problems()) != 1 {
				t.Errorf("problems %v, want the rule's", s.Problems())
			}
			// tool.pre_invoke and content.output have the block plane:
			// it blocks; phase.entered has only inform: it warns.
			for a, want := range map[lycaon.Anchor]runtime.Effect{
				lycaon.ToolPreInvoke: runtime.Block, lycaon.ContentOutput: runtime.Block, lycaon.PhaseEntered: runtime.Warn,
			} {
				d := eval(t, s, a)
				if d.Effect != want || d.Code != "U_BLOCK" || !strings.Contains(storeErr(d, "U_BLOCK"), "fails at every anchor") {
					t.Errorf("%v: effect %v code %q errors %v, want %v by U_BLOCK failing closed", a, d.Effect, d.Code, d.Errors, want)
				}
			}
			in, err := s.Status("U_BLOCK")
			if err != nil {
				t.Fatal(err)
			}
			if in.InForce || !in.FailsEverywhere || in.FailsOpen || len(in.FailsAt) != len(baseSet(t).Catalog.Anchors) {
				t.Errorf("status: in force %v, everywhere %v, open %v, at %d anchors", in.InForce, in.FailsEverywhere, in.FailsOpen, len(in.FailsAt))
			}
			if out := callTool(t, s, "rule_status", `{"id":"U_BLOCK"}`); !strings.Contains(out, "fails closed at every anchor of the catalog") {
				t.Errorf("rule_status:\n%s", out)
			}
		})
	}

	// fail_open: an error at every anchor, never a firing.
	open := strings.Replace(record("U_OPEN", "active", `tool == "rm"`, ""), `"anchor":"tool.pre_invoke"`, `"on_error":"fail_open","anchor":"gone.away"`, 1)
	// A candidate is monitored: its trial fails, nothing is enforced.
	cand := strings.Replace(record("U_CAND", "candidate", `tool == "rm"`, ""), `"anchor":"tool.pre_invoke"`, `"anchor":"gone.away"`, 1)
	// An anchor of the catalog whose planes do not allow the effect (a
	// block rule at an inform anchor, edited by hand): warn there.
	inform := strings.Replace(record("U_INFORM", "active", `tool == "rm"`, ""), `"anchor":"tool.pre_invoke"`, `"anchor":"phase.entered"`, 1)
	s, err := rulestore.Open(writeFile(t, open+"\n", cand+"\n", inform+"\n"), baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := eval(t, s, lycaon.ToolPreInvoke)
	if d.Effect != runtime.Allow || storeErr(d, "U_OPEN") == "" || storeErr(d, "U_CAND") == "" || storeErr(d, "U_INFORM") != "" ||
		len(d.Monitored) != 1 || d.Monitored[0] != "U_CAND" {
		t.Errorf("tool.pre_invoke: effect %v errors %v monitored %v, want allow with U_OPEN's and U_CAND's errors", d.Effect, d.Errors, d.Monitored)
	}
	d = eval(t, s, lycaon.PhaseEntered)
	if d.Effect != runtime.Warn || d.Code != "U_INFORM" || storeErr(d, "U_OPEN") == "" || storeErr(d, "U_INFORM") == "" {
		t.Errorf("phase.entered: effect %v code %q errors %v, want warn by U_INFORM", d.Effect, d.Code, d.Errors)
	}
	if in, _ := s.Status("U_INFORM"); in.FailsEverywhere || len(in.FailsAt) != 1 || in.FailsAt[0] != "phase.entered" {
		t.Errorf("U_INFORM fails at %v (everywhere %v)", in.FailsAt, in.FailsEverywhere)
	}
	if out := callTool(t, s, "rules_list", `{}`); !strings.Contains(out, "U_OPEN (active, does not load: fails open at every anchor of the catalog") {
		t.Errorf("rules_list:\n%s", out)
	}
}
