package rulestore_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/rulestore"
)

// Spec 12: "A rule equivalent to a live one ... returns the live one
// instead of adding a duplicate". An agent that adds the same rule twice
// (same document, same id: the commonest duplicate) gets the live rule
// back, not a rejection for its own id.
func TestReviewSpecBDedupSameID(t *testing.T) {
	s, path := openTemp(t, baseSet(t), rulestore.Options{})
	d := doc("SAME_RULE", `tool == "bash" && tool_arg_string("command").contains("--force")`)
	first, err := s.Add(rulestore.Draft{Rule: d})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Add(rulestore.Draft{Rule: d})
	if err != nil {
		t.Fatalf("adding the same rule again: %v, want the live one", err)
	}
	if !got.Existing || got.Record.ID != "SAME_RULE" || got.Record.CreatedAt != first.Record.CreatedAt {
		t.Errorf("%+v, want the live SAME_RULE", got)
	}
	// The same id with another meaning is still a duplicate id.
	if _, err := s.Add(rulestore.Draft{Rule: doc("SAME_RULE", `tool == "bash"`)}); err == nil || !strings.Contains(err.Error(), "SAME_RULE") {
		t.Errorf("another rule under a live id: %v, want a rejection", err)
	}
	_ = path
}

// Spec 12: id, status, rule and created_at are required: a line whose
// created_at is null (or not RFC 3339) is not a record.
func TestReviewSpecBCreatedAtRequired(t *testing.T) {
	for _, ca := range []string{`null`, `"2026-01-02"`, `"yesterday"`, `0`} {
		line := strings.Replace(record("NULL_TIME", "active", `tool == "bash"`, ""), `"2026-01-02T03:04:05Z"`, ca, 1) + "\n"
		var warn bytes.Buffer
		s, err := rulestore.New("rules.jsonl", strings.NewReader(line), &bytes.Buffer{}, baseSet(t), rulestore.Options{Warn: &warn})
		if err != nil {
			t.Fatal(err)
		}
		if got := statuses(s); got != "" {
			t.Errorf("created_at %s: the line loaded as a record (%s)", ca, got)
		}
		if !strings.HasPrefix(warn.String(), "rules.jsonl:1: error: ") {
			t.Errorf("created_at %s: reported %q", ca, warn.String())
		}
	}
}

// Spec 12: a rejection gives each diagnostic's position in the rule's
// `when`; columns count characters (docs/choices-frontend.md), also after
// non-ASCII text and in a `when` that YAML would have to quote.
func TestReviewSpecBWhenColumns(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, c := range []struct {
		when      string
		line, col int
	}{
		{`tool == "été" && tool_argz == 1`, 1, 18},
		{"tool == \"a: b # c\" &&\n  \"ü\" == \"ü\" && tool_argz == 1", 2, 17},
		{"'x' == tool\n\n&& tool_argz", 3, 4},
	} {
		_, err := s.Add(rulestore.Draft{Rule: doc("COLS", c.when)})
		var rej *rulestore.RejectedError
		if !errors.As(err, &rej) {
			t.Fatalf("%q: %v", c.when, err)
		}
		found := false
		for _, d := range rej.Diagnostics {
			if d.Field == "when" && d.Code == "OAR_UNKNOWN_FACT" {
				found = true
				if d.Line != c.line || d.Col != c.col {
					t.Errorf("%q: when:%d:%d, want when:%d:%d\n%s", c.when, d.Line, d.Col, c.line, c.col, rej.Error())
				}
			}
		}
		if !found {
			t.Errorf("%q: no OAR_UNKNOWN_FACT in the when:\n%s", c.when, rej.Error())
		}
	}
}

