package rulestore_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/rulestore"
)

// recordAt is a candidate's store line with the given created_at text.
func recordAt(id, createdAt string) string {
	return fmt.Sprintf(`{"id":%q,"created_at":%q,"status":"candidate","rule":%s}`, id, createdAt, doc(id, `tool == "x"`)) + "\n"
}

// createdAtCases: created_at is "RFC 3339, UTC" (spec 12). A zero offset
// (Z, z, +00:00) is UTC; any other offset, -00:00 (RFC 3339 4.3: UTC
// known, local offset unknown) and text that is not RFC 3339 are not.
var createdAtCases = []struct {
	id, at string
	ok     bool
}{
	{"T_UPPER_Z", "2026-01-01T10:00:00Z", true},
	{"T_LOWER_Z", "2026-01-01t10:00:00z", true},
	{"T_FRACTION", "2026-01-01T10:00:00.123456789Z", true},
	{"T_PLUS_ZERO", "2026-01-01T10:00:00+00:00", true},
	{"T_MINUS_ZERO", "2026-01-01T10:00:00-00:00", false},
	{"T_OFFSET", "2026-01-01T10:00:00+02:00", false},
	{"T_NEG_OFFSET", "2026-01-01T10:00:00-05:00", false},
	{"T_NO_ZONE", "2026-01-01T10:00:00", false},
	{"T_SPACE", "2026-01-01 10:00:00Z", false},
	{"T_DATE", "2026-01-01", false},
	{"T_BAD_DAY", "2026-02-30T10:00:00Z", false},
	{"T_BAD_HOUR", "2026-01-01T24:00:00Z", false},
	{"T_COMMA", "2026-01-01T10:00:00,5Z", false},
	{"T_EMPTY", "", false},
}

// TestReviewRvVCreatedAtIsUTC: a record whose created_at is not RFC 3339
// with a zero offset is a line that is not a record, reported as
// FILE:LINE: error: ... and skipped, when the store opens, on Reload and
// in oarc store's reader. Before, +02:00 loaded and z did not.
func TestReviewRvVCreatedAtIsUTC(t *testing.T) {
	set := baseSet(t)
	var lines []string
	for _, c := range createdAtCases {
		lines = append(lines, recordAt(c.id, c.at))
	}
	check := func(t *testing.T, how string, ids []string, problems []rulestore.Problem, firstLine int) {
		t.Helper()
		loaded := map[string]bool{}
		for _, id := range ids {
			loaded[id] = true
		}
		bad := map[int]string{}
		for _, p := range problems {
			bad[p.Line] = p.String()
		}
		for i, c := range createdAtCases {
			line := firstLine + i
			if loaded[c.id] != c.ok {
				t.Errorf("%s: created_at %q: loaded %v, want %v", how, c.at, loaded[c.id], c.ok)
			}
			msg, reported := bad[line]
			if reported == c.ok {
				t.Errorf("%s: created_at %q: line %d reported %v (%q)", how, c.at, line, reported, msg)
			}
			if reported && !strings.Contains(msg, fmt.Sprintf("rules.jsonl:%d: error: field \"created_at\"", line)) {
				t.Errorf("%s: created_at %q: report %q", how, c.at, msg)
			}
		}
	}
	ids := func(s *rulestore.Store) []string {
		var out []string
		for _, in := range s.All() {
			out = append(out, in.Record.ID)
		}
		return out
	}

	path := writeFile(t, lines...)
	s, err := rulestore.Open(path, set, rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(t, "Open", ids(s), s.Problems(), 1)
	for _, in := range s.All() {
		if in.Record.CreatedAt.Location().String() != "UTC" {
			t.Errorf("%s: created_at in %v", in.Record.ID, in.Record.CreatedAt.Location())
		}
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, problems, err := rulestore.ReadRecords("rules.jsonl", f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var recIDs []string
	for _, r := range recs {
		recIDs = append(recIDs, r.ID)
	}
	check(t, "ReadRecords", recIDs, problems, 1)

	// Reload reads the same lines appended by another writer.
	r, rpath := openTemp(t, set, rulestore.Options{})
	af, err := os.OpenFile(rpath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	af.WriteString(strings.Join(lines, ""))
	af.Close()
	if err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	check(t, "Reload", ids(r), r.Problems(), 1)
}

// TestReviewRvVWrittenCreatedAtIsUTC: what the store writes is always a
// record it reads back, whatever the zone of the host's clock.
func TestReviewRvVWrittenCreatedAtIsUTC(t *testing.T) {
	set := baseSet(t)
	zone := time.FixedZone("X", 2*3600)
	s, path := openTemp(t, set, rulestore.Options{Now: func() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 5, zone) }})
	if _, err := s.Add(rulestore.Draft{Rule: doc("W_ONE", `tool == "w"`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote("W_ONE"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Retire("W_ONE", "done"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, problems, err := rulestore.ReadRecords("rules.jsonl", strings.NewReader(string(data)))
	if err != nil || len(problems) > 0 || len(recs) != 1 {
		t.Fatalf("read back: %v %v %v\n%s", recs, problems, err, data)
	}
	if !strings.Contains(string(data), `"created_at":"2026-01-01T10:00:00.000000005Z"`) {
		t.Errorf("records:\n%s", data)
	}
}
