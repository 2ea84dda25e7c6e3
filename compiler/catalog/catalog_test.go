package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/testkit/shared"
)

// TestMatchesShared checks the project's copy of the catalog against the
// files extracted from the OAR page, row for row.
func TestMatchesShared(t *testing.T) {
	dir := shared.Dir(t, "catalog")
	for name, ours := range Raw() {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		got := strings.Split(strings.TrimRight(ours, "\n"), "\n")
		if len(got) != len(want) {
			t.Errorf("%s: %d rows, shared has %d", name, len(got), len(want))
		}
		for i := 0; i < len(got) && i < len(want); i++ {
			if got[i] != want[i] {
				t.Errorf("%s row %d differs:\n ours:   %q\n shared: %q", name, i+1, got[i], want[i])
			}
		}
	}
}

func TestCounts(t *testing.T) {
	c := Default()
	// The OAR page's 148 facts (of every tier but oarc's) and oarc's eight
	// (provenance, batch_tools, tenant, content).
	oar, oarc := 0, 0
	for _, f := range c.Facts {
		if f.Tier == Oarc {
			oarc++
		} else {
			oar++
		}
	}
	if len(c.Anchors) != 62 || oar != 148 || oarc != 8 || len(c.Functions) != 23 {
		t.Fatalf("got %d anchors, %d+%d facts, %d functions; want 62, 148+8, 23", len(c.Anchors), oar, oarc, len(c.Functions))
	}
	if f := c.Fact("lycaon.tool_is_state"); f == nil || f.Type != Bool || f.Tier != Host {
		t.Errorf("lycaon.tool_is_state = %+v", f)
	}
	if c.Fact("tool_is_state") != nil {
		t.Errorf("bare host fact must not resolve")
	}
	if got := c.HostSpelling("tool_is_state"); got != "lycaon.tool_is_state" {
		t.Errorf("HostSpelling = %q", got)
	}
	if f := c.Function("tool_arg_string"); f == nil || f.Provider || f.Profile != "tool" {
		t.Errorf("tool_arg_string = %+v", f)
	}
	if f := c.Function("lycaon.source_includes"); f == nil || !f.Provider {
		t.Errorf("lycaon.source_includes = %+v", f)
	}
	if a := c.Anchor("tool.pre_invoke"); a == nil || !a.HasPlane("block") || !a.HasPlane("transform") || a.HasPlane("inform") {
		t.Errorf("tool.pre_invoke = %+v", a)
	}
}

func TestParseRejectsBadData(t *testing.T) {
	raw := Raw()
	for _, tc := range []struct{ name, anchors, facts, funcs string }{
		{"bad header", "x\n", raw["facts.tsv"], raw["functions.tsv"]},
		{"bad type", raw["anchors.tsv"], raw["facts.tsv"] + "x\tweird\tcore\t\td\ts\n", raw["functions.tsv"]},
		{"bad host ns", raw["anchors.tsv"], raw["facts.tsv"] + "x\tint\thost\tother.x\td\ts\n", raw["functions.tsv"]},
		{"dup fact", raw["anchors.tsv"], raw["facts.tsv"] + "tool\tstring\tstandard\ttool\td\ts\n", raw["functions.tsv"]},
	} {
		if _, err := Parse(tc.anchors, tc.facts, tc.funcs); err == nil {
			t.Errorf("%s: Parse succeeded", tc.name)
		}
	}
}
