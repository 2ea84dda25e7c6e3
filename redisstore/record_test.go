package redisstore_test

// The session's record of tool calls (spec 5.10) in Redis: through real
// evaluations on two replicas, when the server stops and loses it, when it
// is corrupt, bounded, and covered by the loss detection.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
		k, kp := &d.Kept, &dp.Kept
		if k.Read != kp.Read || k.RepeatCount != kp.RepeatCount || k.SameCodeRun != kp.SameCodeRun ||
			!slices.Equal(k.RecentToolNames, kp.RecentToolNames) || !storetest.Equal(&k.History, &kp.History) {
			t.Fatalf("call %d: the facts read differ:\nredis   %+v\nprocess %+v\n%s", i, k, kp, storetest.Diff(&k.History, &kp.History))
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

// mp is a msgpack writer for the tests that store records by hand: the
// encodings cmsgpack writes (fixint, uint8..uint64, negative fixint,
// float64, fixstr/str8/str16, fixarray/array16), plus raw bytes.
type mp struct{ bytes.Buffer }

type raw []byte

func (m *mp) put(v any) *mp {
	switch v := v.(type) {
	case int:
		switch {
		case v >= 0 && v < 128:
			m.WriteByte(byte(v))
		case v < 0 && v >= -32:
			m.WriteByte(byte(0xe0 | (v + 32)))
		case v >= 0 && v < 1<<16:
			m.WriteByte(0xcd)
			binary.Write(m, binary.BigEndian, uint16(v))
		default:
			m.WriteByte(0xcf)
			binary.Write(m, binary.BigEndian, uint64(v))
		}
	case float64:
		m.WriteByte(0xcb)
		binary.Write(m, binary.BigEndian, math.Float64bits(v))
	case string:
		switch {
		case len(v) < 32:
			m.WriteByte(0xa0 | byte(len(v)))
		case len(v) < 256:
			m.WriteByte(0xd9)
			m.WriteByte(byte(len(v)))
		default:
			m.WriteByte(0xda)
			binary.Write(m, binary.BigEndian, uint16(len(v)))
		}
		m.WriteString(v)
	case []any:
		if len(v) < 16 {
			m.WriteByte(0x90 | byte(len(v)))
		} else {
			m.WriteByte(0xdc)
			binary.Write(m, binary.BigEndian, uint16(len(v)))
		}
		for _, x := range v {
			m.put(x)
		}
	case raw:
		m.Write(v)
	default:
		panic(fmt.Sprintf("mp: %T", v))
	}
	return m
}

func pack(v any) string { return (&mp{}).put(v).String() }

// record is a record in the store's layout: {calls, run, codeRun,
// lastRepeat, lastCodeRun, pairs, full, hasFingerprint, fingerprint, code,
// tools}.
func record(calls, run, codeRun, lastRep, lastCodeRun, pairs, full, hasFp int, fp, code string, tools ...any) []any {
	return []any{calls, run, codeRun, lastRep, lastCodeRun, pairs, full, hasFp, fp, code, tools}
}

// TestCorruptRecord: every stored field of the record is read only in the
// form the scripts write it. The session below holds three calls (a, a,
// deploy blocked with CAPPED); each case replaces its record (or a count of
// blocks) with a value the store would not write: a read of the record is
// an error (ErrCorrupt), an update that records a call is refused (not
// applied) and writes nothing, in an evaluation the rules reading a
// record fact fail closed; the session works again once reset. The
// record as the scripts write it reads back, which shows the by-hand
// encoding is the store's.
func TestCorruptRecord(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	fp := "\x01\x02\x03\x04\x05\x06\x07\x08"
	zero := strings.Repeat("\x00", 8)
	valid := record(3, 1, 1, 0, 0, 1, 0, 1, fp, "CAPPED", "a", "a", "deploy")
	// a, a, deploy blocked with CAPPED: the record as the store writes it.
	calls := []runtime.Call{{Tool: "a", HasFingerprint: true}, {Tool: "a", HasFingerprint: true}, {Tool: "deploy", HasFingerprint: true, Code: "CAPPED"}}
	copy(calls[2].Fingerprint[:], fp)
	tField := "t:6:CAPPEDdeploy"
	long := make([]any, 65)
	for i := range long {
		long[i] = "a"
	}
	for _, tc := range []struct {
		name  string
		field string
		value string
	}{
		{"not msgpack", "r", "garbage"},
		{"empty", "r", ""},
		{"trailing bytes", "r", pack(valid) + "\x00"},
		{"two records", "r", pack(valid) + pack(valid)},
		{"truncated", "r", pack(valid)[:20]},
		{"a map", "r", "\x81\x01\x02"},
		{"a string", "r", pack("record")},
		{"ten values", "r", pack(valid[:10])},
		{"twelve values", "r", pack(append(slices.Clone(valid), 0))},
		{"uint8 for a fixint", "r", (&mp{}).put(raw{0x9b, 0xcc, 0x03}).put(raw(pack(valid)[2:])).String()},
		{"negative calls", "r", pack(record(-1, 1, 1, 0, 0, 1, 0, 1, fp, "CAPPED", "a", "a", "deploy"))},
		{"fractional run", "r", pack([]any{3, 1.5, 1, 0, 0, 1, 0, 1, fp, "CAPPED", []any{"a", "a", "deploy"}})},
		{"calls past the largest count", "r", pack(record(1_000_000_000_000_000, 1, 1, 0, 0, 1, 0, 1, fp, "CAPPED", long...))},
		{"run past the calls", "r", pack(record(3, 4, 1, 3, 0, 1, 0, 1, fp, "CAPPED", "a", "a", "deploy"))},
		{"run not lastRepeat + 1", "r", pack(record(3, 2, 1, 0, 0, 1, 0, 1, fp, "CAPPED", "a", "a", "deploy"))},
		{"code run without a code", "r", pack(record(3, 1, 1, 0, 0, 1, 0, 1, fp, "", "a", "a", "b"))},
		{"a code without a run", "r", pack(record(3, 1, 0, 0, 0, 1, 0, 1, fp, "CAPPED", "a", "a", "deploy"))},
		{"last code run of all the calls", "r", pack(record(3, 1, 1, 0, 3, 1, 0, 1, fp, "CAPPED", "a", "a", "deploy"))},
		{"more pairs than calls", "r", pack(record(3, 1, 1, 0, 0, 4, 0, 1, fp, "CAPPED", "a", "a", "deploy"))},
		{"full below the limit", "r", pack(record(3, 1, 1, 0, 0, 1, 1, 1, fp, "CAPPED", "a", "a", "deploy"))},
		{"flag 2", "r", pack(record(3, 1, 1, 0, 0, 1, 0, 2, fp, "CAPPED", "a", "a", "deploy"))},
		{"fingerprint of 7 bytes", "r", pack(record(3, 1, 1, 0, 0, 1, 0, 1, fp[:7], "CAPPED", "a", "a", "deploy"))},
		{"fingerprint a number", "r", pack([]any{3, 1, 1, 0, 0, 1, 0, 1, 7, "CAPPED", []any{"a", "a", "deploy"}})},
		{"code a number", "r", pack([]any{3, 1, 1, 0, 0, 1, 0, 1, fp, 7, []any{"a", "a", "deploy"}})},
		{"two names for three calls", "r", pack(record(3, 1, 1, 0, 0, 1, 0, 1, fp, "CAPPED", "a", "deploy"))},
		{"65 names", "r", pack(record(65, 1, 1, 0, 0, 1, 0, 1, fp, "CAPPED", long...))},
		{"a name a number", "r", pack(record(3, 1, 1, 0, 0, 1, 0, 1, fp, "CAPPED", "a", 5, "deploy"))},
		{"tools a string", "r", pack([]any{3, 1, 1, 0, 0, 1, 0, 1, fp, "CAPPED", "aadeploy"})},
		{"an empty record not empty", "r", pack(record(0, 1, 0, 0, 0, 0, 0, 0, zero, ""))},
		{"an empty record with a code", "r", pack(record(0, 0, 0, 0, 0, 0, 0, 0, zero, "CAPPED"))},
		{"blocks not a count", tField, "nan"},
		{"blocks zero", tField, "0"},
		{"blocks negative", tField, "-1"},
		{"blocks with a leading zero", tField, "01"},
		{"blocks fractional", tField, "1.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.ReplaceAll(tc.name, " ", "-")
			h := prefix + "{" + id + "}"
			if err := s.Apply(ctx, id, &runtime.Update{Calls: calls}); err != nil {
				t.Fatal(err)
			}
			if stored, _ := c.HGet(ctx, h, "r").Result(); stored != pack(valid) {
				t.Fatalf("the store wrote the record %q, the test's encoding is %q", stored, pack(valid))
			}
			c.HSet(ctx, h, tc.field, tc.value)
			before, _ := c.HGetAll(ctx, h).Result()
			q := runtime.HistoryQuery{Codes: []string{"CAPPED"}, Tool: "deploy"}
			var hist runtime.History
			if err := s.Read(ctx, id, &runtime.Snapshot{History: &hist, Query: q}); !errors.Is(err, redisstore.ErrCorrupt) {
				t.Fatalf("a read: %v (%+v), want ErrCorrupt", err, hist)
			}
			err := s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "deploy", Code: "CAPPED"}}, Counters: []runtime.CounterUpdate{{Key: fire("R")}}})
			if !errors.Is(err, redisstore.ErrCorrupt) || !errors.Is(err, runtime.ErrNotApplied) {
				t.Fatalf("an update: %v, want ErrCorrupt, not applied", err)
			}
			if after, _ := c.HGetAll(ctx, h).Result(); !maps(after, before) {
				t.Fatalf("a refused update wrote: %q, was %q", after, before)
			}
			// In an evaluation: the rules reading the record fail closed.
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
		n, err := c.MemoryUsage(ctx, h).Result()
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
	t.Logf("a session after 100 calls of 4 tools (one pair counted) and a counter: %d bytes (MEMORY USAGE)", usage())
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
	if err := s.Read(ctx, "b", &runtime.Snapshot{History: &hist, Query: runtime.HistoryQuery{Codes: []string{"C"}, Tool: "tool-2-5"}}); err != nil {
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
