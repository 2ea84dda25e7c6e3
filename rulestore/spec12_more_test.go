package rulestore_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// TestSpec12ProjectEffects: a store rule has a project pack's effect
// limits (spec 2): block, warn, nudge and ask are accepted.
func TestSpec12ProjectEffects(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, e := range []string{"block", "warn", "nudge", "ask"} {
		spec12Add(t, s, spec12Doc("S12_EFFECT_"+map[string]string{"block": "B", "warn": "W", "nudge": "N", "ask": "A"}[e], e, e, nil))
	}
	// on_fire naming a compiled rule of the set, and a store rule.
	spec12Add(t, s, spec12Doc("S12_RESETS", "warn", "r", map[string]any{"on_fire": map[string]any{"reset": []string{"A_LONG", "S12_EFFECT_W"}}}))
}

// TestSpec12FileReplacedFailsClosed: a store whose file was cut shorter
// under it refuses to reload or append (an error, never a store reading
// on as if the records had not been written), and its rules stay in
// force as read: an active block rule does not turn into an allow.
func TestSpec12FileReplacedFailsClosed(t *testing.T) {
	s, path := openTemp(t, baseSet(t), rulestore.Options{})
	spec12Add(t, s, spec12Doc("S12_KEEP", "block", "x", nil))
	if _, err := s.Promote("S12_KEEP"); err != nil {
		t.Fatal(err)
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); err == nil {
		t.Errorf("Reload of a file cut to nothing: no error")
	}
	if _, err := s.Add(rulestore.Draft{Rule: spec12Doc("S12_NEW", "warn", "n", nil)}); err == nil {
		t.Errorf("Add to a file cut to nothing: no error")
	}
	if d := spec12Eval(t, ev, runtime.NewSession("s"), "x", ""); d.Effect != runtime.Block || d.Code != "S12_KEEP" {
		t.Errorf("the active block rule after the file was cut: effect %v code %q", d.Effect, d.Code)
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("the store wrote to a file it no longer knows: %q", b)
	}
}

// TestSpec12ContextHintRanksStoreRules: with a hint, the active store
// rules with a selector are ranked with the compiled ones for the top k
// (spec 10, 12), global ones (no selector) always render, candidates
// always render and take no place, and the rules left out are counted.
func TestSpec12ContextHintRanksStoreRules(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for i, tool := range []string{"deploy", "curl", "docker"} {
		id := fmt.Sprintf("S12_R%d", i)
		spec12Add(t, s, spec12Doc(id, "block", tool, map[string]any{"selector": map[string]any{"tool": tool}, "copy": map[string]any{"title": "About " + tool}}))
		if i < 2 {
			if _, err := s.Promote(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	spec12Add(t, s, spec12Doc("S12_GLOBAL", "warn", "zz", map[string]any{"copy": map[string]any{"title": "Global store rule"}}))
	if _, err := s.Promote("S12_GLOBAL"); err != nil {
		t.Fatal(err)
	}
	ctx := s.Context("deploy now", 1)
	for _, want := range []string{"- **S12_R0**: About deploy", "- **S12_GLOBAL**: Global store rule", "- **A_LONG**", "- **S12_R2**: About docker (trial: 0/5 sessions)", "(2 more rules not shown)"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("no %q in:\n%s", want, ctx)
		}
	}
	for _, not := range []string{"S12_R1", "A_RM_RF"} {
		if strings.Contains(ctx, not) {
			t.Errorf("%s rendered past the top 1:\n%s", not, ctx)
		}
	}
	if all := s.Context("", 0); !strings.Contains(all, "S12_R1") || !strings.Contains(all, "A_RM_RF") || strings.Contains(all, "more rules not shown") {
		t.Errorf("without a hint every rule renders:\n%s", all)
	}
}

// TestSpec12ReloadSeesOtherWriters: a host's store sees another
// process's promotion and retirement once it reloads, and evaluates with
// them: the promoted rule enforced, the retired one out of force.
func TestSpec12ReloadSeesOtherWriters(t *testing.T) {
	set := baseSet(t)
	host, path := openTemp(t, set, rulestore.Options{})
	spec12Add(t, host, spec12Doc("S12_UP", "block", "up", nil))
	spec12Add(t, host, spec12Doc("S12_OUT", "block", "out", nil))
	if _, err := host.Promote("S12_OUT"); err != nil {
		t.Fatal(err)
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(host))
	if err != nil {
		t.Fatal(err)
	}
	person, err := rulestore.Open(path, set, rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := person.Promote("S12_UP"); err != nil {
		t.Fatal(err)
	}
	if _, err := person.Retire("S12_OUT", "wrong"); err != nil {
		t.Fatal(err)
	}
	person.Close()
	if err := host.Reload(); err != nil {
		t.Fatal(err)
	}
	sess := runtime.NewSession("s")
	if d := spec12Eval(t, ev, sess, "up", ""); d.Effect != runtime.Block || d.Code != "S12_UP" {
		t.Errorf("promoted elsewhere: effect %v code %q monitored %v", d.Effect, d.Code, d.Monitored)
	}
	if d := spec12Eval(t, ev, sess, "out", ""); d.Effect == runtime.Block || len(d.Monitored) != 0 {
		t.Errorf("retired elsewhere: effect %v code %q monitored %v", d.Effect, d.Code, d.Monitored)
	}
}
