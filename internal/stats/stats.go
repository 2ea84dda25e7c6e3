package stats

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"
)

// DefaultSessions is how many distinct sessions a candidate must have
// fired in (as monitored) before it is ready to enforce.
const DefaultSessions = 5

// Stats aggregates decision records. Its memory is bounded by the number
// of digests, anchors, rules and distinct sessions, never by the number of
// records: per digest it keeps counters, the distinct session ids (each
// once, as a small integer), and per rule counters, its anchors and the
// sets of the sessions it fired in.
type Stats struct {
	// Records is the number of records added.
	Records int
	digests map[string]*digest
	order   []*digest // in order of first appearance
}

type digest struct {
	id                string
	packs             []string
	records           int
	first, last       time.Time
	decisions         map[string]int
	anchors           map[string]int // occurrences per anchor
	sessions          map[string]uint32
	errorsWithoutRule int            // records with an error of no rule
	occErrors         map[string]int // the same, per error kind
	rules             map[string]*rule
}

type rule struct {
	anchors                                 []string
	enforced, monitored, failedClosed, errs int
	// sessions it fired in (enforced or monitored), and as monitored.
	sessions, monSessions map[uint32]struct{}
}

// New returns empty stats.
func New() *Stats { return &Stats{digests: map[string]*digest{}} }

// Add counts one record. Within one record a rule counts once per list
// (codes, monitored, failed_closed) and once for its errors, however many
// times the list names it. An error with no rule is the occurrence's, not
// a rule's (an unknown anchor, a store that did not apply the counter
// updates): the record counts once among the errors of no rule, and once
// per kind of such error.
func (s *Stats) Add(r *runtime.Record) {
	s.Records++
	d := s.digests[r.Digest]
	if d == nil {
		d = &digest{id: r.Digest, decisions: map[string]int{}, anchors: map[string]int{}, sessions: map[string]uint32{}, rules: map[string]*rule{},
			occErrors: map[string]int{}, first: r.Time, last: r.Time}
		s.digests[r.Digest] = d
		s.order = append(s.order, d)
	}
	d.records++
	if !slices.Contains(d.packs, r.Pack) {
		d.packs = append(d.packs, r.Pack)
	}
	if r.Time.Before(d.first) {
		d.first = r.Time
	}
	if r.Time.After(d.last) {
		d.last = r.Time
	}
	d.decisions[r.Decision]++
	d.anchors[r.Anchor]++
	var sid uint32 // 0: no session
	if r.Session != "" {
		// A session is its (tenant, id) pair (spec 5.11): one id in two
		// tenants is two sessions.
		key := runtime.SessionKey(r.Tenant, r.Session)
		sid = d.sessions[key]
		if sid == 0 {
			sid = uint32(len(d.sessions) + 1)
			d.sessions[key] = sid
		}
	}
	for i, id := range r.Codes {
		if !slices.Contains(r.Codes[:i], id) {
			ru := d.rule(id, r.Anchor)
			ru.enforced++
			ru.fired(sid, false)
		}
	}
	for i, id := range r.Monitored {
		if !slices.Contains(r.Monitored[:i], id) {
			ru := d.rule(id, r.Anchor)
			ru.monitored++
			ru.fired(sid, true)
		}
	}
	for i, id := range r.FailedClosed {
		if !slices.Contains(r.FailedClosed[:i], id) {
			d.rule(id, r.Anchor).failedClosed++
		}
	}
	occurrenceError := false
	for i, e := range r.Errors {
		dup := false
		for _, p := range r.Errors[:i] {
			dup = dup || p.Rule == e.Rule && (e.Rule != "" || p.Kind == e.Kind)
		}
		switch {
		case dup:
		case e.Rule == "":
			d.occErrors[e.Kind]++
			occurrenceError = true
		default:
			d.rule(e.Rule, r.Anchor).errs++
		}
	}
	if occurrenceError {
		d.errorsWithoutRule++
	}
}

func (d *digest) rule(id, anchor string) *rule {
	ru := d.rules[id]
	if ru == nil {
		ru = &rule{sessions: map[uint32]struct{}{}, monSessions: map[uint32]struct{}{}}
		d.rules[id] = ru
	}
	if !slices.Contains(ru.anchors, anchor) {
		ru.anchors = append(ru.anchors, anchor)
	}
	return ru
}

func (ru *rule) fired(sid uint32, monitored bool) {
	if sid == 0 {
		return
	}
	ru.sessions[sid] = struct{}{}
	if monitored {
		ru.monSessions[sid] = struct{}{}
	}
}

