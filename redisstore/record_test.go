package redisstore_test

// The session's record of tool calls (spec 5.10) in Redis: through real
// evaluations on two replicas, when the server stops and loses it, when it
// is corrupt, bounded, and covered by the loss detection.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/storetest"
)

// recordCall is an occurrence of the record phase: at tool.pre_invoke, or
// at tool.post_invoke with post.
func recordCall(tool string, args map[string]any, post bool) lycaon.Occurrence {
	occ := lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	if post {
		occ.Anchor = lycaon.ToolPostInvoke
	}
	occ.Facts.Tool, occ.Facts.ToolArgs = tool, args
	occ.Facts.Lycaon.Phase = "record"
	return occ
}

// recordScenario is a session of the record phase, with what its rules
// decide at some of its steps (the others allow). Its rules read the four
// record facts (LOOPING repeat_count, CAPPED code_reject_total, STUCK
// same_code_reject_run, EXFIL recent_tool_names; AFTER_LOOP two of them
// at tool.post_invoke).
func recordScenario() (occs []lycaon.Occurrence, want map[int]string) {
	want = map[int]string{}
	add := func(o lycaon.Occurrence, outcome string) {
		if outcome != "" {
			want[len(occs)] = outcome
		}
		occs = append(occs, o)
	}
	add(recordCall("read_secret", map[string]any{"name": "db"}, false), "")
	add(recordCall("send_email", map[string]any{"to": "a@example.com"}, false), "block:EXFIL")
	add(recordCall("deploy", map[string]any{"v": 1}, false), "block:CAPPED")
	add(recordCall("deploy", map[string]any{"v": 2}, false), "block:CAPPED")
	// Two calls blocked with CAPPED: the third deploy is not capped, and
	// the run of blocks warns.
	add(recordCall("deploy", map[string]any{"v": 3}, false), "warn:STUCK")
	add(recordCall("grep", map[string]any{"p": "x"}, false), "")
	add(recordCall("grep", map[string]any{"p": "x"}, true), "") // another anchor: neither counts nor breaks
	add(recordCall("grep", map[string]any{"p": "x"}, false), "")
	add(recordCall("grep", map[string]any{"p": "x"}, false), "nudge:LOOPING")
	add(recordCall("grep", nil, true), "block:AFTER_LOOP")
	add(recordCall("grep", map[string]any{"p": "x"}, false), "nudge:LOOPING")
	// 62 calls, none a repeat: read_secret is then 66 calls back.
	for i := range 62 {
		add(recordCall("ls", map[string]any{"i": i}, false), "")
	}
	add(recordCall("send_email", map[string]any{"to": "a@example.com"}, false), "")
	add(recordCall("read_secret", nil, false), "")
	add(recordCall("send_email", nil, false), "block:EXFIL")
	add(recordCall("deploy", nil, false), "") // CAPPED blocked two deploys
	return occs, want
}

// TestReplicasRecord: a session's calls alternate between two replicas;
// every decision, and every value of the record facts the rules read
// (Decision.Kept), is the one a single process gives, and the rules
// reading them decide what the scenario says (a session longer than the
// 64 names the record keeps).
func TestReplicasRecord(t *testing.T) {
	addr := redistest.Addr(t)
	prefix := redistest.Prefix(t, redistest.Client(t, addr))
	replicas := []*replica{newReplica(t, addr, prefix), newReplica(t, addr, prefix)}
	one := newEvaluator(t)
	inProcess := runtime.NewSession("rec")
	occs, want := recordScenario()
	for i, occ := range occs {
		r := replicas[i%2]
		var d, dp runtime.Decision
		o := occ
		r.ev.Evaluate(ctx, &o, r.store.Session("rec"), &d)
		o = occ
		one.Evaluate(ctx, &o, inProcess, &dp)
		if len(d.Errors) > 0 || len(dp.Errors) > 0 {
			t.Fatalf("call %d (%s): %v; in the process %v", i, occ.Facts.Tool, d.Errors, dp.Errors)
		}
		if got, w := outcome(&d), outcome(&dp); got != w {
			t.Fatalf("call %d (%s): %s, one process %s", i, occ.Facts.Tool, got, w)
		}
		wo := want[i]
		if wo == "" {
			wo = "allow:"
		}
		if got := outcome(&d); got != wo {
			t.Fatalf("call %d (%s at %v): %s, want %s (kept %+v)", i, occ.Facts.Tool, occ.Anchor, got, wo, d.Kept)
		}
		k, kp := d.Kept, dp.Kept
		if k.Read != kp.Read || k.RepeatCount != kp.RepeatCount || k.SameCodeRun != kp.SameCodeRun ||
			!slices.Equal(k.RecentToolNames, kp.RecentToolNames) || !storetest.Equal(&k.History, &kp.History) {
			t.Fatalf("call %d: the facts read differ:\nredis   %+v\nprocess %+v\n%s", i, &k, &kp, storetest.Diff(&k.History, &kp.History))
		}
		if !k.Read {
			t.Fatalf("call %d: no rule read the record", i)
		}
	}
}

