// This file owns the trials of candidates (spec 12, "Trials and
// promotion"): what the store counts from the decisions it sees, and the
// verdict, under the rule of oarc stats (spec 10).

package rulestore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

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

// observe counts one decision for the candidate e, evaluated in session
// (fired: it fired as monitored; failed: it had an error), and appends a
// record when its trial changed. The caller holds s.mu.
func (s *Store) observe(e *entry, session string, fired, failed bool) {
	if e.rec.Status != Candidate {
		return
	}
	t := Trial{Threshold: s.opts.Sessions}
	if e.rec.Trial != nil {
		t = *e.rec.Trial
		t.FiredIn = slices.Clone(t.FiredIn)
		t.Threshold = s.opts.Sessions
	}
	changed := false
	if session != "" {
		h := sessionHash(session)
		if e.seen == nil {
			e.seen = map[string]bool{}
		}
		if !e.seen[h] && !e.fired[h] {
			// The sessions evaluated are known since the store was opened
			// (and those it fired in, from the records): a session that
			// goes on after a restart without firing counts again.
			t.Sessions++
			changed = true
		}
		e.seen[h] = true
		if fired && !e.fired[h] {
			if e.fired == nil {
				e.fired = map[string]bool{}
			}
			e.fired[h] = true
			t.FiredSessions++
			if len(t.FiredIn) < MaxSessions {
				t.FiredIn = append(t.FiredIn, h)
			}
			changed = true
		}
	}
	if fired {
		t.Monitored++
		changed = true
	}
	if failed {
		t.Errors++
		changed = true
	}
	if !changed {
		return
	}
	t.Verdict = t.verdict()
	rec := e.rec
	rec.CreatedAt = s.now()
	rec.Trial = &t
	if err := s.append(rec); err != nil {
		s.stepProblem(Problem{File: s.name, ID: e.rec.ID, Msg: "the trial of " + e.rec.ID + " could not be saved: " + err.Error()})
		return
	}
	s.stepErr = ""
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
	unlock, err := s.writeLock()
	if err != nil {
		s.stepProblem(Problem{File: s.name, Msg: "a trial step could not be saved: " + err.Error()})
		return
	}
	defer unlock()
	for _, st := range steps {
		s.observe(st.e, session, st.fired, st.failed)
	}
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
	return !e.seen[h] && !e.fired[h]
}
