package rulestore_test

import (
	"os"
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
