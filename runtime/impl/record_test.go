package impl

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oarc/oarc/runtime"
)

type keep struct{ recs []runtime.Record }

func (k *keep) Record(r *runtime.Record) {
	c := *r
	if r.Codes != nil {
		c.Codes = append(make([]string, 0, len(r.Codes)), r.Codes...) // the record is valid only during the call
	}
	k.recs = append(k.recs, c)
}

// TestRecordDecision checks the record built from a decision: the time
// now in UTC, the session's id ("" without one), lists never nil, errors
// as {rule, kind, message}.
func TestRecordDecision(t *testing.T) {
	var k keep
	before := time.Now()
	d := runtime.Decision{Effect: runtime.Block, Code: "A", Codes: []string{"A"},
		Errors: []runtime.RuleError{{Rule: "P", Err: Err{Kind: runtime.ErrProvider, S: "boom"}}}}
	RecordDecision(context.Background(), &k, "starter", "sha256:x", runtime.NewSession("s1"), "tool.pre_invoke", "bash", &d)
	var empty runtime.Decision
	RecordDecision(context.Background(), &k, "starter", "sha256:x", nil, "session.start", "", &empty)
	after := time.Now()
	want := []runtime.Record{
		{Pack: "starter", Digest: "sha256:x", Session: "s1", Anchor: "tool.pre_invoke", Tool: "bash", Decision: "block", Code: "A",
			Codes: []string{"A"}, Monitored: []string{}, FailedClosed: []string{},
			Errors: []runtime.RecordError{{Rule: "P", Kind: runtime.ErrProvider.String(), Message: d.Errors[0].Err.Error()}}},
		{Pack: "starter", Digest: "sha256:x", Anchor: "session.start", Decision: "allow",
			Codes: []string{}, Monitored: []string{}, FailedClosed: []string{}, Errors: []runtime.RecordError{}},
	}
	if diff := cmp.Diff(want, k.recs, cmpopts.IgnoreFields(runtime.Record{}, "Time"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, r := range k.recs {
		if r.Time.Location() != time.UTC || r.Time.Before(before) || r.Time.After(after) {
			t.Errorf("time %v", r.Time)
		}
		if r.Codes == nil || r.Monitored == nil || r.FailedClosed == nil || r.Errors == nil {
			t.Errorf("a nil list in %+v", r)
		}
	}
}
