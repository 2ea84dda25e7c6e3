package redisstore_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// newStoreAt returns a store with a prefix of its own, the client and the
// prefix (for tests that write the session's keys by hand).
func newStoreAt(t *testing.T, opts redisstore.Options) (*redisstore.Store, *redis.Client, string) {
	t.Helper()
	c := redistest.Client(t, redistest.Addr(t))
	opts.Prefix = redistest.Prefix(t, c)
	s, err := redisstore.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, c, opts.Prefix
}

// recount makes the marker of the session whose hash is h count the
// fields the hash holds now, and the lengths of its record's fields, as
// if the store had left them: a test of what the scripts make of a value
// edited by hand, past the marker's count (TestFieldsAddedOrDeleted,
// TestRecordCutShort), which catches a field added or deleted, or the
// record's cut or extended, first.
func recount(c *redis.Client, h string) {
	n, _ := c.HGet(ctx, h+":m", "n").Result()
	if parts := strings.Split(n, ":"); len(parts) == 6 {
		n = parts[0] + ":" + strconv.FormatInt(c.HLen(ctx, h).Val(), 10)
		for _, f := range []string{"r", "rt", "ct"} {
			n += ":" + strconv.FormatInt(c.HStrLen(ctx, h, f).Val(), 10)
		}
		c.HSet(ctx, h+":m", "n", n+":"+parts[5])
	}
}

// counterForms: what a counter field may hold. The store writes 1 to 15
// digits without a leading zero (and deletes a counter that is 0); the
// reader in Go and the scripts accept exactly that.
var counterForms = []struct {
	v  string
	ok bool
}{
	{"1", true}, {"42", true}, {"100", true}, {"999999999999998", true},
	{"nan", false}, {"NaN", false}, {"inf", false}, {"-inf", false}, {"infinity", false},
	{"1e3", false}, {"0x10", false}, {" 1", false}, {"1 ", false}, {"\t1", false}, {"1\n", false},
	{"2.5", false}, {"1.0", false}, {"+1", false}, {"-1", false}, {"-0", false}, {"0", false},
	{"007", false}, {"", false}, {"1000000000000000", false}, {"9223372036854775807", false},
	{"9223372036854775808", false}, {"-9223372036854775808", false}, {"١", false}, {"1\x00", false},
	{"abc", false}, {"1_000", false},
}

// TestCounterForms sets a counter of a session the store wrote to each
// form by hand: a read and an update both take it (the update adds one)
// or both refuse it (ErrCorrupt; the update wraps ErrNotApplied and
// writes nothing), and a refused field stays refused, on reads and
// updates, until the session is reset. Before, a read refused "nan" but
// the update's tonumber took it and wrote -9223372036854775808, which
// every read then took.
func TestCounterForms(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	for i, tc := range counterForms {
		session := fmt.Sprintf("f%d", i)
		h := prefix + "{" + session + "}"
		if err := runtime.ApplyCounters(ctx, s, session, []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
			t.Fatal(err)
		}
		c.HSet(ctx, h, "c:R.fire", tc.v)
		recount(c, h)
		dst := make([]int64, 1)
		rerr := runtime.ReadCounters(ctx, s, session, []runtime.CounterKey{fire("R")}, dst)
		for _, up := range []runtime.CounterUpdate{{Key: fire("R")}, {Key: fire("R"), Reset: true}} {
			aerr := runtime.ApplyCounters(ctx, s, session, []runtime.CounterUpdate{up, {Key: fire("Q")}})
			if tc.ok {
				if rerr != nil || aerr != nil || fmt.Sprint(dst[0]) != tc.v {
					t.Errorf("%q: read %d %v, update %v", tc.v, dst[0], rerr, aerr)
				}
				c.HSet(ctx, h, "c:R.fire", tc.v)
				recount(c, h)
				continue
			}
			if !errors.Is(rerr, redisstore.ErrCorrupt) || !errors.Is(aerr, redisstore.ErrCorrupt) || !errors.Is(aerr, runtime.ErrNotApplied) {
				t.Errorf("%q: read %v, update (reset %v) %v; want both refused", tc.v, rerr, up.Reset, aerr)
			}
			if v, _ := c.HGet(ctx, h, "c:R.fire").Result(); v != tc.v {
				t.Errorf("%q: a refused update wrote %q", tc.v, v)
			}
			if n, _ := c.HExists(ctx, h, "c:Q.fire").Result(); n {
				t.Errorf("%q: a refused update applied another counter", tc.v)
			}
			if err := runtime.ReadCounters(ctx, s, session, []runtime.CounterKey{fire("R")}, dst); !errors.Is(err, redisstore.ErrCorrupt) {
				t.Errorf("%q: after an update, a read gives %d %v", tc.v, dst[0], err)
			}
		}
		if tc.ok {
			continue
		}
		if err := s.ResetSession(ctx, session); err != nil {
			t.Fatal(err)
		}
		if got := read(t, s, session, fire("R")); got[0] != 0 {
			t.Errorf("%q: after a reset, %d", tc.v, got[0])
		}
	}
	// The largest counter does not wrap: the update that would pass it is
	// refused.
	c.HSet(ctx, prefix+"{f0}", "c:R.fire", "999999999999999")
	recount(c, prefix+"{f0}")
	if err := runtime.ApplyCounters(ctx, s, "f0", []runtime.CounterUpdate{{Key: fire("R")}}); !errors.Is(err, runtime.ErrNotApplied) || !strings.Contains(err.Error(), "would overflow") {
		t.Errorf("an update past the largest counter: %v", err)
	}
}

