// This file owns the trials of candidates (spec 12, "Trials and
// promotion"): what the store counts from the decisions it sees, and the
// verdict, under the rule of oarc stats (spec 10).

package rulestore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oarc/oarc/runtime"
)

// Trial is a candidate's trial: what the store counted of it in the
// host's decisions, and the verdict.
type Trial struct {
	// Sessions is the number of distinct sessions in which it was
	// evaluated; FiredSessions those in which it fired (as monitored).
	Sessions      int `json:"sessions"`
	FiredSessions int `json:"fired_sessions"`
	// Monitored is its monitored firings, Errors its evaluation errors.
	Monitored int `json:"monitored"`
	Errors    int `json:"errors"`
	// Threshold is N: the distinct sessions it must fire in.
	Threshold int `json:"threshold"`
	// Verdict is VerdictReady, VerdictPending or VerdictFailing.
	Verdict string `json:"verdict"`
	// FiredIn are the sessions it fired in (the first 16 hex digits of
	// the SHA-256 of their ids, not the ids), at most MaxSessions, so
	// that a session that goes on after a restart counts once.
	FiredIn []string `json:"fired_in,omitempty"`
}

// The verdicts.
const (
	// VerdictReady: it fired in at least Threshold distinct sessions and
	// never had an error. A person (or the host) may promote it.
	VerdictReady = "ready"
	// VerdictPending: not yet fired in enough sessions.
	VerdictPending = "pending"
	// VerdictFailing: it had an evaluation error; it is never ready (the
	// rule of oarc stats), a corrected rule starts a trial of its own.
	VerdictFailing = "failing"
)

// verdict computes the verdict of t.
func (t *Trial) verdict() string {
	switch {
	case t.Errors > 0:
		return VerdictFailing
	case t.FiredSessions >= t.Threshold:
		return VerdictReady
	}
	return VerdictPending
}

// Progress is the trial as the rendered context shows it: "(trial: N/M
// sessions)", N the sessions it fired in and M the threshold.
func (t *Trial) Progress() string {
	return fmt.Sprintf("(trial: %d/%d sessions)", t.FiredSessions, t.Threshold)
}

func sessionHash(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:8])
}

// pendingTrial is what a store counted of a candidate's trial and has
// not written yet: the steps of the decisions made while another writer
// held the file's lock (or while appending failed). The sessions are
// hashes (sessionHash), each once.
type pendingTrial struct {
	sessions, fired     []string
	inSessions, inFired map[string]bool
	monitored, errors   int
}

// add keeps one decision's step: evaluated in session (fired: it fired
// as monitored; failed: it had an error).
func (p *pendingTrial) add(session string, fired, failed bool) {
	if session != "" {
		h := sessionHash(session)
		if p.inSessions == nil {
			p.inSessions, p.inFired = map[string]bool{}, map[string]bool{}
		}
		if !p.inSessions[h] {
			p.inSessions[h] = true
			p.sessions = append(p.sessions, h)
		}
		if fired && !p.inFired[h] {
			p.inFired[h] = true
			p.fired = append(p.fired, h)
		}
	}
	if fired {
		p.monitored++
	}
	if failed {
		p.errors++
	}
}

