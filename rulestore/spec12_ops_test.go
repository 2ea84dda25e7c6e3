package rulestore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// spec12Doc is a rule document of the tool.pre_invoke anchor, the tool
// profile, that fires on the tool named in it; extra members are merged.
func spec12Doc(id, effect, tool string, extra map[string]any) json.RawMessage {
	m := map[string]any{"oar": "1.0", "id": id, "kind": "policy", "anchor": "tool.pre_invoke", "effect": effect,
		"requires": map[string]any{"profiles": []string{"tool"}},
		"when":     fmt.Sprintf("tool == %q", tool), "copy": map[string]any{"title": "Rule " + id}}
	for k, v := range extra {
		if v == nil {
			delete(m, k)
			continue
		}
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

func spec12Add(t *testing.T, s *rulestore.Store, doc json.RawMessage) rulestore.Record {
	t.Helper()
	a, err := s.Add(rulestore.Draft{Rule: doc})
	if err != nil {
		t.Fatalf("add %s: %v", doc, err)
	}
	if a.Existing {
		t.Fatalf("add %s: an existing rule", doc)
	}
	return a.Record
}

func spec12Rejected(t *testing.T, s *rulestore.Store, doc json.RawMessage) *rulestore.RejectedError {
	t.Helper()
	_, err := s.Add(rulestore.Draft{Rule: doc})
	var rej *rulestore.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("add %s: %v, want a rejection", doc, err)
	}
	return rej
}

func spec12HasCode(rej *rulestore.RejectedError, code string) bool {
	for _, d := range rej.Diagnostics {
		if d.Code == code && d.Severity == "error" {
			return true
		}
	}
	return false
}

// spec12Eval evaluates one call of tool in session sess.
func spec12Eval(t *testing.T, ev *base.Evaluator, sess *runtime.Session, tool, command string) runtime.Decision {
	t.Helper()
	var d runtime.Decision
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: tool, ToolArgs: map[string]any{"command": command}}}
	if err := ev.Evaluate(context.Background(), occ, sess, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSpec12AddChecksAsOarcCheck: adding checks the rule as oarc check
// would, against the host's compilation set, with a project pack's
// effect limits, and a rejection returns every diagnostic with its code,
// message and position in the when.
func TestSpec12AddChecksAsOarcCheck(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, tc := range []struct {
		name string
		doc  json.RawMessage
		code string
	}{
		{"unknown fact", spec12Doc("S12_A", "block", "x", map[string]any{"when": "tol == 'x'"}), "OAR_UNKNOWN_FACT"},
		{"bare host fact", spec12Doc("S12_A", "block", "x", map[string]any{"when": "repeat_count > 2"}), "OAR_UNKNOWN_FACT"},
		{"not bool", spec12Doc("S12_A", "block", "x", map[string]any{"when": "size(tool)"}), "OAR_CEL_TYPE"},
		{"syntax", spec12Doc("S12_A", "block", "x", map[string]any{"when": "tool == "}), "OAR_CEL_SYNTAX"},
		{"allow", spec12Doc("S12_A", "allow", "x", nil), "OAR_EFFECT"},
		{"transform", spec12Doc("S12_A", "transform", "x", map[string]any{"transform": map[string]any{"redact": []string{"x"}}}), "OAR_EFFECT"},
		{"unknown effect", spec12Doc("S12_A", "deny", "x", nil), "OAR_EFFECT"},
		{"unknown anchor", spec12Doc("S12_A", "block", "x", map[string]any{"anchor": "tool.pre_invok"}), "OAR_ANCHOR"},
		{"plane", spec12Doc("S12_A", "block", "x", map[string]any{"anchor": "compose.done", "requires": nil, "when": "true"}), "OAR_PLANE"},
		{"unknown field", spec12Doc("S12_A", "block", "x", map[string]any{"colour": "red"}), "OAR_UNKNOWN_FIELD"},
		{"bad id", spec12Doc("s12_lower", "block", "x", nil), "OAR_ID"},
		{"compiled id", spec12Doc("A_RM_RF", "block", "x", nil), "OAR_ID"},
		{"missing profile", spec12Doc("S12_A", "block", "x", map[string]any{"requires": nil}), "OAR_REQUIRES"},
		{"unknown rule named", spec12Doc("S12_A", "block", "x", map[string]any{"when": "fire_count_of('NO_SUCH_RULE') > 1"}), "OAR_REF"},
		{"version", spec12Doc("S12_A", "block", "x", map[string]any{"oar": "2.0"}), "OAR_VERSION"},
		{"kind", spec12Doc("S12_A", "block", "x", map[string]any{"kind": "law"}), "OAR_KIND"},
		{"enforcement", spec12Doc("S12_A", "block", "x", map[string]any{"enforcement": "always"}), "OAR_VALUE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rej := spec12Rejected(t, s, tc.doc)
			if !spec12HasCode(rej, tc.code) {
				t.Errorf("want %s among %v", tc.code, rej.Diagnostics)
			}
			for _, d := range rej.Diagnostics {
				if d.Message == "" || d.Code == "" {
					t.Errorf("a diagnostic without code or message: %+v", d)
				}
			}
		})
	}
	if n := len(s.All()); n != 0 {
		t.Errorf("rejected drafts left %d rules in the store", n)
	}
	// A rule the compiled set names is fine, as is one naming a rule of
	// the store.
	spec12Add(t, s, spec12Doc("S12_REF_COMPILED", "warn", "x", map[string]any{"when": "fire_count_of('A_LONG') > 1"}))
	spec12Add(t, s, spec12Doc("S12_REF_STORE", "warn", "x", map[string]any{"when": "fire_count_of('S12_REF_COMPILED') > 1"}))
	// The store's own ids are taken, retired ones too.
	if _, err := s.Retire("S12_REF_STORE", "test"); err != nil {
		t.Fatal(err)
	}
	if rej := spec12Rejected(t, s, spec12Doc("S12_REF_STORE", "block", "y", nil)); !spec12HasCode(rej, "OAR_ID") {
		t.Errorf("an id of the store (retired): %v", rej.Diagnostics)
	}
}

