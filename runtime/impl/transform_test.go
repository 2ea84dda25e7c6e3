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

// Every Go signed integer is an int span bound, as dyn values read it;
// unsigned integers (CEL uints) and doubles are not (spec 5.6).
func TestSpanIntGoTypes(t *testing.T) {
	for _, v := range []any{int(3), int8(3), int16(3), int32(3), int64(3)} {
		if got, ok := spanInt(map[string]any{"start": v}, "start"); !ok || got != 3 {
			t.Errorf("%T: %v %v", v, got, ok)
		}
	}
	for _, v := range []any{uint(3), uint8(3), uint64(3), 3.0, float32(3), "3", nil} {
		if _, ok := spanInt(map[string]any{"start": v}, "start"); ok {
			t.Errorf("%T counts as an int span bound", v)
		}
	}
}
