package impl

// CEL operators with cel-go's exact semantics.
//
// Comparison API. cel-go's relational operators are not derivable from a
// plain 3-way compare: when either operand is a NaN double, all of <, <=,
// >, >= are false (not an error), while == is false and != is true. So
// every Compare* function returns one of OrdLess (-1), OrdEqual (0),
// OrdGreater (1) or Unordered (2), and generated code must turn it into a
// bool with Lt, Le, Gt, Ge (never with `c < 0` etc., which is wrong for
// Unordered). The Err is ErrNoSuchOverload (operand types that cannot be
// compared: bool vs int, string vs int, null, lists, maps), or
// [Unsupported] for an operand that is not a dyn value.
//
// Error precedence follows cel-go: the left operand must be orderable
// (bool, int, uint, double, string) else ErrNoSuchOverload, even when the
// right one is NaN; then a NaN on either side gives Unordered, whatever the
// other type (so `'a' < NaN` is false, not an error); then the operand types
// must be compatible (numbers with numbers, string with string, bool with
// bool). The mirrored forms (CompareIntDyn etc.) keep the operand order of
// the source expression; do not flip the sign of a Compare*Dyn result.
//
// Numeric cross-type comparisons are exact for int vs uint, and for int or
// uint vs double follow cel-go: a double outside the int64 (uint64) range
// compares beyond it, otherwise the int is converted to float64 (so
// 9007199254740993 == 9007199254740992.0 is true).
//
// Equality does not error on values of different types (they are
// unequal); its errors are reading an element that is not a dyn value
// ([Unsupported]) and the nesting limit ([TooDeep]).

import (
	"math"
	"strings"
)

// Orderings returned by the Compare functions.
const (
	OrdLess    = -1
	OrdEqual   = 0
	OrdGreater = 1
	Unordered  = 2 // a NaN operand: <, <=, >, >= are all false
)

// Lt reports whether a comparison result means "<".
func Lt(c int) bool { return c == OrdLess }

// Le reports whether a comparison result means "<=".
func Le(c int) bool { return c == OrdLess || c == OrdEqual }

// Gt reports whether a comparison result means ">".
func Gt(c int) bool { return c == OrdGreater }

// Ge reports whether a comparison result means ">=".
func Ge(c int) bool { return c == OrdGreater || c == OrdEqual }

// ---- int / uint arithmetic -------------------------------------------

// AddInt is a + b; overflow is ErrIntOverflow.
func AddInt(a, b int64) (int64, Err) {
	if (b > 0 && a > math.MaxInt64-b) || (b < 0 && a < math.MinInt64-b) {
		return 0, IntOverflow()
	}
	return a + b, Err{}
}

// SubInt is a - b; overflow is ErrIntOverflow.
func SubInt(a, b int64) (int64, Err) {
	if (b < 0 && a > math.MaxInt64+b) || (b > 0 && a < math.MinInt64+b) {
		return 0, IntOverflow()
	}
	return a - b, Err{}
}

// MulInt is a * b; overflow is ErrIntOverflow.
func MulInt(a, b int64) (int64, Err) {
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) ||
		(a > 0 && b > 0 && a > math.MaxInt64/b) ||
		(a > 0 && b < 0 && b < math.MinInt64/a) ||
		(a < 0 && b > 0 && a < math.MinInt64/b) ||
		(a < 0 && b < 0 && b < math.MaxInt64/a) {
		return 0, IntOverflow()
	}
	return a * b, Err{}
}

// DivInt is a / b truncated; b == 0 is ErrDivideByZero, MinInt64 / -1 is
// ErrIntOverflow.
func DivInt(a, b int64) (int64, Err) {
	if b == 0 {
		return 0, DivisionByZero()
	}
	if a == math.MinInt64 && b == -1 {
		return 0, IntOverflow()
	}
	return a / b, Err{}
}

