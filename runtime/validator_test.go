package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// Issue 10.11: a validator's wrapped context error is a timeout.
func TestValidatorWrappedDeadline(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int64
	}{
		{context.DeadlineExceeded, detTimeout},
		{fmt.Errorf("scan: %w", context.DeadlineExceeded), detTimeout},
		{fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", context.Canceled)), detTimeout},
		{errors.Join(errors.New("x"), context.DeadlineExceeded), detTimeout},
		{errors.New("context deadline exceeded"), detFailed}, // the text alone is not the error
		{errors.New("boom"), detFailed},
	} {
		env := &Env{Validators: map[string]Validator{"v": func(context.Context, *Occurrence) (Detection, error) {
			return Detection{Hit: true}, c.err
		}}}
		var x Exec
		Begin(&x, context.Background(), env, &Occurrence{}, nil, &Decision{}, 1)
		r := &Rule{ID: "R", Kind: KindDetector, Detector: "v", DetectorSlot: 0}
		d, e := x.Detect(r)
		if d != nil || e.Kind != ErrDetector || e.N != c.want {
			t.Errorf("%v: %v, %#v; want detail %d", c.err, d, e, c.want)
		}
	}
}
