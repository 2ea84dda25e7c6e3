package lycaon_test

import (
	"context"
	"strings"
	"testing"

	"github.com/oarc/oarc/lycaon"
)

// TestFactsSetSaysWhatItWants: Facts.Set, the path of hosts that fill
// facts by name, refuses a value of another Go type with a message that
// names the Go type it wants. "want int, got int" (a Go int for a CEL
// int, which is an int64) told the host nothing.
func TestFactsSetSaysWhatItWants(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"content_length", 5, "int64"},
		{"prompt_injection_score", float32(0.5), "float64"},
		{"principal_roles", []any{"a"}, "[]string"},
		{"tool_args", map[string]string{"a": "b"}, "map[string]any"},
		{"pii_entities", []map[string]string{}, "[]map[string]any"},
		{"tool", []byte("bash"), "string"},
	}
	for _, c := range cases {
		var f lycaon.Facts
		err := f.Set(c.name, c.v)
		if err == nil {
			t.Errorf("Set(%q, %T) = nil, want an error", c.name, c.v)
			continue
		}
		if !strings.Contains(err.Error(), "Go "+c.want) {
			t.Errorf("Set(%q, %T) = %q, want it to name the Go type %s", c.name, c.v, err, c.want)
		}
	}
}

// TestFactsSetDerivedFact: a fact of the catalog that the host does not
// fill (core facts, oarc's, those the engine keeps) is refused as such,
// not as an unknown fact: the host reads the catalog and finds it there.
func TestFactsSetDerivedFact(t *testing.T) {
	for _, name := range []string{"anchor", "fire_count", "content", "tenant", "provenance_labels", "tool_args_fingerprint", "lycaon.repeat_count", "lycaon.recent_tool_names"} {
		var f lycaon.Facts
		err := f.Set(name, int64(1))
		if err == nil || strings.Contains(err.Error(), "unknown fact") || !strings.Contains(err.Error(), "not set through Facts") {
			t.Errorf("Set(%q) = %v, want an error saying it is not set through Facts", name, err)
		}
	}
	var f lycaon.Facts
	if err := f.Set("lycaon.nope", int64(1)); err == nil || !strings.Contains(err.Error(), "unknown fact") {
		t.Errorf("Set of a name no catalog has = %v, want unknown fact", err)
	}
}

// TestProvidersSetSaysWhatItWants: an answer function installed by name
// that returns a Go int for a function whose result is a CEL int is the
// provider's error, and the error names the Go type wanted.
func TestProvidersSetSaysWhatItWants(t *testing.T) {
	var p lycaon.Providers
	err := p.Set("mcp_field_int", func(context.Context, *lycaon.Occurrence, []any) (any, error) { return 5, nil })
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.McpFieldInt(context.Background(), &lycaon.Occurrence{}, "n")
	if err == nil || !strings.Contains(err.Error(), "Go int64") {
		t.Errorf("a provider answering a Go int for an int: %v, want an error naming Go int64", err)
	}
}
