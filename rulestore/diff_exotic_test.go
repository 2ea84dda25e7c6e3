package rulestore_test

import (
	"math/rand"
	"testing"

	"cel.dev/cel-go/common/types"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/oarc/oarc/testkit/celdiff"
)

// TestDifferentialExoticHostValues: the hostile rules, compiled and run by
// the store, on exotic host values (testkit/celdiff.ExoticValue: named
// string, list and map types, pointers of every depth, integer and float
// limits, json.Number beyond int64, cel-go's and protobuf's own values,
// typed nils, cycles, deep nesting) in tool_args and in the spans of a
// detector's fact: the same decision, errors included.
func TestDifferentialExoticHostValues(t *testing.T) {
	m := map[string]any{"count": int64(9)}
	vals := []any{
		structpb.NullValue_NULL_VALUE, structpb.NullValue(1), (*structpb.NullValue)(nil),
		ptr(types.Int(4)), ptr(types.String("sudo ls")), (*types.Int)(nil), ptr(types.NullValue),
		map[any]any{"count": &m}, map[any]any{"count": struct{}{}}, celdiff.M{"count": &m},
	}
	r := rand.New(rand.NewSource(31))
	for range 300 {
		vals = append(vals, celdiff.ExoticValue(r))
	}
	diffHostileValues(t, vals)
}

func ptr[T any](v T) *T { return &v }
