package main

// Spec-first test of spec 10, "Decision records", on the raw bytes a
// JSONLRecorder writes for the generated starter set: one JSON object per
// line with time (RFC 3339, UTC), pack, digest, session (when the host has
// one), anchor, tool, decision, code, codes, monitored, failed_closed and
// errors ([{rule, kind, message}]).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/examples/host/rules"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// recordKeys are the fields in the order spec 10 lists them.
var recordKeys = []string{"time", "pack", "digest", "session", "anchor", "tool", "decision", "code", "codes", "monitored", "failed_closed", "errors"}

// objectKeys returns the keys of the JSON object line in their order, and
// the object decoded.
func objectKeys(t *testing.T, line []byte) ([]string, map[string]json.RawMessage) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("record %s: not an object (%v)", line, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("record %s: %v", line, err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("record %s: %v", line, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("record %s: more than one value on the line", line)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	return keys, m
}

var utcRFC3339 = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)

func TestSpec10RecordFields(t *testing.T) {
	// A host in another time zone still writes UTC.
	saved := time.Local
	time.Local = time.FixedZone("UTC+5", 5*3600)
	defer func() { time.Local = saved }()

	env := demoEnv()
	// A provider that fails: PATH_OUTSIDE_SCOPE's evaluation errs.
	env.Providers.PathOutsideScope = func(context.Context, *lycaon.Occurrence, string) (bool, error) {
		return false, errors.New("scope unknown")
	}
	var log bytes.Buffer
	ev, err := rules.New(env, runtime.WithRecorder(runtime.NewJSONLRecorder(&log)))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		session string
		d       runtime.Decision
		occ     lycaon.Occurrence
	}
	var wants []want
	start := time.Now()
	for _, session := range []string{"s10", ""} {
		var s *runtime.Session
		if session != "" {
			s = runtime.NewSession(session)
		}
		occs := calls()
		// A write PATH_OUTSIDE_SCOPE must judge (not under /etc, which
		// an earlier rule blocks): its provider fails, and it fails closed.
		w := call{occ: lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}}
		w.occ.Facts.Tool, w.occ.Facts.ToolArgs = "write", map[string]any{"path": "/tmp/notes"}
		for _, c := range append(occs, w) {
			var d runtime.Decision
			ev.Evaluate(context.Background(), &c.occ, s, &d)
			wants = append(wants, want{session, d, c.occ})
		}
	}
	end := time.Now()
	lines := bytes.Split(bytes.TrimSuffix(log.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != len(wants) {
		t.Fatalf("%d records for %d occurrences", len(lines), len(wants))
	}
	var sawMonitored, sawError, sawFailedClosed bool
	for i, line := range lines {
		w := wants[i]
		keys, m := objectKeys(t, line)
		wantKeys := slices.DeleteFunc(slices.Clone(recordKeys), func(k string) bool { return k == "session" && w.session == "" })
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("record %d keys %v, want %v", i, keys, wantKeys)
			continue
		}
		str := func(k string) string {
			var s string
			if err := json.Unmarshal(m[k], &s); err != nil {
				t.Errorf("record %d: %s is not a string: %s", i, k, m[k])
			}
			return s
		}
		list := func(k string) []string {
			if string(m[k]) == "null" {
				t.Errorf("record %d: %s is null", i, k)
			}
			var l []string
			if err := json.Unmarshal(m[k], &l); err != nil {
				t.Errorf("record %d: %s is not a list of strings: %s", i, k, m[k])
			}
			return l
		}
		ts := str("time")
		if !utcRFC3339.MatchString(ts) {
			t.Errorf("record %d: time %q is not RFC 3339 in UTC", i, ts)
		}
		if tm, err := time.Parse(time.RFC3339Nano, ts); err != nil || tm.Before(start.Truncate(time.Second)) || tm.After(end) {
			t.Errorf("record %d: time %q (%v) not between %v and %v", i, ts, err, start.UTC(), end.UTC())
		}
		if p := str("pack"); p != rules.Name || rules.Name != "starter" {
			t.Errorf("record %d: pack %q", i, p)
		}
		if d := str("digest"); d != rules.Digest || !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(d) {
			t.Errorf("record %d: digest %q, generated %q", i, d, rules.Digest)
		}
		if w.session != "" && str("session") != w.session {
			t.Errorf("record %d: session %s", i, m["session"])
		}
		if a := str("anchor"); a != w.occ.Anchor.String() {
			t.Errorf("record %d: anchor %q, want %q", i, a, w.occ.Anchor)
		}
		if tool := str("tool"); tool != w.occ.Facts.Tool {
			t.Errorf("record %d: tool %q, want %q", i, tool, w.occ.Facts.Tool)
		}
		if d := str("decision"); d != w.d.Effect.String() {
			t.Errorf("record %d: decision %q, want %q", i, d, w.d.Effect)
		}
		if c := str("code"); c != w.d.Code {
			t.Errorf("record %d: code %q, want %q", i, c, w.d.Code)
		}
		for _, l := range []struct {
			key  string
			want []string
		}{{"codes", w.d.Codes}, {"monitored", w.d.Monitored}, {"failed_closed", w.d.FailedClosed}} {
			if got := list(l.key); !slices.Equal(got, l.want) && !(len(got) == 0 && len(l.want) == 0) {
				t.Errorf("record %d: %s %v, want %v", i, l.key, got, l.want)
			}
		}
		sawMonitored = sawMonitored || len(w.d.Monitored) > 0
		sawFailedClosed = sawFailedClosed || len(w.d.FailedClosed) > 0
		if string(m["errors"]) == "null" {
			t.Errorf("record %d: errors is null", i)
		}
		var errs []json.RawMessage
		if err := json.Unmarshal(m["errors"], &errs); err != nil || len(errs) != len(w.d.Errors) {
			t.Errorf("record %d: errors %s, want %d", i, m["errors"], len(w.d.Errors))
			continue
		}
		for j, e := range errs {
			ek, em := objectKeys(t, e)
			if !slices.Equal(ek, []string{"rule", "kind", "message"}) {
				t.Errorf("record %d: error keys %v", i, ek)
				continue
			}
			var rule, kind, msg string
			json.Unmarshal(em["rule"], &rule)
			json.Unmarshal(em["kind"], &kind)
			json.Unmarshal(em["message"], &msg)
			de := w.d.Errors[j]
			if rule != de.Rule || kind != de.Err.Kind.String() || msg != de.Err.Error() || kind == "" {
				t.Errorf("record %d: error {%q %q %q}, decision's {%q %q %q}", i, rule, kind, msg, de.Rule, de.Err.Kind, de.Err.Error())
			}
			if rule == "WRITE_OUTSIDE_PROJECT" && kind == "provider" && strings.Contains(msg, "path_outside_scope") {
				sawError = true
			}
		}
	}
	if !sawMonitored || !sawError || !sawFailedClosed {
		t.Errorf("the records hold no monitored firing (%v), no provider error (%v) or no failed-closed firing (%v): the test checks less than it means to", sawMonitored, sawError, sawFailedClosed)
	}
}
