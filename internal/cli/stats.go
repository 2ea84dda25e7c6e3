// This file owns `oarc stats`.

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/oarc/oarc/internal/stats"
	"github.com/oarc/oarc/runtime"
)

func init() {
	register("stats", &Command{Summary: "report decision logs per digest and rule; say which monitored rules are ready to enforce", Help: statsHelp, Run: runStats})
}

const statsHelp = `Reads decision records (JSON Lines written by a host's recorder, spec 10;
docs/stats.md) and reports, per digest of the rules and per rule:
occurrences at its anchor, enforced and monitored firings, errors and
distinct sessions, with rates. A monitored rule is "ready to enforce" once
it fired in at least -sessions distinct sessions of that digest and no
record of the digest reports an error for it; the tool never edits a rule.
With -before and -after, each rule's firing rate is compared between two
digests (a unique prefix of each is enough).

A line that is not a record is reported on stderr as FILE:LINE: error: ...
and skipped; the report covers the rest. Logs are read as streams: memory
does not grow with the number of records. - reads standard input.

Exit status: 0 when every line of every log was a record; 1 when a line
was bad or a log unreadable (the rest is reported all the same), or when
-before/-after names no digest or several; 2 on bad usage.`

// statsSummary is the last line of `oarc stats -json` (docs/stats.md).
type statsSummary struct {
	Type      string `json:"type"` // "summary"
	Version   int    `json:"version"`
	Files     int    `json:"files"`
	Lines     int    `json:"lines"`
	Records   int    `json:"records"`
	BadLines  int    `json:"bad_lines"`
	BadFiles  int    `json:"bad_files"`
	Digests   int    `json:"digests"`
	Threshold int    `json:"sessions_threshold"`
	Before    string `json:"before,omitempty"`
	After     string `json:"after,omitempty"`
	// Ready lists the rules ready to enforce, by digest then rule.
	Ready []readyRule `json:"ready_to_enforce"`
}

type readyRule struct {
	Digest string `json:"digest"`
	Rule   string `json:"rule"`
}

func runStats(env *Env, args []string) int {
	fs := newFlags(env, "stats", "LOG... (- reads standard input)")
	asJSON := fs.Bool("json", false, "print JSON Lines: a digest object, its rule objects, ..., and a summary object last")
	sessions := fs.Int("sessions", stats.DefaultSessions, "distinct sessions a monitored rule must fire in (with no error) to be ready to enforce")
	before := fs.String("before", "", "with -after: compare each rule's firing rate between this digest (or a unique prefix of it)")
	after := fs.String("after", "", "with -before: the digest (or a unique prefix of it) compared with -before's")
	catalogFile := fs.String("catalog", "", "accepted like on every command (spec 9); records name their digest, so the report does not depend on it: the catalog is only checked")
	logs, code := parseAnywhere(fs, args)
	if code >= 0 {
		return code
	}
	if len(logs) == 0 {
		fmt.Fprintln(env.Stderr, "oarc stats: give at least one decision log")
		fs.Usage()
		return ExitUsage
	}
	if *sessions < 1 {
		fmt.Fprintln(env.Stderr, "oarc stats: -sessions must be at least 1")
		return ExitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["before"] != set["after"] {
		fmt.Fprintln(env.Stderr, "oarc stats: -before and -after go together")
		return ExitUsage
	}
	if set["before"] && (*before == "" || *after == "") {
		fmt.Fprintln(env.Stderr, "oarc stats: -before and -after each need a digest (or a unique prefix of one)")
		return ExitUsage
	}
	// The catalog changes nothing here; like every command, this one
	// checks it (loadFlags.options does nothing without one).
	if lf := (loadFlags{catalog: *catalogFile}); !lf.valid(env, "stats") {
		return ExitFailure
	}
	st := stats.New()
	sum := statsSummary{Type: "summary", Version: stats.Version, Threshold: *sessions, Ready: []readyRule{}}
	var rec runtime.Record
	for _, name := range logs {
		sum.Files++
		lines, bad, err := readLog(env, name, st, &rec)
		sum.Lines += lines
		sum.BadLines += bad
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: error: %v\n", name, err)
			sum.BadFiles++
		}
	}
	sum.Records = st.Records
	reports := st.Report(*sessions)
	sum.Digests = len(reports)
	for _, d := range reports {
		for _, r := range d.Rules {
			if r.Ready {
				sum.Ready = append(sum.Ready, readyRule{d.Digest, r.Rule})
			}
		}
	}
	var rows []stats.CompareRow
	if *before != "" {
		b, err1 := st.Resolve(*before)
		a, err2 := st.Resolve(*after)
		if err := errors.Join(err1, err2); err != nil {
			fmt.Fprintf(env.Stderr, "oarc stats: %v\n", err)
			return ExitFailure
		}
		sum.Before, sum.After = b, a
		rows, _ = st.Compare(b, a)
	}
	if *asJSON {
		enc := statsJSON{w: env.Stdout}
		if rows != nil || *before != "" {
			for _, r := range rows {
				enc.encode(r)
			}
		} else {
			for _, d := range reports {
				enc.encode(d)
				for _, r := range d.Rules {
					enc.encode(r)
				}
			}
		}
		enc.encode(sum)
	} else if *before != "" {
		printCompare(env.Stdout, sum.Before, sum.After, rows)
		printSummary(env.Stdout, sum)
	} else {
		for _, d := range reports {
			printDigest(env.Stdout, d, *sessions)
		}
		printSummary(env.Stdout, sum)
	}
	if sum.BadLines > 0 || sum.BadFiles > 0 {
		return ExitFailure
	}
	return ExitOK
}