// TestSpec12WhenPositions: a rejected rule's diagnostics are at their
// position in the when: line and column of the offending token, every
// problem, not only the first.
func TestSpec12WhenPositions(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	when := "tool == 'x' &&\n  size(tol) > 2 &&\n    nosuch == 1"
	rej := spec12Rejected(t, s, spec12Doc("S12_POS", "block", "x", map[string]any{"when": when}))
	want := map[string]bool{"2:8": false, "3:5": false}
	for _, d := range rej.Diagnostics {
		if d.Field != "when" {
			continue
		}
		k := fmt.Sprintf("%d:%d", d.Line, d.Col)
		if _, ok := want[k]; ok {
			want[k] = true
			if d.Code != "OAR_UNKNOWN_FACT" {
				t.Errorf("at %s: %s, want OAR_UNKNOWN_FACT", k, d.Code)
			}
			if !strings.Contains(d.Source, "^") {
				t.Errorf("at %s: no caret in %q", k, d.Source)
			}
		}
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("no diagnostic at when:%s among %+v", k, rej.Diagnostics)
		}
	}
	// One line, a token past the start.
	rej = spec12Rejected(t, s, spec12Doc("S12_POS", "block", "x", map[string]any{"when": `tool == "x" && tool_arg_strin("a") == ""`}))
	found := false
	for _, d := range rej.Diagnostics {
		if d.Field == "when" && d.Line == 1 && d.Col == 16 {
			found = true
		}
	}
	if !found {
		t.Errorf("want a diagnostic at when:1:16, got %+v", rej.Diagnostics)
	}
	// A when that starts with white space (laid out for the compiler as
	// a block with an indentation indicator): its positions too.
	for _, tc := range []struct {
		when string
		at   string
	}{
		{"  tol == 'x'", "1:3"},
		{"\ttol == 'x'", "1:2"},
		{" tool == 'x' &&\n  tol == 'x'", "2:3"},
		{"\n  tool == 'x' &&\n   tol == 'x'", "3:4"},
		// A line of white space in the middle (an indented empty line).
		{"tool == 'x' &&\n   \n  tol == 'x'", "3:3"},
		{"tool == 'x' &&\n\t\n  tol == 'x'", "3:3"},
	} {
		rej := spec12Rejected(t, s, spec12Doc("S12_POS", "block", "x", map[string]any{"when": tc.when}))
		var got []string
		for _, d := range rej.Diagnostics {
			got = append(got, d.String())
			if d.Field == "when" && fmt.Sprintf("%d:%d", d.Line, d.Col) == tc.at && strings.Contains(d.Message, "'tol'") {
				got = nil
				break
			}
		}
		if got != nil {
			t.Errorf("when %q: want tol at when:%s, got:\n%s", tc.when, tc.at, strings.Join(got, "\n"))
		}
	}
}

