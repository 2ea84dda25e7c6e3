package rulestore_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oarc/oarc/rulestore"
)

// FuzzAdd gives Add what an agent may write (spec 12, "Adding"): any
// bytes as the rule document, and any text as the `when` of an otherwise
// good rule. A draft is added, returned as an equivalent live rule, or
// refused with every diagnostic (an error with a message, a `when`
// problem placed inside the `when`); never a panic, never another error.
// A rule added is in force, and in force again once the store is opened
// again: what Add wrote reads back.
func FuzzAdd(f *testing.F) {
	f.Add([]byte(`{"oar":"1.0","id":"F_A","kind":"policy","anchor":"tool.pre_invoke","effect":"block","when":"tool == \"bash\"","copy":{"title":"T"}}`), `tool == "bash"`)
	f.Add([]byte(`{"oar":"1.0","id":"F_A","kind":"policy","anchor":"tool.pre_invoke","effect":"allow"}`), `tool_args.x > 9223372036854775808`)
	f.Add([]byte(`{"oar":"1.0","id":"f_a"}`), "tool ==\n\"x\u2028\" &&")
	f.Add([]byte(`{"oar":1.0,"id":"F_A","selector":{"tool":[null,1,{"a":[]}]}}`), `"\u202e" == tool`)
	f.Add([]byte(`[1,2]`), `fire_count_of(tool) > 1`)
	f.Add([]byte(`{"oar":"1.0","id":"F_A","kind":"detector","anchor":"content.input","effect":"warn","detector":"nope","when":""}`), "\t\ttool")
	f.Add([]byte(`{"oar":"1.0","id":"F_A","kind":"policy","anchor":"tool.pre_invoke","effect":"warn","flow":{"sequence":[["a"],[]],"within":-1}}`), `size(tool) > 18446744073709551615u`)
	f.Add([]byte("{\"oar\":\"1.0\",\"id\":\"F_A\",\"when\":\"\\ud800\"}"), "\x00\xff")
	// Loaded once: every input is checked against the same compilation
	// set, which nothing changes (loading it per input, and a store file
	// synced at every Add, made a few inputs a second).
	set := baseSet(f)
	path := filepath.Join(f.TempDir(), "rules.jsonl")
	f.Fuzz(func(t *testing.T, doc []byte, when string) {
		// The records Add writes, each one Write call of one line, as it
		// writes them to a file (without the file's sync, which is no part
		// of what is checked: TestReviewRvLStatusChangesAreSynced).
		var out bytes.Buffer
		s, err := rulestore.New(path, nil, &out, set, fuzzOpts)
		if err != nil {
			t.Fatal(err)
		}
		good := map[string]any{"oar": "1.0", "id": "F_W", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "warn",
			"requires": map[string]any{"profiles": []string{"tool"}}, "when": when, "copy": map[string]any{"title": "W"}}
		b, _ := json.Marshal(good)
		added := 0
		for _, d := range []json.RawMessage{doc, b} {
			a, err := s.Add(rulestore.Draft{Rule: d, Rationale: when, Tags: []string{when}})
			var rej *rulestore.RejectedError
			switch {
			case err == nil:
				if !a.Existing {
					added++
				}
				continue
			case errors.As(err, &rej):
			default:
				t.Fatalf("Add(%q): not a rejection: %v", d, err)
			}
			n := 0
			for _, dg := range rej.Diagnostics {
				if dg.Message == "" {
					t.Errorf("Add(%q): a diagnostic without a message: %+v", d, dg)
				}
				if dg.Severity == "error" {
					n++
				}
				if dg.Field == "when" && dg.Line > 0 && string(d) == string(b) {
					lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(when), "\n")
					if dg.Line > len(lines) || dg.Col < 1 || dg.Col > utf8.RuneCountInString(lines[dg.Line-1])+1 {
						t.Errorf("when %q: diagnostic at %d:%d, outside the when: %s", when, dg.Line, dg.Col, dg)
					}
				}
			}
			if n == 0 {
				t.Errorf("Add(%q): refused without an error: %v", d, err)
			}
		}
		// What Add wrote reads back, in force, from a file opened again.
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		s2, err := rulestore.Open(path, set, fuzzOpts)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if p := s2.Problems(); len(p) > 0 {
			t.Fatalf("the store Add wrote does not read back: %v", p)
		}
		n := 0
		for _, in := range s2.All() {
			if !in.InForce {
				t.Errorf("%s was added but is not in force once reopened: %s", in.Record.ID, in.Problem)
			}
			n++
		}
		if n != added {
			t.Errorf("%d rules added, %d read back", added, n)
		}
	})
}
