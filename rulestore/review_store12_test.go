package rulestore_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"cel.dev/cel-go/common/types"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// selectorDoc is a block rule at tool.pre_invoke with the given selector
// (and the tool profile), failing open.
func selectorDoc(id string, sel map[string]any) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"oar": "1.0", "id": id, "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
		"on_error": "fail_open", "requires": map[string]any{"profiles": []string{"tool"}}, "selector": sel,
		"copy": map[string]any{"title": "Rule " + id}})
	return b
}

// TestStore12SelectorOnCounters: a store rule whose selector reads the
// core facts fire_count or breaker_count (spec 5.2: a key names a fact of
// type int, core facts included) reads them from the occurrence's
// snapshot, as its when would. Before, the counters a rule reads were
// gathered from its when only: the selector's read was an error of kind
// store at every occurrence ("counter X.fire is not in the occurrence's
// snapshot"), so a fail_open block rule never blocked (a silent allow)
// and a fail_closed one blocked every call.
func TestStore12SelectorOnCounters(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, d := range []json.RawMessage{
		selectorDoc("S12_FIRE", map[string]any{"fire_count": []int{0, 1}, "tool": "x"}),
		selectorDoc("S12_BREAKER", map[string]any{"breaker_count": 0, "tool": "z"}),
	} {
		a, err := s.Add(rulestore.Draft{Rule: d})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Promote(a.Record.ID); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	sess := runtime.NewSession("s")
	// fire_count is 0, 1, then 2: the third call of x is not selected.
	for i, c := range []struct {
		tool string
		code string
	}{{"x", "S12_FIRE"}, {"x", "S12_FIRE"}, {"x", ""}, {"z", "S12_BREAKER"}} {
		var d runtime.Decision
		ev.Evaluate(context.Background(), &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: c.tool}}, sess, &d)
		if len(d.Errors) != 0 || d.Code != c.code {
			t.Errorf("call %d of %s: code %q, errors %v; want code %q and no error", i+1, c.tool, d.Code, d.Errors, c.code)
		}
	}
}

