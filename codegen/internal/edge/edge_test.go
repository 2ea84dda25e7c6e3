package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/oarc/oarc/codegen/internal/edgecases"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/celdiff"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// TestGeneratedIsFresh fails when rules_oarc.go is not what the generator
// produces now (run go generate ./codegen/internal/edge).
func TestGeneratedIsFresh(t *testing.T) {
	want, err := edgecases.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("rules_oarc.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("rules_oarc.go is stale: run go generate ./codegen/internal/edge")
	}
}

// factSets are the inputs every expression is evaluated on.
func factSets() map[string]*lycaon.Facts {
	rich := &lycaon.Facts{
		Tool: "bash",
		ToolArgs: map[string]any{
			"n": int64(3), "d": 2.5, "s": "hello", "b": true, "nan": math.NaN(), "big": 1e19,
			"u": "aéb", "bad": "\xff\xfe", "list": []any{int64(1), int64(2), int64(3)},
			"map": map[string]any{"a": int64(1)}, "mixed": []any{int64(1), "a", nil}, "nul": nil,
			"pat": "l+", "badpat": "(", "zero": int64(0), "min": int64(math.MinInt64), "whole": 4.0, "key": "n",
			"l": []any{"a", true}, "m": map[string]any{},
		},
		PrincipalRoles: []string{"developer", "reader"},
		SecretMatches: []map[string]any{
			{"kind": "generic_hex", "score": 0.31},
			{"kind": "aws", "score": 0.9},
		},
		PromptInjectionScore: 0.5,
	}
	rich.Lycaon.FruitlessSearchRun = 3
	odd := &lycaon.Facts{
		ToolArgs: map[string]any{
			"n": "3", "d": "x", "s": int64(5), "b": "yes", "nan": "nan", "big": -1e300,
			"u": []any{}, "bad": nil, "list": "notalist", "map": []any{"a"}, "mixed": map[string]any{},
			"pat": int64(1), "badpat": "[", "zero": 0.0, "min": 1.5, "whole": 4.5, "key": int64(1),
			"l": []any{"a", false}, "m": map[string]any{"k": nil},
		},
		SecretMatches:        []map[string]any{{"score": "high"}, {}},
		PromptInjectionScore: math.Inf(1),
	}
	odd.Lycaon.TurnTools = []string{"a"}
	// Values the rule does not read ([]byte: bytes), where keys are
	// evaluated.
	unread := &lycaon.Facts{
		ToolArgs: map[string]any{"bytes": []byte{0xff}, "nested": map[string]any{"bytes": []byte("a")}, "bkey": "bytes", "zero": int64(0)},
	}
	return map[string]*lycaon.Facts{"rich": rich, "empty": {}, "odd": odd, "unread": unread}
}

// oracle evaluates the edge pack with the reference engine
// (testkit/reference: each rule's when run by cel-go, host values read by
// the rule of docs/cel-semantics.md) over the same facts.
type oracle struct{ ref *reference.Engine }

func newOracle(t testing.TB) *oracle {
	set, err := edgecases.Pack()
	if err != nil {
		t.Fatal(err)
	}
	e, err := reference.New(set)
	if err != nil {
		t.Fatal(err)
	}
	return &oracle{ref: e}
}

// outcomes evaluates the facts: every rule's outcome by id.
func (o *oracle) outcomes(facts *lycaon.Facts) map[string]outcome {
	resp := o.ref.Evaluate(&wire.Request{Anchor: "tool.pre_invoke", Facts: activation(facts)}, nil)
	got := map[string]outcome{}
	for _, c := range resp.Codes {
		got[c] = outcome{fired: true}
	}
	for _, e := range resp.Errors {
		got[e.Rule] = outcome{err: kindByName[e.Kind]}
	}
	return got
}

var kindByName = func() map[string]runtime.ErrKind {
	m := map[string]runtime.ErrKind{}
	for k := runtime.ErrKind(0); k < 64; k++ {
		m[wire.KindName(k)] = k
	}
	return m
}()

