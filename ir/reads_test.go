package ir_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/ir"
)

// TestSessionReads lists the counters a rule reads, each once in the
// order they are met (selector first, then when, comprehension bodies
// included), and whether it reads code_reject_total, in its when or its
// selector alone.
func TestSessionReads(t *testing.T) {
	for _, tc := range []struct {
		name, selector, when string
		want                 []ir.CounterRef
		crt                  bool
	}{
		{"when", ``, `fire_count > 1 || breaker_count_of("R") > 2 || fire_count_of("R") > 3 || lycaon.code_reject_total > 0`,
			[]ir.CounterRef{{Rule: "R", Counter: ir.Fire}, {Rule: "R", Counter: ir.Breaker}}, true},
		{"selector", `"selector":{"breaker_count":[0],"lycaon.code_reject_total":[2]},`, `true`,
			[]ir.CounterRef{{Rule: "R", Counter: ir.Breaker}}, true},
		{"comprehension", ``, `[1, 2].exists(x, fire_count_of("R") > x)`,
			[]ir.CounterRef{{Rule: "R", Counter: ir.Fire}}, false},
		{"none", ``, `size("abc") > 2`, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"oar":"1.0","id":"R","kind":"policy","anchor":"tool.pre_invoke","effect":"block",` + tc.selector + `"when":` + strconv.Quote(tc.when) + `}`
			set, ds := compiler.LoadRuleDoc("r.json", []byte(doc), "", compiler.Options{})
			if ds.HasErrors() {
				t.Fatal(ds.Text())
			}
			got, crt := ir.SessionReads(compiler.Build(set).Rules[0])
			if diff := cmp.Diff(tc.want, got); diff != "" || crt != tc.crt {
				t.Errorf("code_reject_total %v, want %v; counters (-want +got):\n%s", crt, tc.crt, diff)
			}
		})
	}
}