// statsJSON writes the -json output: one value per line, with every
// character of a string that is not printable escaped (docs/stats.md).
type statsJSON struct {
	w   io.Writer
	buf bytes.Buffer
}

func (j *statsJSON) encode(v any) {
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// The values are oarc's own structs of strings and numbers.
		panic("cli: a stats record does not marshal: " + err.Error())
	}
	j.w.Write(escapeJSON(j.buf.Bytes()))
}

// escapeJSON escapes, as \uXXXX (a surrogate pair above U+FFFF), every
// character of JSON text that strconv.IsPrint does not call printable and
// encoding/json writes as it is: DEL, C1 controls, invisible format
// characters (Cf: zero width, bidi controls, tag characters, soft hyphen,
// BOM), separators other than space. Outside strings JSON text is ASCII
// and printable, so only strings change, and they decode to the same
// values: the record's strings reach a JSON reader unchanged, while the
// bytes a terminal shows hold none of them raw.
func escapeJSON(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || r >= utf8.RuneSelf && (!strconv.IsPrint(r) || runtime.HiddenRune(r)) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, "\\u%04x\\u%04x", r1, r2)
			} else {
				out = fmt.Appendf(out, "\\u%04x", r)
			}
		} else if out != nil {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}

// readLog reads one log into st, reporting its bad lines on stderr as
// FILE:LINE: error: ...; it returns the lines read, the bad ones, and an
// error that stopped the reading.
func readLog(env *Env, name string, st *stats.Stats, rec *runtime.Record) (lines, bad int, err error) {
	var in io.Reader
	if name == "-" {
		in = env.Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return 0, 0, errors.Unwrap(err)
		}
		defer f.Close()
		in = f
	}
	rd := stats.NewReader(in)
	for {
		err := rd.Next(rec)
		if err == io.EOF {
			return rd.Line(), bad, nil
		}
		var le *stats.LineError
		if errors.As(err, &le) {
			fmt.Fprintf(env.Stderr, "%s:%d: error: %v\n", name, le.Line, le.Err)
			bad++
			continue
		}
		if err != nil {
			return rd.Line(), bad, err
		}
		st.Add(rec)
	}
}

func pct(n int, r float64) string {
	return fmt.Sprintf("%d (%.1f%%)", n, 100*r)
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		name := stats.Escape(k)
		if k == "" {
			name = "(unknown)"
		}
		fmt.Fprintf(&b, "%s %d", name, m[k])
	}
	return b.String()
}

// escapeAll is stats.Escape of every string of l, joined with sep.
func escapeAll(l []string, sep string) string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = stats.Escape(s)
	}
	return strings.Join(out, sep)
}

