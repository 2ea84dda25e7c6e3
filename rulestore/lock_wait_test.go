//go:build unix

package rulestore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
)

// holdLock takes the store file's write lock from a descriptor of its
// own, as another process would (`flock store.jsonl sleep 1000`, a
// stopped `oarc promote`), and returns its release (also at cleanup).
func holdLock(t *testing.T, path string) (f *os.File, release func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
	}
	t.Cleanup(release)
	return f, release
}

// lockedStore is a store with a candidate that fires on curl (T_CURL)
// and one that is an error without tool_args.n (T_ERR), and a call of the
// evaluator that must return within a bound (else the lock is released
// and the test fails).
func lockedStore(t *testing.T) (s *rulestore.Store, path string, call func(session, tool string, args map[string]any)) {
	t.Helper()
	s, path = openTemp(t, baseSet(t), rulestore.Options{Sessions: 3, Now: clock()})
	for _, d := range []rulestore.Draft{{Rule: doc("T_CURL", `tool == "curl"`)}, {Rule: doc("T_ERR", `tool_args.n > 1`)}} {
		if _, err := s.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
	if err != nil {
		t.Fatal(err)
	}
	call = func(session, tool string, args map[string]any) {
		t.Helper()
		done := make(chan struct{})
		go func() {
			defer close(done)
			var d runtime.Decision
			ev.Evaluate(context.Background(), &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: tool, ToolArgs: args}}, runtime.NewSession(session), &d)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Errorf("Evaluate (session %s) did not return in 5 s: it waits for the store file's lock", session)
			for _, f := range lockHolders {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			}
			<-done
			t.FailNow()
		}
	}
	return s, path, call
}

// lockHolders are the descriptors holding a lock in the test running, to
// release when an evaluation hangs.
var lockHolders []*os.File

func hashOf(session string) string {
	h := sha256.Sum256([]byte(session))
	return hex.EncodeToString(h[:8])
}

// TestTrialStepDoesNotWaitForLock: a decision that steps a trial while
// another process holds the store file's lock (and does not release it)
// returns at once; its steps are kept, reported, shown by Status, and
// written at the next step once the lock is free, counted on what the
// other writer appended meanwhile: the error of T_ERR is not lost (a
// lost error could make a rule look ready) and no step counts as a fresh
// zero.
func TestTrialStepDoesNotWaitForLock(t *testing.T) {
	s, path, call := lockedStore(t)
	f, release := holdLock(t, path)
	lockHolders = []*os.File{f}
	defer func() { lockHolders = nil }()
	call("s1", "curl", map[string]any{})              // T_CURL fires, T_ERR fails
	call("s2", "curl", map[string]any{"n": int64(0)}) // T_CURL fires
	found := false
	for _, p := range s.Problems() {
		found = found || strings.Contains(p.Msg, "locked")
	}
	if !found {
		t.Errorf("the steps kept in memory are not reported: %v", s.Problems())
	}
	if st, _ := s.Status("T_ERR"); st.Record.Trial == nil || st.Record.Trial.Errors != 1 || st.Record.Trial.Verdict != rulestore.VerdictFailing {
		t.Errorf("T_ERR's trial while its step is kept: %+v", st.Record.Trial)
	}
	// Another writer, holding the lock, counts a session of its own.
	other := fmt.Sprintf(`{"id":"T_CURL","created_at":"2026-05-01T11:00:00Z","status":"candidate","rule":%s,"trial":{"sessions":1,"fired_sessions":1,"monitored":1,"errors":0,"threshold":3,"verdict":"pending","fired_in":[%q]}}`, doc("T_CURL", `tool == "curl"`), hashOf("other"))
	if _, err := f.WriteString(other + "\n"); err != nil {
		t.Fatal(err)
	}
	release()
	call("s3", "ls", map[string]any{"n": int64(0)}) // evaluated, not fired: writes what was kept
	curl, errRule := reopen(t, path, "T_CURL").Trial, reopen(t, path, "T_ERR").Trial
	if curl == nil || curl.FiredSessions != 3 || curl.Monitored != 3 || curl.Sessions != 4 {
		t.Errorf("T_CURL in the file: %+v, want 3 sessions fired in (other, s1, s2), 3 firings, 4 sessions", curl)
	}
	if st, _ := s.Status("T_CURL"); st.Record.Trial == nil || st.Record.Trial.Verdict != rulestore.VerdictReady {
		t.Errorf("T_CURL in the store: %+v, want ready (3 of 3 sessions)", st.Record.Trial)
	}
	if errRule == nil || errRule.Errors != 1 || errRule.Sessions != 3 || errRule.Verdict != rulestore.VerdictFailing {
		t.Errorf("T_ERR in the file: %+v, want its error kept, 3 sessions", errRule)
	}
}

