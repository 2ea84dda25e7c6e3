package celdiff

import (
	"math"
	"math/rand"
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

// genDyn generates a dyn value of any supported representation.
func genDyn(r *rand.Rand, depth int) any {
	n := 16
	if depth > 2 {
		n = 11
	}
	switch r.Intn(n) {
	case 0:
		return nil
	case 1:
		return r.Intn(2) == 0
	case 2:
		return genInt(r)
	case 3:
		return genDouble(r)
	case 4:
		return genUint(r)
	case 5:
		return genShortString(r)
	case 6:
		return int(genSmallInt(r))
	case 7:
		return int32(genSmallInt(r))
	case 8:
		return float32(genDouble(r))
	case 9:
		return float64(genSmallInt(r))
	case 10:
		return fieldNames[r.Intn(len(fieldNames))]
	case 11:
		l := make([]any, r.Intn(4))
		for i := range l {
			l[i] = genDyn(r, depth+1)
		}
		return l
	case 12:
		m := map[string]any{}
		for i := r.Intn(4); i > 0; i-- {
			m[fieldNames[r.Intn(len(fieldNames))]] = genDyn(r, depth+1)
		}
		return m
	case 13:
		return genStrings(r)
	case 14:
		m := map[string]string{}
		for i := r.Intn(3); i > 0; i-- {
			m[fieldNames[r.Intn(len(fieldNames))]] = genShortString(r)
		}
		return m
	}
	return []int64{genSmallInt(r), genSmallInt(r)}
}

func genRegex(r *rand.Rand) string {
	n := r.Intn(4)
	s := ""
	for i := 0; i < n; i++ {
		s += strPieces[r.Intn(len(strPieces))]
	}
	return s
}
