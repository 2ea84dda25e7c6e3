package codegen

import (
	"testing"

	"github.com/oarc/oarc/validators"
)

// TestBuiltinSpanFacts: the span fact codegen takes each built-in
// validator to answer is the one the validators package says it does,
// and no other id is taken for a built-in one.
func TestBuiltinSpanFacts(t *testing.T) {
	for _, id := range validators.IDs() {
		v, _ := validators.ByID(id)
		if got := builtinSpanFact(id); got != v.SpanFact || got == "" {
			t.Errorf("%s: codegen says %q, the validators package %q", id, got, v.SpanFact)
		}
	}
	if got := builtinSpanFact("secrets.v1"); got != "" {
		t.Errorf("a host's validator is taken for a built-in one: %q", got)
	}
}
