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
		s.problem(Problem{File: s.name, ID: e.rec.ID, Msg: "the trial of " + e.rec.ID + " could not be saved: " + err.Error()})
	}
}

// observeDecision counts a decision for the candidates among the first
// evaluated rules of an anchor.
func (s *Store) observeDecision(ids []string, session string, evaluated int, d *runtime.Decision) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids[:min(evaluated, len(ids))] {
		e := s.entries[id]
		if e == nil || e.rec.Status != Candidate {
			continue
		}
		fired := slices.Contains(d.Monitored, id)
		failed := false
		for _, er := range d.Errors {
			if er.Rule == id {
				failed = true
			}
		}
		s.observe(e, session, fired, failed)
	}
}
