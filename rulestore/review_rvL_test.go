package rulestore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/rulestore"
)

// TestReviewRvLEmptyWhenPlaced: a `when` that ends before its condition
// (empty, or only line breaks) is refused at a position inside it, its
// end (spec 12: every diagnostic with its position in the rule's
// `when`), not on a line after its last one.
func TestReviewRvLEmptyWhenPlaced(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, c := range []struct{ when, at string }{
		{`""`, "when:1:1"},
		{`"\n"`, "when:2:1"},
		{`"\n\n"`, "when:3:1"},
		{`"tool == \"a\" &&\n\n"`, "when:1:15"},
	} {
		_, err := s.Add(rulestore.Draft{Rule: []byte(`{"oar":"1.0","id":"F_W","kind":"policy","anchor":"tool.pre_invoke","effect":"warn","requires":{"profiles":["tool"]},"when":` + c.when + `,"copy":{"title":"W"}}`)})
		var rej *rulestore.RejectedError
		if !errors.As(err, &rej) || len(rej.Diagnostics) != 1 {
			t.Fatalf("when %s: %v", c.when, err)
		}
		if got := rej.Diagnostics[0].String(); !strings.HasPrefix(got, c.at+": error: ") || !strings.HasSuffix(got, "^") {
			t.Errorf("when %s: want it at %s, with its caret:\n%s", c.when, c.at, got)
		}
	}
}

// TestReviewRvLBrokenRulesRender: a live rule of the store that no longer
// loads is in force all the same (it fails as its on_error says at every
// occurrence of its anchor, docs/store.md), so the rendered context shows
// it as it shows the store's rules in force (spec 10, 12: the agent knows
// a rule before it trips it): an active one under "## Rules", a candidate
// as provisional with its trial. Its selector is not read, so it is
// global: a hint never leaves it out.
func TestReviewRvLBrokenRulesRender(t *testing.T) {
	gone := `fire_count_of("NOPE") > 0 || tool == "rm"`
	path := writeFile(t,
		record("H_A_CAND", "candidate", gone, `,"trial":{"sessions":3,"fired_sessions":2,"monitored":2,"errors":0,"threshold":5,"verdict":"pending"}`)+"\n",
		record("H_C_GONE", "active", gone, "")+"\n",
		record("H_D_RETIRED", "retired", gone, "")+"\n",
	)
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "## Rules\n\n" +
		"- **A_LONG**: Long command\n  - Instead: Split it.\n" +
		"- **A_RM_RF**: Deleting the root\n  - Fix: Delete inside the project only.\n" +
		"- **A_TALLY**: Many calls\n" +
		"- **H_C_GONE**: Rule H_C_GONE\n  - Fix: Do it otherwise.\n\n" +
		"### Provisional rules (under evaluation)\n\n" +
		"_These rules are on trial: they are not enforced yet. Follow them all the same, as if they were._\n\n" +
		"- **H_A_CAND**: Rule H_A_CAND (trial: 2/5 sessions)\n  - Fix: Do it otherwise.\n"
	if diff := cmp.Diff(want, s.Context("", 0)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := s.Context("deleting root", 1); !strings.Contains(got, "- **H_C_GONE**: Rule H_C_GONE\n") || !strings.Contains(got, "- **H_A_CAND**") {
		t.Errorf("with a hint:\n%s", got)
	}
}