func activation(f *lycaon.Facts) map[string]any {
	act := map[string]any{}
	for _, fact := range catalog.Default().Facts {
		if v, ok := f.Get(fact.CELName); ok {
			act[fact.CELName] = v
		}
	}
	return act
}

type outcome struct {
	fired bool
	err   runtime.ErrKind
}

func (o outcome) String() string {
	if o.err != 0 {
		return "error " + wire.KindName(o.err)
	}
	return fmt.Sprintf("fired=%v", o.fired)
}

// generated evaluates the facts with the generated code: every rule's
// outcome by id.
func generated(facts *lycaon.Facts) (map[string]outcome, *runtime.Decision) {
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: *facts}
	var d runtime.Decision
	ev, _ := New(lycaon.Env{})
	ev.Evaluate(context.Background(), occ, nil, &d)
	got := map[string]outcome{}
	for _, c := range d.Codes {
		got[c] = outcome{fired: true}
	}
	for _, e := range d.Errors {
		got[e.Rule] = outcome{err: e.Err.Kind}
	}
	return got, &d
}

// disagree compares the generated code with the reference on one fact
// set: the expressions whose outcomes differ. An outcome that depends on
// the order of a map's entries (the first error of a comprehension over a
// map whose entries fail differently) varies from one evaluation to the
// next in cel-go, which iterates in Go's map order: where the outcomes
// first differ, both engines are evaluated again and agree when the
// generated code's outcome is one the reference gives.
func (o *oracle) disagree(facts *lycaon.Facts) []string {
	got, _ := generated(facts)
	want := o.outcomes(facts)
	var retries []map[string]outcome
	var diffs []string
	for i, src := range edgecases.Exprs {
		if i >= edgecases.MapOrderExprs {
			// cel-go's outcome is that of an order of its choosing, at
			// random (TestMapComprehensionSorted).
			continue
		}
		id := edgecases.RuleID(i)
		if g, w := got[id], want[id]; g != w {
			if retries == nil {
				for n := 0; n < 40; n++ {
					retries = append(retries, o.outcomes(facts))
				}
			}
			seen := false
			for _, r := range retries {
				seen = seen || r[id] == g
			}
			if seen {
				continue
			}
			if len(src) > 200 {
				src = src[:200] + "…"
			}
			diffs = append(diffs, fmt.Sprintf("%s: %s\n  generated: %v\n  reference: %v", id, src, g, w))
		}
	}
	return diffs
}

// agree compares the generated code with the reference on one fact set.
func (o *oracle) agree(t *testing.T, name string, facts *lycaon.Facts) {
	t.Helper()
	for _, d := range o.disagree(facts) {
		t.Errorf("%s: %s", name, d)
	}
}

func TestEdgeCasesAgreeWithCelGo(t *testing.T) {
	o := newOracle(t)
	for name, facts := range factSets() {
		o.agree(t, name, facts)
	}
}

// dynFrom builds a random dyn value from fuzz bytes: scalars of every kind,
// lists and maps nested up to past the runtime's nesting limit, and,
// when cyclic is allowed, references back to an enclosing list or map.
// It reports whether the value it built has a cycle.
func dynFrom(data []byte, cyclic bool) (any, bool) {
	b := &byteStream{data: data}
	var stack []any
	hasCycle := false
	var gen func(depth int) any
	gen = func(depth int) any {
		switch op := b.next() % 19; {
		case op == 0 && cyclic && len(stack) > 0:
			hasCycle = true
			return stack[int(b.next())%len(stack)]
		case op == 1 && depth < 1200:
			// A deep chain: one element per level.
			n := 1 + int(b.next())*4
			var v any = int64(n)
			for i := 0; i < n; i++ {
				v = []any{v}
			}
			return v
		case op < 6 && depth < 1500:
			l := make([]any, int(b.next()%4))
			stack = append(stack, l)
			for i := range l {
				l[i] = gen(depth + 1)
			}
			stack = stack[:len(stack)-1]
			return l
		case op < 10 && depth < 1500:
			m := map[string]any{}
			stack = append(stack, m)
			for i := int(b.next() % 4); i > 0; i-- {
				m[string(rune('a'+b.next()%4))] = gen(depth + 1)
			}
			stack = stack[:len(stack)-1]
			return m
		case op == 10:
			return int64(b.next()) - 128
		case op == 11:
			return float64(b.next()) / 3
		case op == 12:
			return string(rune('a' + b.next()%4))
		case op == 13:
			return b.next()%2 == 0
		case op == 14:
			return nil
		case op == 16:
			// A host value outside the dyn representation.
			return celdiff.HostValue(rand.New(rand.NewSource(int64(b.next())<<8 | int64(b.next()))))
		case op == 17:
			return celdiff.HostNumber(rand.New(rand.NewSource(int64(b.next()))))
		}
		return uint64(b.next())
	}
	return gen(0), hasCycle
}