// TestCorruptCounterFailsClosed: in an evaluation, a counter that is not
// one is an error of kind store at the read; the rules reading it fail
// closed, and their updates are refused, reported as not applied.
func TestCorruptCounterFailsClosed(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	r := &replica{store: s, ev: newEvaluator(t)}
	warm(t, s, "s")
	if d, _ := evaluate(r, "s", call("repeat"), time.Second); outcome(&d) != "nudge:NUDGE_REPEAT" {
		t.Fatalf("first call: %s %v", outcome(&d), d.Errors)
	}
	c.HSet(ctx, prefix+"{s}", "c:NUDGE_REPEAT.fire", "nan")
	for i := range 3 {
		d, _ := evaluate(r, "s", call("repeat"), time.Second)
		rules, all := storeErrors(&d)
		if d.Effect != runtime.Block || !all || strings.Join(rules, ",") != "NUDGE_REPEAT,ESCALATE," {
			t.Fatalf("call %d over a corrupt counter: %s %v", i, outcome(&d), d.Errors)
		}
		if msg := d.Errors[2].Err.Error(); !strings.HasPrefix(msg, updatesNotApplied) || !strings.Contains(msg, "not a counter") {
			t.Fatalf("call %d: the refused updates: %q", i, msg)
		}
	}
	if v, _ := c.HGet(ctx, prefix+"{s}", "c:NUDGE_REPEAT.fire").Result(); v != "nan" {
		t.Fatalf("the corrupt counter became %q", v)
	}
}

