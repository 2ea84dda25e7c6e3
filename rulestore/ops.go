// This file owns the store's operations besides Add (seed 001's
// active, candidates, search, retire, status, promote, effectiveness)
// and the rendered context with the store's rules.

package rulestore

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/internal/stats"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/impl"
)

// ErrUnknown is wrapped by the error of an operation on an id the store
// does not have.
var ErrUnknown = errors.New("no such rule in the store")

// Info is what the store knows of one rule: its latest record, and
// whether it is in force.
type Info struct {
	Record Record
	// InForce says that its rule runs (a live rule that checks and is not
	// compiled).
	InForce bool
	// Compiled says that the compiled set has a rule of its id (it was
	// promoted and compiled): the store's rule is skipped.
	Compiled bool
	// Problem says why a live rule is not in force.
	Problem string
	// FailsAt is, for a live rule that does not load (Problem), the
	// anchors at which every evaluation of it is an error that its
	// on_error handles (FailsOpen: fail_open; else it fails closed, with
	// its effect): its anchor, or every anchor of the catalog
	// (FailsEverywhere) when its document names none of them.
	FailsAt         []string
	FailsEverywhere bool
	FailsOpen       bool
	// ActiveSince is when it first became active (zero: never).
	ActiveSince time.Time
}

func (s *Store) info(e *entry) Info {
	in := Info{Record: s.recordView(e), InForce: e.rec.Status.Live() && !s.compiled[e.rec.ID] && e.prog != nil,
		Compiled: s.compiled[e.rec.ID], Problem: e.problem, ActiveSince: e.activeAt}
	if e.rec.Status.Live() && !in.Compiled && e.prog == nil && e.problem != "" {
		b := s.broken(e)
		for _, at := range b.at {
			in.FailsAt = append(in.FailsAt, at.rule.Anchor)
		}
		in.FailsEverywhere, in.FailsOpen = b.everywhere, b.failOpen
	}
	return in
}

// All returns every rule of the store, retired ones too, in order of
// creation.
func (s *Store) All() []Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Info, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.info(s.entries[id]))
	}
	return out
}

// Active returns the active rules, in order of creation.
func (s *Store) Active() []Record { return s.withStatus(Active) }

// Candidates returns the candidate rules, in order of creation.
func (s *Store) Candidates() []Record { return s.withStatus(Candidate) }

func (s *Store) withStatus(st Status) []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Record
	for _, id := range s.order {
		if e := s.entries[id]; e.rec.Status == st {
			out = append(out, s.recordView(e))
		}
	}
	return out
}

// Status returns what the store knows of one rule.
func (s *Store) Status(id string) (Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[id]
	if e == nil {
		return Info{}, fmt.Errorf("%w: %s", ErrUnknown, id)
	}
	return s.info(e), nil
}

// Retire takes a live rule out of force, with a reason (sanitised). Its
// id stays taken.
func (s *Store) Retire(id, reason string) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.writeLock()
	if err != nil {
		return Record{}, err
	}
	defer unlock()
	e := s.entries[id]
	switch {
	case e == nil:
		return Record{}, fmt.Errorf("%w: %s", ErrUnknown, id)
	case e.rec.Status == Retired:
		return Record{}, fmt.Errorf("rule %s is retired already", id)
	}
	rec := e.rec
	rec.Status, rec.Reason, rec.CreatedAt = Retired, Sanitize(reason), s.now()
	if err := s.appendSynced(rec); err != nil {
		return Record{}, err
	}
	s.rebuildLocked()
	return rec, nil
}

