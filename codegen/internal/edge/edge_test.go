package edge

import (
	"bytes"
	"context"
	"math"
	"os"
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
	rich.Lycaon.RepeatCount = 3
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

func newOracle(t *testing.T) *oracle {
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

func TestEdgeCasesAgreeWithCelGo(t *testing.T) {
	o := newOracle(t)
	for name, facts := range factSets() {
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
