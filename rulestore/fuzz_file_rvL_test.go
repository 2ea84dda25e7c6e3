package rulestore_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/oarc/oarc/rulestore"
)

// FuzzStoreFile reads any bytes as a store (spec 12: a line that is not a
// record is reported and skipped, the rest loads): never a panic, never
// an error for what the file holds, every line either a record or a
// problem at its line, and every rule known with an id, a status and a
// creation time (no rule made up of zero values). What the store then
// appends reads back.
func FuzzStoreFile(f *testing.F) {
	good := record("F_ONE", "candidate", `tool == "a"`, `,"trial":{"sessions":1,"fired_sessions":1,"monitored":1,"errors":0,"threshold":5,"verdict":"pending","fired_in":["0123456789abcdef"]}`)
	f.Add([]byte(good + "\n" + record("F_ONE", "active", `tool == "a"`, "") + "\n"))
	f.Add([]byte("\xef\xbb\xbf" + good + "\r\n{\n" + good[:40]))
	f.Add([]byte(`{"id":"F_TWO","created_at":"2026-01-02T03:04:05Z","status":"retired","rule":{"id":"F_TWO"}}` + "\n" + `{"id":"F_TWO","created_at":null,"status":"active","rule":{"id":"F_TWO"}}`))
	f.Add([]byte("[]\nnull\n\"x\"\n{}\n{\"id\":1}\n"))
	// Loaded once: nothing changes the compilation set (loading it per
	// input was most of an input's time).
	set := baseSet(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s, err := rulestore.New("fuzz.jsonl", bytes.NewReader(data), &out, set, fuzzOpts)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		for _, p := range s.Problems() {
			if p.Line > lines {
				t.Errorf("a problem at line %d of %d: %s", p.Line, lines, p)
			}
		}
		for _, in := range s.All() {
			r := in.Record
			if r.ID == "" || !r.Status.Live() && r.Status != rulestore.Retired || r.CreatedAt.IsZero() || len(r.Rule) == 0 {
				t.Errorf("a rule of zero values: %+v", r)
			}
			if r.Status.Live() && !in.InForce && !in.Compiled && in.Problem == "" {
				t.Errorf("%s is live, neither in force nor with a problem", r.ID)
			}
		}
		_ = s.Context("", 0)
		// Appending after what was read: the file then reads back with
		// the record.
		if _, err := s.Add(rulestore.Draft{Rule: doc("F_NEW_RULE", `tool == "zz"`)}); err != nil {
			return // an id taken, a rule of the same meaning, the cap
		}
		s2, err := rulestore.New("again", bytes.NewReader(append(append([]byte{}, data...), out.Bytes()...)), nil, set, fuzzOpts)
		if err != nil {
			t.Fatal(err)
		}
		if in, err := s2.Status("F_NEW_RULE"); err != nil || !in.InForce {
			t.Errorf("the rule added does not read back in force: %+v %v", in, err)
		}
	})
}

// fuzzOpts are the fuzzers' store options: a fixed clock, so that an
// input runs the same code at every run (the created_at of a record the
// store writes, read back, is the same string), and the fuzzer's
// coverage is the input's, not the clock's.
var fuzzOpts = rulestore.Options{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