// Promote makes a candidate active: enforced from the next evaluation.
// Nothing is promoted by itself; the trial's verdict is the evidence a
// person or a host weighs.
func (s *Store) Promote(id string) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := s.writeLock()
	if err != nil {
		return Record{}, err
	}
	defer unlock()
	e := s.entries[id]
	switch {
	case e == nil:
		return Record{}, fmt.Errorf("%w: %s", ErrUnknown, id)
	case e.rec.Status != Candidate:
		return Record{}, fmt.Errorf("rule %s is %s, not a candidate", id, e.rec.Status)
	case e.problem != "":
		return Record{}, fmt.Errorf("rule %s is not in force: %s", id, e.problem)
	}
	if ds := hiddenDiags(ruleDoc(e.rec)); len(ds) > 0 {
		// What Add refuses: a record appended by hand or by another
		// program loads as a candidate all the same, but the person who
		// promotes it would enforce a condition that reads as another.
		return Record{}, fmt.Errorf("rule %s is not promoted: %s", id, ds[0].Message)
	}
	rec := e.rec
	rec.Status, rec.CreatedAt = Active, s.now()
	if err := s.appendSynced(rec); err != nil {
		return Record{}, err
	}
	s.rebuildLocked()
	return rec, nil
}

// Scored is a rule found by Search and its score.
type Scored struct {
	Record Record
	Score  float64
}