// TestFaultRecord: the server stops in the middle of a session whose
// rules read the record, and comes back without its data (no
// persistence). While it is down, every read of a record fact is an error
// of kind store at the read (the rules fail closed) and the call is
// reported not recorded; when it is back the session is lost, on both
// replicas, until the host resets it; then its record starts over.
func TestFaultRecord(t *testing.T) {
	srv := redistest.StartServer(t, false)
	prefix := redistest.Prefix(t, redistest.Client(t, srv.Addr))
	replicas := []*replica{newReplica(t, srv.Addr, prefix), newReplica(t, srv.Addr, prefix)}
	grep := recordCall("grep", map[string]any{"p": "x"}, false)
	for i, want := range []string{"allow:", "allow:", "nudge:LOOPING"} {
		if d, _ := evaluate(replicas[i%2], "s", grep, time.Second); outcome(&d) != want || len(d.Errors) > 0 {
			t.Fatalf("call %d: %s %v, want %s", i, outcome(&d), d.Errors, want)
		}
	}
	srv.Stop(t)
	// The rules reading a record fact fail closed: each fires with its
	// effect (a nudge and a warning for a grep; a block ends the
	// evaluation of the rules after it).
	for i, tc := range []struct {
		occ          lycaon.Occurrence
		want, errors string
	}{
		{grep, "warn:LOOPING+STUCK", "LOOPING,STUCK,"},
		{recordCall("deploy", nil, false), "block:CAPPED", "CAPPED,"},
		{recordCall("send_email", nil, false), "block:EXFIL", "EXFIL,"},
		{recordCall("grep", nil, true), "block:AFTER_LOOP", "AFTER_LOOP"}, // nothing to record at another anchor
	} {
		occ := tc.occ
		d, _ := evaluate(replicas[i%2], "s", occ, time.Second)
		rules, all := storeErrors(&d)
		if outcome(&d) != tc.want || !all || strings.Join(rules, ",") != tc.errors {
			t.Fatalf("server down, %s at %v: %s %v, want %s with errors of %s", occ.Facts.Tool, occ.Anchor, outcome(&d), d.Errors, tc.want, tc.errors)
		}
		if occ.Anchor == lycaon.ToolPreInvoke {
			if msg := d.Errors[len(d.Errors)-1].Err.Error(); !strings.HasPrefix(msg, updatesNotApplied) || !strings.Contains(msg, "connection refused") {
				t.Fatalf("the call not recorded: %q", msg)
			}
		}
	}
	srv.Start(t)
	// The server lost the session: every replica refuses it until reset
	// (a record that restarted from zero would allow the loop).
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; i < 4; i++ {
		d, _ := evaluate(replicas[i%2], "s", grep, time.Second)
		if len(d.Errors) == 3 && strings.Contains(d.Errors[0].Err.Error(), "connect") && time.Now().Before(deadline) {
			i-- // not reconnected yet
			time.Sleep(50 * time.Millisecond)
			continue
		}
		rules, all := storeErrors(&d)
		if outcome(&d) != "warn:LOOPING+STUCK" || !all || strings.Join(rules, ",") != "LOOPING,STUCK," || !strings.Contains(d.Errors[0].Err.Error(), " lost: ") ||
			!strings.HasPrefix(d.Errors[2].Err.Error(), updatesNotApplied) {
			t.Fatalf("after the restart, call %d: %s %v; want the lost session refused", i, outcome(&d), d.Errors)
		}
	}
	if err := replicas[1].store.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"allow:", "allow:", "nudge:LOOPING"} {
		if d, _ := evaluate(replicas[i%2], "s", grep, time.Second); outcome(&d) != want || len(d.Errors) > 0 {
			t.Fatalf("after the reset, call %d: %s %v, want %s", i, outcome(&d), d.Errors, want)
		}
	}
}

// names is a record's list of tool names as the store writes it (rt):
// each its length, 4 bytes big-endian, and its bytes.
func names(tools ...string) string {
	var b []byte
	for _, t := range tools {
		b = binary.BigEndian.AppendUint32(b, uint32(len(t)))
		b = append(b, t...)
	}
	return string(b)
}

