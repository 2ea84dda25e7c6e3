package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewSpecD runs the packs of the spec-conformance review of
// sections 1-3, 5.2, 5.5, 5.6, 5.8, 6 and 9 (testdata/review_specD) with
// oarc test, on both engines: selector lists over list(string), int and
// host facts, and clauses absorbing an unsupplied profile (5.2); the
// order of indexed rules; detector facts replacing the host's only for
// the detector's rules (5.5); transform spans in code points of non-ASCII
// content, clipped from extreme ints, merged across rules with the first
// rule's replacement (5.6); deny by default across two packs of a set,
// at an anchor without rules, against monitored and failed-closed allows
// (5.8); wrong dynamic types in tool_args (6); and host catalogs with
// renamed anchors and facts, and host span facts (9).
func TestReviewSpecD(t *testing.T) {
	for _, set := range [][]string{
		{"sel"}, {"sa"}, {"ix"}, {"t1"}, {"dt"}, {"nr"}, {"wt"},
		{"x1", "x2"}, {"hostspans/pk"}, {"oddcat/pk"},
	} {
		args := []string{"test"}
		for _, p := range set {
			args = append(args, filepath.Join("testdata", "review_specD", p))
		}
		var out, errb bytes.Buffer
		code := Run(args, strings.NewReader(""), &out, &errb)
		if code != 0 || !strings.Contains(out.String(), " passed, 0 failed") || strings.Contains(out.String(), " 0 passed") {
			t.Errorf("oarc %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
	}
}
