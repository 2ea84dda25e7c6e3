package impl

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/oarc/oarc/runtime"
)

// WholeSpans: a transform firing that happened only because its rule
// failed closed redacts the whole content when its spans are unknown (a
// detector rule without its validator's answer, a span fact of a profile
// not supplied), and nothing more than its known spans otherwise
// (docs/choices-runtime.md). Before, such a firing redacted the host's
// spans, empty when no detector ran: the content went through.
func TestWholeSpans(t *testing.T) {
	rules := func() []Rule {
		rs := []Rule{
			{Rule: runtime.Rule{ID: "D", Effect: runtime.Transform}, Detector: "v", DetectorSlot: 0, Replacement: "[D]"},
			{Rule: runtime.Rule{ID: "N", Effect: runtime.Transform}, DetectorSlot: -1, Replacement: "[N]"},
		}
		for i := range rs {
			rs[i].Slot = int32(i)
		}
		return rs
	}
	const content = "é secret!" // 9 code points
	ok := func(context.Context, *int) (runtime.Detection, error) {
		return runtime.Detection{Hit: true, Facts: runtime.DetectorFacts{Has: runtime.HasSecretMatches}}, nil
	}
	bad := func(context.Context, *int) (runtime.Detection, error) { return runtime.Detection{}, errors.New("down") }
	fail := Err{Kind: runtime.ErrNoSuchKey}
	occ := 0
	for _, tc := range []struct {
		name     string
		profiles runtime.ProfileSet
		content  string
		run      func(x *Exec, rs []Rule)
		rule     int
		detector bool
		span     runtime.ProfileSet
		whole    bool
	}{
		{name: "validator failed", run: func(x *Exec, rs []Rule) {
			_, err := Detect(x, &rs[0], bad, &occ)
			x.Done(0, false, err)
		}, detector: true, span: runtime.ProfileContentSafety, whole: true},
		{name: "failed before its validator", run: func(x *Exec, rs []Rule) {
			x.Done(0, false, Err{Kind: runtime.ErrProfile, S: "session"})
		}, detector: true, whole: true},
		{name: "answered, then when failed", run: func(x *Exec, rs []Rule) {
			Detect(x, &rs[0], ok, &occ)
			x.Done(0, false, fail)
		}, detector: true, span: runtime.ProfileContentSafety},
		{name: "answered and fired", run: func(x *Exec, rs []Rule) {
			Detect(x, &rs[0], ok, &occ)
			x.Done(0, true, Err{})
		}, detector: true},
		{name: "non-detector, when failed, profile supplied", profiles: runtime.ProfileContentSafety, run: func(x *Exec, rs []Rule) {
			x.Done(1, false, fail)
		}, rule: 1, span: runtime.ProfileContentSafety},
		{name: "non-detector, when failed, profile not supplied", profiles: runtime.ProfileSession, run: func(x *Exec, rs []Rule) {
			x.Done(1, false, fail)
		}, rule: 1, span: runtime.ProfileContentSafety, whole: true},
		{name: "non-detector fired, profile not supplied", profiles: runtime.ProfileSession, run: func(x *Exec, rs []Rule) {
			x.Done(1, true, Err{})
		}, rule: 1, span: runtime.ProfileContentSafety},
		{name: "panic after the validator answered", run: func(x *Exec, rs []Rule) {
			x.Enter(0)
			Detect(x, &rs[0], ok, &occ)
			x.Panicked()
		}, detector: true},
		{name: "empty content", content: "-", run: func(x *Exec, rs []Rule) {
			x.Done(0, false, Err{Kind: runtime.ErrProfile})
		}, detector: true, whole: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := content
			if tc.content == "-" {
				c = ""
			}
			var d runtime.Decision
			var x Exec
			rs := rules()
			Begin(&x, context.Background(), rs, nil, &d, "content.tool_result", tc.profiles, c, nil)
			x.Validators(1)
			x.prepareTransforms()
			tc.run(&x, rs)
			if x.NumFired() != 1 {
				t.Fatalf("%d firings", x.NumFired())
			}
			r := x.Fired(0)
			if got := x.WholeSpans(0, r, tc.detector, tc.span); got != tc.whole {
				t.Fatalf("WholeSpans = %v, want %v", got, tc.whole)
			}
			x.Rewrite()
			var want []runtime.Redaction
			if tc.whole && c != "" {
				want = []runtime.Redaction{{Start: 0, End: 9, Replacement: r.Replacement}}
			}
			if !reflect.DeepEqual(d.Redactions, want) {
				t.Errorf("redactions %v, want %v", d.Redactions, want)
			}
		})
	}
}