// TestCorruptValues: every other stored value the scripts read is checked
// the same way: a value the store does not write is an error (ErrCorrupt),
// never a default, and the session works again once reset.
func TestCorruptValues(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{SummaryBytes: 40})
	scope := func(session string, inputs ...string) error {
		var sc runtime.Scope
		return s.Scope(ctx, session, inputs, &sc)
	}
	record := func(session string, n runtime.Node) error { return s.RecordNode(ctx, session, n) }
	readR := func(session string) error {
		return runtime.ReadCounters(ctx, s, session, []runtime.CounterKey{fire("R")}, make([]int64, 1))
	}
	// forgetful remembers no session: what it finds is all it knows.
	forgetful, err := redisstore.New(c, redisstore.Options{Prefix: prefix, Remember: -1, SummaryBytes: 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		key   string // "" the hash, ":m" the marker
		field string
		value string
		call  func(session string) error
	}{
		{"node count nan", "", "nodes", "nan", func(id string) error { return record(id, runtime.Node{ID: "z", Kind: runtime.Message}) }},
		{"node count negative", "", "nodes", "-5", func(id string) error { return record(id, runtime.Node{ID: "z", Kind: runtime.Message}) }},
		{"node count float", "", "nodes", "1.5", func(id string) error { return record(id, runtime.Node{ID: "z", Kind: runtime.Message}) }},
		{"byte count", "", "bytes", "nan", func(id string) error { return record(id, runtime.Node{ID: "z", Kind: runtime.Message}) }},
		{"string count", "", "strings", "-1", func(id string) error { return record(id, runtime.Node{ID: "z", Kind: runtime.Message}) }},
		{"graph string", "", "v:l", "yes", func(id string) error {
			return record(id, runtime.Node{ID: "z", Kind: runtime.Message, Labels: []string{"l"}})
		}},
		{"summary count", "", "summaries", "x", func(id string) error {
			return record(id, runtime.Node{ID: "z", Kind: runtime.Message, Labels: []string{"new"}})
		}},
		{"summary count behind", "", "summaries", "", func(id string) error {
			return record(id, runtime.Node{ID: "z", Kind: runtime.Message, Labels: []string{"new"}})
		}},
		{"tokens", "", "tokens", "short", func(id string) error {
			return runtime.ApplyCounters(ctx, s, id, []runtime.CounterUpdate{{Key: fire("R")}})
		}},
		{"incomplete flag", "", "incomplete", "yes", func(id string) error { return scope(id, "a") }},
		{"node record", "", "n:a", "xgarbage", func(id string) error { return scope(id, "a") }},
		{"node record as parent", "", "n:a", "xgarbage", func(id string) error {
			return record(id, runtime.Node{ID: "z", Kind: runtime.Message, Parents: []string{"a"}})
		}},
		{"open node", "", "n:o", "o\x93\x01", func(id string) error { return scope(id, "o") }},
		{"open node kind", "", "n:o", "o\x96\x07\xa0\xa0\xa0\x90\x90", func(id string) error { return scope(id, "o") }},
		{"missing summary", "", "n:a", "s99", func(id string) error { return scope(id, "a") }},
		{"summary", "", "s:1", "\xc1", func(id string) error { return scope(id, "a") }},
		{"summary shape", "", "s:1", "\x92\x90\x90", func(id string) error { return scope(id, "a") }},
		{"open parent missing", "", "n:o", "o\x96\x01\xa0\xa0\xa0\x90\x91\xa2zz", func(id string) error { return scope(id, "o") }},
		{"generation", "", "g", "nothex", readR},
		{"mutation count", "", "seq", "nan", readR},
		{"hash without generation", "", "g", "", readR},
		{"marker count", ":m", "s", "inf", readR},
		{"marker flag", ":m", "r", "2", readR},
		{"marker generation", ":m", "g", "0123456789abcdeF", readR},
		// A marker of no mutations that no reset wrote: the scripts
		// write s 0 only with r 1. Before, it read as a reset session,
		// empty (a hash gone with it was never noticed).
		{"marker of nothing", ":m", "r", "0", func(id string) error {
			c.Del(ctx, prefix+"{"+id+"}")
			c.HSet(ctx, prefix+"{"+id+"}:m", "s", "0")
			return runtime.ReadCounters(ctx, forgetful, id, []runtime.CounterKey{fire("R")}, make([]int64, 1))
		}},
		// The record gone from a hash that holds its names, or its
		// calls' times: the scripts write r with them. Before, the
		// record read empty (repeat_count 0, no calls in any window).
		{"record without its numbers", "", "r", "", func(id string) error {
			if err := s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "x"}}}); err != nil {
				return err
			}
			c.HDel(ctx, prefix+"{"+id+"}", "r")
			recount(c, prefix+"{"+id+"}")
			var h runtime.History
			return s.Read(ctx, id, &runtime.Snapshot{History: &h})
		}},
		{"times without the record", "", "r", "", func(id string) error {
			if err := s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "x", Time: 1e18}}}); err != nil {
				return err
			}
			c.HDel(ctx, prefix+"{"+id+"}", "r", "rt")
			recount(c, prefix+"{"+id+"}")
			return s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "x", Time: 1e18 + 1}}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.ReplaceAll(tc.name, " ", "-")
			sess := s.Session(id)
			if err := sess.Record(ctx, runtime.Node{ID: "a", Kind: runtime.ToolResult, Tool: "read", Labels: []string{"l"}}); err != nil {
				t.Fatal(err)
			}
			// o: a node stored open (its summary would outgrow 40 bytes).
			if err := sess.Record(ctx, runtime.Node{ID: "o", Kind: runtime.Message, Origin: strings.Repeat("x", 50), Parents: []string{"a"}}); err != nil {
				t.Fatal(err)
			}
			if err := scope(id, "a", "o"); err != nil {
				t.Fatal(err)
			}
			key := prefix + "{" + id + "}" + tc.key
			if tc.value == "" {
				c.HDel(ctx, key, tc.field)
			} else {
				c.HSet(ctx, key, tc.field, tc.value)
			}
			recount(c, prefix+"{"+id+"}")
			err := tc.call(id)
			if !errors.Is(err, redisstore.ErrCorrupt) {
				t.Fatalf("%s = %q: %v, want ErrCorrupt", tc.field, tc.value, err)
			}
			if err := s.ResetSession(ctx, id); err != nil {
				t.Fatal(err)
			}
			if err := readR(id); err != nil {
				t.Fatalf("after a reset: %v", err)
			}
			if err := record(id, runtime.Node{ID: "a", Kind: runtime.Message}); err != nil {
				t.Fatalf("after a reset: %v", err)
			}
		})
	}
	// The store's epoch: every call fails until it is deleted (then it is
	// a new one, as after a loss).
	c.Set(ctx, prefix+"epoch", "garbage", 0)
	if err := readR("e"); !errors.Is(err, redisstore.ErrCorrupt) {
		t.Fatalf("a corrupt epoch: %v", err)
	}
}

