package impl

import (
	"context"
	"errors"
	"strconv"

	"github.com/oarc/oarc/runtime"
)

// Err is runtime.Err: generated code and the helpers here produce it.
type Err = runtime.Err

// ErrKind is runtime.ErrKind.
type ErrKind = runtime.ErrKind

// The error kinds, under short names for the helpers of this package.
const (
	ErrNone            = runtime.ErrNone
	ErrNoSuchKey       = runtime.ErrNoSuchKey
	ErrIndexOutOfRange = runtime.ErrIndexOutOfRange
	ErrDivideByZero    = runtime.ErrDivideByZero
	ErrModulusByZero   = runtime.ErrModulusByZero
	ErrIntOverflow     = runtime.ErrIntOverflow
	ErrNoSuchOverload  = runtime.ErrNoSuchOverload
	ErrConversion      = runtime.ErrConversion
	ErrInvalidArgument = runtime.ErrInvalidArgument
)

// NoSuchKey is the error for a map lookup of the absent string key k.
func NoSuchKey(k string) Err { return Err{Kind: ErrNoSuchKey, S: k} }

// NoSuchKeyInt is the error for a lookup of the absent int key k.
func NoSuchKeyInt(k int64) Err { return Err{Kind: ErrNoSuchKey, S: itoa(k)} }

// IndexOutOfRange is the error for a list index i outside [0, size):
// "index out of bounds: i".
func IndexOutOfRange(i int64) Err { return Err{Kind: ErrIndexOutOfRange, N: i} }

// StringIndexOutOfRange is the strings extension's error for a bad code
// point offset: "index out of range: i".
func StringIndexOutOfRange(i int64) Err { return Err{Kind: runtime.ErrStringIndex, N: i} }

// NoSuchOverload is the error for operands of the wrong dynamic type. fn
// (may be empty) is the detail cel-go prints after "no such overload: ".
func NoSuchOverload(fn string) Err { return Err{Kind: ErrNoSuchOverload, S: fn} }

// DivisionByZero is "division by zero".
func DivisionByZero() Err { return Err{Kind: ErrDivideByZero} }

// ModulusByZero is "modulus by zero".
func ModulusByZero() Err { return Err{Kind: ErrModulusByZero} }

// IntOverflow is "integer overflow".
func IntOverflow() Err { return Err{Kind: ErrIntOverflow} }

// UintOverflow is "unsigned integer overflow".
func UintOverflow() Err { return Err{Kind: runtime.ErrUintOverflow} }

// ConversionError is a failed conversion with cel-go's full message msg.
func ConversionError(msg string) Err { return Err{Kind: ErrConversion, S: msg} }

// InvalidArgument is a bad function argument with cel-go's full message msg.
func InvalidArgument(msg string) Err { return Err{Kind: ErrInvalidArgument, S: msg} }

// MaxDepth is how many levels of nested lists and maps the runtime walks
// (equality, `in` on lists). A walk that would go deeper, as it does
// forever on a cyclic value, stops with [TooDeep] instead of exhausting the
// stack. cel-go has no such limit (it overflows the stack on a cyclic
// value); values at most MaxDepth levels deep behave exactly as in cel-go.
const MaxDepth = 1000

const msgTooDeep = "value too deeply nested or cyclic (more than 1000 levels of lists and maps)"

// TooDeep is the error of a walk past [MaxDepth]: kind ErrInvalidArgument,
// "value too deeply nested or cyclic (more than 1000 levels of lists and
// maps)".
func TooDeep() Err { return Err{Kind: ErrInvalidArgument, S: msgTooDeep} }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// contextEnded reports whether an error is, or wraps, the end of its
// context (deadline or cancellation): a timeout, not a failure.
func contextEnded(e error) bool {
	return errors.Is(e, context.DeadlineExceeded) || errors.Is(e, context.Canceled)
}
