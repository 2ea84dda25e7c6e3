package runtime

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// Issue 10.8: json.Number reads as the number it spells.

func TestDecodeToolArgs(t *testing.T) {
	m, err := DecodeToolArgs([]byte(` {"count": 7, "f": 2.5, "e": 1e2, "z": -0, "big": 12345678901234567890, "neg": -9223372036854775808,
		"s": "x", "b": true, "n": null, "l": [1, [2.0, {"k": 3}]], "o": {"p": 4}} `))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"count": int64(7), "f": 2.5, "e": 100.0, "z": int64(0), "big": 12345678901234567890.0,
		"neg": int64(math.MinInt64), "s": "x", "b": true, "n": nil,
		"l": []any{int64(1), []any{2.0, map[string]any{"k": int64(3)}}}, "o": map[string]any{"p": int64(4)}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("decoded %#v", m)
	}
	for _, v := range []any{m["count"], m["z"], m["l"].([]any)[0], m["l"].([]any)[1].([]any)[1].(map[string]any)["k"]} {
		if _, ok := v.(int64); !ok {
			t.Errorf("%#v is not int64", v)
		}
	}
	for _, bad := range []string{`[1]`, `1`, `"x"`, `true`, `{"a": 1} {}`, `{"a": 1} x`, `{"a": 1`, `{"a": 1e400}`, `{"a": [1e999]}`,
		`null null`, `null {}`, `nul`, `nullx`, "\v", "\u00a0null", `[null]`, `{} null`} {
		if _, err := DecodeToolArgs([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "tool arguments: ") {
			t.Errorf("DecodeToolArgs(%q) = %v, want an error", bad, err)
		}
	}
	// Deep nesting: up to encoding/json's own limit, without recursion.
	deep := strings.Repeat("[", 9000) + "1" + strings.Repeat("]", 9000)
	m, err = DecodeToolArgs([]byte(`{"d": ` + deep + `}`))
	if err != nil {
		t.Fatal(err)
	}
	v := m["d"]
	for i := 0; i < 9000; i++ {
		v = v.([]any)[0]
	}
	if v != int64(1) {
		t.Fatalf("innermost %#v", v)
	}
}

// TestDecodeToolArgsAbsent: MCP's arguments are optional, and absent or null
// arguments are an empty map (spec 11), so a host may hand
// DecodeToolArgs a call's raw arguments (a nil json.RawMessage when the
// field is absent) and get the map that tool_args is for such a call, not
// an error and not nil.
func TestDecodeToolArgsAbsent(t *testing.T) {
	for _, in := range []string{"", " ", "\t\r\n ", "null", " null\n", "\tnull\r\n", "{}", " {} "} {
		m, err := DecodeToolArgs([]byte(in))
		if err != nil || m == nil || len(m) != 0 {
			t.Errorf("DecodeToolArgs(%q) = %#v, %v; want an empty map", in, m, err)
		}
	}
	m, err := DecodeToolArgs(nil)
	if err != nil || m == nil || len(m) != 0 {
		t.Fatalf("DecodeToolArgs(nil) = %#v, %v; want an empty map", m, err)
	}
	// The map is the host's to fill: not shared between calls.
	m["k"] = 1
	if m2, _ := DecodeToolArgs(nil); len(m2) != 0 {
		t.Errorf("a second call sees %v", m2)
	}
}
