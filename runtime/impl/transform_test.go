package impl

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/oarc/oarc/runtime"
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

// The merged regions of a transform are in the decision, in code points
// of the original content, with the replacement each took (spec 5.6): the
// MCP guard rewrites a result's units with them (spec 11).
func TestRewriteRedactions(t *testing.T) {
	var d runtime.Decision
	var x Exec
	content := "é secret, more secret!"
	Begin(&x, context.Background(), nil, nil, &d, "content.tool_result", 0, content, nil)
	x.prepareTransforms()
	r1 := &Rule{Replacement: "[A]"}
	r2 := &Rule{Replacement: "[B]"}
	x.AddSpans(1, r2, []map[string]any{{"start": int64(2), "end": int64(5)}, {"start": int64(15), "end": int64(21)}})
	x.AddSpans(0, r1, []map[string]any{{"start": int64(4), "end": int64(8)}, {"start": int64(50), "end": int64(60)}, {"start": int64(21), "end": int64(22)}})
	x.Rewrite()
	// [21, 22) of the first rule touches [15, 21) of the second: one
	// region, with the first rule's replacement; the span past the end is
	// clipped away.
	want := []runtime.Redaction{{Start: 2, End: 8, Replacement: "[A]"}, {Start: 15, End: 22, Replacement: "[A]"}}
	if !reflect.DeepEqual(d.Redactions, want) {
		t.Errorf("redactions %v, want %v", d.Redactions, want)
	}
	if d.Content != "é [A], more [A]" {
		t.Errorf("content %q", d.Content)
	}
	d.Reset()
	if len(d.Redactions) != 0 {
		t.Error("Reset keeps redactions")
	}
}