// TestStore12SelectorOnCodeRejectTotal: a store rule whose selector
// reads lycaon.code_reject_total (an int fact the engine keeps) reads the
// session's count of its code. Before, only a when that read it made the
// store count it: the selector read a zero whatever the session held, so
// a rule meant for the first rejection only blocked every call.
func TestStore12SelectorOnCodeRejectTotal(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	a, err := s.Add(rulestore.Draft{Rule: selectorDoc("S12_FIRST", map[string]any{"lycaon.code_reject_total": 0, "tool": "x"})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote(a.Record.ID); err != nil {
		t.Fatal(err)
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	sess := runtime.NewSession("s")
	for i, want := range []string{"S12_FIRST", ""} {
		var d runtime.Decision
		ev.Evaluate(context.Background(), &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: "x"}}, sess, &d)
		if len(d.Errors) != 0 || d.Code != want {
			t.Errorf("call %d: code %q, errors %v; want code %q and no error", i+1, d.Code, d.Errors, want)
		}
	}
}

// TestStore12MissingFieldIsTheDocuments: a required field the draft
// lacks (oar too) is reported on the rule, not on whatever field the
// laid-out document starts with. Before, the compiler's position of the
// document (its first key) was taken for that key's: "rule.copy: missing
// required field anchor", "rule.id: missing oar", or "when:..." for a
// draft of a when alone.
func TestStore12MissingFieldIsTheDocuments(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	for _, draft := range []string{
		`{"copy":{"title":"T"},"effect":"block","id":"S12_NOANCHOR","kind":"policy","oar":"1.0","when":"tool == \"a\""}`,
		`{"id":"S12_NOOAR","anchor":"tool.pre_invoke","effect":"block","kind":"policy","when":"tool == \"a\""}`,
		`{"when":"tool == \"a\""}`,
	} {
		_, err := s.Add(rulestore.Draft{Rule: json.RawMessage(draft)})
		var rej *rulestore.RejectedError
		if !errors.As(err, &rej) {
			t.Fatalf("%s: %v, want a rejection", draft, err)
		}
		n := 0
		for _, d := range rej.Diagnostics {
			if d.Code != "OAR_MISSING_FIELD" && d.Code != "OAR_VERSION" {
				continue
			}
			n++
			if d.Field != "" || d.Line != 0 {
				t.Errorf("%s: %s: placed at field %q line %d, want the rule", draft, d.Message, d.Field, d.Line)
			}
		}
		if n == 0 {
			t.Errorf("%s: no OAR_MISSING_FIELD in %v", draft, rej.Diagnostics)
		}
	}
}

// TestStore12HostValuesOfCELTypes: a host may put cel-go's own values in
// tool_args (a value it took from another CEL evaluation). They are read
// by the rule of docs/cel-semantics.md ("Host values") as cel-go reads
// them: its null, bool, int, uint, double and string as those values, in
// a list or a map too, and its bytes, timestamps, durations and other
// values, which the code generator does not support, as the error
// "unsupported value", in both engines. Before, the store's rules took
// every cel-go value as it was (a size of bytes, a timestamp compared),
// where the compiled rule failed as its on_error says: a rule that blocks
// or warns failing closed did nothing once in the store; and the
// compiled rule read cel-go's null as the int 0.
func TestStore12HostValuesOfCELTypes(t *testing.T) {
	diffHostileValues(t, []any{
		types.Bytes("sudo"), types.NullValue, types.Timestamp{Time: time.Unix(0, 0)}, types.Duration{Duration: time.Second},
		types.Int(4), types.Uint(3), types.Double(math.NaN()), types.String("sudo ls"), types.True,
		[]any{types.Bytes("x")}, []any{types.NullValue, types.Int(1)}, map[string]any{"count": types.Int(9)},
		map[string]any{"count": types.NullValue}, types.NewErr("planted"),
	})
}

// TestStore12Reads: the generated Reads(anchor) says what the compiled
// rules read, and docs/hosts.md lets a host fill only that. A store's
// rules are rules of the anchor too: Store.Reads says what they read, so
// that such a host fills it. Before, nothing did: a host that filled
// what Reads listed left the facts only an active store rule read at
// their zero, and the rule never blocked (a silent allow).
func TestStore12Reads(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	b, _ := json.Marshal(map[string]any{"oar": "1.0", "id": "S12_LONG", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
		"requires": map[string]any{"profiles": []string{"tool", "content-safety", "filesystem"}}, "selector": map[string]any{"tool": "x"},
		"when": `content_length > 10 && path_outside_scope(tool_arg_string("p")) && fire_count_of("A_TALLY") < 3`, "copy": map[string]any{"title": "Long"}})
	a, err := s.Add(rulestore.Draft{Rule: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote(a.Record.ID); err != nil {
		t.Fatal(err)
	}
	got := s.Reads(lycaon.ToolPreInvoke.String())
	want := runtime.Reads{Facts: []string{"content_length", "tool", "tool_args"}, Functions: []string{"path_outside_scope"}, Counters: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Reads: %+v, want %+v", got, want)
	}
	if got := s.Reads(lycaon.ToolPostInvoke.String()); !reflect.DeepEqual(got, runtime.Reads{}) {
		t.Errorf("Reads at an anchor without store rules: %+v", got)
	}
}

// TestStore12EmptyRule: a draft whose rule is the empty object is told
// which fields it lacks. Before, the rule was laid out as no text at
// all, and the rejection spoke of an empty file the agent never wrote.
func TestStore12EmptyRule(t *testing.T) {
	s, _ := openTemp(t, baseSet(t), rulestore.Options{})
	_, err := s.Add(rulestore.Draft{Rule: json.RawMessage(`{}`)})
	var rej *rulestore.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("%v, want a rejection", err)
	}
	missing := map[string]bool{}
	for _, d := range rej.Diagnostics {
		if d.Code == "OAR_MISSING_FIELD" {
			missing[d.Message] = true
		}
	}
	if !missing[`missing required field "id"`] || !missing[`missing required field "anchor"`] {
		t.Errorf("rejection: %v; want the missing fields named", err)
	}
}
