package impl

import "math"

// Observation built-ins over tool arguments (spec section 3). An argument
// is read as every dyn value is (celhost.go): a named string type is a
// string, a json.Number the number it spells, *int an int. One that reads
// as a value of another type gives the zero of the function's type, as the
// spec says; an unsupported one is [Unsupported], never a zero.

// ToolArgString is tool_arg_string(name): the argument when it is a string,
// else "" (absent, nil map, other types; a json.Number is a number, not a
// string).
func ToolArgString(args map[string]any, name string) (string, Err) {
	v, ok := args[name]
	if !ok {
		return "", Err{}
	}
	if s, ok := v.(string); ok {
		return s, Err{}
	}
	v, e := Read(v)
	if !e.Ok() {
		return "", e
	}
	if s := scalarOf(v); s.k == kString {
		return s.s, Err{}
	}
	return "", Err{}
}

// ToolArgInt is tool_arg_int(name): the argument when it is an int (any Go
// signed int kind), or a double (float64, float32) holding an exact integer
// in int64 range, else 0. A json.Number counts as the int or double it
// spells.
func ToolArgInt(args map[string]any, name string) (int64, Err) {
	v, ok := args[name]
	if !ok {
		return 0, Err{}
	}
	if i, ok := v.(int64); ok {
		return i, Err{}
	}
	v, e := Read(v)
	if !e.Ok() {
		return 0, e
	}
	switch s := scalarOf(v); s.k {
	case kInt:
		return s.i, Err{}
	case kDouble:
		return exactInt(s.f), Err{}
	}
	return 0, Err{}
}

func exactInt(f float64) int64 {
	if f != f || f < -9223372036854775808.0 || f >= 9223372036854775808.0 || f != math.Trunc(f) {
		return 0
	}
	return int64(f)
}

// ToolArgBool is tool_arg_bool(name): the argument when it is a bool, else
// false.
func ToolArgBool(args map[string]any, name string) (bool, Err) {
	v, ok := args[name]
	if !ok {
		return false, Err{}
	}
	if b, ok := v.(bool); ok {
		return b, Err{}
	}
	v, e := Read(v)
	if !e.Ok() {
		return false, e
	}
	if s := scalarOf(v); s.k == kBool {
		return s.b, Err{}
	}
	return false, Err{}
}
