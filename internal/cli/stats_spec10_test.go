package cli

// Spec-first tests of spec 10, "Trials" (oarc stats), on logs the tests
// write: "ready to enforce" only for a monitored rule that fired in at
// least -sessions N distinct sessions of one digest with no error record
// for it in that digest; bad lines reported as FILE:LINE: error: ... and
// skipped; -before/-after comparing firing rates.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	dA = "sha256:aaaa000000000000000000000000000000000000000000000000000000000000"
	dB = "sha256:bbbb000000000000000000000000000000000000000000000000000000000000"
)

// rec is one decision record; errs are "RULE:kind" strings.
type rec struct {
	digest, session, anchor, decision string
	tenant                            string
	codes, monitored, failed, errs    []string
}

func (r rec) line(i int) string {
	anchor := r.anchor
	if anchor == "" {
		anchor = "tool.pre_invoke"
	}
	decision := r.decision
	if decision == "" {
		decision = "allow"
		if len(r.codes) > 0 {
			decision = "block"
		}
	}
	code := ""
	if len(r.codes) > 0 {
		code = r.codes[0]
	}
	type e struct {
		Rule    string `json:"rule"`
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	errs := []e{}
	for _, s := range r.errs {
		rule, kind, _ := strings.Cut(s, ":")
		errs = append(errs, e{rule, kind, "it failed"})
	}
	nn := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	m := map[string]any{
		"time": fmt.Sprintf("2026-11-01T10:%02d:%02dZ", i/60%60, i%60), "pack": "trial", "digest": r.digest,
		"anchor": anchor, "tool": "bash", "decision": decision, "code": code,
		"codes": nn(r.codes), "monitored": nn(r.monitored), "failed_closed": nn(r.failed), "errors": errs,
	}
	if r.session != "" {
		m["session"] = r.session
	}
	if r.tenant != "" {
		m["tenant"] = r.tenant
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// writeLog writes the records to a file in a new directory.
func writeLog(t *testing.T, recs []rec) string {
	t.Helper()
	var b strings.Builder
	for i, r := range recs {
		b.WriteString(r.line(i) + "\n")
	}
	f := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

type ruleLine struct {
	Type, Digest, Rule                                 string
	Occurrences, Enforced, Monitored, Errors, Sessions int
	MonitoredSessions                                  int `json:"monitored_sessions"`
	Candidate                                          bool
	Ready                                              bool `json:"ready_to_enforce"`
	Before, After                                      *struct{ Occurrences, Firings int }
	Change                                             *float64
}

// statsJSON runs oarc stats -json and returns its rule objects by
// digest+rule (or by rule for compare objects) and the summary's list of
// ready rules.
func spec10StatsJSON(t *testing.T, wantCode int, args ...string) (map[string]ruleLine, []string, string) {
	t.Helper()
	code, out, errs := run(append([]string{"stats", "-json"}, args...)...)
	if code != wantCode {
		t.Fatalf("stats %q: exit %d, want %d; stderr %s", args, code, wantCode, errs)
	}
	rules := map[string]ruleLine{}
	var ready []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r ruleLine
		if err := json.Unmarshal([]byte(l), &struct{ Type *string }{&r.Type}); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if r.Type != "summary" {
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%s: %v", l, err)
			}
		}
		switch r.Type {
		case "rule":
			rules[r.Digest[:11]+" "+r.Rule] = r
		case "compare":
			rules[r.Rule] = r
		case "summary":
			var s struct {
				Ready []struct{ Digest, Rule string } `json:"ready_to_enforce"`
			}
			json.Unmarshal([]byte(l), &s)
			for _, x := range s.Ready {
				ready = append(ready, x.Digest[:11]+" "+x.Rule)
			}
		}
	}
	return rules, ready, errs
}

// readyLines runs the text report and returns "digest rule" of each line
// that says "ready to enforce".
func readyLines(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errs := run(append([]string{"stats"}, args...)...)
	if code != 0 {
		t.Fatalf("stats %q: exit %d, stderr %s", args, code, errs)
	}
	var ready []string
	digest := ""
	for _, l := range strings.Split(out, "\n") {
		if d, ok := strings.CutPrefix(l, "digest "); ok {
			digest = d[:11]
		}
		if strings.Contains(l, "ready to enforce") {
			ready = append(ready, digest+" "+strings.Fields(l)[0])
		}
	}
	return ready
}

// sessions gives one record per session id, each built by mk.
func recsOf(ids []string, mk func(s string) rec) []rec {
	var out []rec
	for _, s := range ids {
		out = append(out, mk(s))
	}
	return out
}

func spec10IDs(prefix string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func TestSpec10StatsReady(t *testing.T) {
	mon := func(d string) func(string) rec {
		return func(s string) rec { return rec{digest: d, session: s, monitored: []string{"M"}} }
	}
	enf := func(d string) func(string) rec {
		return func(s string) rec { return rec{digest: d, session: s, codes: []string{"E"}} }
	}
	cat := func(ls ...[]rec) []rec { return slices.Concat(ls...) }
	for _, tc := range []struct {
		name  string
		recs  []rec
		flags []string
		ready []string
	}{
		{"five sessions", recsOf(spec10IDs("s", 5), mon(dA)), nil, []string{"sha256:aaaa M"}},
		{"four sessions", recsOf(spec10IDs("s", 4), mon(dA)), nil, nil},
		{"four sessions, -sessions 4", recsOf(spec10IDs("s", 4), mon(dA)), []string{"-sessions", "4"}, []string{"sha256:aaaa M"}},
		{"-sessions 6", recsOf(spec10IDs("s", 5), mon(dA)), []string{"-sessions", "6"}, nil},
		{"-sessions 1", recsOf(spec10IDs("s", 1), mon(dA)), []string{"-sessions", "1"}, []string{"sha256:aaaa M"}},
		// Distinct sessions: ten firings in two sessions are two.
		{"repeated sessions", cat(recsOf(spec10IDs("s", 2), mon(dA)), recsOf(spec10IDs("s", 2), mon(dA)), recsOf(spec10IDs("s", 2), mon(dA)),
			recsOf(spec10IDs("s", 2), mon(dA)), recsOf(spec10IDs("s", 2), mon(dA))), nil, nil},
		// Firings without a session count for no session.
		{"no session", recsOf([]string{"", "", "", "", "", ""}, mon(dA)), nil, nil},
		// A session is its (tenant, session) pair (spec 5.11): one id in
		// five tenants is five sessions; five ids in one tenant too.
		{"tenants", recsOf(spec10IDs("t", 5), func(tn string) rec { return rec{digest: dA, tenant: tn, session: "s", monitored: []string{"M"}} }), nil, []string{"sha256:aaaa M"}},
		{"one tenant", recsOf(spec10IDs("s", 5), func(s string) rec { return rec{digest: dA, tenant: "t", session: s, monitored: []string{"M"}} }), nil, []string{"sha256:aaaa M"}},
		{"one tenant, one session", recsOf(spec10IDs("s", 5), func(string) rec { return rec{digest: dA, tenant: "t", session: "s", monitored: []string{"M"}} }), nil, nil},
		// Sessions of two digests do not add up.
		{"split across digests", cat(recsOf(spec10IDs("s", 3), mon(dA)), recsOf(spec10IDs("t", 2), mon(dB))), nil, nil},
		{"each digest on its own", cat(recsOf(spec10IDs("s", 5), mon(dA)), recsOf(spec10IDs("t", 2), mon(dB))), nil, []string{"sha256:aaaa M"}},
		// An error of the rule in a record of the digest, even one where it
		// did not fire, keeps it from being ready.
		{"an error", cat(recsOf(spec10IDs("s", 5), mon(dA)), []rec{{digest: dA, session: "x", errs: []string{"M:provider"}}}), nil, nil},
		{"an error with the firing", cat(recsOf(spec10IDs("s", 4), mon(dA)), []rec{{digest: dA, session: "s5", monitored: []string{"M"}, failed: []string{"M"}, errs: []string{"M:provider"}}}),
			[]string{"-sessions", "4"}, nil},
		// An error in another digest does not.
		{"an error of another digest", cat(recsOf(spec10IDs("s", 5), mon(dA)), []rec{{digest: dB, session: "x", errs: []string{"M:provider"}}}), nil, []string{"sha256:aaaa M"}},
		// Another rule's error, or an error of no rule, does not.
		{"another rule's error", cat(recsOf(spec10IDs("s", 5), mon(dA)), []rec{{digest: dA, session: "x", errs: []string{"E:provider", ":store"}}}), nil, []string{"sha256:aaaa M"}},
		// A monitored deny_by_default's code is in monitored like a rule's
		// id, and is a candidate on the same terms (docs/stats.md).
		{"a monitored deny_by_default code", recsOf(spec10IDs("s", 5), func(s string) rec { return rec{digest: dA, session: s, monitored: []string{"NOT_ALLOWLISTED"}} }),
			nil, []string{"sha256:aaaa NOT_ALLOWLISTED"}},
		// An enforced rule is never ready, however many sessions.
		{"enforced", recsOf(spec10IDs("s", 9), enf(dA)), nil, nil},
		// Enforced firings in other sessions do not make up for monitored ones.
		{"enforced firings do not count", cat(recsOf(spec10IDs("s", 3), mon(dA)), []rec{{digest: dA, session: "e1", codes: []string{"M"}}, {digest: dA, session: "e2", codes: []string{"M"}}}), nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := writeLog(t, tc.recs)
			if got := readyLines(t, append(tc.flags, log)...); !slices.Equal(got, tc.ready) {
				t.Errorf("ready to enforce on %q, want %q", got, tc.ready)
			}
			rules, ready, _ := spec10StatsJSON(t, 0, append(tc.flags, log)...)
			if !slices.Equal(ready, tc.ready) {
				t.Errorf("-json summary: ready %q, want %q", ready, tc.ready)
			}
			for k, r := range rules {
				if r.Ready != slices.Contains(tc.ready, k) {
					t.Errorf("-json %s: ready_to_enforce %v", k, r.Ready)
				}
			}
		})
	}
}

// The counts of a rule's line: occurrences at its anchor (records of the
// digest at that anchor, whatever fired), enforced and monitored firings,
// errors, distinct sessions.
func TestSpec10StatsCounts(t *testing.T) {
	recs := []rec{
		{digest: dA, session: "s1", codes: []string{"E"}},
		{digest: dA, session: "s1", codes: []string{"E"}, monitored: []string{"M"}},
		{digest: dA, session: "s2", monitored: []string{"M"}},
		{digest: dA, session: "s3"},
		{digest: dA, session: "", errs: []string{"M:provider", "M:provider"}},
		{digest: dA, session: "s4", anchor: "content.tool_result", codes: []string{"I"}},
		{digest: dB, session: "s9", codes: []string{"E"}},
	}
	rules, _, _ := spec10StatsJSON(t, 0, writeLog(t, recs))
	for k, want := range map[string]ruleLine{
		"sha256:aaaa E": {Occurrences: 5, Enforced: 2, Sessions: 1},
		"sha256:aaaa M": {Occurrences: 5, Monitored: 2, Errors: 1, Sessions: 2, MonitoredSessions: 2, Candidate: true},
		"sha256:aaaa I": {Occurrences: 1, Enforced: 1, Sessions: 1},
		"sha256:bbbb E": {Occurrences: 1, Enforced: 1, Sessions: 1},
	} {
		got, ok := rules[k]
		if !ok {
			t.Errorf("no line for %s", k)
			continue
		}
		if got.Occurrences != want.Occurrences || got.Enforced != want.Enforced || got.Monitored != want.Monitored ||
			got.Errors != want.Errors || got.Sessions != want.Sessions || got.MonitoredSessions != want.MonitoredSessions || got.Candidate != want.Candidate || got.Ready {
			t.Errorf("%s: %+v, want %+v", k, got, want)
		}
	}
	if len(rules) != 4 {
		t.Errorf("%d rule lines, want 4: %v", len(rules), rules)
	}
	// The text report: one line per rule with its rates.
	code, out, _ := run("stats", writeLog(t, recs))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, re := range []string{
		`(?m)^  E +tool\.pre_invoke +5 +2 \(40\.0%\) +0 \(0\.0%\) +0 \(0\.0%\) +1 *$`,
		`(?m)^  M +tool\.pre_invoke +5 +0 \(0\.0%\) +2 \(40\.0%\) +1 \(20\.0%\) +2 +candidate: 2/5 sessions, 1 error$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("report does not match %s:\n%s", re, out)
		}
	}
}

// A line that is not a record is reported on stderr as FILE:LINE: error:
// ..., skipped, and the report covers the rest.
func TestSpec10StatsBadLines(t *testing.T) {
	good := recsOf(spec10IDs("s", 5), func(s string) rec { return rec{digest: dA, session: s, monitored: []string{"M"}} })
	var lines []string
	for i, r := range good {
		lines = append(lines, r.line(i))
	}
	bad := []string{
		"not json at all",
		`{"time":"2026-11-01T10:00:00Z","pack":"trial"}`,
		strings.Replace(good[0].line(0), `"monitored":["M"]`, `"monitored":"M"`, 1),
		strings.Replace(good[0].line(0), `"time":"2026-11-01T10:00:00Z"`, `"time":"yesterday"`, 1),
		`[1,2,3]`,
	}
	// Interleave: good, bad, good, bad, ...; bad lines are 2, 4, 6, 8, 10.
	var all []string
	for i := range 5 {
		all = append(all, lines[i], bad[i])
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "mixed.jsonl")
	os.WriteFile(f, []byte(strings.Join(all, "\n")+"\n"), 0o644)
	code, out, errs := run("stats", f)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	errLines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if len(errLines) != 5 {
		t.Errorf("stderr has %d lines, want 5:\n%s", len(errLines), errs)
	}
	for i, l := range errLines {
		if prefix := fmt.Sprintf("%s:%d: error: ", f, 2*(i+1)); !strings.HasPrefix(l, prefix) || len(l) == len(prefix) {
			t.Errorf("stderr line %q, want %q and a message", l, prefix)
		}
	}
	// The five good records still make M ready.
	if !regexp.MustCompile(`(?m)^  M .* 5 +ready to enforce$`).MatchString(out) {
		t.Errorf("the report does not cover the good records:\n%s", out)
	}
	// A second, clean log read beside it is reported too.
	other := writeLog(t, []rec{{digest: dB, session: "z", codes: []string{"E"}}})
	code, out, errs = run("stats", f, other)
	if code != 1 || !strings.Contains(out, "digest "+dB) || !strings.Contains(out, "digest "+dA) || strings.Contains(errs, other) {
		t.Errorf("two logs: exit %d, stderr %s\n%s", code, errs, out)
	}
	// Clean logs exit 0 with nothing on stderr.
	if code, _, errs := run("stats", other); code != 0 || errs != "" {
		t.Errorf("clean log: exit %d, stderr %q", code, errs)
	}
}

// -before D -after D compares each rule's firing rate (enforced and
// monitored firings per occurrence at its anchor) between two digests.
func TestSpec10StatsCompare(t *testing.T) {
	recs := []rec{
		// Before: R fires 2 of 4 at tool.pre_invoke, M 1 of 4 (monitored), G gone after.
		{digest: dA, session: "a", codes: []string{"R"}},
		{digest: dA, session: "a", codes: []string{"R", "G"}},
		{digest: dA, session: "a", monitored: []string{"M"}},
		{digest: dA, session: "a"},
		// After: R 1 of 5, M 3 of 5 (enforced now), N new 1 of 5.
		{digest: dB, session: "b", codes: []string{"R"}},
		{digest: dB, session: "b", codes: []string{"M"}},
		{digest: dB, session: "b", codes: []string{"M", "N"}},
		{digest: dB, session: "b", codes: []string{"M"}},
		{digest: dB, session: "b"},
	}
	log := writeLog(t, recs)
	rules, _, errs := spec10StatsJSON(t, 0, "-before", dA[:11], "-after", strings.TrimPrefix(dB, "sha256:"), log)
	if errs != "" {
		t.Errorf("stderr %s", errs)
	}
	for rule, want := range map[string][4]int{
		"R": {2, 4, 1, 5},
		"M": {1, 4, 3, 5},
		"G": {1, 4, 0, 5},
		"N": {0, 4, 1, 5},
	} {
		got, ok := rules[rule]
		if !ok || got.Before == nil || got.After == nil || got.Change == nil {
			t.Errorf("%s: no comparison: %+v", rule, got)
			continue
		}
		if got.Before.Firings != want[0] || got.Before.Occurrences != want[1] || got.After.Firings != want[2] || got.After.Occurrences != want[3] {
			t.Errorf("%s: before %+v after %+v, want %v", rule, *got.Before, *got.After, want)
		}
		change := float64(want[2])/float64(want[3]) - float64(want[0])/float64(want[1])
		if d := *got.Change - change; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: change %v, want %v", rule, *got.Change, change)
		}
	}
	code, out, _ := run("stats", "-before", dA, "-after", dB, log)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, re := range []string{
		`(?m)^  R +tool\.pre_invoke +2/4 \(50\.0%\) +1/5 \(20\.0%\) +-30\.0 pts$`,
		`(?m)^  M +tool\.pre_invoke +1/4 \(25\.0%\) +3/5 \(60\.0%\) +\+35\.0 pts$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("compare report does not match %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "ready to enforce") {
		t.Errorf("the comparison says ready to enforce:\n%s", out)
	}
	// A digest the logs do not have is an error.
	if code, _, errs := run("stats", "-before", "sha256:cccc", "-after", dB, log); code != 1 || errs == "" {
		t.Errorf("unknown -before: exit %d, stderr %q", code, errs)
	}
	// -before without -after is a usage error.
	if code, _, _ := run("stats", "-before", dA, log); code != 2 {
		t.Errorf("-before alone: exit %d, want 2", code)
	}
}