// ModInt is a % b (sign of a); b == 0 is ErrModulusByZero, MinInt64 % -1
// is ErrIntOverflow (as in cel-go).
func ModInt(a, b int64) (int64, Err) {
	if b == 0 {
		return 0, ModulusByZero()
	}
	if a == math.MinInt64 && b == -1 {
		return 0, IntOverflow()
	}
	return a % b, Err{}
}

// NegInt is -a; -MinInt64 is ErrIntOverflow.
func NegInt(a int64) (int64, Err) {
	if a == math.MinInt64 {
		return 0, IntOverflow()
	}
	return -a, Err{}
}

// AddUint is a + b; overflow is "unsigned integer overflow".
func AddUint(a, b uint64) (uint64, Err) {
	if b > 0 && a > math.MaxUint64-b {
		return 0, UintOverflow()
	}
	return a + b, Err{}
}

// SubUint is a - b; b > a is "unsigned integer overflow".
func SubUint(a, b uint64) (uint64, Err) {
	if b > a {
		return 0, UintOverflow()
	}
	return a - b, Err{}
}

// MulUint is a * b; overflow is "unsigned integer overflow".
func MulUint(a, b uint64) (uint64, Err) {
	if b != 0 && a > math.MaxUint64/b {
		return 0, UintOverflow()
	}
	return a * b, Err{}
}

// DivUint is a / b; b == 0 is ErrDivideByZero.
func DivUint(a, b uint64) (uint64, Err) {
	if b == 0 {
		return 0, DivisionByZero()
	}
	return a / b, Err{}
}

// ModUint is a % b; b == 0 is ErrModulusByZero.
func ModUint(a, b uint64) (uint64, Err) {
	if b == 0 {
		return 0, ModulusByZero()
	}
	return a % b, Err{}
}

// ---- comparisons -------------------------------------------------------

// CompareInt is the 3-way comparison of two ints.
func CompareInt(a, b int64) int {
	if a < b {
		return OrdLess
	}
	if a > b {
		return OrdGreater
	}
	return OrdEqual
}

// CompareUint is the 3-way comparison of two uints.
func CompareUint(a, b uint64) int {
	if a < b {
		return OrdLess
	}
	if a > b {
		return OrdGreater
	}
	return OrdEqual
}

// CompareString compares by bytes (UTF-8 order), as cel-go does.
func CompareString(a, b string) int { return strings.Compare(a, b) }

// CompareBool orders false before true.
func CompareBool(a, b bool) int {
	if a == b {
		return OrdEqual
	}
	if !a {
		return OrdLess
	}
	return OrdGreater
}

func cmpDouble(a, b float64) int {
	if a < b {
		return OrdLess
	}
	if a > b {
		return OrdGreater
	}
	return OrdEqual
}

// CompareDouble compares two doubles; a NaN gives Unordered. The Err is
// always ok (kept for a uniform signature).
func CompareDouble(a, b float64) (int, Err) {
	if a != a || b != b {
		return Unordered, Err{}
	}
	return cmpDouble(a, b), Err{}
}

func cmpDoubleInt(d float64, i int64) int {
	if d < math.MinInt64 {
		return OrdLess
	}
	if d > math.MaxInt64 {
		return OrdGreater
	}
	return cmpDouble(d, float64(i))
}

func cmpDoubleUint(d float64, u uint64) int {
	if d < 0 {
		return OrdLess
	}
	if d > math.MaxUint64 {
		return OrdGreater
	}
	return cmpDouble(d, float64(u))
}

func cmpIntUint(i int64, u uint64) int {
	if i < 0 || u > math.MaxInt64 {
		return OrdLess
	}
	return CompareInt(i, int64(u))
}

// CompareIntDouble compares an int with a double as cel-go does; a NaN
// gives Unordered. The Err is always ok.
func CompareIntDouble(a int64, b float64) (int, Err) {
	if b != b {
		return Unordered, Err{}
	}
	return -cmpDoubleInt(b, a), Err{}
}