// stepped is the trial of the candidate e with the steps p counted on
// its latest record, and whether they change it. commit: the sessions
// are marked evaluated and fired in (e.seen, e.fired), as they are once
// the trial is written. The caller holds s.mu.
func (s *Store) stepped(e *entry, p *pendingTrial, commit bool) (Trial, bool) {
	t := Trial{Threshold: s.opts.Sessions}
	if e.rec.Trial != nil {
		t = *e.rec.Trial
		t.FiredIn = slices.Clone(t.FiredIn)
		t.Threshold = s.opts.Sessions
	}
	changed := false
	for _, h := range p.sessions {
		if !e.seen[h] && !e.fired[h] {
			// The sessions evaluated are known since the store was opened
			// (and those it fired in, from the records): a session that
			// goes on after a restart without firing counts again.
			t.Sessions++
			changed = true
		}
		if commit {
			if e.seen == nil {
				e.seen = map[string]bool{}
			}
			e.seen[h] = true
		}
	}
	for _, h := range p.fired {
		if e.fired[h] {
			continue
		}
		if commit {
			if e.fired == nil {
				e.fired = map[string]bool{}
			}
			e.fired[h] = true
		}
		t.FiredSessions++
		if len(t.FiredIn) < MaxSessions {
			t.FiredIn = append(t.FiredIn, h)
		}
		changed = true
	}
	if p.monitored > 0 || p.errors > 0 {
		t.Monitored += p.monitored
		t.Errors += p.errors
		changed = true
	}
	t.Verdict = t.verdict()
	return t, changed
}

// observe writes the steps p of the candidate e, counted on its latest
// record (read under the lock), as one record when they change its
// trial. The caller holds s.mu and the lock.
func (s *Store) observe(e *entry, p *pendingTrial) error {
	t, changed := s.stepped(e, p, false)
	if !changed {
		s.stepped(e, p, true)
		return nil
	}
	rec := e.rec
	rec.CreatedAt = s.now()
	rec.Trial = &t
	if err := s.append(rec); err != nil {
		return err
	}
	// Only once written: the sessions of steps not written count again
	// when they are.
	s.stepped(e, p, true)
	return nil
}

// writePending writes the trial steps kept in memory, each candidate's
// as one record counted on what every writer appended before (the caller
// holds the lock and read the file). Steps that cannot be written stay
// kept (reported). A rule another writer promoted or retired meanwhile
// gets no trial step (as a step made after its change), but an error
// its trial had is reported: it was no candidate to promote without a
// word. The caller holds s.mu.
func (s *Store) writePending() {
	failed := false
	for _, id := range s.order {
		e := s.entries[id]
		p := e.pending
		if p == nil {
			continue
		}
		if e.rec.Status != Candidate {
			e.pending = nil
			if p.errors > 0 {
				s.problem(Problem{File: s.name, ID: id, Msg: fmt.Sprintf("the trial of %s had %d evaluation error(s) kept in memory while the file was locked, not saved: it is %s now (another writer changed it meanwhile, without them)", id, p.errors, e.rec.Status)})
			}
			continue
		}
		if err := s.observe(e, p); err != nil {
			failed = true
			s.stepProblem(Problem{File: s.name, ID: id, Msg: "the trial of " + id + " could not be saved (its steps are kept in memory, to be written at the next step): " + err.Error()})
			continue
		}
		e.pending = nil
	}
	if !failed {
		s.stepErr = ""
	}
}

