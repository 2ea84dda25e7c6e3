package celdiff

import (
	"encoding/json"
	"math"
	"math/rand"
	"strconv"

	rt "github.com/oarc/oarc/runtime/impl"
)

var interestingInts = []int64{0, 1, -1, 2, -2, 3, 7, 10, -10, 255, 256, 1 << 31, -(1 << 31), 1<<53 + 1, 1 << 53, -(1 << 53) - 1,
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, math.MaxInt32, 1 << 62, -(1 << 62)}

var interestingDoubles = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 1.5, 2, 3, 7.9, -7.9, 10, 1e21, 1e20, 1e-4, 1e-5, 123456789.0,
	math.NaN(), math.Inf(1), math.Inf(-1), 9223372036854775808.0, -9223372036854775808.0, 9223372036854774784.0,
	18446744073709551616.0, 18446744073709549568.0, 9007199254740992.0, 9007199254740993.0, math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0 / 3}

var interestingUints = []uint64{0, 1, 2, 3, 7, 10, 255, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64, math.MaxUint64 - 1, 1 << 53}

func genInt(r *rand.Rand) int64 {
	switch r.Intn(4) {
	case 0:
		return interestingInts[r.Intn(len(interestingInts))]
	case 1:
		return int64(r.Intn(21) - 10)
	case 2:
		return r.Int63() - r.Int63()
	}
	return int64(r.Intn(2000) - 1000)
}

func genSmallInt(r *rand.Rand) int64 {
	if r.Intn(10) == 0 {
		return interestingInts[r.Intn(len(interestingInts))]
	}
	return int64(r.Intn(16) - 3)
}

func genUint(r *rand.Rand) uint64 {
	switch r.Intn(3) {
	case 0:
		return interestingUints[r.Intn(len(interestingUints))]
	case 1:
		return uint64(r.Intn(20))
	}
	return r.Uint64()
}

func genDouble(r *rand.Rand) float64 {
	switch r.Intn(4) {
	case 0:
		return interestingDoubles[r.Intn(len(interestingDoubles))]
	case 1:
		return float64(r.Intn(21) - 10)
	case 2:
		return math.Float64frombits(r.Uint64())
	}
	return (r.Float64() - 0.5) * math.Pow(10, float64(r.Intn(40)-10))
}

var strPieces = []string{"", "a", "b", "A", "Z", "ab", "abc", " ", "\t", "\n", "\u00a0", "\u2003", "é", "É", "日本", "😀", "\xff", "\xc3", "\xe2\x82",
	"\uFFFD", ".", ",", "-", "1", "0", "12", "-5", "+3", "1e3", "NaN", "inf", "-Inf", "0x1p-2", "1_000", "true", "false", "TRUE", "t", "F", "Foo", "bar",
	"*", "(", ")", "[", "]", "^", "$", "\\", "?", "+", "|", "{2}", "\\d", "x"}

func genString(r *rand.Rand) string {
	n := r.Intn(5)
	s := ""
	for i := 0; i < n; i++ {
		s += strPieces[r.Intn(len(strPieces))]
	}
	return s
}

func genShortString(r *rand.Rand) string {
	if r.Intn(4) == 0 {
		return ""
	}
	return strPieces[r.Intn(len(strPieces))]
}

func genStrings(r *rand.Rand) []string {
	if r.Intn(8) == 0 {
		return nil
	}
	n := r.Intn(4)
	out := make([]string, n)
	for i := range out {
		out[i] = genShortString(r)
	}
	return out
}

var fieldNames = []string{"a", "b", "path", "f", ""}

// genDyn generates a dyn value of any supported representation: scalars
// (uint and json.Number among them), lists and maps of every
// representation (maps keyed by mixed numbers, bools, null, lists...),
// empty maps, nested up to a few levels.
func genDyn(r *rand.Rand, depth int) any {
	if depth > 3 || r.Intn(8) < 5 {
		return genScalar(r)
	}
	return genContainer(r, depth)
}

func genScalar(r *rand.Rand) any {
	switch r.Intn(16) {
	case 0:
		return nil
	case 1:
		return r.Intn(2) == 0
	case 2:
		return genInt(r)
	case 3:
		return genDouble(r)
	case 4, 5:
		return genUint(r)
	case 6:
		return genShortString(r)
	case 7:
		return int(genSmallInt(r))
	case 8:
		return int32(genSmallInt(r))
	case 9:
		return float32(genDouble(r))
	case 10:
		return float64(genSmallInt(r))
	case 11:
		return fieldNames[r.Intn(len(fieldNames))]
	case 12:
		return genNumber(r)
	case 13:
		return uint32(genSmallInt(r) & 0xff)
	}
	return genKey(r)
}