type byteStream struct {
	data []byte
	i    int
}

func (b *byteStream) next() byte {
	if b.i >= len(b.data) {
		return 0
	}
	c := b.data[b.i]
	b.i++
	return c
}

// FuzzDynValues feeds random dyn values, deep and cyclic ones included,
// and host values outside the dyn representation (celdiff.HostValue), as
// tool arguments through the generated code of every edge case: it must
// never panic (a stack overflow is fatal, and would kill the fuzzer), must
// give the same answer twice, and, for acyclic values shallow enough for
// cel-go's own recursion, the same answers as the reference.
func FuzzDynValues(f *testing.F) {
	for _, seed := range [][]byte{{2, 3, 10, 10}, {0}, {1, 200}, {6, 2, 0, 0, 5, 0, 0}, {3, 3, 3, 3, 3, 3, 0, 0, 0},
		{16, 3, 4, 17, 9, 16, 0, 19, 17, 11, 16, 5, 5}} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	o := newOracle(f)
	f.Fuzz(func(t *testing.T, data []byte, cyclic bool) {
		facts := &lycaon.Facts{ToolArgs: map[string]any{}}
		cycles := false
		for _, k := range []string{"a", "b", "list", "map", "n", "s", "l", "m", "ports", "d", "key", "mixed"} {
			v, c := dynFrom(data, cyclic)
			facts.ToolArgs[k] = v
			cycles = cycles || c
			if len(data) > 0 {
				data = data[1:]
			}
		}
		first, d := generated(facts)
		for _, e := range d.Errors {
			if e.Err.Kind == runtime.ErrPanic {
				t.Fatalf("rule %s panicked", e.Rule)
			}
		}
		if again, _ := generated(facts); !reflect.DeepEqual(first, again) {
			t.Fatalf("two evaluations differ:\n%v\n%v", first, again)
		}
		if !cycles && depthOf(facts.ToolArgs, 0) < 500 {
			o.agree(t, "fuzz", facts)
		}
	})
}

// depthOf is the nesting depth of an acyclic value.
func depthOf(v any, d int) int {
	best := d
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			best = max(best, depthOf(e, d+1))
		}
	case map[string]any:
		for _, e := range x {
			best = max(best, depthOf(e, d+1))
		}
	}
	return best
}

func TestEdgeCasesDoNotPanic(t *testing.T) {
	for name, facts := range factSets() {
		occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: *facts}
		var d runtime.Decision
		ev, _ := New(lycaon.Env{})
		ev.Evaluate(context.Background(), occ, nil, &d)
		for _, e := range d.Errors {
			if e.Err.Kind == runtime.ErrPanic {
				t.Errorf("%s: rule %s panicked", name, e.Rule)
			}
		}
	}
}