// Search ranks the live rules by relevance to a query with the scorer of
// the rendered context (spec 10): the query and the rule are split into
// casefolded word tokens; a rule's tags are the tokens of its selector
// values, its id and its record's tags, its text those of its copy and
// rationale; its score is (2 x query tokens among its tags + query tokens
// in its text) / distinct query tokens. Rules that match nothing are left
// out; ties put the newer rule first.
func (s *Store) Search(query string) []Scored {
	q := distinct(impl.Tokens(query))
	if len(q) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Scored
	for i := len(s.order) - 1; i >= 0; i-- {
		e := s.entries[s.order[i]]
		if !e.rec.Status.Live() {
			continue
		}
		tags, text := s.tokens(e)
		n := 0
		for _, t := range q {
			if contains(tags, t) {
				n += 2
			}
			if contains(text, t) {
				n++
			}
		}
		if n > 0 {
			out = append(out, Scored{Record: s.recordView(e), Score: float64(n) / float64(len(q))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// tokens are a rule's tags and text tokens (see Search).
func (s *Store) tokens(e *entry) (tags, text []string) {
	doc := ruleDoc(e.rec)
	tags = append(tags, impl.Tokens(e.rec.ID)...)
	if sel := member(doc, "selector"); sel != nil {
		for i := 1; i < len(sel.Content); i += 2 {
			v := sel.Content[i]
			if v.Kind == 0 || len(v.Content) == 0 {
				tags = append(tags, impl.Tokens(v.Value)...)
			}
			for _, c := range v.Content {
				tags = append(tags, impl.Tokens(c.Value)...)
			}
		}
	}
	for _, t := range e.rec.Tags {
		tags = append(tags, impl.Tokens(t)...)
	}
	if cp := member(doc, "copy"); cp != nil {
		for _, f := range copyFields {
			if v := member(cp, f); v != nil {
				text = append(text, impl.Tokens(v.Value)...)
			}
		}
	}
	text = append(text, impl.Tokens(e.rec.Rationale)...)
	return distinct(tags), distinct(text)
}

func distinct(l []string) []string {
	var out []string
	for _, t := range l {
		if !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Rate is a rule's firing rate over a period: its firings (enforced or
// monitored) among the occurrences at its anchor.
type Rate struct {
	Occurrences int
	Firings     int
}

// Of is Firings / Occurrences (0 without occurrences).
func (r Rate) Of() float64 {
	if r.Occurrences == 0 {
		return 0
	}
	return float64(r.Firings) / float64(r.Occurrences)
}

// Effect is one rule's effectiveness: its firing rate in the decision
// records before it became active (as a candidate, monitored: how often
// the agent did what it forbids) and after (enforced: how often the agent
// still tries).
type Effect struct {
	ID, Anchor  string
	ActiveSince time.Time // zero: never active (every record is before)
	Before      Rate
	After       Rate
}

// Effectiveness reads decision records (runtime.Record, as a
// JSONLRecorder writes them; the reader of oarc stats) and reports, for
// every rule of the store, its firing rate before and after it became
// active. Lines that are not records are skipped and counted in bad.
func (s *Store) Effectiveness(logs ...io.Reader) (out []Effect, bad int, err error) {
	s.mu.Lock()
	for _, id := range s.order {
		e := s.entries[id]
		anchor := ""
		if a := member(ruleDoc(e.rec), "anchor"); a != nil {
			anchor = a.Value
		}
		out = append(out, Effect{ID: id, Anchor: anchor, ActiveSince: e.activeAt})
	}
	s.mu.Unlock()
	var rec runtime.Record
	for _, l := range logs {
		rd := stats.NewReader(l)
		for {
			err := rd.Next(&rec)
			if err == io.EOF {
				break
			}
			var le *stats.LineError
			if errors.As(err, &le) {
				bad++
				continue
			}
			if err != nil {
				return out, bad, err
			}
			for i := range out {
				ef := &out[i]
				if rec.Anchor != ef.Anchor {
					continue
				}
				r := &ef.Before
				if !ef.ActiveSince.IsZero() && !rec.Time.Before(ef.ActiveSince) {
					r = &ef.After
				}
				r.Occurrences++
				if contains(rec.Codes, ef.ID) || contains(rec.Monitored, ef.ID) {
					r.Firings++
				}
			}
		}
	}
	return out, bad, nil
}

// Context renders the rules of the compilation set and of the store as
// Markdown for the agent's system prompt (spec 10, 12): the compiled
// rules as their generated Context renders them, then the store's rules
// in force, active ones like compiled rules, candidates under the
// provisional heading with their trial's progress, "(trial: N/M
// sessions)". A store rule whose id is compiled is the compiled one. A
// live rule that does not load is in force all the same (it fails at
// every occurrence of its anchor, see broken): it renders with the copy
// its document gives, as a global rule (its selector is not read).
func (s *Store) Context(hint string, k int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rules := append(make([]impl.ContextRule, 0, len(s.context)+len(s.order)), s.context...)
	type placed struct {
		kind string
		cr   impl.ContextRule
		e    *entry
	}
	var inForce []placed
	for _, id := range s.order {
		e := s.entries[id]
		if !e.rec.Status.Live() || s.compiled[id] {
			continue
		}
		tags, text := s.tokens(e)
		switch {
		case e.prog != nil:
			r := e.rule
			if r.Effect == "allow" || r.Effect == "transform" {
				continue
			}
			inForce = append(inForce, placed{kind: r.Kind, e: e, cr: impl.ContextRule{ID: r.ID, Title: r.Copy.Title, Fix: r.Copy.Fix,
				Instead: r.Copy.Instead, Global: len(r.Selector) == 0, Tags: tags, Text: text}})
		case e.problem != "":
			b := s.broken(e)
			if len(b.at) == 0 {
				continue // nowhere it could fail closed
			}
			cp := b.at[0].rule.Copy
			inForce = append(inForce, placed{kind: b.kind, e: e, cr: impl.ContextRule{ID: id, Title: cp.Title, Fix: cp.Fix,
				Instead: cp.Instead, Global: true, Tags: tags, Text: text}})
		}
	}
	sort.SliceStable(inForce, func(i, j int) bool {
		a, b := inForce[i], inForce[j]
		if ra, rb := compiler.KindRank(a.kind), compiler.KindRank(b.kind); ra != rb {
			return ra < rb
		}
		return a.cr.ID < b.cr.ID
	})
	for _, p := range inForce {
		cr := p.cr
		if p.e.rec.Status == Candidate {
			cr.Monitor = true
			t := Trial{Threshold: s.opts.Sessions}
			if tr := s.recordView(p.e).Trial; tr != nil {
				t = *tr
				t.Threshold = s.opts.Sessions
			}
			cr.Trial = t.Progress()
		}
		rules = append(rules, cr)
	}
	return impl.Render(rules, hint, k)
}

// compiledContext is the rendered context's data of the compiled set, as
// its generated Context holds it (ir.Context).
func compiledContext(set *compiler.Set) []impl.ContextRule {
	var out []impl.ContextRule
	for _, e := range ir.Context(compiler.Build(set)) {
		out = append(out, impl.ContextRule{
			ID: e.ID, Title: e.Title, Fix: e.Fix, Instead: e.Instead,
			Monitor: e.Monitor, Global: e.Global, Pinned: e.Pinned,
			Tags: e.Tags, Text: e.Text,
		})
	}
	return out
}