func genContainer(r *rand.Rand, depth int) any {
	switch r.Intn(12) {
	case 0:
		l := make([]any, r.Intn(4))
		for i := range l {
			l[i] = genDyn(r, depth+1)
		}
		return l
	case 1:
		m := map[string]any{}
		for i := r.Intn(4); i > 0; i-- {
			m[fieldNames[r.Intn(len(fieldNames))]] = genDyn(r, depth+1)
		}
		return m
	case 2:
		return genStrings(r)
	case 3:
		m := map[string]string{}
		for i := r.Intn(3); i > 0; i-- {
			m[fieldNames[r.Intn(len(fieldNames))]] = genShortString(r)
		}
		return m
	case 4:
		return []int64{genSmallInt(r), genSmallInt(r)}
	case 5:
		return []uint64{genUint(r), uint64(r.Intn(3))}
	case 6:
		l := make([]map[string]any, r.Intn(3))
		for i := range l {
			l[i] = map[string]any{fieldNames[r.Intn(len(fieldNames))]: genDyn(r, depth+1)}
		}
		return l
	case 7:
		return genEmptyMap(r)
	}
	return genAnyMap(r, depth)
}

func genEmptyMap(r *rand.Rand) any {
	switch r.Intn(4) {
	case 0:
		return map[string]any{}
	case 1:
		return map[string]string{}
	case 2:
		return (*rt.AnyMap)(nil)
	}
	return rt.NewAnyMap()
}

// genAnyMap is a map literal's value: keys from a small pool, so that
// numerically equal keys of different types, duplicates and near misses
// are common.
func genAnyMap(r *rand.Rand, depth int) *rt.AnyMap {
	var kv []any
	for i := r.Intn(5); i > 0; i-- {
		kv = append(kv, genKey(r), genDyn(r, depth+1))
	}
	return rt.NewAnyMap(kv...)
}

var keyPool = []any{int64(0), int64(1), int64(2), int64(-1), uint64(0), uint64(1), uint64(2), 0.0, math.Copysign(0, -1), 1.0, 2.0,
	1.5, -1.0, math.NaN(), 9223372036854775808.0, uint64(math.MaxUint64), int64(math.MaxInt64), "a", "b", "", "1", true, false, nil}

// genKey is a map key, or an index or element to look up: mostly from
// keyPool, sometimes a list or map (never found), a host int kind or a
// json.Number.
func genKey(r *rand.Rand) any {
	switch r.Intn(12) {
	case 0:
		return []any{genSmallInt(r)}
	case 1:
		return map[string]any{}
	case 2:
		return int(r.Intn(3))
	case 3:
		return json.Number(strconv.Itoa(r.Intn(3)))
	}
	return keyPool[r.Intn(len(keyPool))]
}

// genNumber is a json.Number as a JSON decoder with UseNumber makes (not
// one that spells no number, such as "abc" or "1e999": cel-go cannot
// convert those, the runtime treats them as unsupported Go values).
func genNumber(r *rand.Rand) json.Number {
	switch r.Intn(6) {
	case 0:
		return json.Number(strconv.FormatFloat(genDouble(r), 'g', -1, 64))
	case 1:
		return json.Number([]string{"1.0", "1e2", "-0", "12345678901234567890", "-1e308", "4.9e-324", "0.5", "-1E-2"}[r.Intn(8)])
	case 2:
		return json.Number(strconv.FormatUint(genUint(r), 10))
	}
	return json.Number(strconv.FormatInt(genInt(r), 10))
}

// genCyclic is a list or map that contains itself, directly or through a
// nested list or map.
func genCyclic(r *rand.Rand) any {
	var root any
	var setSelf func(v any)
	if r.Intn(2) == 0 {
		l := make([]any, 1+r.Intn(3))
		for i := range l {
			l[i] = genDyn(r, 2)
		}
		root = l
		setSelf = func(v any) { l[r.Intn(len(l))] = v }
	} else {
		m := map[string]any{"k": genScalar(r)}
		if r.Intn(2) == 0 {
			m["a"] = genDyn(r, 2)
		}
		root = m
		setSelf = func(v any) { m["self"] = v }
	}
	switch r.Intn(4) {
	case 0: // through a nested list
		setSelf([]any{genScalar(r), root})
	case 1: // through a nested map
		setSelf(map[string]any{"up": root})
	case 2: // through a list of maps
		setSelf([]map[string]any{{"up": root}})
	default:
		setSelf(root)
	}
	return root
}

// genDeep is a chain of n nested containers (lists, maps, *AnyMaps) around
// leaf; equal siblings along the way are the same for every call with the
// same shape seed.
func genDeep(shape int64, n int, leaf any) any {
	r := rand.New(rand.NewSource(shape))
	v := leaf
	for i := 0; i < n; i++ {
		switch r.Intn(4) {
		case 0:
			v = []any{v}
		case 1:
			v = []any{int64(i), v}
		case 2:
			v = map[string]any{"a": v, "b": int64(i)}
		default:
			v = rt.NewAnyMap(uint64(1), v, "z", true)
		}
	}
	return v
}

func genRegex(r *rand.Rand) string {
	n := r.Intn(4)
	s := ""
	for i := 0; i < n; i++ {
		s += strPieces[r.Intn(len(strPieces))]
	}
	return s
}