// Spec 12 with spec 9: a rule the agent writes is checked against the
// catalog of the set the host runs (acme's), not the default one.
func TestReviewSpecBHostCatalog(t *testing.T) {
	set, ds := compiler.Load([]string{"../examples/acme/rules"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	s, _ := openTemp(t, set, rulestore.Options{})
	rule := func(id, anchor, effect, when string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"oar": "1.0", "id": id, "kind": "policy", "anchor": anchor, "effect": effect,
			"when": when, "copy": map[string]any{"title": "Rule " + id}})
		return b
	}
	if _, err := s.Add(rulestore.Draft{Rule: rule("ACME_OK", "git.pre_push", "block", `acme.push_forced && acme.push_target == "main"`)}); err != nil {
		t.Errorf("a rule of acme's catalog: %v", err)
	}
	for _, c := range []struct {
		rule json.RawMessage
		code string
	}{
		{rule("ACME_LYCAON", "tool.pre_invoke", "block", `lycaon.repeat_count > 3`), "OAR_UNKNOWN_FACT"},
		{rule("ACME_ANCHOR", "content.tool_result", "block", `true`), "OAR_ANCHOR"},
		{rule("ACME_PLANE", "tool.post_invoke", "block", `acme.repo_dirty`), "OAR_PLANE"},
		{rule("ACME_FUNC", "tool.pre_invoke", "block", `acme.branch_protected(1)`), "OAR_CEL_TYPE"},
	} {
		_, err := s.Add(rulestore.Draft{Rule: c.rule})
		var rej *rulestore.RejectedError
		if !errors.As(err, &rej) {
			t.Errorf("%s: %v, want a rejection", c.rule, err)
			continue
		}
		found := false
		for _, d := range rej.Diagnostics {
			found = found || d.Code == c.code
		}
		if !found {
			t.Errorf("%s: want %s:\n%s", c.rule, c.code, rej.Error())
		}
	}
}

// A record's members are read by their exact names: "Status" beside
// "status" does not decide the rule's status. Since rvV such a line is
// not a record at all (reported, skipped: TestReviewRvVAmbiguousLines):
// encoding/json reads "Status" as the status, a reader that matches
// names exactly ignores it, so the line means one thing to one reader
// and another to the next.
func TestReviewSpecBRecordMemberSpelling(t *testing.T) {
	line := strings.Replace(record("SPELT", "candidate", `tool == "bash"`, ""), `"status":"candidate"`, `"status":"candidate","Status":"active","ID":"OTHER"`, 1) + "\n"
	s, err := rulestore.New("rules.jsonl", strings.NewReader(line), &bytes.Buffer{}, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(s); got != "" {
		t.Errorf("statuses %q, want none", got)
	}
	if p := s.Problems(); len(p) != 1 || p[0].Line != 1 || !strings.Contains(p[0].Msg, "in another case") {
		t.Errorf("problems %v, want line 1 reported", p)
	}
}

// Spec 12: active store rules render "like compiled rules": with a hint
// they are ranked with the compiled rules and take top-k places; monitored
// (candidate) rules always render and take none.
func TestReviewSpecBRenderHint(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	add := func(id, tool, title string) {
		rule := json.RawMessage(`{"oar":"1.0","id":"` + id + `","kind":"policy","anchor":"tool.pre_invoke","effect":"block","selector":{"tool":"` + tool + `"},"requires":{"profiles":["tool"]},"when":"true","copy":{"title":"` + title + `"}}`)
		if _, err := s.Add(rulestore.Draft{Rule: rule}); err != nil {
			t.Fatal(err)
		}
	}
	add("B_DOCKER", "docker", "No privileged containers")
	add("B_KUBECTL", "kubectl", "No deletes in production")
	if _, err := s.Promote("B_DOCKER"); err != nil {
		t.Fatal(err)
	}
	out := s.Context("docker containers", 1)
	if !strings.Contains(out, "- **B_DOCKER**: No privileged containers") {
		t.Errorf("the active rule that matches the hint best is not rendered:\n%s", out)
	}
	if strings.Contains(out, "A_RM_RF") {
		t.Errorf("k=1 rendered a second ranked rule:\n%s", out)
	}
	if !strings.Contains(out, "- **B_KUBECTL**: No deletes in production (trial: 0/5 sessions)") {
		t.Errorf("the candidate is not rendered:\n%s", out)
	}
	if !strings.HasSuffix(strings.TrimRight(out, "\n"), "(1 more rules not shown)") {
		t.Errorf("want the count of rules left out last:\n%s", out)
	}
	t.Log(out)
}
