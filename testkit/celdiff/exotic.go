package celdiff

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"time"

	"cel.dev/cel-go/common/types"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Exotic host values: the Go values a host may hand over that HostValue
// does not make, biased to the edges of cel-go's adapter (named string,
// map and list types, pointers of every depth and nil, every integer and
// float width at its limits, NaN, infinities and -0, json.Number beyond
// int64 and double, cel-go's and protobuf's own values, typed nils,
// interfaces holding nil, invalid UTF-8, cycles and deep nesting).

// The named types of exotic values.
type (
	// S is a named string.
	S string
	// M is a named map of dyn values.
	M map[string]any
	// L is a named list of dyn values.
	L []any
	// Enum is a named int32, as protobuf enums are.
	Enum int32
)

// ExoticValue is a random exotic host value, nested up to depth 2.
func ExoticValue(r *rand.Rand) any { return exotic(r, 0) }

func exotic(r *rand.Rand, depth int) any {
	elem := func() any {
		if depth >= 2 {
			return ExoticScalar(r)
		}
		switch r.Intn(4) {
		case 0:
			return plainDyn(r, 2)
		case 1:
			return hostValue(r, 2)
		}
		return exotic(r, depth+1)
	}
	switch r.Intn(30) {
	case 0, 1, 2, 3, 4, 5, 6, 7:
		return ExoticScalar(r)
	case 8:
		return M{"a": elem(), "b": elem()}
	case 9:
		return L{elem(), elem()}[:r.Intn(3)]
	case 10:
		m := map[string]any{"a": elem()}
		return &m
	case 11:
		l := []any{elem()}
		return &l
	case 12:
		return map[any]any{"a": elem(), int64(1): elem(), uint64(2): "u", 2.5: "d", true: "t", S("b"): 1, nil: "nil"}
	case 13:
		return map[string]string{"a": "\xff", "b": ""}
	case 14:
		return []string{"a", "\xff"}[:r.Intn(3)]
	case 15:
		return []map[string]any{{"a": elem()}, nil}[:r.Intn(3)]
	case 16:
		return [2]any{elem(), elem()}
	case 17:
		return struct{ A int }{1}
	case 18:
		var e error
		return []any{e, []error{nil, errors.New("x")}, [1]error{}, []*int{nil}}[r.Intn(4)]
	case 19:
		return []any{[]any(nil), map[string]any(nil), []int(nil), map[string]int(nil), M(nil), L(nil), []map[string]any(nil),
			map[any]any(nil), (*map[string]any)(nil)}[r.Intn(9)]
	case 20:
		return []any{make(chan int), func() {}, complex64(1), uintptr(1)}[r.Intn(4)]
	case 21:
		// a cycle through a map and a list
		m := map[string]any{}
		l := []any{m, int64(1)}
		m["a"] = l
		return []any{m, l}[r.Intn(2)]
	case 22:
		m := M{}
		m["a"] = m
		return m
	case 23:
		var v any = int64(1)
		for i := 0; i < 990+r.Intn(20); i++ {
			if r.Intn(2) == 0 {
				v = []any{v}
			} else {
				v = map[string]any{"a": v}
			}
		}
		return v
	case 24:
		return []any{types.NewDynamicList(types.DefaultTypeAdapter, []any{1}),
			types.NewStringInterfaceMap(types.DefaultTypeAdapter, map[string]any{"a": 1}),
			types.OptionalOf(types.Int(1)), types.OptionalNone, types.IntType, types.NewErr("host error"),
			types.NewUnknown(1, nil), *types.NewUnknown(2, nil)}[r.Intn(8)]
	case 25:
		return []any{structpb.NewStringValue("a"), structpb.NewNullValue(), structpb.NewNumberValue(1),
			structpb.NewBoolValue(true), structpb.NullValue_NULL_VALUE, wrapperspb.Int64(1), wrapperspb.String("a"),
			&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(1)}},
			&structpb.Struct{Fields: map[string]*structpb.Value{"a": structpb.NewNumberValue(1)}}}[r.Intn(9)]
	case 26:
		return map[S]any{"a": elem()}
	case 27:
		return []S{"a", "\xff"}
	case 28:
		return map[Enum]string{1: "a"}
	}
	return []any{elem(), elem()}
}

// ExoticScalar is a scalar host value at the edges: every integer and
// float width at its limits, NaN, infinities, -0, json.Number of every
// kind, pointers (nil, to pointers, to named types, to cel-go's values),
// cel-go's and protobuf's scalar values, times, bytes, invalid UTF-8.
func ExoticScalar(r *rand.Rand) any {
	n := r.Intn(3)
	switch r.Intn(32) {
	case 0:
		return []any{int8(math.MinInt8), int8(math.MaxInt8), int16(math.MinInt16), int32(math.MaxInt32), int64(math.MinInt64),
			int(n)}[r.Intn(6)]
	case 1:
		return []any{uint8(255), uint16(65535), uint32(math.MaxUint32), uint64(math.MaxUint64), uint64(1) << 63,
			uint64(1)<<63 - 1, uint(n)}[r.Intn(7)]
	case 2:
		return []any{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), float32(math.NaN()),
			float32(math.Inf(-1)), float32(math.Copysign(0, -1)), float32(0.1), math.MaxFloat64, float64(n)}[r.Intn(10)]
	case 3:
		return json.Number([]string{"9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e308", "1e309",
			"-0", "0.0", "1", "2", "1.5", "NaN", "", "1e-400", "0x1p3", "9223372036854775807"}[r.Intn(15)])
	case 4:
		return []any{S("a"), S("\xff"), S(""), "\xff", "a\x00b", "\u00e9"}[r.Intn(6)]
	case 5:
		x := int64(n)
		return []any{&x, (*int64)(nil), ptr(&x), ptr(S("a")), ptr(uint64(1) << 63), ptr(math.NaN()), ptr(json.Number("1")),
			ptr(Enum(1)), ptr(true)}[r.Intn(9)]
	case 6:
		return []any{types.Int(n), types.Uint(n), types.Double(float64(n)), types.Double(math.NaN()), types.String("a"),
			types.Bool(true), types.NullValue, types.Bytes("a"), types.Timestamp{Time: time.Unix(0, 0)},
			types.Duration{Duration: time.Second}}[r.Intn(10)]
	case 7:
		return []any{ptr(types.Int(n)), ptr(types.String("a")), ptr(types.Bool(true)), ptr(types.Double(1)),
			ptr(types.Uint(1)), ptr(types.NullValue), ptr(types.Bytes("a"))}[r.Intn(7)]
	case 8:
		return []any{[]byte("a"), time.Unix(0, 0), time.Duration(n), ptr(time.Unix(0, 0)), [2]byte{}}[r.Intn(5)]
	case 9:
		return []any{Enum(n), structpb.NullValue_NULL_VALUE, structpb.NullValue(1), Port(n), Name("a"), Flag(true),
			Ratio(float32(n))}[r.Intn(7)]
	case 10:
		var e error
		var p *int
		return []any{e, any(p), nil}[r.Intn(3)]
	}
	return plainDyn(r, 2)
}