// TestHostValuesAgree evaluates every edge case over tool arguments that
// hold host values of every kind (celdiff.HostArgs: typed slices and maps,
// named types, pointers, structs, json.Number and json.RawMessage, byte
// slices, times) with the generated code and with the reference, and
// requires the same outcomes. It logs how many outcomes of expressions
// that read tool arguments it compared.
func TestHostValuesAgree(t *testing.T) {
	o := newOracle(t)
	r := rand.New(rand.NewSource(18))
	comparisons, mismatches := 0, 0
	reads := 0
	for _, src := range edgecases.Exprs {
		if strings.Contains(src, "tool_arg") {
			reads++
		}
	}
	for n := 0; n < 200; n++ {
		facts := &lycaon.Facts{ToolArgs: celdiff.HostArgs(r)}
		diffs := o.disagree(facts)
		comparisons += reads
		mismatches += len(diffs)
		for _, d := range diffs {
			if mismatches <= 20 {
				t.Errorf("%s\n  tool_args: %s", d, celdiff.Show(facts.ToolArgs))
			}
		}
	}
	t.Logf("%d comparisons of expressions reading tool arguments, %d mismatches", comparisons, mismatches)
}

// TestIssue18HostValues is the issue's two cases, on both engines: a
// []int compared with a list literal is that list (cel-go reads it
// element by element), and a json.Number that spells no number in range
// is an invalid_argument error in `in` (never a silent false, which let
// the rule's allow through).
func TestIssue18HostValues(t *testing.T) {
	o := newOracle(t)
	index := func(src string) string {
		for i, e := range edgecases.Exprs {
			if e == src {
				return edgecases.RuleID(i)
			}
		}
		t.Fatalf("no edge case %s", src)
		return ""
	}
	for _, c := range []struct {
		name string
		when string
		args map[string]any
		want outcome
	}{
		{"[]int", "tool_args.ports == [22]", map[string]any{"ports": []int{22}}, outcome{fired: true}},
		{"[]int32", "tool_args.ports == [22]", map[string]any{"ports": []int32{22}}, outcome{fired: true}},
		{"[]uint", "tool_args.ports == [22]", map[string]any{"ports": []uint{22}}, outcome{fired: true}},
		{"[1]int", "tool_args.ports == [22]", map[string]any{"ports": [1]int{22}}, outcome{fired: true}},
		{"[]int other", "tool_args.ports == [22]", map[string]any{"ports": []int{23}}, outcome{}},
		{"json.Number 1e999", "tool_args.n in [1, 2]", map[string]any{"n": json.Number("1e999")}, outcome{err: runtime.ErrInvalidArgument}},
		{"json.Number abc", "tool_args.n in [1, 2]", map[string]any{"n": json.Number("abc")}, outcome{err: runtime.ErrInvalidArgument}},
		{"json.Number 2", "tool_args.n in [1, 2]", map[string]any{"n": json.Number("2")}, outcome{fired: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			facts := &lycaon.Facts{ToolArgs: c.args}
			id := index(c.when)
			got, _ := generated(facts)
			if got[id] != c.want {
				t.Errorf("generated: %s is %v, want %v", c.when, got[id], c.want)
			}
			if ref := o.outcomes(facts)[id]; ref != c.want {
				t.Errorf("reference: %s is %v, want %v", c.when, ref, c.want)
			}
		})
	}
}

// A comprehension over a map with string keys (tool_args, a JSON object
// inside it, a map literal) visits the keys sorted, so that a map or
// filter over it gives the same list at every evaluation: with eight
// keys, Go's map order gives the sorted list about once in 40,320.
func TestMapComprehensionSorted(t *testing.T) {
	args := map[string]any{}
	for _, k := range []string{"h", "c", "a", "f", "b", "g", "e", "d"} {
		args[k] = int64(1)
	}
	facts := &lycaon.Facts{Tool: "bash", ToolArgs: args}
	for n := 0; n < 30; n++ {
		got, _ := generated(facts)
		for i := edgecases.MapOrderExprs; i < len(edgecases.Exprs); i++ {
			if id := edgecases.RuleID(i); !got[id].fired {
				t.Fatalf("evaluation %d: %s (%s) did not fire: %v", n, id, edgecases.Exprs[i], got[id])
			}
		}
	}
}
