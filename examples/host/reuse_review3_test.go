package main

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oarc/oarc/examples/host/rules"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// fillAll sets every exported field reachable in v to a value that is
// not its zero, as a host that wrote into a decision between two
// evaluations might: slices of one element (and of none, with room for
// more), pointers to filled values, negative numbers.
func fillAll(v reflect.Value, emptyCap bool) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), emptyCap)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 4)
		fillAll(s.Index(0), emptyCap)
		if emptyCap {
			s = s.Slice(0, 0)
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(p.Elem(), emptyCap)
		v.Set(p)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fillAll(v.Index(i), emptyCap)
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(-1)
	case reflect.String:
		v.SetString("stale")
	case reflect.Interface:
		v.Set(reflect.ValueOf("stale"))
	}
}

// TestDecisionReuse: a decision the host wrote into, every field of it,
// gives the next evaluation exactly what a new decision gets, at anchors
// with rules (firing or not, counters and the engine-kept facts moving)
// and at an anchor without rules.
func TestDecisionReuse(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	occs := []lycaon.Occurrence{{Anchor: lycaon.PhaseAdvanced, Content: "no rules here"}}
	for _, c := range calls() {
		occs = append(occs, c.occ, lycaon.Occurrence{Anchor: lycaon.PhaseAdvanced})
	}
	fresh, reused := runtime.NewSession("fresh"), runtime.NewSession("reused")
	var d runtime.Decision
	opts := []cmp.Option{cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(runtime.Decision{}, runtime.KeptFacts{})}
	for i := range occs {
		for _, emptyCap := range []bool{false, true} {
			var want runtime.Decision
			occ := occs[i]
			if err := ev.Evaluate(context.Background(), &occ, fresh, &want); err != nil {
				t.Fatal(err)
			}
			fillAll(reflect.ValueOf(&d).Elem(), emptyCap)
			occ = occs[i]
			if err := ev.Evaluate(context.Background(), &occ, reused, &d); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, d, opts...); diff != "" {
				t.Errorf("occurrence %d (%s, filled with empty slices %v): a reused decision differs from a new one (-new +reused):\n%s", i, occ.Anchor, emptyCap, diff)
			}
		}
	}
}

// TestCheckDecisionReuse: the same for the decisions of checks (spec
// 5.11), batch_tools included.
func TestCheckDecisionReuse(t *testing.T) {
	ev, err := rules.New(demoEnv())
	if err != nil {
		t.Fatal(err)
	}
	var tools []lycaon.Occurrence
	for _, c := range calls() {
		if c.occ.Anchor == lycaon.ToolPreInvoke {
			tools = append(tools, c.occ)
		}
	}
	checks := [][]lycaon.Occurrence{{{Anchor: lycaon.PhaseAdvanced}, {Anchor: lycaon.PhaseAdvanced, Content: "x"}}}
	for i := 0; i+2 < len(tools); i += 2 {
		checks = append(checks, tools[i:i+3])
	}
	fresh, reused := runtime.NewSession("fresh"), runtime.NewSession("reused")
	ds := make([]runtime.Decision, 3)
	opts := []cmp.Option{cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(runtime.Decision{}, runtime.KeptFacts{})}
	for i, c := range checks {
		want := make([]runtime.Decision, len(c))
		if err := ev.EvaluateCheck(context.Background(), append([]lycaon.Occurrence(nil), c...), fresh, want); err != nil {
			t.Fatal(err)
		}
		got := ds[:len(c)]
		for j := range got {
			fillAll(reflect.ValueOf(&got[j]).Elem(), j%2 == 0)
		}
		if err := ev.EvaluateCheck(context.Background(), append([]lycaon.Occurrence(nil), c...), reused, got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Errorf("check %d: reused decisions differ from new ones (-new +reused):\n%s", i, diff)
		}
	}
}