// TestCloseWritesKeptSteps: steps kept while the file was locked are
// written by Close once the lock is free; when it is still held, Close
// says which trials it could not save.
func TestCloseWritesKeptSteps(t *testing.T) {
	t.Run("free", func(t *testing.T) {
		s, path, call := lockedStore(t)
		f, release := holdLock(t, path)
		lockHolders = []*os.File{f}
		defer func() { lockHolders = nil }()
		call("s1", "curl", map[string]any{})
		release()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if tr := reopen(t, path, "T_ERR").Trial; tr == nil || tr.Errors != 1 {
			t.Errorf("T_ERR after Close: %+v, want its error written", tr)
		}
	})
	t.Run("held", func(t *testing.T) {
		s, path, call := lockedStore(t)
		f, _ := holdLock(t, path)
		lockHolders = []*os.File{f}
		defer func() { lockHolders = nil }()
		call("s1", "curl", map[string]any{})
		err := s.Close()
		if err == nil || !strings.Contains(err.Error(), "T_ERR") {
			t.Errorf("Close with the file locked: %v, want the trials not saved named", err)
		}
		found := false
		for _, p := range s.Problems() {
			found = found || strings.Contains(p.Msg, "T_ERR") && strings.Contains(p.Msg, "not saved")
		}
		if !found {
			t.Errorf("the steps Close could not save are not reported: %v", s.Problems())
		}
	})
}

// TestAddWaitingForLockDoesNotStopDecisions: an Add that waits for a
// lock another process holds does not hold the store while it waits: a
// decision that steps a trial returns, its steps kept, and the Add
// writes them first once it has the lock.
func TestAddWaitingForLockDoesNotStopDecisions(t *testing.T) {
	s, path, call := lockedStore(t)
	f, release := holdLock(t, path)
	lockHolders = []*os.File{f}
	defer func() { lockHolders = nil }()
	added := make(chan error, 1)
	go func() {
		_, err := s.Add(rulestore.Draft{Rule: doc("T_LATE", `tool == "late"`)})
		added <- err
	}()
	time.Sleep(20 * time.Millisecond) // the Add waits for the lock
	call("s1", "curl", map[string]any{})
	select {
	case err := <-added:
		t.Fatalf("Add returned with the lock held: %v", err)
	default:
	}
	release()
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	if tr := reopen(t, path, "T_ERR").Trial; tr == nil || tr.Errors != 1 {
		t.Errorf("T_ERR after the Add: %+v, want its error written", tr)
	}
	if err := s.Flush(); err != nil {
		t.Errorf("Flush with nothing kept: %v", err)
	}
}

// TestKeptErrorOfARulePromotedMeanwhile: a step kept while the file was
// locked, of a candidate another writer promoted meanwhile, is not
// written (a step after its change), but the error it held is reported:
// the rule was promoted without it.
func TestKeptErrorOfARulePromotedMeanwhile(t *testing.T) {
	s, path, call := lockedStore(t)
	f, release := holdLock(t, path)
	lockHolders = []*os.File{f}
	defer func() { lockHolders = nil }()
	call("s1", "curl", map[string]any{})
	if err := s.Flush(); err == nil || !strings.Contains(err.Error(), "T_ERR") {
		t.Errorf("Flush with the lock held: %v, want the trials kept named", err)
	}
	promoted := fmt.Sprintf(`{"id":"T_ERR","created_at":"2026-05-01T11:00:00Z","status":"active","rule":%s}`, doc("T_ERR", `tool_args.n > 1`))
	if _, err := f.WriteString(promoted + "\n"); err != nil {
		t.Fatal(err)
	}
	release()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range s.Problems() {
		found = found || p.ID == "T_ERR" && strings.Contains(p.Msg, "1 evaluation error")
	}
	if !found {
		t.Errorf("the kept error of a rule promoted meanwhile is not reported: %v", s.Problems())
	}
	if rec := reopen(t, path, "T_ERR"); rec.Status != rulestore.Active {
		t.Errorf("T_ERR is %s, want active (the promotion stands)", rec.Status)
	}
	if tr := reopen(t, path, "T_CURL").Trial; tr == nil || tr.FiredSessions != 1 || tr.Monitored != 1 {
		t.Errorf("T_CURL: %+v, want its kept step written", tr)
	}
}
