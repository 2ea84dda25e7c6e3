package codegen_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	lazy "github.com/oarc/oarc/codegen/testdata/lazy/golden"
	state "github.com/oarc/oarc/codegen/testdata/state/golden"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// A lazy provider for a fact that the set reads from Facts (it was
// generated without -lazy for it; a second set sharing the catalog's Env,
// or a go:generate line that lost its -lazy) was ignored: the rules read
// the fact's zero value, so a rule "block when prompt_injection_score >
// 0.7" let everything through, silently. Lazy.Tool and Lazy.ToolArgs are
// never read by any set. New refuses such an Env: no evaluator, an error
// wrapping runtime.ErrLazyIgnored that names the facts. A lazy provider
// for a fact the set does not read changes nothing and is accepted.
func TestLazyProviderIgnoredRefused(t *testing.T) {
	score := func(context.Context, *lycaon.Occurrence) (float64, error) { return 0.9, nil }
	args := func(context.Context, *lycaon.Occurrence) (map[string]any, error) { return nil, nil }
	posture := func(context.Context, *lycaon.Occurrence) (string, error) { return "spec", nil }
	for _, c := range []struct {
		name string
		new  func(lycaon.Env) (bool, error)
		env  lycaon.Env
		want string // "": accepted
	}{
		{"a fact the set reads eagerly", func(e lycaon.Env) (bool, error) { ev, err := state.New(e); return ev != nil, err },
			lycaon.Env{Lazy: lycaon.LazyFacts{PromptInjectionScore: score}}, "prompt_injection_score"},
		{"tool_args", func(e lycaon.Env) (bool, error) { ev, err := lazy.New(e); return ev != nil, err },
			lycaon.Env{Lazy: lycaon.LazyFacts{ToolArgs: args, SessionPosture: posture}}, "tool_args"},
		{"a span fact only a transform reads", func(e lycaon.Env) (bool, error) { ev, err := lazy.New(e); return ev != nil, err },
			lycaon.Env{Lazy: lycaon.LazyFacts{PiiEntities: func(context.Context, *lycaon.Occurrence) ([]map[string]any, error) { return nil, nil }}}, "pii_entities"},
		{"a fact the set does not read", func(e lycaon.Env) (bool, error) { ev, err := state.New(e); return ev != nil, err },
			lycaon.Env{Lazy: lycaon.LazyFacts{Principal: posture}}, ""},
		{"a fact the set reads lazily", func(e lycaon.Env) (bool, error) { ev, err := lazy.New(e); return ev != nil, err },
			lycaon.Env{Lazy: lycaon.LazyFacts{SessionPosture: posture}}, ""},
	} {
		got, err := c.new(c.env)
		if c.want == "" {
			if errors.Is(err, runtime.ErrLazyIgnored) || !got {
				t.Errorf("%s: New = %v, %v; want an evaluator (missing validators aside)", c.name, got, err)
			}
			continue
		}
		if got || !errors.Is(err, runtime.ErrLazyIgnored) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New = evaluator %v, %v; want none and an error wrapping ErrLazyIgnored naming %s", c.name, got, err, c.want)
		}
	}
}