// printDigest prints the table of a digest. Every string that comes from
// a record goes through stats.Escape.
func printDigest(w io.Writer, d stats.DigestReport, threshold int) {
	fmt.Fprintf(w, "digest %s\n", stats.Escape(d.Digest))
	fmt.Fprintf(w, "  pack %s; %s, %s, %s to %s\n", escapeAll(d.Packs, ", "), plural(d.Records, "record"), plural(d.Sessions, "session"),
		d.First.UTC().Format(time.RFC3339), d.Last.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "  decisions: %s\n", counts(d.Decisions))
	fmt.Fprintf(w, "  occurrences: %s\n", counts(d.Anchors))
	if d.ErrorsWithoutRule > 0 {
		fmt.Fprintf(w, "  errors of no rule: %s (%s)\n", plural(d.ErrorsWithoutRule, "record"), counts(d.OccurrenceErrors))
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "  RULE\tANCHOR\tOCCURRENCES\tENFORCED\tMONITORED\tERRORS\tSESSIONS\tSTATUS")
	for _, r := range d.Rules {
		status := ""
		switch {
		case r.Ready:
			status = "ready to enforce"
		case r.Candidate:
			status = fmt.Sprintf("candidate: %d/%d sessions", r.MonitoredSessions, threshold)
			if r.Errors > 0 {
				status += ", " + plural(r.Errors, "error")
			}
			if r.FailedClosed > 0 {
				status += fmt.Sprintf(", %d failed closed", r.FailedClosed)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%d\t%s\n", stats.Escape(r.Rule), escapeAll(r.Anchors, ","), r.Occurrences,
			pct(r.Enforced, r.EnforcedRate), pct(r.Monitored, r.MonitoredRate), pct(r.Errors, r.ErrorRate), r.Sessions, status)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// table is a tabwriter whose lines lose their trailing spaces.
type table struct {
	w   io.Writer
	buf strings.Builder
	*tabwriter.Writer
}

func newTable(w io.Writer) *table {
	t := &table{w: w}
	t.Writer = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	return t
}

func (t *table) Flush() {
	t.Writer.Flush()
	for _, l := range strings.SplitAfter(t.buf.String(), "\n") {
		if l != "" {
			io.WriteString(t.w, strings.TrimRight(l, " \n")+"\n")
		}
	}
	t.buf.Reset()
}

func printCompare(w io.Writer, before, after string, rows []stats.CompareRow) {
	fmt.Fprintf(w, "before %s\nafter  %s\n", stats.Escape(before), stats.Escape(after))
	tw := newTable(w)
	fmt.Fprintln(tw, "  RULE\tANCHOR\tBEFORE\tAFTER\tCHANGE")
	side := func(s stats.Side) string {
		if s.Occurrences == 0 {
			return "-"
		}
		return fmt.Sprintf("%d/%d (%.1f%%)", s.Firings, s.Occurrences, 100*s.Rate)
	}
	for _, r := range rows {
		change := "-"
		if r.Before.Occurrences > 0 && r.After.Occurrences > 0 {
			change = strconv.FormatFloat(100*r.Change, 'f', 1, 64) + " pts"
			if r.Change > 0 {
				change = "+" + change
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", stats.Escape(r.Rule), escapeAll(r.Anchors, ","), side(r.Before), side(r.After), change)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func printSummary(w io.Writer, s statsSummary) {
	fmt.Fprintf(w, "%s in %s of %s (%s", plural(s.Records, "record"), plural(s.Lines, "line"), plural(s.Files, "file"), plural(s.BadLines, "bad line"))
	if s.BadFiles > 0 {
		fmt.Fprintf(w, ", %s", plural(s.BadFiles, "unreadable file"))
	}
	fmt.Fprintf(w, "); %s; candidates ready (monitored firings in >= %s, no errors):", plural(s.Digests, "digest"), plural(s.Threshold, "session"))
	if len(s.Ready) == 0 {
		fmt.Fprint(w, " none")
	}
	for i, r := range s.Ready {
		sep := " "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(w, "%s%s (%s)", sep, stats.Escape(r.Rule), stats.Escape(shortDigest(r.Digest)))
	}
	fmt.Fprintln(w)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// shortDigest is a digest's first 12 hex digits (characters, for a
// digest that is not hex).
func shortDigest(d string) string {
	h := strings.TrimPrefix(d, "sha256:")
	if n := utf8.RuneCountInString(h); n > 12 {
		h = string([]rune(h)[:12])
	}
	return strings.TrimSuffix(d, strings.TrimPrefix(d, "sha256:")) + h
}
