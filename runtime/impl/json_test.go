package impl

import (
	"encoding/json"
	"math"
	"testing"
)

// Issue 10.8: json.Number reads as the number it spells.

func TestJSONNumber(t *testing.T) {
	args := map[string]any{"count": json.Number("7"), "f": json.Number("2.5"), "fi": json.Number("3.0"),
		"e": json.Number("1e2"), "big": json.Number("12345678901234567890"), "neg": json.Number("-9223372036854775808"),
		"bad": json.Number("abc")}
	for name, want := range map[string]int64{"count": 7, "f": 0, "fi": 3, "e": 100, "big": 0, "neg": math.MinInt64} {
		if got, e := ToolArgInt(args, name); got != want || !e.Ok() {
			t.Errorf("ToolArgInt(%s) = %d %v, want %d", name, got, e, want)
		}
	}
	// One that spells no number is no zero: cel-go cannot read it.
	if got, e := ToolArgInt(args, "bad"); e.Kind != ErrInvalidArgument {
		t.Errorf("ToolArgInt(bad) = %d %v, want an invalid_argument error", got, e)
	}
	if s, e := ToolArgString(args, "count"); s != "" || !e.Ok() {
		t.Error("ToolArgString reads a json.Number as a string")
	}
	for name, want := range map[string]any{"count": int64(7), "f": 2.5, "fi": 3.0, "e": 100.0, "big": 12345678901234567890.0,
		"neg": int64(math.MinInt64), "bad": json.Number("abc")} {
		if got := Normalize(args[name]); got != want {
			t.Errorf("Normalize(%s) = %#v, want %#v", name, got, want)
		}
	}
	c := json.Number("7")
	if gt, e := CompareDynInt(c, 5); !Gt(gt) || !e.Ok() {
		t.Errorf("tool_args.count > 5: %v %v", gt, e)
	}
	if !EqualDynInt(c, 7) || EqualDynString(c, "7") || !Equal(c, 7.0) || !Equal(json.Number("2.5"), 2.5) {
		t.Error("equality of json.Number")
	}
	if i, e := AsInt(c); i != 7 || !e.Ok() {
		t.Errorf("AsInt = %v %v", i, e)
	}
	if f, e := AsDouble(json.Number("2.5")); f != 2.5 || !e.Ok() {
		t.Errorf("AsDouble = %v %v", f, e)
	}
	if _, e := AsDouble(c); e.Ok() {
		t.Error("AsDouble(int json.Number)")
	}
	if _, e := AsString(c); e.Ok() {
		t.Error("AsString(json.Number)")
	}
	if TypeOf(c) != "int" || TypeOf(json.Number("2.5")) != "double" {
		t.Error("TypeOf")
	}
	if r, e := AddDyn(c, int64(1)); r != int64(8) || !e.Ok() {
		t.Errorf("count + 1 = %v %v", r, e)
	}
	if s, e := StringFromDyn(json.Number("1e2")); s != "100" || !e.Ok() {
		t.Errorf("string(1e2) = %q", s)
	}
	if n, e := SizeDyn(c); e.Kind != ErrNoSuchOverload {
		t.Errorf("size(number) = %v %v", n, e)
	}
	if v, e := IndexDyn([]any{"a", "b"}, json.Number("1")); v != "b" || !e.Ok() {
		t.Errorf("l[json 1] = %v %v", v, e)
	}
	if v, _ := NewAnyMap(json.Number("1"), "x").Get(int64(1)); v != "x" {
		t.Error("json.Number key")
	}
	if ok, _ := InDyn(int64(7), []any{json.Number("7")}); !ok {
		t.Error("7 in [json 7]")
	}
	if !Assignable(c, &TypeDesc{Kind: TypeInt}) {
		t.Error("Assignable")
	}
	// Not a number: unsupported, as cel-go cannot convert it either.
	for _, bad := range []json.Number{"abc", "1e999", ""} {
		if TypeOf(bad) != "dyn" || Equal(bad, string(bad)) {
			t.Errorf("json.Number(%q) read as a value", bad)
		}
		if _, e := AsString(bad); e.Ok() {
			t.Errorf("AsString(json.Number(%q))", bad)
		}
	}
}