// CompareDoubleInt compares a double with an int; a NaN gives Unordered.
func CompareDoubleInt(a float64, b int64) (int, Err) {
	if a != a {
		return Unordered, Err{}
	}
	return cmpDoubleInt(a, b), Err{}
}

// CompareIntUint compares an int with a uint exactly.
func CompareIntUint(a int64, b uint64) int { return cmpIntUint(a, b) }

// CompareUintInt compares a uint with an int exactly.
func CompareUintInt(a uint64, b int64) int { return -cmpIntUint(b, a) }

// CompareUintDouble compares a uint with a double; NaN gives Unordered.
func CompareUintDouble(a uint64, b float64) (int, Err) {
	if b != b {
		return Unordered, Err{}
	}
	return -cmpDoubleUint(b, a), Err{}
}

// CompareDoubleUint compares a double with a uint; NaN gives Unordered.
func CompareDoubleUint(a float64, b uint64) (int, Err) {
	if a != a {
		return Unordered, Err{}
	}
	return cmpDoubleUint(a, b), Err{}
}

func orderable(k dkind) bool {
	return k == kBool || k == kInt || k == kUint || k == kDouble || k == kString
}

// compareScalars is cel-go's _<_ family on normalised operands, up to the
// final mapping to bool.
func compareScalars(a, b scalar) (int, Err) {
	if !orderable(a.k) {
		return 0, NoSuchOverload("")
	}
	if (a.k == kDouble && a.f != a.f) || (b.k == kDouble && b.f != b.f) {
		return Unordered, Err{}
	}
	switch a.k {
	case kBool:
		if b.k == kBool {
			return CompareBool(a.b, b.b), Err{}
		}
	case kString:
		if b.k == kString {
			return strings.Compare(a.s, b.s), Err{}
		}
	case kInt:
		switch b.k {
		case kInt:
			return CompareInt(a.i, b.i), Err{}
		case kUint:
			return cmpIntUint(a.i, b.u), Err{}
		case kDouble:
			return -cmpDoubleInt(b.f, a.i), Err{}
		}
	case kUint:
		switch b.k {
		case kInt:
			return -cmpIntUint(b.i, a.u), Err{}
		case kUint:
			return CompareUint(a.u, b.u), Err{}
		case kDouble:
			return -cmpDoubleUint(b.f, a.u), Err{}
		}
	case kDouble:
		switch b.k {
		case kInt:
			return cmpDoubleInt(a.f, b.i), Err{}
		case kUint:
			return cmpDoubleUint(a.f, b.u), Err{}
		case kDouble:
			return cmpDouble(a.f, b.f), Err{}
		}
	}
	return 0, NoSuchOverload("")
}

// compareDyn is compareScalars on operands read from a and b: an
// unsupported operand (the left one first) is [Unsupported].
func compareDyn(a any, as scalar, b any, bs scalar) (int, Err) {
	if as.k == kUnsupported {
		return 0, Unsupported(a)
	}
	if bs.k == kUnsupported {
		return 0, Unsupported(b)
	}
	return compareScalars(as, bs)
}

// CompareDyn compares two dyn values as cel-go's relational operators do
// (see the package comment on Unordered and error precedence).
func CompareDyn(a, b any) (int, Err) { return compareDyn(a, scalarOf(a), b, scalarOf(b)) }

// CompareDynInt compares a dyn (left) with an int (right).
func CompareDynInt(a any, b int64) (int, Err) {
	return compareDyn(a, scalarOf(a), nil, scalar{k: kInt, i: b})
}

// CompareIntDyn compares an int (left) with a dyn (right).
func CompareIntDyn(a int64, b any) (int, Err) {
	return compareDyn(nil, scalar{k: kInt, i: a}, b, scalarOf(b))
}

// CompareDynUint compares a dyn (left) with a uint (right).
func CompareDynUint(a any, b uint64) (int, Err) {
	return compareDyn(a, scalarOf(a), nil, scalar{k: kUint, u: b})
}