// TestSpec12StatusDecides: a candidate runs in monitor, an active rule
// enforced, whatever the document's enforcement says; a retired rule not
// at all; nothing is promoted by itself.
func TestSpec12StatusDecides(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{Sessions: 1})
	spec12Add(t, s, spec12Doc("S12_ENF", "block", "a", map[string]any{"enforcement": "enforce"}))
	spec12Add(t, s, spec12Doc("S12_MON", "block", "b", map[string]any{"enforcement": "monitor"}))
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		sess := runtime.NewSession(fmt.Sprint("s", i))
		for _, tool := range []string{"a", "b"} {
			d := spec12Eval(t, ev, sess, tool, "")
			if d.Effect == runtime.Block || d.Code != "" || len(d.Monitored) != 1 {
				t.Errorf("candidate at %s: effect %v code %q monitored %v; want a monitored firing only", tool, d.Effect, d.Code, d.Monitored)
			}
		}
	}
	for _, id := range []string{"S12_ENF", "S12_MON"} {
		if info, _ := s.Status(id); info.Record.Status != "candidate" {
			t.Errorf("%s: %s after a ready trial; nothing is promoted by itself", id, info.Record.Status)
		}
		if _, err := s.Promote(id); err != nil {
			t.Fatal(err)
		}
	}
	sess := runtime.NewSession("after")
	for _, c := range []struct{ tool, code string }{{"a", "S12_ENF"}, {"b", "S12_MON"}} {
		d := spec12Eval(t, ev, sess, c.tool, "")
		if d.Effect != runtime.Block || d.Code != c.code || len(d.Monitored) != 0 {
			t.Errorf("active at %s: effect %v code %q monitored %v; want %s enforced", c.tool, d.Effect, d.Code, d.Monitored, c.code)
		}
	}
	if _, err := s.Retire("S12_MON", "too strict"); err != nil {
		t.Fatal(err)
	}
	if d := spec12Eval(t, ev, sess, "b", ""); d.Effect == runtime.Block || len(d.Monitored) != 0 || d.Code != "" {
		t.Errorf("retired: effect %v code %q monitored %v; want nothing", d.Effect, d.Code, d.Monitored)
	}
}

// TestSpec12AfterCompiledRules: store rules run after the compiled rules
// of the anchor, in the same decision (codes in evaluation order).
func TestSpec12AfterCompiledRules(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	spec12Add(t, s, spec12Doc("AA_FIRST", "warn", "bash", nil))
	if _, err := s.Promote("AA_FIRST"); err != nil {
		t.Fatal(err)
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	// A_LONG (nudge, compiled) fires on a long command; AA_FIRST sorts
	// before it by id but is the store's, so it comes after.
	d := spec12Eval(t, ev, runtime.NewSession("s"), "bash", "a command longer than twelve")
	if strings.Join(d.Codes, ",") != "A_LONG,AA_FIRST" {
		t.Errorf("codes %v, want the compiled A_LONG then the store's AA_FIRST", d.Codes)
	}
	// A compiled block ends the occurrence: the store's rule is not
	// evaluated.
	d = spec12Eval(t, ev, runtime.NewSession("s2"), "bash", "rm -rf /")
	if d.Code != "A_RM_RF" || strings.Contains(strings.Join(d.Codes, ","), "AA_FIRST") {
		t.Errorf("after a compiled block: code %q codes %v", d.Code, d.Codes)
	}
}

// TestSpec12CompiledIDSkipped: a store rule whose id is also in the
// compiled set is skipped (it was promoted and compiled).
func TestSpec12CompiledIDSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rules.jsonl")
	// A_TALLY is compiled (a warn at tool.post_invoke); the store's record
	// of it is a block at tool.pre_invoke of every call.
	rec := `{"id":"A_TALLY","created_at":"2026-01-01T00:00:00Z","status":"active","rule":` +
		string(spec12Doc("A_TALLY", "block", "x", map[string]any{"when": "true", "requires": nil})) + "}\n"
	if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	if d := spec12Eval(t, ev, runtime.NewSession("s"), "x", ""); d.Effect == runtime.Block || len(d.Errors) != 0 {
		t.Errorf("the store's A_TALLY ran: effect %v code %q errors %v", d.Effect, d.Code, d.Errors)
	}
	if info, err := s.Status("A_TALLY"); err != nil || !info.Compiled || info.InForce {
		t.Errorf("status: %+v %v; want compiled, not in force", info, err)
	}
}

