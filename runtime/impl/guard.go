package impl

// TypeDesc describes the declared parameter type of a CEL overload, for the
// runtime type guard cel-go applies when the checker resolved a call to a
// single overload: an argument whose dynamic type is not assignable to the
// parameter makes the call "no such overload", even where another overload
// of the function would have accepted it.
type TypeDesc struct {
	Kind TypeKind
	Elem *TypeDesc // list element
	Key  *TypeDesc // map key
	Val  *TypeDesc // map value
}

// TypeKind is the kind of a [TypeDesc].
type TypeKind uint8

// The kinds of [TypeDesc]. TypeDyn (also type parameters) accepts anything.
const (
	TypeDyn TypeKind = iota
	TypeBool
	TypeInt
	TypeUint
	TypeDouble
	TypeString
	TypeNull
	TypeList
	TypeMap
)

// A type value (kType) has no kind of its own here: it is assignable only
// to dyn.
var dkindOf = [...]TypeKind{kNull: TypeNull, kBool: TypeBool, kInt: TypeInt, kUint: TypeUint, kDouble: TypeDouble, kString: TypeString, kList: TypeList, kMap: TypeMap, kType: TypeDyn}

// Assignable reports whether v may be passed where t is declared, as cel-go's
// Type.IsAssignableRuntimeType decides: the kinds agree, and for a list or
// map its first element (or entry) is assignable in turn. It recurses
// only as deep as t, never deeper into v.
func Assignable(v any, t *TypeDesc) bool {
	if t == nil || t.Kind == TypeDyn {
		return true
	}
	k := kindOf(v)
	if k == kUnsupported || dkindOf[k] != t.Kind {
		return false
	}
	switch t.Kind {
	case TypeList:
		l := listOf(v)
		if l.Len() == 0 {
			return true
		}
		// An element cel-go cannot read is of no type it accepts.
		e, err := readElem(l.At(0))
		return err.Ok() && Assignable(e, t.Elem)
	case TypeMap:
		m, _ := mapView(v)
		ok := true
		m.each(func(k, e any) bool {
			// cel-go looks at the first entry its iterator yields; for Go
			// maps that is an arbitrary one, so any entry will do. It reads
			// the value back by the key, which fails for a NaN key.
			if h, _ := keyOf(k); h.k == kDouble && h.f != h.f {
				ok = false
				return false
			}
			k, kerr := readElem(k)
			e, verr := readElem(e)
			ok = kerr.Ok() && verr.Ok() && Assignable(k, t.Key) && Assignable(e, t.Val)
			return false
		})
		return ok
	}
	return true
}