// CompareUintDyn compares a uint (left) with a dyn (right).
func CompareUintDyn(a uint64, b any) (int, Err) {
	return compareDyn(nil, scalar{k: kUint, u: a}, b, scalarOf(b))
}

// CompareDynDouble compares a dyn (left) with a double (right).
func CompareDynDouble(a any, b float64) (int, Err) {
	return compareDyn(a, scalarOf(a), nil, scalar{k: kDouble, f: b})
}

// CompareDoubleDyn compares a double (left) with a dyn (right).
func CompareDoubleDyn(a float64, b any) (int, Err) {
	return compareDyn(nil, scalar{k: kDouble, f: a}, b, scalarOf(b))
}

// CompareDynString compares a dyn (left) with a string (right).
func CompareDynString(a any, b string) (int, Err) {
	return compareDyn(a, scalarOf(a), nil, scalar{k: kString, s: b})
}

// CompareStringDyn compares a string (left) with a dyn (right).
func CompareStringDyn(a string, b any) (int, Err) {
	return compareDyn(nil, scalar{k: kString, s: a}, b, scalarOf(b))
}

// CompareDynBool compares a dyn (left) with a bool (right).
func CompareDynBool(a any, b bool) (int, Err) {
	return compareDyn(a, scalarOf(a), nil, scalar{k: kBool, b: b})
}

// CompareBoolDyn compares a bool (left) with a dyn (right).
func CompareBoolDyn(a bool, b any) (int, Err) {
	return compareDyn(nil, scalar{k: kBool, b: a}, b, scalarOf(b))
}

// LessDyn is cel-go's a < b on dyn operands.
func LessDyn(a, b any) (bool, Err) { c, e := CompareDyn(a, b); return Lt(c), e }

// LessEqDyn is cel-go's a <= b on dyn operands.
func LessEqDyn(a, b any) (bool, Err) { c, e := CompareDyn(a, b); return Le(c), e }

// GreaterDyn is cel-go's a > b on dyn operands.
func GreaterDyn(a, b any) (bool, Err) { c, e := CompareDyn(a, b); return Gt(c), e }

// GreaterEqDyn is cel-go's a >= b on dyn operands.
func GreaterEqDyn(a, b any) (bool, Err) { c, e := CompareDyn(a, b); return Ge(c), e }

// LessDouble is a < b on doubles (false with NaN); Go's < is exact, this is
// for symmetry. The static double relations never error.
func LessDouble(a, b float64) bool { return a < b }

// LessIntDouble is cel-go's int < double.
func LessIntDouble(a int64, b float64) bool { c, _ := CompareIntDouble(a, b); return Lt(c) }

// LessDoubleInt is cel-go's double < int.
func LessDoubleInt(a float64, b int64) bool { c, _ := CompareDoubleInt(a, b); return Lt(c) }

// ---- equality ----------------------------------------------------------

func equalScalarNum(a, b scalar) (eq bool, numeric bool) {
	switch a.k {
	case kInt:
		switch b.k {
		case kInt:
			return a.i == b.i, true
		case kUint:
			return cmpIntUint(a.i, b.u) == 0, true
		case kDouble:
			return b.f == b.f && cmpDoubleInt(b.f, a.i) == 0, true
		}
	case kUint:
		switch b.k {
		case kInt:
			return cmpIntUint(b.i, a.u) == 0, true
		case kUint:
			return a.u == b.u, true
		case kDouble:
			return b.f == b.f && cmpDoubleUint(b.f, a.u) == 0, true
		}
	case kDouble:
		switch b.k {
		case kInt:
			return a.f == a.f && cmpDoubleInt(a.f, b.i) == 0, true
		case kUint:
			return a.f == a.f && cmpDoubleUint(a.f, b.u) == 0, true
		case kDouble:
			return a.f == b.f, true
		}
	}
	return false, false
}

// Equal is cel-go's heterogeneous equality (==) as a bool: false where
// [EqualDyn] reports an error (values nested more than [MaxDepth] levels,
// or cyclic, or holding a value that is no dyn value). Generated code must
// use EqualDyn for operands that may hold lists or maps, so that the error
// reaches the rule's on_error.
func Equal(a, b any) bool {
	eq, e := equalAt(a, b, 0)
	return eq && e.Ok()
}

