package rulestore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/rulestore/internal/storediff/base"
	"github.com/oarc/oarc/runtime"
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

// TestReviewRvVClosed: after Close, every operation that would read or
// write the file fails with ErrClosed (before, Close closed the file and
// kept the writer: Add failed with "file already closed", Reload did
// nothing and said nothing), nothing is written, nothing panics; a
// decision that would step a trial reports it once and writes nothing;
// what is read from memory (the rules in force, the context, search,
// status) goes on. For a store opened with Open and one made with New.
func TestReviewRvVClosed(t *testing.T) {
	set := baseSet(t)
	for _, kind := range []string{"Open", "New"} {
		t.Run(kind, func(t *testing.T) {
			var s *rulestore.Store
			var warn bytes.Buffer
			var written func() string
			opts := rulestore.Options{Warn: &warn, Sessions: 1}
			switch kind {
			case "Open":
				var path string
				s, path = openTemp(t, set, opts)
				written = func() string { b, _ := os.ReadFile(path); return string(b) }
			case "New":
				var w bytes.Buffer
				var err error
				if s, err = rulestore.New("mem", nil, &w, set, opts); err != nil {
					t.Fatal(err)
				}
				written = w.String
			}
			for _, id := range []string{"C_ONE", "C_TWO", "C_THREE"} {
				if _, err := s.Add(rulestore.Draft{Rule: doc(id, `tool == "`+strings.ToLower(id)+`"`)}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Promote("C_TWO"); err != nil {
				t.Fatal(err)
			}
			ev, err := base.New(lycaon.Env{}, runtime.WithRuleStore(s))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			before := written()
			warn.Reset()
			wantClosed := func(op string, err error) {
				t.Helper()
				if !errors.Is(err, rulestore.ErrClosed) || err.Error() != "rulestore: the store is closed" {
					t.Errorf("%s after Close: %v, want %v", op, err, rulestore.ErrClosed)
				}
			}
			_, err = s.Add(rulestore.Draft{Rule: doc("C_FOUR", `tool == "four"`)})
			wantClosed("Add", err)
			_, err = s.Promote("C_ONE")
			wantClosed("Promote", err)
			_, err = s.Retire("C_THREE", "x")
			wantClosed("Retire", err)
			wantClosed("Reload", s.Reload())
			for _, tool := range s.Tools() {
				if tool.Name == "rule_add" {
					_, err := tool.Call(context.Background(), []byte(`{"rule":`+string(doc("C_FIVE", `tool == "five"`))+`}`))
					wantClosed("rule_add", err)
				}
			}
			// The rules in force still decide: the active one blocks, and
			// the candidate's trial step is not written.
			eval := func(tool string) runtime.Decision {
				var d runtime.Decision
				occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: tool}}
				if err := ev.Evaluate(context.Background(), occ, runtime.NewSession("s1"), &d); err != nil {
					t.Fatal(err)
				}
				return d
			}
			if d := eval("c_two"); d.Code != "C_TWO" {
				t.Errorf("active rule after Close: %v %s", d.Effect, d.Code)
			}
			for range 3 {
				if d := eval("c_one"); len(d.Monitored) != 1 {
					t.Errorf("candidate after Close: monitored %v", d.Monitored)
				}
			}
			if got := strings.Count(warn.String(), "the store is closed"); got != 1 {
				t.Errorf("trial steps after Close reported %d times, want once:\n%s", got, warn.String())
			}
			if after := written(); after != before {
				t.Errorf("written after Close:\n%s", strings.TrimPrefix(after, before))
			}
			if in, err := s.Status("C_TWO"); err != nil || in.Record.Status != rulestore.Active || !in.InForce {
				t.Errorf("Status after Close: %+v %v", in, err)
			}
			if len(s.Search("one")) != 1 || !strings.Contains(s.Context("", 0), "C_TWO") {
				t.Errorf("Search or Context after Close: %v\n%s", s.Search("one"), s.Context("", 0))
			}
		})
	}
}

