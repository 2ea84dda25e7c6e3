package ir

import (
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/overloads"
)

// Op is an operation of a [Call], independent of its operand types.
type Op uint8

// The operations.
const (
	OpInvalid Op = iota
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMod
	OpNeg
	OpNot
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpIn
	OpSize
	OpContains
	OpStartsWith
	OpEndsWith
	OpMatches
	OpInt
	OpUint
	OpDouble
	OpString
	OpBool
	OpDyn
	OpType
	OpLowerASCII
	OpUpperASCII
	OpTrim
	OpSplit
	OpJoin
	OpReplace
	OpIndexOf
	OpLastIndexOf
	OpSubstring
	OpCharAt
	numOps
)

// OpInfo describes an operation: its name in printed IR, the CEL function
// it implements, the numbers of arguments it takes (a receiver counts as an
// argument), and its result type when that does not depend on the operands.
type OpInfo struct {
	Name     string
	CEL      string
	MinArity int
	MaxArity int
	// Result is the type of every value the operation produces (it either
	// produces that type or fails), or nil when the result's type follows
	// the operands' (arithmetic on dyn operands is dyn).
	Result *Type
}

// The strings extension's function names (cel-go's ext package does not
// export them).
const (
	extLowerASCII  = "lowerAscii"
	extUpperASCII  = "upperAscii"
	extTrim        = "trim"
	extSplit       = "split"
	extJoin        = "join"
	extReplace     = "replace"
	extIndexOf     = "indexOf"
	extLastIndexOf = "lastIndexOf"
	extSubstring   = "substring"
	extCharAt      = "charAt"
)

// ops is the one table of operations.
var ops = [numOps]OpInfo{
	OpAdd:         {"add", operators.Add, 2, 2, nil},
	OpSub:         {"sub", operators.Subtract, 2, 2, nil},
	OpMul:         {"mul", operators.Multiply, 2, 2, nil},
	OpDiv:         {"div", operators.Divide, 2, 2, nil},
	OpMod:         {"mod", operators.Modulo, 2, 2, nil},
	OpNeg:         {"neg", operators.Negate, 1, 1, nil},
	OpNot:         {"not", operators.LogicalNot, 1, 1, BoolType},
	OpEq:          {"eq", operators.Equals, 2, 2, BoolType},
	OpNe:          {"ne", operators.NotEquals, 2, 2, BoolType},
	OpLt:          {"lt", operators.Less, 2, 2, BoolType},
	OpLe:          {"le", operators.LessEquals, 2, 2, BoolType},
	OpGt:          {"gt", operators.Greater, 2, 2, BoolType},
	OpGe:          {"ge", operators.GreaterEquals, 2, 2, BoolType},
	OpIn:          {"in", operators.In, 2, 2, BoolType},
	OpSize:        {"size", overloads.Size, 1, 1, IntType},
	OpContains:    {"contains", overloads.Contains, 2, 2, BoolType},
	OpStartsWith:  {"startsWith", overloads.StartsWith, 2, 2, BoolType},
	OpEndsWith:    {"endsWith", overloads.EndsWith, 2, 2, BoolType},
	OpMatches:     {"matches", overloads.Matches, 2, 2, BoolType},
	OpInt:         {"int", overloads.TypeConvertInt, 1, 1, IntType},
	OpUint:        {"uint", overloads.TypeConvertUint, 1, 1, UintType},
	OpDouble:      {"double", overloads.TypeConvertDouble, 1, 1, DoubleType},
	OpString:      {"string", overloads.TypeConvertString, 1, 1, StringType},
	OpBool:        {"bool", overloads.TypeConvertBool, 1, 1, BoolType},
	OpDyn:         {"dyn", overloads.TypeConvertDyn, 1, 1, DynType},
	OpType:        {"type", overloads.TypeConvertType, 1, 1, TypeType},
	OpLowerASCII:  {"lowerAscii", extLowerASCII, 1, 1, StringType},
	OpUpperASCII:  {"upperAscii", extUpperASCII, 1, 1, StringType},
	OpTrim:        {"trim", extTrim, 1, 1, StringType},
	OpSplit:       {"split", extSplit, 2, 3, ListOf(StringType)},
	OpJoin:        {"join", extJoin, 1, 2, StringType},
	OpReplace:     {"replace", extReplace, 3, 4, StringType},
	OpIndexOf:     {"indexOf", extIndexOf, 2, 3, IntType},
	OpLastIndexOf: {"lastIndexOf", extLastIndexOf, 2, 3, IntType},
	OpSubstring:   {"substring", extSubstring, 2, 3, StringType},
	OpCharAt:      {"charAt", extCharAt, 2, 2, StringType},
}

// Info returns the description of o.
func (o Op) Info() OpInfo {
	if o > OpInvalid && o < numOps {
		return ops[o]
	}
	return OpInfo{Name: "invalid"}
}

func (o Op) String() string { return o.Info().Name }

// OpOf returns the operation implementing the CEL function fn.
func OpOf(fn string) (Op, bool) {
	for o := OpInvalid + 1; o < numOps; o++ {
		if ops[o].CEL == fn {
			return o, true
		}
	}
	return OpInvalid, false
}

// Arithmetic reports whether o is one of + - * / %.
func (o Op) Arithmetic() bool { return o >= OpAdd && o <= OpMod }

// Ordering reports whether o is one of < <= > >=.
func (o Op) Ordering() bool { return o >= OpLt && o <= OpGe }