// EqualDyn is cel-go's heterogeneous equality (==): numbers compare across
// int, uint and double (NaN equals nothing), null equals only null, type
// values by name, lists element-wise in order (stopping at the first
// difference), maps by size and then, for each entry of a, the value found
// for its key in b (with cel-go's numeric key lookup, see [AnyMap]), other
// mixed types are unequal. It is not symmetric where cel-go is not:
// {1: 'x', 1u: 'x'} == {1: 'x', 2: 'x'} is true, the mirror false.
//
// The errors are [TooDeep], for a walk past [MaxDepth] nested lists and
// maps (a cyclic value), and [Unsupported] for an element it reads that is
// no dyn value (cel-go skips such elements; see docs/cel-semantics.md).
// Every entry of a map is compared even after a difference, so that
// whether such an entry is reached does not depend on Go's map order. It
// does not allocate on values of the dyn representation.
func EqualDyn(a, b any) (bool, Err) { return equalAt(a, b, 0) }

func equalAt(a, b any, depth int) (bool, Err) {
	as, bs := scalarOf(a), scalarOf(b)
	// Reading an unsupported value is an error, also where cel-go's walk
	// would skip it (it finds [x] == [1] true for an x it cannot read).
	if as.k == kUnsupported {
		return false, Unsupported(a)
	}
	if bs.k == kUnsupported {
		return false, Unsupported(b)
	}
	if as.k == kType || bs.k == kType {
		return as.k == bs.k && as.s == bs.s, Err{}
	}
	if as.k == kNull || bs.k == kNull {
		return as.k == bs.k, Err{}
	}
	switch as.k {
	case kBool:
		return bs.k == kBool && as.b == bs.b, Err{}
	case kString:
		return bs.k == kString && as.s == bs.s, Err{}
	case kInt, kUint, kDouble:
		eq, _ := equalScalarNum(as, bs)
		return eq, Err{}
	case kList:
		if bs.k != kList {
			return false, Err{}
		}
		la, lb := listOf(a), listOf(b)
		if la.n != lb.n {
			return false, Err{}
		}
		if la.n > 0 && depth >= MaxDepth {
			// A list of strings too: it is one level more.
			return false, TooDeep()
		}
		if x, ok := a.([]string); ok {
			if y, ok := b.([]string); ok {
				return EqualStrings(x, y), Err{}
			}
		}
		for i := 0; i < la.n; i++ {
			eq, e := equalRead(la.At(i), lb.At(i), depth+1)
			if !eq || !e.Ok() {
				return false, e
			}
		}
		return true, Err{}
	case kMap:
		if bs.k != kMap {
			return false, Err{}
		}
		ma, _ := mapView(a)
		mb, _ := mapView(b)
		return equalMaps(ma, mb, depth)
	}
	return false, Err{}
}

// equalRead is equalAt on two elements taken out of containers, read
// first ([Read]: they may be host values).
func equalRead(a, b any, depth int) (bool, Err) {
	a, e := readElem(a)
	if !e.Ok() {
		return false, e
	}
	b, e = readElem(b)
	if !e.Ok() {
		return false, e
	}
	return equalAt(a, b, depth)
}

// msgOwnKey is the error of a host map whose own lookup does not find one
// of its keys (a cel-go conversion quirk, see [hostMap]): cel-go compares a
// value it did not find, and fails.
const msgOwnKey = "a key of a Go map is not found by its own lookup"

