package runtime

import (
	"context"
	"errors"
)

// ErrKind classifies an evaluation error. The kinds follow cel-go's error
// classes so that generated code and cel-go can be compared kind for kind.
type ErrKind uint8

// The evaluation error kinds. ErrNone is the zero value: no error.
const (
	ErrNone            ErrKind = iota
	ErrNoSuchKey               // map lookup of an absent key: "no such key: k"
	ErrIndexOutOfRange         // list index outside [0, size): "index out of bounds: n" (cel-go's text)
	ErrDivideByZero            // "division by zero"
	ErrModulusByZero           // "modulus by zero"
	ErrIntOverflow             // "integer overflow"
	ErrNoSuchOverload          // operands of the wrong dynamic type: "no such overload"
	ErrConversion              // failed int()/double()/string()/bool() conversion, or range error
	ErrInvalidArgument         // bad argument to a function, e.g. an invalid regex at run time
	ErrNoProvider              // a provider-backed function with no provider registered
	ErrProvider                // a provider returned an error
	ErrProfile                 // a required profile was not supplied
	ErrDetector                // validator not registered, failed or timed out
	ErrCanceled                // the context was cancelled or its deadline passed
	ErrPanic                   // a panic was recovered at the entry point
)

// Err is an evaluation error as a plain value, so that producing one does
// not allocate. The zero Err means "no error". S and N carry the details
// the message needs (a key, an index, a function name).
type Err struct {
	Kind ErrKind
	S    string
	N    int64
}

// Ok reports whether e is the zero Err (no error).
func (e Err) Ok() bool { return e.Kind == ErrNone }

// Error returns the message cel-go gives for the same error. It is built
// lazily, so creating an Err never allocates.
func (e Err) Error() string {
	switch e.Kind {
	case ErrNone:
		return ""
	case ErrNoSuchKey:
		return "no such key: " + e.S
	case ErrIndexOutOfRange:
		if e.S == sStringIndex {
			return "index out of range: " + itoa(e.N)
		}
		if e.S != "" { // the key as cel-go prints it, e.g. a double "1e+10"
			return "index out of bounds: " + e.S
		}
		return "index out of bounds: " + itoa(e.N)
	case ErrDivideByZero:
		return "division by zero"
	case ErrModulusByZero:
		return "modulus by zero"
	case ErrIntOverflow:
		if e.S == sUnsigned {
			return "unsigned integer overflow"
		}
		return "integer overflow"
	case ErrNoSuchOverload:
		if e.S == "" {
			return "no such overload"
		}
		return "no such overload: " + e.S
	case ErrConversion, ErrInvalidArgument:
		if e.S == "" {
			return "invalid argument"
		}
		return e.S
	case ErrNoProvider:
		return "no provider registered for " + e.S
	case ErrProvider:
		return "provider error: " + e.S
	case ErrProfile:
		return "profile not supplied: " + e.S
	case ErrDetector:
		return "detector error: " + e.S
	case ErrCanceled:
		if e.S == "" {
			return "evaluation canceled"
		}
		return "evaluation canceled: " + e.S
	case ErrPanic:
		return "panic: " + e.S
	}
	return "unknown error kind " + itoa(int64(e.Kind)) + ": " + e.S
}

// Sentinel detail strings selecting a variant of a kind's message.
const (
	sStringIndex = "\x00string-index" // strings extension: "index out of range: n"
	sUnsigned    = "\x00unsigned"     // "unsigned integer overflow"
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
func StringIndexOutOfRange(i int64) Err {
	return Err{Kind: ErrIndexOutOfRange, S: sStringIndex, N: i}
}

// NoSuchOverload is the error for operands of the wrong dynamic type. fn
// (may be empty) is the detail cel-go prints after "no such overload: ".
func NoSuchOverload(fn string) Err { return Err{Kind: ErrNoSuchOverload, S: fn} }

// DivisionByZero is "division by zero".
func DivisionByZero() Err { return Err{Kind: ErrDivideByZero} }

// ModulusByZero is "modulus by zero".
func ModulusByZero() Err { return Err{Kind: ErrModulusByZero} }

// IntOverflow is "integer overflow".
func IntOverflow() Err { return Err{Kind: ErrIntOverflow} }

// UintOverflow is "unsigned integer overflow" (kind ErrIntOverflow).
func UintOverflow() Err { return Err{Kind: ErrIntOverflow, S: sUnsigned} }

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

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	u := uint64(n)
	if n < 0 {
		u = uint64(-n)
	}
	for u > 0 {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
	}
	if n < 0 {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// contextEnded reports whether a validator's error is, or wraps, the end of
// its context (deadline or cancellation): a timeout, not a failure.
func contextEnded(e error) bool {
	return errors.Is(e, context.DeadlineExceeded) || errors.Is(e, context.Canceled)
}