// TestKeysOfAnotherType: a session's hash, its marker or the store's
// epoch holding a key of another type (a string, a list, a set, a sorted
// set: written by hand, or by another program sharing the prefix) is a
// corrupt session (ErrCorrupt) at every call, its mutations refused
// (ErrNotApplied) with the key left as it was, and a reset starts the
// session over (the epoch: once it is deleted). Before, the calls failed
// with the server's WRONGTYPE, of no kind the host could tell, and a
// marker of another type made ResetSession fail too: the session could
// never be resumed.
func TestKeysOfAnotherType(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	ops := []struct {
		name     string
		mutation bool
		call     func(id string) error
	}{
		{"read", false, func(id string) error {
			var h runtime.History
			return s.Read(ctx, id, &runtime.Snapshot{Keys: []runtime.CounterKey{fire("R")}, Counters: make([]int64, 1), History: &h})
		}},
		{"apply", true, func(id string) error {
			return s.Apply(ctx, id, &runtime.Update{Counters: []runtime.CounterUpdate{{Key: fire("R")}}, Calls: []runtime.Call{{Tool: "x", Time: 1e18}}})
		}},
		{"record", true, func(id string) error { return s.RecordNode(ctx, id, runtime.Node{ID: "z", Kind: runtime.Message}) }},
		{"mark", true, func(id string) error { return s.MarkIncomplete(ctx, id) }},
		{"scope", false, func(id string) error {
			var sc runtime.Scope
			return s.Scope(ctx, id, nil, &sc)
		}},
	}
	write := map[string]func(key string){
		"string": func(key string) { c.Set(ctx, key, "1", 0) },
		"list":   func(key string) { c.RPush(ctx, key, "g", "0123456789abcdef") },
		"set":    func(key string) { c.SAdd(ctx, key, "g") },
		"zset":   func(key string) { c.ZAdd(ctx, key, redis.Z{Score: 1, Member: "g"}) },
	}
	for _, which := range []string{"", ":m"} {
		for typ, put := range write {
			for _, op := range ops {
				id := "k" + which + "-" + typ + "-" + op.name
				key := prefix + "{" + id + "}" + which
				if err := runtime.ApplyCounters(ctx, s, id, []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
					t.Fatal(err)
				}
				c.Del(ctx, key)
				put(key)
				before, _ := c.Dump(ctx, key).Result()
				err := op.call(id)
				if !errors.Is(err, redisstore.ErrCorrupt) || op.mutation != errors.Is(err, runtime.ErrNotApplied) {
					t.Errorf("%s %q of type %s: %s: %v; want ErrCorrupt", id, which, typ, op.name, err)
				}
				if after, _ := c.Dump(ctx, key).Result(); after != before {
					t.Errorf("%s: %s changed the key", id, op.name)
				}
				if err := s.ResetSession(ctx, id); err != nil {
					t.Errorf("%s: reset: %v", id, err)
					continue
				}
				if err := op.call(id); err != nil {
					t.Errorf("%s: %s after the reset: %v", id, op.name, err)
				}
			}
		}
	}
	for typ, put := range write {
		id := "e-" + typ
		c.Del(ctx, prefix+"epoch")
		put(prefix + "epoch")
		for _, op := range append(ops, struct {
			name     string
			mutation bool
			call     func(id string) error
		}{"reset", true, func(id string) error { return s.ResetSession(ctx, id) }}) {
			if err := op.call(id); !errors.Is(err, redisstore.ErrCorrupt) || op.mutation != errors.Is(err, runtime.ErrNotApplied) {
				t.Errorf("an epoch of type %s: %s: %v; want ErrCorrupt", typ, op.name, err)
			}
		}
		// Deleted, it is a new epoch: as after a loss, a session the
		// store knew cannot be proven new until reset.
		c.Del(ctx, prefix+"epoch")
		if err := ops[0].call(id); !errors.Is(err, redisstore.ErrSessionLost) {
			t.Errorf("after deleting the epoch of type %s: %v", typ, err)
		}
		if err := s.ResetSession(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := ops[0].call(id); err != nil {
			t.Errorf("after deleting the epoch of type %s and a reset: %v", typ, err)
		}
	}
}

// TestFieldsAddedOrDeleted: a field of a session's hash deleted, or one
// added, by something else than the store is a corrupt session
// (ErrCorrupt), whichever field it is: a counter, a count of blocks, the
// calls' times, the incomplete flag, a graph string, the tokens. Each of
// these is absent in a valid session too (a counter at 0, no timed call,
// a complete graph), so their form cannot tell; the marker keeps how many
// fields the store left in the hash. Before, a deleted counter read 0, a
// deleted ct no calls in any window, a deleted incomplete flag a complete
// provenance: fresh zeros, silent allows.
func TestFieldsAddedOrDeleted(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	fill := func(id string) {
		t.Helper()
		u := &runtime.Update{
			Counters: []runtime.CounterUpdate{{Key: fire("R")}, {Key: breaker("R")}},
			Calls:    []runtime.Call{{Tool: "deploy", Code: "CAPPED", Time: 1e18}, {Tool: "deploy", Time: 1e18 + 1}},
		}
		if err := s.Apply(ctx, id, u); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordNode(ctx, id, runtime.Node{ID: "a", Kind: runtime.ToolResult, Tool: "read", Labels: []string{"l"}}); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkIncomplete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	readAll := func(id string) error {
		var h runtime.History
		return s.Read(ctx, id, &runtime.Snapshot{Keys: []runtime.CounterKey{fire("R")}, Counters: make([]int64, 1), History: &h,
			Query: runtime.HistoryQuery{Tool: "deploy", Codes: []string{"CAPPED"}, Times: true}})
	}
	fill("probe")
	fields, err := c.HKeys(ctx, prefix+"{probe}").Result()
	if err != nil || len(fields) < 15 {
		t.Fatalf("the session's fields: %v %v", fields, err)
	}
	edits := map[string]func(h string){}
	for _, f := range fields {
		edits["delete "+f] = func(h string) { c.HDel(ctx, h, f) }
	}
	edits["add a counter"] = func(h string) { c.HSet(ctx, h, "c:Q.fire", "3") }
	edits["add a field"] = func(h string) { c.HSet(ctx, h, "x", "1") }
	edits["add a count of blocks"] = func(h string) { c.HSet(ctx, h, "t:6:CAPPEDread", "1") }
	for name, edit := range edits {
		id := strings.NewReplacer(" ", "-", ":", "").Replace(name)
		h := prefix + "{" + id + "}"
		fill(id)
		if err := readAll(id); err != nil {
			t.Fatal(err)
		}
		edit(h)
		if err := readAll(id); !errors.Is(err, redisstore.ErrCorrupt) {
			t.Errorf("%s: a read: %v; want ErrCorrupt", name, err)
		}
		var sc runtime.Scope
		if err := s.Scope(ctx, id, []string{"a"}, &sc); !errors.Is(err, redisstore.ErrCorrupt) {
			t.Errorf("%s: a scope: %v; want ErrCorrupt", name, err)
		}
		before, _ := c.HGetAll(ctx, h).Result()
		if err := s.Apply(ctx, id, &runtime.Update{Counters: []runtime.CounterUpdate{{Key: fire("R")}}}); !errors.Is(err, redisstore.ErrCorrupt) || !errors.Is(err, runtime.ErrNotApplied) {
			t.Errorf("%s: an update: %v; want ErrCorrupt, not applied", name, err)
		}
		if after, _ := c.HGetAll(ctx, h).Result(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%s: a refused update changed the session", name)
		}
		if err := s.ResetSession(ctx, id); err != nil {
			t.Fatal(err)
		}
		fill(id)
		if err := readAll(id); err != nil {
			t.Errorf("%s: after a reset: %v", name, err)
		}
	}
}

// TestRecordCutShort: the record's fields cut short by hand (a byte off
// the end) are a corrupt session, even where what is left, or what the
// next update makes of it, has the store's form: the last call's code
// "CAPPE" for "CAPPED", or the calls' times whose last entry lost the
// last byte of its tool, which the next timed update's entry completed
// into entries every read took (a call of 1977: no window counted it).
// The marker keeps the lengths the store left.
func TestRecordCutShort(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	const t0 = int64(1_800_000_000e9)
	q := runtime.HistoryQuery{Tool: "deploy", Codes: []string{"CAPPED"}, Names: true, Times: true}
	for _, field := range []string{"r", "rt", "ct"} {
		id := "cut-" + field
		h := prefix + "{" + id + "}"
		u := &runtime.Update{Calls: []runtime.Call{{Tool: "read", Time: t0}, {Tool: "x", Code: "CAPPED", Time: t0 + 1e9}}}
		if err := s.Apply(ctx, id, u); err != nil {
			t.Fatal(err)
		}
		v, _ := c.HGet(ctx, h, field).Result()
		c.HSet(ctx, h, field, v[:len(v)-1])
		var hist runtime.History
		err := s.Read(ctx, id, &runtime.Snapshot{History: &hist, Query: q})
		if !errors.Is(err, redisstore.ErrCorrupt) {
			t.Errorf("%s cut short: a read: %v (code %q, tools %q, times %v); want ErrCorrupt", field, err, hist.Last.Code, hist.Tools, hist.Times.At)
		}
		err = s.Apply(ctx, id, &runtime.Update{Calls: []runtime.Call{{Tool: "deploy", Time: t0 + 2e9}}})
		if err == nil {
			err = s.Read(ctx, id, &runtime.Snapshot{History: &hist, Query: q})
		}
		if !errors.Is(err, redisstore.ErrCorrupt) {
			n, werr := hist.Times.Within(t0+3e9, 60, "deploy", false)
			t.Errorf("%s cut short, then an update: %v (deploy calls in the last minute: %d %v); want ErrCorrupt", field, err, n, werr)
		}
	}
}

// TestMarkerCountOfAnotherGeneration: in a rolling upgrade, a store
// version that does not keep the marker's count (n) begins a new
// generation of a session whose hash expired while its marker, in its
// last second, still held the count the new version left for the old
// generation: it writes the marker's g, s and r and leaves that n. The
// new generation's mutation count reaches the old one's (here at once: 1),
// and its hash holds another number of fields: the session is healthy,
// not corrupt. Before, the count was checked whatever generation it was
// of, and every call on the session failed with ErrCorrupt.
func TestMarkerCountOfAnotherGeneration(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	const id = "upgrade"
	h, m := prefix+"{"+id+"}", prefix+"{"+id+"}:m"
	if err := runtime.ApplyCounters(ctx, s, id, []runtime.CounterUpdate{{Key: fire("R")}, {Key: breaker("R")}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := c.HGet(ctx, m, "n").Result(); n == "" {
		t.Fatal("the store wrote no count in the marker")
	}
	// The hash expires; the marker is in its last second.
	c.Del(ctx, h)
	c.PExpire(ctx, m, 500*time.Millisecond)
	// The older version's first mutation of a new generation (its
	// mutate): the hash, then the marker's g, s and r.
	c.HSet(ctx, h, "c:R.fire", "1", "tokens", "ABCDEFGH", "g", "0123456789abcdef", "seq", "1")
	c.HSet(ctx, m, "g", "0123456789abcdef", "s", "1", "r", "0")
	c.PExpire(ctx, h, time.Hour)
	c.PExpire(ctx, m, time.Hour+time.Second)
	// Another replica of the new version reads and updates it.
	other, err := redisstore.New(c, redisstore.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, other, id, fire("R"), breaker("R")); got[0] != 1 || got[1] != 0 {
		t.Errorf("read %v, want [1 0]", got)
	}
	if err := runtime.ApplyCounters(ctx, other, id, []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
		t.Fatalf("an update: %v", err)
	}
	if got := read(t, other, id, fire("R")); got[0] != 2 {
		t.Errorf("after an update: %v, want [2]", got)
	}
}

// TestMarkerCountOfEarlierForms: a marker whose count is in a form an
// earlier version wrote, without the generation ("S:L", "S:L:R:T:C"), is
// a count this version cannot tie to the hash's generation: the session
// is read and updated (not checked, as a marker without a count), and the
// update writes the count in the current form, checked from then on.
// Before, such a marker was corrupt: every session an earlier version
// had written failed closed after an upgrade.
func TestMarkerCountOfEarlierForms(t *testing.T) {
	s, c, prefix := newStoreAt(t, redisstore.Options{})
	for i, cut := range []int{1, 4} {
		id := fmt.Sprintf("earlier%d", i)
		h, m := prefix+"{"+id+"}", prefix+"{"+id+"}:m"
		if err := runtime.ApplyCounters(ctx, s, id, []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
			t.Fatal(err)
		}
		n := strings.Split(c.HGet(ctx, m, "n").Val(), ":")
		if len(n) != 6 {
			t.Fatalf("the marker's count is %q", n)
		}
		old := strings.Join(n[:cut+1], ":")
		c.HSet(ctx, m, "n", old)
		if got := read(t, s, id, fire("R")); got[0] != 1 {
			t.Errorf("%s: read %v, want [1]", old, got)
		}
		if err := runtime.ApplyCounters(ctx, s, id, []runtime.CounterUpdate{{Key: fire("R")}}); err != nil {
			t.Fatalf("%s: an update: %v", old, err)
		}
		if got := strings.Split(c.HGet(ctx, m, "n").Val(), ":"); len(got) != 6 {
			t.Errorf("%s: after an update the marker's count is %q", old, got)
		}
		c.HSet(ctx, h, "c:R.fire", "7")
		c.HSet(ctx, h, "c:Q.fire", "1")
		dst := make([]int64, 1)
		if err := runtime.ReadCounters(ctx, s, id, []runtime.CounterKey{fire("R")}, dst); !errors.Is(err, redisstore.ErrCorrupt) {
			t.Errorf("%s: a field added after the update: %v, want ErrCorrupt", old, err)
		}
	}
}