// occurrences is the number of records of d at any of anchors.
func (d *digest) occurrences(anchors []string) int {
	n := 0
	for _, a := range anchors {
		n += d.anchors[a]
	}
	return n
}

// Version is the version of the -json output of oarc stats.
const Version = 1

// DigestReport is the aggregate of one digest.
type DigestReport struct {
	Type     string    `json:"type"` // "digest"
	Version  int       `json:"version"`
	Digest   string    `json:"digest"`
	Packs    []string  `json:"packs"`
	Records  int       `json:"records"`
	Sessions int       `json:"sessions"`
	First    time.Time `json:"first"`
	Last     time.Time `json:"last"`
	// Decisions counts the records per decision, Anchors per anchor ("":
	// an anchor the catalog does not know).
	Decisions map[string]int `json:"decisions"`
	Anchors   map[string]int `json:"anchors"`
	// ErrorsWithoutRule counts the records with an error of no rule: an
	// error of the occurrence (an unknown anchor, counter updates the
	// store did not apply), not of a rule. OccurrenceErrors counts them
	// per error kind (a record with errors of two kinds counts under
	// both).
	ErrorsWithoutRule int            `json:"errors_without_rule"`
	OccurrenceErrors  map[string]int `json:"occurrence_errors"`
	Rules             []RuleReport   `json:"-"`
}

// RuleReport is one line of the table: a rule of a digest.
type RuleReport struct {
	Type    string `json:"type"` // "rule"
	Version int    `json:"version"`
	Digest  string `json:"digest"`
	Rule    string `json:"rule"`
	// Anchors are the anchors of the records that name the rule (one for
	// the records of a real pack), sorted.
	Anchors []string `json:"anchors"`
	// Occurrences are the records of the digest at those anchors.
	Occurrences  int `json:"occurrences"`
	Enforced     int `json:"enforced"`
	Monitored    int `json:"monitored"`
	FailedClosed int `json:"failed_closed"`
	// Errors counts the records with an error of the rule.
	Errors int `json:"errors"`
	// Sessions are the distinct sessions it fired in (enforced or
	// monitored), MonitoredSessions those it fired in as monitored.
	Sessions          int `json:"sessions"`
	MonitoredSessions int `json:"monitored_sessions"`
	// Rates are per occurrence.
	EnforcedRate  float64 `json:"enforced_rate"`
	MonitoredRate float64 `json:"monitored_rate"`
	ErrorRate     float64 `json:"error_rate"`
	// Candidate: the rule fired as monitored. Ready: a candidate that
	// fired as monitored in at least the -sessions threshold of distinct
	// sessions, with no error and no failed-closed firing in any record of
	// the digest.
	Candidate bool `json:"candidate"`
	Ready     bool `json:"ready_to_enforce"`
}

