package impl

import (
	"encoding/json"
	"math"
)

// Observation built-ins over tool arguments (spec section 3).

// ToolArgString is tool_arg_string(name): the argument when it is a string,
// else "" (absent, nil map, other types; a json.Number is a number, not a
// string).
func ToolArgString(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

// ToolArgInt is tool_arg_int(name): the argument when it is an int (any Go
// signed int kind), or a double (float64, float32) holding an exact integer
// in int64 range, else 0. A json.Number counts as the int or double it
// spells.
func ToolArgInt(args map[string]any, name string) int64 {
	switch x := args[name].(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int16:
		return int64(x)
	case int8:
		return int64(x)
	case float64:
		return exactInt(x)
	case float32:
		return exactInt(float64(x))
	case json.Number:
		switch s := numberScalar(x); s.k {
		case kInt:
			return s.i
		case kDouble:
			return exactInt(s.f)
		}
	}
	return 0
}

func exactInt(f float64) int64 {
	if f != f || f < -9223372036854775808.0 || f >= 9223372036854775808.0 || f != math.Trunc(f) {
		return 0
	}
	return int64(f)
}

// ToolArgBool is tool_arg_bool(name): the argument when it is a bool, else
// false.
func ToolArgBool(args map[string]any, name string) bool {
	b, _ := args[name].(bool)
	return b
}
