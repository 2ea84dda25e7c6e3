package ir

// Kind is the kind of a static type.
type Kind int

// The static type kinds the IR supports.
const (
	KDyn Kind = iota
	KBool
	KInt
	KUint
	KDouble
	KString
	KNull
	KList
	KMap
	KType // a type value: type(x), int, string, ...
)

// Type is a static CEL type.
type Type struct {
	Kind Kind
	Elem *Type // list element
	Key  *Type // map key
	Val  *Type // map value
}

// Shared instances of the scalar types.
var (
	DynType    = &Type{Kind: KDyn}
	BoolType   = &Type{Kind: KBool}
	IntType    = &Type{Kind: KInt}
	UintType   = &Type{Kind: KUint}
	DoubleType = &Type{Kind: KDouble}
	StringType = &Type{Kind: KString}
	NullType   = &Type{Kind: KNull}
	TypeType   = &Type{Kind: KType}
)

// ListOf returns list(elem).
func ListOf(elem *Type) *Type { return &Type{Kind: KList, Elem: elem} }

// MapOf returns map(key, val).
func MapOf(key, val *Type) *Type { return &Type{Kind: KMap, Key: key, Val: val} }

// Is reports whether t has kind k.
func (t *Type) Is(k Kind) bool { return t != nil && t.Kind == k }

// Equal reports whether two types are the same.
func (t *Type) Equal(u *Type) bool {
	if t == nil || u == nil {
		return t == u
	}
	if t.Kind != u.Kind {
		return false
	}
	switch t.Kind {
	case KList:
		return t.Elem.Equal(u.Elem)
	case KMap:
		return t.Key.Equal(u.Key) && t.Val.Equal(u.Val)
	}
	return true
}

// String spells the type as CEL does.
func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	switch t.Kind {
	case KBool:
		return "bool"
	case KInt:
		return "int"
	case KUint:
		return "uint"
	case KDouble:
		return "double"
	case KString:
		return "string"
	case KNull:
		return "null_type"
	case KType:
		return "type"
	case KList:
		return "list(" + t.Elem.String() + ")"
	case KMap:
		return "map(" + t.Key.String() + ", " + t.Val.String() + ")"
	}
	return "dyn"
}

// Value is the static type of a value read from t by index or field
// selection: a list's element, a map's value, dyn for anything else.
func (t *Type) Value() *Type {
	switch t.Kind {
	case KList:
		return t.Elem
	case KMap:
		return t.Val
	}
	return DynType
}

// Iter is the static type of a comprehension variable over t: a list's
// element, a map's key, dyn for anything else.
func (t *Type) Iter() *Type {
	switch t.Kind {
	case KList:
		return t.Elem
	case KMap:
		return t.Key
	}
	return DynType
}
