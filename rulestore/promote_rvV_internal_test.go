package rulestore

import (
	"strings"
	"testing"
	"time"
)

// TestReviewRvVRuleFileReadsBack: the rule file RuleFile makes reads
// back as the record's rule with enforcement: enforce (readsBack), and a
// text that does not (a value changed, a member lost or added, a number
// read as a string) is refused.
func TestReviewRvVRuleFileReadsBack(t *testing.T) {
	rec := Record{ID: "X_Y", CreatedAt: time.Now(), Status: Active,
		Rule: []byte(`{"oar":"1.0","id":"X_Y","kind":"policy","anchor":"tool.pre_invoke","effect":"block","enforcement":"monitor","when":"a\nb","copy":{"title":"t"}}`)}
	text, err := RuleFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := readsBack(rec, text); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"a value", "title: t", "title: u", `member "copy" reads`},
		{"a member lost", "copy:\n  title: t\n", "", "members, the record's rule has"},
		{"a member added", "copy:", "breaker: x\ncopy:", "members, the record's rule has"},
		{"a type", "title: t", "title: 1", `member "copy" reads`},
		{"enforcement", "enforcement: enforce", "enforcement: monitor", `member "enforcement" reads`},
		{"when", "  a\n  b\n", "  a\n  c\n", `member "when" reads`},
	} {
		bad := strings.Replace(string(text), c.from, c.to, 1)
		if bad == string(text) {
			t.Fatalf("%s: %q not in\n%s", c.name, c.from, text)
		}
		if err := readsBack(rec, []byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestReviewRvVRuleFileComment: a rationale or source that holds a line
// break (a record edited by hand: Add sanitises them) stays inside the
// file's head comment. U+2028 in the comment made the layout fail (and,
// with a multi-line when, compiler.Format panic).
func TestReviewRvVRuleFileComment(t *testing.T) {
	for _, s := range []string{"s\u2028t", "s\u0085t", "s\nwhen: 'true'", "s\rend: x"} {
		rec := Record{ID: "X_Y", CreatedAt: time.Now(), Status: Active, Source: s, Rationale: s,
			Rule: []byte(`{"oar":"1.0","id":"X_Y","kind":"policy","anchor":"tool.pre_invoke","effect":"block","when":"a\nb"}`)}
		text, err := RuleFile(rec)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		head, _, _ := strings.Cut(string(text), "oar:")
		if n := strings.Count(head, "\n"); n != 3 {
			t.Errorf("%q: a head comment of %d lines:\n%s", s, n, text)
		}
	}
}
