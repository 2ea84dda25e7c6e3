package rulestore_test

import (
	"errors"
	"strings"
	"testing"

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
