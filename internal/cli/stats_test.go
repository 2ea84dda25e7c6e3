package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/internal/stats"
	"github.com/oarc/oarc/runtime"
)

const (
	beforeLog = "testdata/stats/before.jsonl" // digest 1111...: the candidates
	afterLog  = "testdata/stats/after.jsonl"  // digest 2222...: READY_CANDIDATE enforced
	badLog    = "testdata/stats/bad.jsonl"    // two records and ten lines that are not
)

// golden compares got with testdata/stats/name (-update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", "stats", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// TestStatsReport: two digests; READY_CANDIDATE fired as monitored in 5
// sessions with no error (ready), FEW_SESSIONS in 2 (not ready),
// ERRING_CANDIDATE in 5 with an error (not ready); errors of rules and of
// no rule; rates per occurrence at the rule's anchor.
func TestStatsReport(t *testing.T) {
	code, out, errs := run("stats", beforeLog, afterLog)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	golden(t, "report.txt", out)
	// "ready to enforce" is on READY_CANDIDATE's line of digest 1111 and
	// nowhere else.
	var ready []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ready to enforce") {
			ready = append(ready, strings.Fields(l)[0])
		}
	}
	if !cmp.Equal(ready, []string{"READY_CANDIDATE"}) {
		t.Errorf("ready to enforce on the lines of %q", ready)
	}
	for _, want := range []string{
		"  FEW_SESSIONS      tool.pre_invoke      23           0 (0.0%)   4 (17.4%)  0 (0.0%)   2         candidate: 2/5 sessions\n",
		"  ERRING_CANDIDATE  tool.pre_invoke      23           0 (0.0%)   5 (21.7%)  1 (4.3%)   5         candidate: 5/5 sessions, 1 error\n",
		"  INJECTION         content.tool_result  2            1 (50.0%)  0 (0.0%)   1 (50.0%)  1\n",
		"  errors of no rule: 1 record (anchor 1)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestStatsSessions: the -sessions threshold decides; an error never lets
// a candidate be ready; an enforced rule never is.
func TestStatsSessions(t *testing.T) {
	for n, want := range map[string][]string{
		"1": {"FEW_SESSIONS", "READY_CANDIDATE"},
		"2": {"FEW_SESSIONS", "READY_CANDIDATE"},
		"5": {"READY_CANDIDATE"},
		"6": {},
	} {
		code, out, errs := run("stats", "-json", "-sessions", n, beforeLog, afterLog)
		if code != 0 || errs != "" {
			t.Fatalf("exit %d, stderr %s", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var sum statsSummary
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, r := range sum.Ready {
			got = append(got, r.Rule)
			if r.Digest != "sha256:"+strings.Repeat("1", 64) {
				t.Errorf("-sessions %s: %s ready in %s", n, r.Rule, r.Digest)
			}
		}
		if !cmp.Equal(got, want) {
			t.Errorf("-sessions %s: ready %q, want %q", n, got, want)
		}
	}
}

// TestStatsJSON pins the -json shape: JSON Lines, a digest object followed
// by its rule objects, for each digest, then one summary object; every
// object has type and version.
func TestStatsJSON(t *testing.T) {
	code, out, errs := run("stats", beforeLog, "-json", afterLog) // flags may follow logs
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	golden(t, "report.jsonl", out)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var types []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if m["version"] != 1.0 {
			t.Errorf("version %v in %s", m["version"], l)
		}
		types = append(types, m["type"].(string))
	}
	want := []string{"digest", "rule", "rule", "rule", "rule", "rule", "digest", "rule", "rule", "summary"}
	if !cmp.Equal(types, want) {
		t.Errorf("types %q", types)
	}
	var sum map[string]any
	json.Unmarshal([]byte(lines[len(lines)-1]), &sum)
	wantSum := map[string]any{"type": "summary", "version": 1.0, "files": 2.0, "lines": 38.0, "records": 38.0, "bad_lines": 0.0, "bad_files": 0.0,
		"digests": 2.0, "sessions_threshold": 5.0,
		"ready_to_enforce": []any{map[string]any{"digest": "sha256:" + strings.Repeat("1", 64), "rule": "READY_CANDIDATE"}}}
	if diff := cmp.Diff(wantSum, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestStatsBadLines: every line that is not a record is reported on
// stderr as FILE:LINE: error: ..., the report covers the rest, exit 1.
func TestStatsBadLines(t *testing.T) {
	code, out, errs := run("stats", badLog)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	golden(t, "bad.stderr", errs)
	if n := strings.Count(errs, "\n"); n != 10 || strings.Count(errs, badLog+":") != 10 {
		t.Errorf("%d lines on stderr", n)
	}
	if !strings.Contains(out, "2 records in 12 lines of 1 file (10 bad lines)") || !strings.Contains(out, "  pack crafted; 2 records, 1 session,") {
		t.Errorf("report:\n%s", out)
	}
	// -json says so in the summary.
	code, out, _ = run("stats", "-json", badLog, beforeLog)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var sum statsSummary
	json.Unmarshal([]byte(lines[len(lines)-1]), &sum)
	if code != 1 || sum.BadLines != 10 || sum.Records != 28 || sum.Lines != 38 {
		t.Errorf("exit %d, summary %+v", code, sum)
	}
}

// TestStatsCompare: -before/-after compare firing rates (digests by
// unique prefix); a rule the records of one digest do not name fired 0
// times there.
func TestStatsCompare(t *testing.T) {
	code, out, errs := run("stats", "-before", "1111", "-after", "sha256:2222", beforeLog, afterLog)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	golden(t, "compare.txt", out)
	code, out, errs = run("stats", "-json", "-before", "sha256:"+strings.Repeat("1", 64), "-after", "22", beforeLog, afterLog)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	golden(t, "compare.jsonl", out)
	for _, want := range []string{
		`{"type":"compare","version":1,"rule":"BLOCK_RM","anchors":["tool.pre_invoke"],"before":{"occurrences":23,"firings":6,"rate":0.2608695652173913},"after":{"occurrences":12,"firings":1,"rate":0.08333333333333333},"change":-0.17753623188405798}`,
		`"rule":"INJECTION","anchors":["content.tool_result"],"before":{"occurrences":2,"firings":1,"rate":0.5},"after":{"occurrences":0,"firings":0,"rate":0}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare lacks %s", want)
		}
	}
}

func TestStatsUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"stats"}, 2, "give at least one decision log"},
		{[]string{"stats", "-sessions", "0", beforeLog}, 2, "-sessions must be at least 1"},
		{[]string{"stats", "-before", "1111", beforeLog}, 2, "-before and -after go together"},
		{[]string{"stats", "-nope", beforeLog}, 2, "flag provided but not defined"},
		{[]string{"stats", "-before", "3333", "-after", "1111", beforeLog}, 1, "no record has digest 3333"},
		{[]string{"stats", "-before", "sha256:", "-after", "1111", beforeLog, afterLog}, 1, "digest sha256: is ambiguous"},
	} {
		code, _, errs := run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.stderr)
		}
	}
	// A log that cannot be read is reported; the others are.
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	code, out, errs := run("stats", missing, afterLog)
	if code != 1 || errs != missing+": error: no such file or directory\n" || !strings.Contains(out, "12 records in 12 lines of 2 files (0 bad lines, 1 unreadable file)") {
		t.Errorf("missing log: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

// TestStatsStdin reads "-" as standard input.
func TestStatsStdin(t *testing.T) {
	b, err := os.ReadFile(afterLog)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run([]string{"stats", "-"}, bytes.NewReader(append(b, "x\n"...)), &out, &errb)
	if code != 1 || errb.String() != "-:13: error: not JSON: invalid character 'x' looking for the beginning of an object (at byte 1)\n" ||
		!strings.Contains(out.String(), "12 records in 13 lines of 1 file (1 bad line)") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
}

// hostileLog holds records whose rule ids, pack names and anchors carry a
// line feed and a fake table row, ANSI escapes, bidi and zero-width
// characters, tag characters and spaces, and occurrence errors (store,
// unknown anchor) with no rule.
const hostileLog = "testdata/stats/hostile-log.jsonl"

// printableOutput fails on any character of out that a terminal would not
// show as itself: a control character other than LF, or one
// strconv.IsPrint refuses (Cf format characters among them).
func printableOutput(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if r != '\n' && (!strconv.IsPrint(r) || runtime.HiddenRune(r)) {
			t.Errorf("%s: %U raw at byte %d: %q", what, r, i, out[max(0, i-20):min(len(out), i+20)])
			return
		}
	}
}

// TestStatsHostileStrings (issue 18, item 10): strings of records are
// escaped on output, so a rule id with a line feed cannot add a row that
// says "ready to enforce", an ANSI escape in a pack name cannot move the
// cursor, and invisible characters show; in -json every string still
// decodes to what the record holds. Errors of no rule are counted per
// record and per kind, a store error as a store error.
func TestStatsHostileStrings(t *testing.T) {
	code, out, errs := run("stats", "-sessions", "2", hostileLog)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	golden(t, "hostile.txt", out)
	printableOutput(t, "text", out)
	var ready []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, "ready to enforce") {
			ready = append(ready, strings.Fields(l)[0])
		}
	}
	if !cmp.Equal(ready, []string{"OK"}) {
		t.Errorf("lines ending in ready to enforce: %q\n%s", ready, out)
	}
	if !strings.Contains(out, "  errors of no rule: 3 records (anchor 1, store 2)\n") {
		t.Errorf("errors of no rule:\n%s", out)
	}

	code, out, errs = run("stats", "-json", "-sessions", "2", hostileLog)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	golden(t, "hostile.jsonl", out)
	printableOutput(t, "json", out)
	var rules, anchors, packs []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct{ Type string }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		switch m.Type {
		case "rule":
			var r stats.RuleReport
			json.Unmarshal([]byte(l), &r)
			rules = append(rules, r.Rule)
			anchors = append(anchors, r.Anchors...)
		case "digest":
			var d stats.DigestReport
			json.Unmarshal([]byte(l), &d)
			packs = d.Packs
			if !cmp.Equal(d.OccurrenceErrors, map[string]int{"anchor": 1, "store": 2}) || d.ErrorsWithoutRule != 3 {
				t.Errorf("errors of no rule: %d, %v", d.ErrorsWithoutRule, d.OccurrenceErrors)
			}
		}
	}
	want := []string{"FAKE\n  EVIL  tool.pre_invoke  1  0 (0.0%)  5 (100.0%)  0 (0.0%)  5  ready to enforce", "HF\u3164VS\ufe01CGJ\u034f", "OK", "SPACED  ready to enforce", "ZW\u200bJ\U000E0041"}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("rule ids decoded from -json (-want +got):\n%s", diff)
	}
	if !slices.Contains(anchors, "tool.pre_invoke\u202e\u200b") || !slices.Contains(packs, "p\x1b[1A\x1b[2Kready to enforce") {
		t.Errorf("anchors %q, packs %q", anchors, packs)
	}
}