func equalMaps(ma, mb Map, depth int) (bool, Err) {
	if ma.Len() != mb.Len() {
		return false, Err{}
	}
	if ma.Len() == 0 {
		return true, Err{}
	}
	if depth >= MaxDepth {
		return false, TooDeep()
	}
	if ma.s != nil && mb.s != nil {
		for k, v := range ma.s {
			if w, ok := mb.s[k]; !ok || w != v {
				return false, Err{}
			}
		}
		return true, Err{}
	}
	eq := true
	if ma.a != nil && mb.a != nil {
		for k, v := range ma.a {
			w, ok := mb.a[k]
			if !ok {
				eq = false
				continue
			}
			e, err := equalRead(v, w, depth+1)
			if !err.Ok() {
				return false, err
			}
			eq = eq && e
		}
		return eq, Err{}
	}
	var err Err
	ma.each(func(k, v any) bool {
		// A key of a host map that is no scalar is read like a value.
		k, er := readElem(k)
		if !er.Ok() {
			err = er
			return false
		}
		w, ok, er := mb.find(k)
		if !er.Ok() {
			err = er
			return false
		}
		if !ok {
			eq = false
			return true
		}
		if ma.h != nil {
			// cel-go reads the value of a host map through its own lookup.
			var found bool
			if v, found, er = ma.find(k); !er.Ok() || !found {
				err = er
				if !found && er.Ok() {
					err = InvalidArgument(msgOwnKey)
				}
				return false
			}
		}
		e, er := equalRead(v, w, depth+1)
		if !er.Ok() {
			err = er
			return false
		}
		eq = eq && e
		return true
	})
	if !err.Ok() {
		return false, err
	}
	return eq, Err{}
}

// The EqualDyn* functions below compare a dyn with a static scalar. They
// report no error: generated code checks every host value where it reads
// it ([Check]), so an unsupported one never reaches them; given one, they
// report false.

// EqualDynString is dyn == string.
func EqualDynString(a any, b string) bool {
	if s, ok := a.(string); ok {
		return s == b
	}
	s := scalarOf(a)
	return s.k == kString && s.s == b
}

// EqualDynInt is dyn == int (cross-numeric).
func EqualDynInt(a any, b int64) bool {
	if i, ok := a.(int64); ok {
		return i == b
	}
	eq, _ := equalScalarNum(scalarOf(a), scalar{k: kInt, i: b})
	return eq
}

// EqualDynUint is dyn == uint (cross-numeric).
func EqualDynUint(a any, b uint64) bool {
	eq, _ := equalScalarNum(scalarOf(a), scalar{k: kUint, u: b})
	return eq
}

// EqualDynDouble is dyn == double (cross-numeric, NaN unequal).
func EqualDynDouble(a any, b float64) bool {
	eq, _ := equalScalarNum(scalarOf(a), scalar{k: kDouble, f: b})
	return eq
}

// EqualDynBool is dyn == bool.
func EqualDynBool(a any, b bool) bool {
	s := scalarOf(a)
	return s.k == kBool && s.b == b
}

// EqualDouble is double == double (NaN unequal, -0.0 == 0.0): Go's ==.
func EqualDouble(a, b float64) bool { return a == b }

// EqualIntDouble is int == double as cel-go compares them.
func EqualIntDouble(a int64, b float64) bool {
	return b == b && cmpDoubleInt(b, a) == 0
}

// EqualIntUint is int == uint, exact.
func EqualIntUint(a int64, b uint64) bool { return cmpIntUint(a, b) == 0 }

// EqualUintDouble is uint == double as cel-go compares them (NaN unequal).
func EqualUintDouble(a uint64, b float64) bool {
	return b == b && cmpDoubleUint(b, a) == 0
}

// LessUintDouble is cel-go's uint < double.
func LessUintDouble(a uint64, b float64) bool { c, _ := CompareUintDouble(a, b); return Lt(c) }

// LessDoubleUint is cel-go's double < uint.
func LessDoubleUint(a float64, b uint64) bool { c, _ := CompareDoubleUint(a, b); return Lt(c) }

// EqualStrings is list(string) == list(string).
func EqualStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ---- dyn arithmetic ----------------------------------------------------

