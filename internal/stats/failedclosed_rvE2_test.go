package stats

import (
	"fmt"
	"testing"
	"time"

	oarcrt "github.com/oarc/oarc/runtime"
)

// TestFailedClosedIsNotReady: a monitored firing listed in failed_closed
// happened because the rule could not be evaluated (spec 5.1: the list is
// there "so that a trial can tell a monitored rule that fired from one
// that failed"). A candidate whose firings failed closed in enough
// sessions was "ready to enforce" whenever the records did not also carry
// the error (a record cut short, a writer that drops errors); it is not
// ready now, whatever the errors say.
func TestFailedClosedIsNotReady(t *testing.T) {
	st := New()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		fc := []string(nil)
		if i == 0 {
			fc = []string{"M"}
		}
		st.Add(&oarcrt.Record{Time: at, Pack: "p", Digest: "d", Session: fmt.Sprint("s", i), Anchor: "tool.pre_invoke", Decision: "allow",
			Monitored: []string{"M", "N"}, FailedClosed: fc})
	}
	rep := st.Report(5)
	for _, r := range rep[0].Rules {
		if want := r.Rule == "N"; r.Ready != want {
			t.Errorf("%s: ready %v, want %v (%+v)", r.Rule, r.Ready, want, r)
		}
	}
}
