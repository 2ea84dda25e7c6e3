package impl

// Type is a CEL type value: the result of type(x), and the value of the
// type identifiers int, uint, double, bool, string, bytes, list, map,
// null_type and type. Type values compare by name.
type Type string

// TypeOf is CEL's type(v) for a dyn value.
func TypeOf(v any) Type {
	if _, ok := v.(Type); ok {
		return "type"
	}
	if k := kindOf(v); k != kUnsupported {
		return Type(k.typeName())
	}
	return "dyn"
}