// AddDyn is cel-go's + on dyn operands: int, uint, double (same type
// only), string concatenation, list concatenation (a new []any).
func AddDyn(a, b any) (any, Err) {
	as, bs := scalarOf(a), scalarOf(b)
	if e := unsupported2(a, as, b, bs); !e.Ok() {
		return nil, e
	}
	switch as.k {
	case kInt:
		if bs.k == kInt {
			r, e := AddInt(as.i, bs.i)
			if !e.Ok() {
				return nil, e
			}
			return r, e
		}
	case kUint:
		if bs.k == kUint {
			r, e := AddUint(as.u, bs.u)
			if !e.Ok() {
				return nil, e
			}
			return r, e
		}
	case kDouble:
		if bs.k == kDouble {
			return as.f + bs.f, Err{}
		}
	case kString:
		if bs.k == kString {
			return as.s + bs.s, Err{}
		}
	case kList:
		if bs.k == kList {
			la, lb := listOf(a), listOf(b)
			out := make([]any, 0, la.n+lb.n)
			for i := 0; i < la.n; i++ {
				out = append(out, la.At(i))
			}
			for i := 0; i < lb.n; i++ {
				out = append(out, lb.At(i))
			}
			return out, Err{}
		}
	}
	return nil, NoSuchOverload("")
}

func arithDyn(a, b any, fi func(x, y int64) (int64, Err), fu func(x, y uint64) (uint64, Err), fd func(x, y float64) float64) (any, Err) {
	as, bs := scalarOf(a), scalarOf(b)
	if e := unsupported2(a, as, b, bs); !e.Ok() {
		return nil, e
	}
	if as.k != bs.k {
		return nil, NoSuchOverload("")
	}
	switch as.k {
	case kInt:
		if fi != nil {
			r, e := fi(as.i, bs.i)
			if !e.Ok() {
				return nil, e
			}
			return r, e
		}
	case kUint:
		if fu != nil {
			r, e := fu(as.u, bs.u)
			if !e.Ok() {
				return nil, e
			}
			return r, e
		}
	case kDouble:
		if fd != nil {
			return fd(as.f, bs.f), Err{}
		}
	}
	return nil, NoSuchOverload("")
}

func subD(x, y float64) float64 { return x - y }
func mulD(x, y float64) float64 { return x * y }
func divD(x, y float64) float64 { return x / y }

// SubDyn is cel-go's - on dyn operands (int, uint, double).
func SubDyn(a, b any) (any, Err) { return arithDyn(a, b, SubInt, SubUint, subD) }

// MulDyn is cel-go's * on dyn operands (int, uint, double).
func MulDyn(a, b any) (any, Err) { return arithDyn(a, b, MulInt, MulUint, mulD) }

// DivDyn is cel-go's / on dyn operands (int, uint, double; double / 0 is
// ±Inf or NaN, not an error).
func DivDyn(a, b any) (any, Err) { return arithDyn(a, b, DivInt, DivUint, divD) }

// ModDyn is cel-go's % on dyn operands (int, uint; double % is no overload).
func ModDyn(a, b any) (any, Err) { return arithDyn(a, b, ModInt, ModUint, nil) }

// NegDyn is cel-go's unary - on a dyn (int, double; uint is no overload).
func NegDyn(a any) (any, Err) {
	s := scalarOf(a)
	switch s.k {
	case kUnsupported:
		return nil, Unsupported(a)
	case kInt:
		r, e := NegInt(s.i)
		if !e.Ok() {
			return nil, e
		}
		return r, e
	case kDouble:
		return -s.f, Err{}
	}
	return nil, NoSuchOverload("")
}

// NotDyn is cel-go's ! on a dyn (bool only).
func NotDyn(a any) (bool, Err) {
	b, e := AsBool(a)
	return !b && e.Ok(), e
}

// unsupported2 is [Unsupported] for the first unsupported of two operands.
func unsupported2(a any, as scalar, b any, bs scalar) Err {
	if as.k == kUnsupported {
		return Unsupported(a)
	}
	if bs.k == kUnsupported {
		return Unsupported(b)
	}
	return Err{}
}
