package impl

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/oarc/oarc/runtime"
)

type occ struct{}

// Issue 10.11: a validator's wrapped context error is a timeout, not a
// failure.
func TestValidatorWrappedDeadline(t *testing.T) {
	for _, c := range []struct {
		err  error
		want runtime.ErrKind
	}{
		{context.DeadlineExceeded, runtime.ErrTimeout},
		{fmt.Errorf("scan: %w", context.DeadlineExceeded), runtime.ErrTimeout},
		{fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", context.Canceled)), runtime.ErrTimeout},
		{errors.Join(errors.New("x"), context.DeadlineExceeded), runtime.ErrTimeout},
		{errors.New("context deadline exceeded"), runtime.ErrDetector}, // the text alone is not the error
		{errors.New("boom"), runtime.ErrDetector},
	} {
		v := func(context.Context, *occ) (runtime.Detection, error) { return runtime.Detection{Hit: true}, c.err }
		var x Exec
		Begin(&x, context.Background(), nil, nil, &runtime.Decision{}, "a", 0, "", nil)
		x.Validators(1)
		r := &Rule{Rule: runtime.Rule{ID: "R"}, Detector: "v", DetectorSlot: 0}
		d, e := Detect(&x, r, v, &occ{})
		if d != nil || e.Kind != c.want {
			t.Errorf("%v: %v, %#v; want kind %v", c.err, d, e, c.want)
		}
	}
}

// Issue 10.4: a validator or provider that ignores its context is
// abandoned at the deadline; the rule gets a timeout error.
func TestDeadlineIsBinding(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var x Exec
	Begin(&x, ctx, nil, nil, &runtime.Decision{}, "a", 0, "", nil)
	x.Validators(1)
	r := &Rule{Rule: runtime.Rule{ID: "R"}, Detector: "slow", DetectorSlot: 0}
	start := time.Now()
	_, e := Detect(&x, r, func(context.Context, *occ) (runtime.Detection, error) {
		<-block // ignores its context
		return runtime.Detection{Hit: true}, nil
	}, &occ{})
	if e.Kind != runtime.ErrTimeout {
		t.Fatalf("validator: %#v, want a timeout", e)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("validator held the evaluation %v past a 20ms deadline", el)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	x = Exec{}
	Begin(&x, ctx2, nil, nil, &runtime.Decision{}, "a", 0, "", nil)
	start = time.Now()
	_, e = Provide1(&x, func(context.Context, *occ, string) (bool, error) {
		<-block
		return true, nil
	}, "path_outside_scope", &occ{}, "/x")
	if e.Kind != runtime.ErrTimeout {
		t.Fatalf("provider: %#v, want a timeout", e)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("provider held the evaluation %v past a 20ms deadline", el)
	}
}

// A provider receives the context, and without a deadline it is called
// directly, allocating nothing.
func TestProviderContext(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "v")
	var x Exec
	Begin(&x, ctx, nil, nil, &runtime.Decision{}, "a", 0, "", nil)
	got, e := Provide1(&x, func(c context.Context, _ *occ, arg string) (string, error) {
		return c.Value(key{}).(string) + arg, nil
	}, "f", &occ{}, "!")
	if e.Kind != runtime.ErrNone || got != "v!" {
		t.Fatalf("got %q, %#v", got, e)
	}
	o := &occ{}
	p := func(context.Context, *occ, string) (bool, error) { return true, nil }
	if n := testing.AllocsPerRun(100, func() { Provide1(&x, p, "f", o, "x") }); n != 0 {
		t.Errorf("a provider call without a deadline allocates %v times", n)
	}
}

// Issue 18.20 (spec 5.5): a validator is called at most once per
// occurrence, however many rules name it, with or without a context that
// can end, and each of them gets the same answer; a failure is shared too.
// The answers of two occurrences are their own.
func TestValidatorOncePerOccurrence(t *testing.T) {
	for _, bound := range []bool{false, true} {
		for _, fail := range []bool{false, true} {
			calls := 0
			v := func(context.Context, *occ) (runtime.Detection, error) {
				calls++
				if fail {
					return runtime.Detection{}, errors.New("down")
				}
				return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasJailbreakScore, JailbreakScore: float64(calls)}}, nil
			}
			ctx := context.Background()
			if bound {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Minute)
				defer cancel()
			}
			rules := []Rule{
				{Rule: runtime.Rule{ID: "A"}, Slot: 0, Detector: "v", DetectorSlot: 0},
				{Rule: runtime.Rule{ID: "B"}, Slot: 1, Detector: "v", DetectorSlot: 0},
				{Rule: runtime.Rule{ID: "C"}, Slot: 2, Detector: "v", DetectorSlot: 0},
			}
			for occurrence := 1; occurrence <= 2; occurrence++ {
				var x Exec
				Begin(&x, ctx, rules, nil, &runtime.Decision{}, "a", 0, "", nil)
				x.Validators(1)
				for i := range rules {
					d, e := Detect(&x, &rules[i], v, &occ{})
					switch {
					case fail && (d != nil || e.Kind != runtime.ErrDetector):
						t.Errorf("bound=%v: rule %d: %v %#v, want the shared failure", bound, i, d, e)
					case !fail && (e.Kind != runtime.ErrNone || d.Facts.JailbreakScore != float64(occurrence)):
						t.Errorf("bound=%v: rule %d of occurrence %d: %+v %#v, want the answer of call %d", bound, i, occurrence, d, e, occurrence)
					}
				}
				if calls != occurrence {
					t.Errorf("bound=%v fail=%v: %d calls after occurrence %d, want one per occurrence", bound, fail, calls, occurrence)
				}
			}
		}
	}
}
