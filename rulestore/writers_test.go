package rulestore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// evalIn evaluates a call of tool in session with the store's rules.
func evalIn(t *testing.T, s *rulestore.Store, session, tool string) runtime.Decision {
	t.Helper()
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	var d runtime.Decision
	ev.Evaluate(context.Background(), &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: tool}}, runtime.NewSession(session), &d)
	return d
}

// reopen opens the file again and returns the rule's record there.
func reopen(t *testing.T, path, id string) rulestore.Record {
	t.Helper()
	s, err := rulestore.Open(path, baseSet(t), rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Status(id)
	if err != nil {
		t.Fatal(err)
	}
	return st.Record
}

// TestTwoWritersTrialSteps: two stores on one file (two processes, two
// agents' hosts) observe a candidate at once, each in sessions of its
// own. Every step of both counts: the sessions it fired in and its
// firings, none lost to the other writer's later record. Before, each
// store appended the trial as it counted it alone, and the last record
// won: the other's steps were lost.
func TestTwoWritersTrialSteps(t *testing.T) {
	set := baseSet(t)
	a, path := openTemp(t, set, rulestore.Options{Sessions: 64})
	b, err := rulestore.Open(path, set, rulestore.Options{Sessions: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.Add(rulestore.Draft{Rule: doc("W_CURL", `tool == "curl"`)}); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(); err != nil {
		t.Fatal(err)
	}
	const perWriter, goroutines = 5, 3
	var wg sync.WaitGroup
	for w, s := range []*rulestore.Store{a, b} {
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perWriter {
					session := fmt.Sprintf("w%d-g%d-%d", w, g, i)
					evalIn(t, s, session, "curl")
					evalIn(t, s, session, "curl") // a second firing, the same session
				}
			}()
		}
	}
	wg.Wait()
	// A step whose decision found the lock held by the other writer for
	// its whole wait is kept in memory (docs/store.md, "A lock that is
	// not released") and written at the next append: Flush writes it.
	for _, s := range []*rulestore.Store{a, b} {
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	sessions := 2 * goroutines * perWriter
	tr := reopen(t, path, "W_CURL").Trial
	if tr == nil || tr.FiredSessions != sessions || tr.Monitored != 2*sessions || tr.Sessions != sessions || len(tr.FiredIn) != sessions {
		t.Fatalf("trial after two writers: %+v, want %d sessions fired in, %d firings", tr, sessions, 2*sessions)
	}
	// Each store, after its next write, counts from the whole trial.
	for _, s := range []*rulestore.Store{a, b} {
		if err := s.Reload(); err != nil {
			t.Fatal(err)
		}
		st, _ := s.Status("W_CURL")
		if got := st.Record.Trial; got.FiredSessions != sessions {
			t.Errorf("a writer's trial after Reload: %+v", got)
		}
	}
}

// TestStaleWriterKeepsStatus: a store that has not read another's
// promotion (or retirement) of a candidate observes it as a candidate
// still; its trial record must not put the rule back to candidate (an
// enforced rule back in monitor: a silent allow) or bring a retired
// one back in force. Before, it appended the trial with the status it
// had read, and that record, the last of the id, won.
func TestStaleWriterKeepsStatus(t *testing.T) {
	set := baseSet(t)
	for _, op := range []string{"promote", "retire"} {
		t.Run(op, func(t *testing.T) {
			a, path := openTemp(t, set, rulestore.Options{})
			b, err := rulestore.Open(path, set, rulestore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if _, err := a.Add(rulestore.Draft{Rule: doc("W_WGET", `tool == "wget"`)}); err != nil {
				t.Fatal(err)
			}
			if err := b.Reload(); err != nil {
				t.Fatal(err)
			}
			want := rulestore.Active
			if op == "promote" {
				_, err = a.Promote("W_WGET")
			} else {
				_, err = a.Retire("W_WGET", "wrong")
				want = rulestore.Retired
			}
			if err != nil {
				t.Fatal(err)
			}
			evalIn(t, b, "s1", "wget") // b has not reloaded
			if got := reopen(t, path, "W_WGET").Status; got != want {
				t.Fatalf("after a stale writer's trial step: %s, want %s", got, want)
			}
			if op == "promote" {
				if d := evalIn(t, b, "s2", "wget"); d.Effect != runtime.Block || d.Code != "W_WGET" {
					t.Errorf("the writer that read the promotion: %v %s", d.Effect, d.Code)
				}
			}
		})
	}
}

// TestTwoWritersAddChecks: two stores on one file add rules at once: the
// checks of Add (an id is the store's once, the cap of live rules) see the
// rules the other added, not only those read when the store opened.
// Before, each checked against what it had read: both added the same id
// (the last record won, the first rule silently replaced), or both went
// past the cap.
func TestTwoWritersAddChecks(t *testing.T) {
	set := baseSet(t)
	a, path := openTemp(t, set, rulestore.Options{Cap: 3})
	b, err := rulestore.Open(path, set, rulestore.Options{Cap: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var mu sync.Mutex
	added := map[string]int{}
	var wg sync.WaitGroup
	for w, s := range []*rulestore.Store{a, b} {
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Two writers give one id each time, with another when.
				id := fmt.Sprintf("W_ID_%d", i)
				if _, err := s.Add(rulestore.Draft{Rule: doc(id, fmt.Sprintf(`tool == "t%d_%d"`, w, i))}); err == nil {
					mu.Lock()
					added[id]++
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	total := 0
	for id, n := range added {
		if n != 1 {
			t.Errorf("%s added %d times", id, n)
		}
		total += n
	}
	if total != 3 {
		t.Errorf("%d rules added under a cap of 3: %v", total, added)
	}
	s, err := rulestore.Open(path, set, rulestore.Options{Cap: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.Candidates()); n != 3 {
		t.Errorf("%d candidates in the file, want 3", n)
	}
}
