package compiler

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oarc/oarc/runtime"
)

// TestFlowWithinLimit: the engine keeps 64 tool names, so spec 5.4 makes a
// flow.within above 64 OAR_FLOW; 64 itself loads.
func TestFlowWithinLimit(t *testing.T) {
	for _, tc := range []struct {
		within int
		want   []string
	}{
		{64, nil},
		{65, []string{CodeFlow}},
		{1000, []string{CodeFlow}},
	} {
		doc := fmt.Sprintf("oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nflow: {sequence: [a], within: %d}\n", tc.within)
		_, diags := LoadRuleDoc("A.yaml", []byte(doc), "project", Options{})
		var got []string
		if diags.HasErrors() {
			got = diags.Codes()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("within %d: codes (-want +got):\n%s\n%s", tc.within, diff, diags.Text())
		}
	}
}

// TestFlowWithinIsRecentLimit: the compiler's bound is the runtime's.
func TestFlowWithinIsRecentLimit(t *testing.T) {
	if MaxFlowWithin != runtime.RecentLimit {
		t.Errorf("MaxFlowWithin = %d, runtime.RecentLimit = %d", MaxFlowWithin, runtime.RecentLimit)
	}
}