func rate(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Report returns the aggregate of every digest, in order of first
// appearance, its rules sorted by id; minSessions is the ready-to-enforce
// threshold (< 1: DefaultSessions).
func (s *Stats) Report(minSessions int) []DigestReport {
	if minSessions < 1 {
		minSessions = DefaultSessions
	}
	var out []DigestReport
	for _, d := range s.order {
		dr := DigestReport{Type: "digest", Version: Version, Digest: d.id, Packs: slices.Clone(d.packs), Records: d.records, Sessions: len(d.sessions),
			First: d.first, Last: d.last, Decisions: d.decisions, Anchors: d.anchors, ErrorsWithoutRule: d.errorsWithoutRule,
			OccurrenceErrors: d.occErrors}
		ids := make([]string, 0, len(d.rules))
		for id := range d.rules {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			ru := d.rules[id]
			anchors := slices.Sorted(slices.Values(ru.anchors))
			occ := d.occurrences(anchors)
			rr := RuleReport{Type: "rule", Version: Version, Digest: d.id, Rule: id, Anchors: anchors, Occurrences: occ,
				Enforced: ru.enforced, Monitored: ru.monitored, FailedClosed: ru.failedClosed, Errors: ru.errs,
				Sessions: len(ru.sessions), MonitoredSessions: len(ru.monSessions),
				EnforcedRate: rate(ru.enforced, occ), MonitoredRate: rate(ru.monitored, occ), ErrorRate: rate(ru.errs, occ),
				Candidate: ru.monitored > 0}
			// A firing that failed closed is the rule failing, not firing
			// (spec 5.1): it keeps a candidate from being ready, as an
			// error does, even in a record that does not carry the error.
			rr.Ready = rr.Candidate && rr.MonitoredSessions >= minSessions && rr.Errors == 0 && rr.FailedClosed == 0
			dr.Rules = append(dr.Rules, rr)
		}
		out = append(out, dr)
	}
	return out
}

// Resolve finds the digest d names: the digest itself, or a prefix of one
// digest only (with or without "sha256:").
func (s *Stats) Resolve(name string) (string, error) {
	if _, ok := s.digests[name]; ok {
		return name, nil
	}
	var found []string
	for _, d := range s.order {
		if name != "" && (strings.HasPrefix(d.id, name) || strings.HasPrefix(strings.TrimPrefix(d.id, "sha256:"), name)) {
			found = append(found, d.id)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no record has digest %s", Escape(name))
	case 1:
		return found[0], nil
	}
	for i, d := range found {
		found[i] = Escape(d)
	}
	return "", fmt.Errorf("digest %s is ambiguous: %s", Escape(name), strings.Join(found, ", "))
}

// Side is one rule in one digest of a comparison.
type Side struct {
	Occurrences int `json:"occurrences"`
	// Firings are enforced and monitored firings.
	Firings int     `json:"firings"`
	Rate    float64 `json:"rate"`
}

// CompareRow compares one rule's firing rate between two digests.
type CompareRow struct {
	Type    string   `json:"type"` // "compare"
	Version int      `json:"version"`
	Rule    string   `json:"rule"`
	Anchors []string `json:"anchors"`
	Before  Side     `json:"before"`
	After   Side     `json:"after"`
	// Change is After.Rate - Before.Rate.
	Change float64 `json:"change"`
}

// Compare compares the firing rate of every rule named by the records of
// either digest (resolved already): firings (enforced and monitored) per
// occurrence at the rule's anchors, its anchors learned from both digests.
// A rule the records of one digest do not name fired 0 times there.
func (s *Stats) Compare(before, after string) ([]CompareRow, error) {
	b, a := s.digests[before], s.digests[after]
	if b == nil || a == nil {
		return nil, errors.New("stats: Compare of an unknown digest")
	}
	ids := map[string]bool{}
	for id := range b.rules {
		ids[id] = true
	}
	for id := range a.rules {
		ids[id] = true
	}
	var out []CompareRow
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		var anchors []string
		for _, d := range []*digest{b, a} {
			if ru := d.rules[id]; ru != nil {
				for _, an := range ru.anchors {
					if !slices.Contains(anchors, an) {
						anchors = append(anchors, an)
					}
				}
			}
		}
		slices.Sort(anchors)
		side := func(d *digest) Side {
			sd := Side{Occurrences: d.occurrences(anchors)}
			if ru := d.rules[id]; ru != nil {
				sd.Firings = ru.enforced + ru.monitored
			}
			sd.Rate = rate(sd.Firings, sd.Occurrences)
			return sd
		}
		row := CompareRow{Type: "compare", Version: Version, Rule: id, Anchors: anchors, Before: side(b), After: side(a)}
		row.Change = row.After.Rate - row.Before.Rate
		out = append(out, row)
	}
	return out, nil
}

// Escape returns a string of a record as a report prints it: as it is
// when it is made of printable characters other than space, '"' and '\\'
// only; otherwise (and when empty) quoted as Go's %q quotes it, so that a
// control character (LF, ESC), an invisible format character (zero
// width, bidi controls, tag characters, soft hyphen, BOM: Unicode's Cf)
// or a space shows as an escape or inside quotes; the other invisible
// characters (runtime.HiddenRune: Hangul fillers, variation selectors),
// which Go calls printable, are escaped as \uXXXX too. A record is
// written by a host from strings an agent may influence: printed raw, a
// rule id with a line feed could add a line of its own to the table, one
// with "ready to enforce" after spaces could read as a status
// (docs/stats.md).
func Escape(s string) string {
	for _, r := range s {
		if r == ' ' || r == '"' || r == '\\' || !strconv.IsPrint(r) || runtime.HiddenRune(r) {
			return quote(s)
		}
	}
	if s == "" || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return s
}

// quote is strconv.Quote(s) with the hidden characters it leaves as they
// are (runtime.HiddenRune) escaped.
func quote(s string) string {
	q := strconv.Quote(s)
	var b strings.Builder
	for _, r := range q {
		switch {
		case !runtime.HiddenRune(r):
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
