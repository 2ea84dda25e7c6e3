package impl

import (
	"encoding/json"
	"testing"
)

// Span entries written as JSON integers count (issue 10.8).
func TestSpanIntJSONNumber(t *testing.T) {
	m := map[string]any{"start": json.Number("2"), "end": json.Number("4.0"), "x": json.Number("3")}
	if v, ok := spanInt(m, "start"); !ok || v != 2 {
		t.Error("json int start")
	}
	if _, ok := spanInt(m, "end"); ok {
		t.Error("a json double is not an int span bound")
	}
}