// TestReviewRvVAmbiguousLines: a line that JSON readers may read in two
// ways is not a record: a member name given twice (in the record, its
// trial or its rule: RFC 8259 leaves which one a reader takes open), a
// member of the record or of its trial whose name is a field's in another
// case (encoding/json reads "Errors" or "ſessions" as the field, other
// readers ignore it), a status in another case, bytes that are not UTF-8
// (encoding/json reads them as U+FFFD). Each is reported at its line and
// skipped, by the store and by oarc store's reader; a member the format
// does not have, in any case, is still ignored (a newer writer's field).
func TestReviewRvVAmbiguousLines(t *testing.T) {
	set := baseSet(t)
	rule := func(id string) string { return string(doc(id, `tool == "x"`)) }
	trial := `"trial":{"sessions":1,"fired_sessions":1,"monitored":1,"errors":0,"threshold":5,"verdict":"pending"`
	head := func(id string) string {
		return `{"id":"` + id + `","created_at":"2026-01-01T00:00:00Z","status":"candidate","rule":` + rule(id)
	}
	cases := []struct {
		id, line, msg string // msg: "" when the line loads
	}{
		{"K_OK", head("K_OK") + `}`, ""},
		{"K_UNKNOWN", head("K_UNKNOWN") + `,"x_new":1,"Reviewer":"a",` + trial + `,"note":2}}`, ""},
		{"K_DUP_STATUS", head("K_DUP_STATUS") + `,"status":"retired"}`, `member "status" is given twice`},
		{"K_DUP_ID", `{"id":"K_DUP_ID","id":"K_OTHER","created_at":"2026-01-01T00:00:00Z","status":"candidate","rule":` + rule("K_DUP_ID") + `}`, `member "id" is given twice`},
		{"K_CASE_STATUS", head("K_CASE_STATUS") + `,"Status":"retired"}`, `member "Status" is "status" in another case`},
		{"K_FOLD_STATUS", head("K_FOLD_STATUS") + `,"ſtatus":"retired"}`, `member "ſtatus" is "status" in another case`},
		{"K_CASE_ALONE", `{"id":"K_CASE_ALONE","created_at":"2026-01-01T00:00:00Z","STATUS":"candidate","rule":` + rule("K_CASE_ALONE") + `}`, `member "STATUS" is "status" in another case`},
		{"K_TRIAL_CASE", head("K_TRIAL_CASE") + `,` + trial + `,"Errors":3}}`, `member "trial.Errors" is "errors" in another case`},
		{"K_TRIAL_FOLD", head("K_TRIAL_FOLD") + `,"trial":{"ſessions":9,"threshold":5}}`, `member "trial.ſessions" is "sessions" in another case`},
		{"K_TRIAL_DUP", head("K_TRIAL_DUP") + `,` + trial + `,"errors":2}}`, `member "trial.errors" is given twice`},
		{"K_RULE_DUP", `{"id":"K_RULE_DUP","created_at":"2026-01-01T00:00:00Z","status":"candidate","rule":` + strings.Replace(rule("K_RULE_DUP"), `"when":`, `"when":"true","when":`, 1) + `}`, `member "rule.when" is given twice`},
		{"K_SEL_DUP", `{"id":"K_SEL_DUP","created_at":"2026-01-01T00:00:00Z","status":"candidate","rule":` + strings.Replace(rule("K_SEL_DUP"), `"requires":{`, `"requires":{"profiles":[],`, 1) + `}`, `member "rule.requires.profiles" is given twice`},
		{"K_STATUS_CASE", strings.Replace(head("K_STATUS_CASE"), `"candidate"`, `"Active"`, 1) + `}`, `field "status": "Active" is not candidate, active or retired`},
		{"K_NOT_UTF8", head("K_NOT_UTF8") + `,"rationale":"a` + "\xff" + `b"}`, `not UTF-8`},
		{"K_SURROGATE", head("K_SURROGATE") + `,"rationale":"a\ud800b"}`, `\ud800 is half of a surrogate pair`},
		{"K_LOW_SURROGATE", `{"id":"K_LOW_SURROGATE","created_at":"2026-01-01T00:00:00Z","status":"candidate","rule":` + strings.Replace(rule("K_LOW_SURROGATE"), `tool == \"x\"`, `tool == \"\\\udc00\"`, 1) + `}`, `\udc00 is half of a surrogate pair`},
		{"K_PAIR", head("K_PAIR") + `,"rationale":"\\ud800 \ud83d\ude00 \\\\"}`, ""},
	}
	var lines []string
	for _, c := range cases {
		lines = append(lines, c.line+"\n")
	}
	check := func(t *testing.T, how string, ids []string, problems []rulestore.Problem) {
		t.Helper()
		for i, c := range cases {
			loaded := false
			for _, id := range ids {
				loaded = loaded || id == c.id
			}
			var msg string
			for _, p := range problems {
				if p.Line == i+1 {
					msg = p.Msg
				}
			}
			switch {
			case c.msg == "" && (!loaded || msg != ""):
				t.Errorf("%s: %s: loaded %v, reported %q; want it loaded", how, c.id, loaded, msg)
			case c.msg != "" && (loaded || !strings.Contains(msg, c.msg)):
				t.Errorf("%s: %s: loaded %v, reported %q; want %q", how, c.id, loaded, msg, c.msg)
			}
		}
	}
	path := writeFile(t, lines...)
	s, err := rulestore.Open(path, set, rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for _, in := range s.All() {
		ids = append(ids, in.Record.ID)
	}
	check(t, "Open", ids, s.Problems())
	if in, _ := s.Status("K_UNKNOWN"); in.Record.Trial == nil || in.Record.Trial.Sessions != 1 {
		t.Errorf("K_UNKNOWN: trial %+v", in.Record.Trial)
	}
	recs, problems, err := rulestore.ReadRecords("rules.jsonl", strings.NewReader(strings.Join(lines, "")))
	if err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	check(t, "ReadRecords", ids, problems)
}
