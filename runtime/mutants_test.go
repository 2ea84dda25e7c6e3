package runtime

import "testing"

// Error texts that carry a number (they reach the rejection through the
// failed-closed preamble) spell it in decimal, zero and negatives included:
// kills gremlins' mutant of itoa's zero case (docs/mutation.md).
func TestMutantErrNumbers(t *testing.T) {
	for _, c := range []struct {
		e    Err
		want string
	}{
		{Err{Kind: ErrStringIndex, N: 0}, "index out of range: 0"},
		{Err{Kind: ErrStringIndex, N: 7}, "index out of range: 7"},
		{Err{Kind: ErrStringIndex, N: -12}, "index out of range: -12"},
		{Err{Kind: ErrIndexOutOfRange, N: 1234567890}, "index out of bounds: 1234567890"},
		{Err{Kind: ErrIndexOutOfRange, N: -9223372036854775808}, "index out of bounds: -9223372036854775808"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v.Error() = %q, want %q", c.e, got, c.want)
		}
	}
}
