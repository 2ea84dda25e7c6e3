package rulestore_test

import (
	"context"
	"testing"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

func TestSmoke(t *testing.T) {
	set := baseSet(t)
	s, _ := openTemp(t, set, rulestore.Options{})
	ids, docs := extraRules(t)
	// Z_ESCALATE names Z_REPEAT: add it after.
	ids = append([]string{"Z_REPEAT"}, ids...)
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		a, err := s.Add(rulestore.Draft{Rule: docs[id]})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		t.Logf("%s: %+v", id, a.Warnings)
		if id != "Z_WATCH" {
			if _, err := s.Promote(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	sess := runtime.NewSession("s1")
	var d runtime.Decision
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: "bash", ToolArgs: map[string]any{"command": "git push --force"}}}
	ev.Evaluate(context.Background(), occ, sess, &d)
	t.Logf("%v %s %v %v %v", d.Effect, d.Code, d.Codes, d.Monitored, d.Errors)
	t.Log(s.Context("", 0))
}
