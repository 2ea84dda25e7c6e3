package impl

import (
	"fmt"
	"math"
	"strconv"
)

// Conversions int(), uint(), double(), string(), bool() as cel-go does them.

const (
	convStringInt    = "type conversion error from 'string' to 'int'"
	convStringUint   = "type conversion error from 'string' to 'uint'"
	convStringDouble = "type conversion error from 'string' to 'double'"
	convStringBool   = "type conversion error from 'string' to 'bool'"
)

// IntFromDouble is int(d): truncation toward zero; NaN, ±Inf and values
// with d <= -2^63 or d >= 2^63 are ErrIntOverflow (note: cel-go rejects
// exactly -2^63 too).
func IntFromDouble(d float64) (int64, Err) {
	if math.IsInf(d, 0) || math.IsNaN(d) || d <= float64(math.MinInt64) || d >= float64(math.MaxInt64) {
		return 0, IntOverflow()
	}
	return int64(d), Err{}
}

// IntFromString is int(s): strconv.ParseInt(s, 10, 64) (optional sign, no
// spaces, no underscores); failure is ErrConversion.
func IntFromString(s string) (int64, Err) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, ConversionError(convStringInt)
	}
	return n, Err{}
}

// IntFromUint is int(u); u > MaxInt64 is ErrIntOverflow.
func IntFromUint(u uint64) (int64, Err) {
	if u > math.MaxInt64 {
		return 0, IntOverflow()
	}
	return int64(u), Err{}
}

// IntFromDyn is int(v) on a dyn (int, uint, double, string).
func IntFromDyn(v any) (int64, Err) {
	s := scalarOf(v)
	switch s.k {
	case kInt:
		return s.i, Err{}
	case kUint:
		return IntFromUint(s.u)
	case kDouble:
		return IntFromDouble(s.f)
	case kString:
		return IntFromString(s.s)
	case kUnsupported:
		return 0, Unsupported(v)
	}
	return 0, NoSuchOverload("int(" + s.k.typeName() + ")")
}

// UintFromInt is uint(i); i < 0 is "unsigned integer overflow".
func UintFromInt(i int64) (uint64, Err) {
	if i < 0 {
		return 0, UintOverflow()
	}
	return uint64(i), Err{}
}

// UintFromDouble is uint(d); out of [0, 2^64) or NaN is "unsigned integer
// overflow".
func UintFromDouble(d float64) (uint64, Err) {
	if math.IsInf(d, 0) || math.IsNaN(d) || d < 0 || d >= 18446744073709551616.0 {
		return 0, UintOverflow()
	}
	return uint64(d), Err{}
}

// UintFromString is uint(s).
func UintFromString(s string) (uint64, Err) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, ConversionError(convStringUint)
	}
	return n, Err{}
}

// UintFromDyn is uint(v) on a dyn (uint, int, double, string), with the
// range errors of UintFromInt and UintFromDouble; other types are
// "no such overload: uint(<type>)".
func UintFromDyn(v any) (uint64, Err) {
	s := scalarOf(v)
	switch s.k {
	case kUint:
		return s.u, Err{}
	case kInt:
		return UintFromInt(s.i)
	case kDouble:
		return UintFromDouble(s.f)
	case kString:
		return UintFromString(s.s)
	case kUnsupported:
		return 0, Unsupported(v)
	}
	return 0, NoSuchOverload("uint(" + s.k.typeName() + ")")
}

// DoubleFromInt is double(i).
func DoubleFromInt(i int64) float64 { return float64(i) }

// DoubleFromUint is double(u).
func DoubleFromUint(u uint64) float64 { return float64(u) }

// DoubleFromString is double(s): strconv.ParseFloat(s, 64), which accepts
// "NaN", "Inf", "-infinity", "1e3", hex floats; out of range is an error.
func DoubleFromString(s string) (float64, Err) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, ConversionError(convStringDouble)
	}
	return f, Err{}
}

// DoubleFromDyn is double(v) on a dyn (double, int, uint, string).
func DoubleFromDyn(v any) (float64, Err) {
	s := scalarOf(v)
	switch s.k {
	case kDouble:
		return s.f, Err{}
	case kInt:
		return float64(s.i), Err{}
	case kUint:
		return float64(s.u), Err{}
	case kString:
		return DoubleFromString(s.s)
	case kUnsupported:
		return 0, Unsupported(v)
	}
	return 0, NoSuchOverload("double(" + s.k.typeName() + ")")
}

// StringFromInt is string(i).
func StringFromInt(i int64) string { return strconv.FormatInt(i, 10) }

// StringFromUint is string(u).
func StringFromUint(u uint64) string { return strconv.FormatUint(u, 10) }

// StringFromDouble is string(d): Go's %g (shortest repr, exponent from
// 1e+21 and below 1e-04, "NaN", "+Inf", "-Inf").
func StringFromDouble(d float64) string { return fmt.Sprintf("%g", d) }

// StringFromBool is string(b): "true" or "false".
func StringFromBool(b bool) string { return strconv.FormatBool(b) }

// StringFromDyn is string(v) on a dyn (string, bool, int, uint, double).
func StringFromDyn(v any) (string, Err) {
	s := scalarOf(v)
	switch s.k {
	case kString:
		return s.s, Err{}
	case kBool:
		return StringFromBool(s.b), Err{}
	case kInt:
		return StringFromInt(s.i), Err{}
	case kUint:
		return StringFromUint(s.u), Err{}
	case kDouble:
		return StringFromDouble(s.f), Err{}
	case kUnsupported:
		return "", Unsupported(v)
	}
	return "", NoSuchOverload("string(" + s.k.typeName() + ")")
}

// BoolFromString is bool(s): strconv.ParseBool ("1", "t", "T", "TRUE",
// "true", "True", "0", "f", "F", "FALSE", "false", "False").
func BoolFromString(s string) (bool, Err) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, ConversionError(convStringBool)
	}
	return b, Err{}
}

// BoolFromDyn is bool(v) on a dyn (bool, string).
func BoolFromDyn(v any) (bool, Err) {
	s := scalarOf(v)
	switch s.k {
	case kBool:
		return s.b, Err{}
	case kString:
		return BoolFromString(s.s)
	case kUnsupported:
		return false, Unsupported(v)
	}
	return false, NoSuchOverload("bool(" + s.k.typeName() + ")")
}