// keptTrials are the ids of the candidates with steps kept in memory.
// The caller holds s.mu.
func (s *Store) keptTrials() []string {
	var ids []string
	for _, id := range s.order {
		if s.entries[id].pending != nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// recordView is the latest record of e as the store reports it: a
// candidate's trial with the steps kept in memory counted (an error not
// yet written still makes it failing). The caller holds s.mu.
func (s *Store) recordView(e *entry) Record {
	rec := e.rec
	if e.pending != nil && rec.Status == Candidate {
		t, _ := s.stepped(e, e.pending, false)
		rec.Trial = &t
	}
	return rec
}

// stepProblem reports a trial step that could not be saved, once while
// the same error repeats: every decision would say it again (a candidate
// that fires on every call, a file replaced under the store), without
// bound. The caller holds s.mu.
func (s *Store) stepProblem(p Problem) {
	if p.Msg == s.stepErr {
		return
	}
	s.stepErr = p.Msg
	s.problem(p)
}

// observeDecision counts a decision for the candidates among the first
// evaluated rules of an anchor. A decision that changes a trial is
// counted under the file's write lock, on what every writer appended
// before (writeLock): a step of this store is never counted on a trial
// another writer has since moved on, nor written for a rule another
// writer promoted or retired.
func (s *Store) observeDecision(ids []string, session string, evaluated int, d *runtime.Decision) {
	s.mu.Lock()
	defer s.mu.Unlock()
	type step struct {
		e             *entry
		fired, failed bool
	}
	var steps []step
	changes := false
	for _, id := range ids[:min(evaluated, len(ids))] {
		e := s.entries[id]
		if e == nil || e.rec.Status != Candidate {
			continue
		}
		st := step{e: e, fired: slices.Contains(d.Monitored, id)}
		for _, er := range d.Errors {
			if er.Rule == id {
				st.failed = true
			}
		}
		steps = append(steps, st)
		changes = changes || changesTrial(e, session, st.fired, st.failed)
	}
	if !changes {
		return
	}
	if s.closed {
		// Every decision would say it again: once is enough.
		if !s.closedAt {
			s.closedAt = true
			s.problem(Problem{File: s.name, Msg: "trial steps are not saved: " + ErrClosed.Error()})
		}
		return
	}
	// The steps are kept, then written under the lock with any kept
	// before (writeLock): an evaluation waits for the lock at most
	// stepLockWait, and steps the lock kept out stay in memory until a
	// later step, Flush, Close or any operation that appends takes it.
	for _, st := range steps {
		if st.e.pending == nil {
			st.e.pending = &pendingTrial{}
		}
		st.e.pending.add(session, st.fired, st.failed)
	}
	unlock, err := s.lockAndRead(stepLockWait)
	if err != nil {
		msg := "trial steps could not be saved (they are kept in memory, to be written at the next step): " + err.Error()
		if errors.Is(err, errLocked) {
			msg = "the store file is locked by another writer: trial steps are kept in memory and written once it is free (a later step, Flush or Close)"
		}
		s.stepProblem(Problem{File: s.name, Msg: msg})
		return
	}
	unlock()
}

// stepLockWait is the longest a decision that steps a trial waits for
// the file's lock (without the store's mutex: decisions wait side by
// side, not one after the other); lockRetry the first pause between
// tries, doubled up to maxLockRetry.
const (
	stepLockWait = 50 * time.Millisecond
	lockRetry    = time.Millisecond
	maxLockRetry = 20 * time.Millisecond
)

// Flush writes the trial steps kept in memory because another writer
// held the file's lock (docs/store.md), waiting for the lock at most as
// long as a decision does; an error, naming the trials, when some are
// still kept (the lock still held, or appending failed).
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.keptTrials()) == 0 {
		return nil
	}
	if s.closed {
		return ErrClosed
	}
	if ids, err := s.writeKept(); len(ids) > 0 {
		return fmt.Errorf("rulestore: the trial steps of %s are not saved yet: %v", strings.Join(ids, ", "), err)
	}
	return nil
}

// writeKept writes the trial steps kept in memory, waiting for the lock
// as long as a decision does, and returns the ids of the candidates
// whose steps are still kept and why (the lock still held, or appending
// failed). The caller holds s.mu.
func (s *Store) writeKept() ([]string, error) {
	unlock, err := s.lockAndRead(stepLockWait)
	if err == nil {
		unlock()
	}
	ids := s.keptTrials()
	if len(ids) > 0 && err == nil {
		err = errors.New("appending failed")
	}
	return ids, err
}

// changesTrial reports whether observe would change the trial of e. What
// other writers append can only make a step change less (a session they
// fired in, a status they changed), so a step that changes nothing on
// what s has read changes nothing on the whole file either.
func changesTrial(e *entry, session string, fired, failed bool) bool {
	switch {
	case e.rec.Status != Candidate:
		return false
	case fired || failed:
		return true
	case session == "":
		return false
	}
	h := sessionHash(session)
	return !e.seen[h] && !e.fired[h] && (e.pending == nil || !e.pending.inSessions[h])
}