// TestSpec12Dedup: a rule equivalent to a live one (same anchor, effect,
// selector, and a when equal after parsing and printing) returns the live
// one instead of adding a duplicate; a rule that differs is added.
func TestSpec12Dedup(t *testing.T) {
	s, path := openTemp(t, baseSet(t), rulestore.Options{})
	first := spec12Add(t, s, spec12Doc("S12_ONE", "block", "x", map[string]any{"selector": map[string]any{"tool": []string{"x", "y"}}}))
	before, _ := os.ReadFile(path)
	for _, when := range []string{"(tool == \"x\")", "tool==\"x\"", "tool == 'x'", "tool ==\n  \"x\" // same"} {
		a, err := s.Add(rulestore.Draft{Rule: spec12Doc("S12_TWO", "block", "x", map[string]any{"when": when, "selector": map[string]any{"tool": []string{"y", "x"}}})})
		if err != nil {
			t.Fatalf("%q: %v", when, err)
		}
		if !a.Existing || a.Record.ID != first.ID {
			t.Errorf("%q: added %s (existing %v), want the live S12_ONE", when, a.Record.ID, a.Existing)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("dedup wrote to the store:\n%s", after[len(before):])
	}
	for i, doc := range []json.RawMessage{
		spec12Doc("S12_D1", "warn", "x", map[string]any{"selector": map[string]any{"tool": []string{"x", "y"}}}),
		spec12Doc("S12_D2", "block", "x", map[string]any{"selector": map[string]any{"tool": []string{"x"}}}),
		spec12Doc("S12_D3", "block", "z", map[string]any{"selector": map[string]any{"tool": []string{"x", "y"}}}),
	} {
		if a, err := s.Add(rulestore.Draft{Rule: doc}); err != nil || a.Existing {
			t.Errorf("draft %d differs from S12_ONE: existing %v, %v", i, a.Existing, err)
		}
	}
	// A retired rule is not live: its equivalent is added.
	if _, err := s.Retire("S12_ONE", "r"); err != nil {
		t.Fatal(err)
	}
	if a, err := s.Add(rulestore.Draft{Rule: spec12Doc("S12_AGAIN", "block", "x", map[string]any{"selector": map[string]any{"tool": []string{"x", "y"}}})}); err != nil || a.Existing {
		t.Errorf("the equivalent of a retired rule: existing %v, %v", a.Existing, err)
	}
}

// TestSpec12Cap: at the cap (live rules: candidates and active) adding
// fails with a message telling the agent to retire one first; nothing is
// evicted; a retired rule frees a place.
func TestSpec12Cap(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{Cap: 3})
	for i := range 3 {
		spec12Add(t, s, spec12Doc(fmt.Sprintf("S12_C%d", i), "warn", fmt.Sprint("t", i), nil))
	}
	if _, err := s.Promote("S12_C0"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Add(rulestore.Draft{Rule: spec12Doc("S12_C3", "warn", "t3", nil)})
	var capErr *rulestore.CapError
	if !errors.As(err, &capErr) || !strings.Contains(strings.ToLower(err.Error()), "retire") {
		t.Fatalf("at the cap: %v, want a CapError telling to retire one", err)
	}
	for i := range 3 {
		if info, err := s.Status(fmt.Sprintf("S12_C%d", i)); err != nil || !info.Record.Status.Live() {
			t.Errorf("S12_C%d after the refused add: %+v %v (evicted?)", i, info.Record.Status, err)
		}
	}
	if _, err := s.Status("S12_C3"); !errors.Is(err, rulestore.ErrUnknown) {
		t.Errorf("the refused rule: %v", err)
	}
	if _, err := s.Retire("S12_C0", "room"); err != nil {
		t.Fatal(err)
	}
	spec12Add(t, s, spec12Doc("S12_C3", "warn", "t3", nil))
}

// TestSpec12PromoteRetireRefusals: promotion is of a candidate;
// retirement of a live rule; an unknown id is an error.
func TestSpec12PromoteRetireRefusals(t *testing.T) {
	s, path := openTemp(t, baseSet(t), rulestore.Options{})
	spec12Add(t, s, spec12Doc("S12_P", "warn", "x", nil))
	if _, err := s.Promote("NO_SUCH"); !errors.Is(err, rulestore.ErrUnknown) {
		t.Errorf("promote an unknown id: %v", err)
	}
	if _, err := s.Retire("NO_SUCH", "r"); !errors.Is(err, rulestore.ErrUnknown) {
		t.Errorf("retire an unknown id: %v", err)
	}
	if _, err := s.Promote("A_RM_RF"); err == nil {
		t.Errorf("promote a compiled rule the store does not hold: no error")
	}
	if _, err := s.Promote("S12_P"); err != nil {
		t.Fatal(err)
	}
	n := spec12Lines(t, path)
	if _, err := s.Promote("S12_P"); err == nil {
		t.Errorf("promote an active rule again: no error")
	}
	if _, err := s.Retire("S12_P", "obsolete"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote("S12_P"); err == nil {
		t.Errorf("promote a retired rule: no error")
	}
	if _, err := s.Retire("S12_P", "again"); err == nil {
		t.Errorf("retire a retired rule: no error")
	}
	if got := spec12Lines(t, path); got != n+1 {
		t.Errorf("%d lines after one retirement and three refusals, want %d", got, n+1)
	}
	info, _ := s.Status("S12_P")
	if info.Record.Status != "retired" || info.Record.Reason != "obsolete" || info.InForce {
		t.Errorf("after retirement: %+v", info)
	}
}

func spec12Lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestSpec12AppendOnly: every status change appends a record; the lines
// before are never rewritten; the last record of an id wins on reopening.
func TestSpec12AppendOnly(t *testing.T) {
	set := baseSet(t)
	s, path := openTemp(t, set, rulestore.Options{})
	spec12Add(t, s, spec12Doc("S12_AO", "block", "x", nil))
	spec12Add(t, s, spec12Doc("S12_AO2", "block", "y", nil))
	b1, _ := os.ReadFile(path)
	if _, err := s.Promote("S12_AO"); err != nil {
		t.Fatal(err)
	}
	b2, _ := os.ReadFile(path)
	if _, err := s.Retire("S12_AO2", "no"); err != nil {
		t.Fatal(err)
	}
	b3, _ := os.ReadFile(path)
	if !bytes.HasPrefix(b2, b1) || !bytes.HasPrefix(b3, b2) || bytes.Count(b3, []byte("\n")) != 4 {
		t.Fatalf("not appended one line per change:\n%s", b3)
	}
	for i, l := range bytes.Split(bytes.TrimSpace(b3), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, k := range []string{"id", "status", "rule", "created_at"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %s: %s", i+1, k, l)
			}
		}
		if ts, _ := m["created_at"].(string); !strings.HasSuffix(ts, "Z") {
			t.Errorf("line %d: created_at %q not UTC", i+1, ts)
		}
	}
	s.Close()
	s2, err := rulestore.Open(path, set, rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for id, want := range map[string]rulestore.Status{"S12_AO": "active", "S12_AO2": "retired"} {
		if info, err := s2.Status(id); err != nil || info.Record.Status != want {
			t.Errorf("%s after reopening: %v %v, want %s", id, info.Record.Status, err, want)
		}
	}
	// A hand-appended record changes the state: the last one wins.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, `{"id":"S12_AO","created_at":"2026-01-02T00:00:00Z","status":"retired","reason":"by hand","rule":%s}`+"\n", spec12Doc("S12_AO", "block", "x", nil))
	f.Close()
	if err := s2.Reload(); err != nil {
		t.Fatal(err)
	}
	if info, _ := s2.Status("S12_AO"); info.Record.Status != "retired" || info.InForce {
		t.Errorf("after a later record retired it: %+v", info)
	}
}
