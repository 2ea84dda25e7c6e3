package edge

import (
	"bytes"
	"context"
	"math"
	"os"
	"reflect"
	"testing"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/oarc/oarc/codegen/internal/edgecases"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/celdiff"
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
	return map[string]*lycaon.Facts{"rich": rich, "empty": {}, "odd": odd}
}

// oracle evaluates the expressions with cel-go over the same facts.
type oracle struct {
	env  *cel.Env
	prgs []cel.Program
}

func newOracle(t testing.TB) *oracle {
	env, err := compiler.NewEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The built-ins, written from the spec's text independently of the
	// runtime's helpers.
	var args map[string]any
	env, err = env.Extend(
		cel.Function("tool_arg_string", cel.Overload("tool_arg_string_string", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(k ref.Val) ref.Val {
				s, _ := args[string(k.(types.String))].(string)
				return types.String(s)
			}))),
		cel.Function("tool_arg_int", cel.Overload("tool_arg_int_string", []*cel.Type{cel.StringType}, cel.IntType,
			cel.UnaryBinding(func(k ref.Val) ref.Val {
				switch v := args[string(k.(types.String))].(type) {
				case int64:
					return types.Int(v)
				case float64:
					if v == math.Trunc(v) && v >= -9223372036854775808 && v < 9223372036854775808 {
						return types.Int(int64(v))
					}
				}
				return types.Int(0)
			}))),
		cel.Function("tool_arg_bool", cel.Overload("tool_arg_bool_string", []*cel.Type{cel.StringType}, cel.BoolType,
			cel.UnaryBinding(func(k ref.Val) ref.Val {
				b, _ := args[string(k.(types.String))].(bool)
				return types.Bool(b)
			}))),
	)
	if err != nil {
		t.Fatal(err)
	}
	o := &oracle{env: env}
	for _, src := range edgecases.Exprs {
		ast, iss := env.Compile(src)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", src, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		o.prgs = append(o.prgs, prg)
	}
	setArgs = func(m map[string]any) { args = m }
	return o
}

var setArgs func(map[string]any)

func activation(f *lycaon.Facts) map[string]any {
	act := map[string]any{"anchor": "tool.pre_invoke", "fire_count": int64(0), "breaker_count": int64(0)}
	for _, fact := range catalog.Default().Facts {
		if v, ok := f.Get(fact.CELName); ok {
			act[fact.CELName] = v
		} else if fact.Tier == catalog.Oarc {
			act[fact.CELName] = []string{}
		}
	}
	return act
}

type outcome struct {
	fired bool
	err   runtime.ErrKind
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

// agree compares the generated code with cel-go on one fact set.
func (o *oracle) agree(t *testing.T, name string, facts *lycaon.Facts) {
	t.Helper()
	got, _ := generated(facts)
	setArgs(facts.ToolArgs)
	act := activation(facts)
	for i, src := range edgecases.Exprs {
		var want outcome
		val, _, err := o.prgs[i].Eval(act)
		switch {
		case err != nil:
			want.err = celdiff.KindOfCelError(err.Error())
		default:
			b, ok := val.(types.Bool)
			if !ok {
				want.err = runtime.ErrNoSuchOverload
			}
			want.fired = bool(b)
		}
		if g := got[edgecases.RuleID(i)]; g != want {
			t.Errorf("%s: %s\n  generated: fired=%v err=%v\n  cel-go:    fired=%v err=%v (%v)", name, src, g.fired, g.err, want.fired, want.err, err)
		}
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
		switch op := b.next() % 16; {
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

// FuzzDynValues feeds random dyn values, deep and cyclic ones included, as
// tool arguments through the generated code of every edge case: it must
// never panic (a stack overflow is fatal, and would kill the fuzzer), must
// give the same answer twice, and, for acyclic values shallow enough for
// cel-go's own recursion, the same answers as cel-go.
func FuzzDynValues(f *testing.F) {
	for _, seed := range [][]byte{{2, 3, 10, 10}, {0}, {1, 200}, {6, 2, 0, 0, 5, 0, 0}, {3, 3, 3, 3, 3, 3, 0, 0, 0}} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	o := newOracle(f)
	f.Fuzz(func(t *testing.T, data []byte, cyclic bool) {
		facts := &lycaon.Facts{ToolArgs: map[string]any{}}
		cycles := false
		for _, k := range []string{"a", "b", "list", "map", "n", "s", "l", "m"} {
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