// nameForms: what the list of names of a record of three calls may hold.
// The reader in Go (splitNames) and the script that records a call
// (walkNames) accept exactly these.
var nameForms = []struct {
	name  string
	value string
	ok    bool
}{
	{"three names", names("a", "a", "deploy"), true},
	{"an empty name", names("a", "", "deploy"), true},
	{"any bytes", names("\x00\x00\x00\x05", "a\r\n", "déploy"), true},
	{"two names", names("a", "deploy"), false},
	{"four names", names("a", "a", "a", "deploy"), false},
	{"nothing", "", false},
	{"a length past the end", names("a", "a")[:10] + "\x00\x00\x00\x09deploy", false},
	{"a byte after the last", names("a", "a", "deploy") + "\x00", false},
	{"a length cut short", names("a", "a", "deploy") + "\x00\x00", false},
	{"a huge length", names("a", "a") + "\xff\xff\xff\xffdeploy", false},
	{"a text list", "a,a,deploy", false},
}

// TestCorruptRecord: every stored field of the record is read only in the
// form the scripts write it. The session below holds three calls (a, a,
// deploy blocked with CAPPED); each case replaces a field of its record
// with a value the store would not write (or, for nameForms, would): a
// read of the record is an error (ErrCorrupt), an update that records a
// call is refused (not applied) and writes nothing, in an evaluation the
// rule reading a record fact fails closed; the session works again once
// reset. The record as the scripts wrote it is checked first, which shows
// the by-hand values are in the store's form.
func TestCorruptRecord(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	fp := "\x01\x02\x03\x04\x05\x06\x07\x08"
	zero := strings.Repeat("\x00", 8)
	rec := func(nums, code string) string { return nums + fp + code }
	valid := rec("3,1,1,0,0,1,0,1,", "CAPPED")
	calls := []runtime.Call{{Tool: "a", HasFingerprint: true}, {Tool: "a", HasFingerprint: true}, {Tool: "deploy", HasFingerprint: true, Code: "CAPPED"}}
	copy(calls[2].Fingerprint[:], fp)
	tField := "t:6:CAPPEDdeploy"
	type tcase struct {
		name  string
		field string
		value string
		ok    bool
	}
	cases := []tcase{
		{"garbage", "r", "garbage", false},
		{"empty", "r", "", false},
		{"no fingerprint", "r", "3,1,1,0,0,1,0,1,", false},
		{"a fingerprint of 7 bytes", "r", "3,1,1,0,0,1,0,1," + fp[:7], false},
		{"a number missing", "r", rec("3,1,1,0,0,1,0,", "CAPPED"), false},
		{"a leading zero", "r", rec("03,1,1,0,0,1,0,1,", "CAPPED"), false},
		{"a sign", "r", rec("+3,1,1,0,0,1,0,1,", "CAPPED"), false},
		{"negative", "r", rec("3,1,1,0,-0,1,0,1,", "CAPPED"), false},
		{"fractional", "r", rec("3.0,1,1,0,0,1,0,1,", "CAPPED"), false},
		{"a space", "r", rec(" 3,1,1,0,0,1,0,1,", "CAPPED"), false},
		{"hexadecimal", "r", rec("0x3,1,1,0,0,1,0,1,", "CAPPED"), false},
		{"16 digits", "r", rec("1000000000000000,1,1,0,0,1,0,1,", "CAPPED"), false},
		{"flag 2", "r", rec("3,1,1,0,0,1,0,2,", "CAPPED"), false},
		{"run past the calls", "r", rec("3,4,1,3,0,1,0,1,", "CAPPED"), false},
		{"run not lastRepeat + 1", "r", rec("3,2,1,0,0,1,0,1,", "CAPPED"), false},
		{"a code run without a code", "r", rec("3,1,1,0,0,1,0,1,", ""), false},
		{"a code without a run", "r", rec("3,1,0,0,0,1,0,1,", "CAPPED"), false},
		{"a code run past the calls", "r", rec("3,1,4,0,0,1,0,1,", "CAPPED"), false},
		{"the last code run of all the calls", "r", rec("3,1,1,0,3,1,0,1,", "CAPPED"), false},
		{"more pairs than calls", "r", rec("3,1,1,0,0,4,0,1,", "CAPPED"), false},
		{"full below the limit", "r", rec("3,1,1,0,0,1,1,1,", "CAPPED"), false},
		{"an empty record not empty", "r", "0,1,0,0,0,0,0,0," + zero, false},
		{"an empty record with a code", "r", "0,0,0,0,0,0,0,0," + zero + "CAPPED", false},
		{"an empty record with a fingerprint", "r", "0,0,0,0,0,0,0,0," + fp, false},
		{"blocks not a count", tField, "nan", false},
		{"blocks zero", tField, "0", false},
		{"blocks negative", tField, "-1", false},
		{"blocks with a leading zero", tField, "01", false},
		{"blocks fractional", tField, "1.5", false},
	}
	for _, f := range nameForms {
		cases = append(cases, tcase{"names: " + f.name, "rt", f.value, f.ok})
	}
	cases = append(cases, tcase{"names: none", "rt", "<deleted>", false})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.NewReplacer(" ", "-", ":", "").Replace(tc.name)
			h := prefix + "{" + id + "}"
			if err := s.Apply(ctx, id, &runtime.Update{Calls: calls}); err != nil {
				t.Fatal(err)
			}
			if r, _ := c.HGet(ctx, h, "r").Result(); r != valid {
				t.Fatalf("the store wrote the record %q, the test's form is %q", r, valid)
			}
			if rt, _ := c.HGet(ctx, h, "rt").Result(); rt != names("a", "a", "deploy") {
				t.Fatalf("the store wrote the names %q", rt)
			}
			if tc.value == "<deleted>" {
				c.HDel(ctx, h, tc.field)
			} else {
				c.HSet(ctx, h, tc.field, tc.value)
			}
			recount(c, h)
			before, _ := c.HGetAll(ctx, h).Result()
			// A read with the names and one without (the script still
			// checks them all), at tool.pre_invoke and at another anchor.
			q := runtime.HistoryQuery{Codes: []string{"CAPPED"}, Tool: "deploy"}
			qn := runtime.HistoryQuery{Codes: []string{"CAPPED"}, LastTool: true, Names: true}
			var hist, histn runtime.History
			rerr := s.Read(ctx, id, &runtime.Snapshot{History: &hist, Query: q})
			nerr := s.Read(ctx, id, &runtime.Snapshot{History: &histn, Query: qn})
			aerr := s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "deploy", Code: "CAPPED"}}, Counters: []runtime.CounterUpdate{{Key: fire("R")}}})
			if tc.ok {
				if rerr != nil || nerr != nil || aerr != nil || hist.Calls != 3 || len(hist.Tools) != 0 || len(histn.Tools) != 3 ||
					hist.Last.Tool != histn.Tools[2] || histn.Last.Tool != histn.Tools[2] {
					t.Fatalf("a read %v (%+v), with the names %v (%+v), an update %v; want all to take it", rerr, hist, nerr, histn, aerr)
				}
				return
			}
			if !errors.Is(rerr, redisstore.ErrCorrupt) || !errors.Is(nerr, redisstore.ErrCorrupt) {
				t.Fatalf("a read: %v (%+v), with the names %v, want ErrCorrupt", rerr, hist, nerr)
			}
			if !errors.Is(aerr, redisstore.ErrCorrupt) || !errors.Is(aerr, runtime.ErrNotApplied) {
				t.Fatalf("an update: %v, want ErrCorrupt, not applied", aerr)
			}
			if after, _ := c.HGetAll(ctx, h).Result(); !maps(after, before) {
				t.Fatalf("a refused update wrote: %q, was %q", after, before)
			}
			// In an evaluation: the rule reading the record fails closed
			// (its block ends the evaluation), the call is not recorded.
			r := &replica{store: s, ev: newEvaluator(t)}
			d, _ := evaluate(r, id, recordCall("deploy", nil, false), time.Second)
			if rules, all := storeErrors(&d); outcome(&d) != "block:CAPPED" || !all || strings.Join(rules, ",") != "CAPPED," ||
				!strings.Contains(d.Errors[0].Err.Error(), "corrupt") || !strings.HasPrefix(d.Errors[1].Err.Error(), updatesNotApplied) {
				t.Fatalf("an evaluation: %s %v", outcome(&d), d.Errors)
			}
			if err := s.ResetSession(ctx, id); err != nil {
				t.Fatal(err)
			}
			if err := s.Read(ctx, id, &runtime.Snapshot{History: &hist, Query: q}); err != nil || hist.Calls != 0 {
				t.Fatalf("after a reset: %v %+v", err, hist)
			}
		})
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestRecordBounded: a session's record holds at most TotalsLimit counts
// of blocks (fields t:) and RecentLimit names, however many calls and
// pairs it sees: its memory is bounded. Logs what a session's hash takes.
func TestRecordBounded(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	h := prefix + "{b}"
	usage := func() int64 {
		n, err := c.MemoryUsage(ctx, h, 0).Result() // every field, not a sample
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A session of a typical agent: a few tools, a few codes.
	typical := []runtime.Call{{Tool: "read_file", HasFingerprint: true}, {Tool: "grep", HasFingerprint: true}, {Tool: "bash", Code: "RM_RF"}, {Tool: "edit_file", HasFingerprint: true}}
	for i := range 100 {
		c := typical[i%len(typical)]
		c.Fingerprint[0] = byte(i)
		if err := s.Apply(ctx, "b", &runtime.Update{Calls: []runtime.Call{c}, Counters: []runtime.CounterUpdate{{Key: fire("R")}}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("a session after 100 calls of 4 tools (one pair counted) and a counter: %d bytes (MEMORY USAGE, all fields)", usage())
	for round := range 3 {
		var calls []runtime.Call
		for i := range runtime.TotalsLimit {
			calls = append(calls, runtime.Call{Tool: fmt.Sprintf("tool-%d-%d", round, i), Code: "C"})
		}
		if err := s.Apply(ctx, "b", &runtime.Update{Calls: calls}); err != nil {
			t.Fatal(err)
		}
	}
	fields, err := c.HKeys(ctx, h).Result()
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, f := range fields {
		if strings.HasPrefix(f, "t:") {
			pairs++
		}
	}
	if pairs != runtime.TotalsLimit {
		t.Fatalf("%d counts of blocks stored, want the limit of %d", pairs, runtime.TotalsLimit)
	}
	var hist runtime.History
	if err := s.Read(ctx, "b", &runtime.Snapshot{History: &hist, Query: runtime.HistoryQuery{Codes: []string{"C"}, Tool: "tool-2-5", Names: true}}); err != nil {
		t.Fatal(err)
	}
	if hist.Calls != 100+3*runtime.TotalsLimit || len(hist.Tools) != runtime.RecentLimit || hist.TotalsKnown[0] {
		t.Fatalf("the record: %d calls, %d names, known %v", hist.Calls, len(hist.Tools), hist.TotalsKnown)
	}
	if r, _ := c.HGet(ctx, h, "r").Result(); len(r) > 64*16+64 {
		t.Fatalf("the record's names and state take %d bytes", len(r))
	}
	t.Logf("with the record full (1,024 pairs of 12-byte tool names, 64 names): %d bytes", usage())
}

// TestLossRecord: the record is state of the session like its counters:
// a write of it counts as a mutation, so a server that loses it (here:
// the session's keys put back as they were before the last recorded call,
// as a failover to a replica that had not received it does) is detected:
// the session is lost for the store that saw the call applied, until
// reset.
func TestLossRecord(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	h, m := prefix+"{s}", prefix+"{s}:m"
	if err := s.Apply(ctx, "s", &runtime.Update{Calls: []runtime.Call{grepCall("")}}); err != nil {
		t.Fatal(err)
	}
	dumpH, err := c.Dump(ctx, h).Result()
	if err != nil {
		t.Fatal(err)
	}
	dumpM, err := c.Dump(ctx, m).Result()
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := c.HGet(ctx, h, "seq").Result()
	if err := s.Apply(ctx, "s", &runtime.Update{Calls: []runtime.Call{grepCall("")}}); err != nil {
		t.Fatal(err)
	}
	if after, _ := c.HGet(ctx, h, "seq").Result(); after == seq {
		t.Fatalf("recording a call did not count as a mutation (seq %s)", after)
	}
	for key, dump := range map[string]string{h: dumpH, m: dumpM} {
		if err := c.RestoreReplace(ctx, key, time.Hour, dump).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var hist runtime.History
	err = s.Read(ctx, "s", &runtime.Snapshot{History: &hist, Query: runtime.HistoryQuery{Tool: "grep"}})
	if !errors.Is(err, redisstore.ErrSessionLost) {
		t.Fatalf("a record missing a call the store saw applied: %v (%d calls)", err, hist.Calls)
	}
	if err := s.Apply(ctx, "s", &runtime.Update{Calls: []runtime.Call{grepCall("")}}); !errors.Is(err, redisstore.ErrSessionLost) || !errors.Is(err, runtime.ErrNotApplied) {
		t.Fatalf("recording in the lost session: %v", err)
	}
	if err := s.ResetSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := s.Read(ctx, "s", &runtime.Snapshot{History: &hist}); err != nil || hist.Calls != 0 {
		t.Fatalf("after the reset: %v, %d calls", err, hist.Calls)
	}
}
