package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// TestRecordJSON pins the JSON Lines format of spec 10: the field names in
// order, time in RFC 3339 UTC, session left out when there is none, lists
// never null.
func TestRecordJSON(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	at := time.Date(2026, 12, 1, 12, 8, 32, 500_000_000, paris)
	var b bytes.Buffer
	rec := NewJSONLRecorder(&b)
	rec.Record(&Record{
		Time: at, Pack: "starter", Digest: "sha256:ab", Session: "s1", Anchor: "tool.pre_invoke", Tool: "bash",
		Decision: "block", Code: "A", Codes: []string{"A", "B"}, Monitored: []string{"M"}, FailedClosed: []string{"B"},
		Errors: []RecordError{{Rule: "B", Kind: "provider", Message: "provider path_outside_scope: <no & escaping>"}},
	})
	rec.Record(&Record{Time: at.UTC(), Pack: "starter", Digest: "sha256:ab", Anchor: "content.tool_result", Decision: "allow"})
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2026-12-01T11:08:32.5Z","pack":"starter","digest":"sha256:ab","session":"s1","anchor":"tool.pre_invoke","tool":"bash","decision":"block","code":"A","codes":["A","B"],"monitored":["M"],"failed_closed":["B"],"errors":[{"rule":"B","kind":"provider","message":"provider path_outside_scope: <no & escaping>"}]}
{"time":"2026-12-01T11:08:32.5Z","pack":"starter","digest":"sha256:ab","anchor":"content.tool_result","tool":"","decision":"allow","code":"","codes":[],"monitored":[],"failed_closed":[],"errors":[]}
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	// Each line is one object whose time parses as RFC 3339 in UTC.
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		ts, err := time.Parse(time.RFC3339, m["time"].(string))
		if err != nil || ts.Location() != time.UTC || !ts.Equal(at) {
			t.Errorf("time %v: %v, %v", m["time"], ts, err)
		}
		for _, f := range []string{"codes", "monitored", "failed_closed", "errors"} {
			if _, ok := m[f].([]any); !ok {
				t.Errorf("%s is %#v, not a list", f, m[f])
			}
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

// TestJSONLRecorderErr keeps the first write error, stops writing, and
// counts every record it did not write: the failed one and those after.
func TestJSONLRecorderErr(t *testing.T) {
	w := &failWriter{}
	rec := NewJSONLRecorder(w)
	rec.Record(&Record{})
	rec.Record(&Record{})
	rec.Record(&Record{})
	if err := rec.Err(); err == nil || err.Error() != "disk full" || w.n != 1 {
		t.Errorf("err %v after %d writes", err, w.n)
	}
	if d := rec.Dropped(); d != 3 {
		t.Errorf("Dropped() = %d, want 3", d)
	}
	// Before any error: nothing dropped.
	ok := NewJSONLRecorder(io.Discard)
	ok.Record(&Record{})
	if ok.Err() != nil || ok.Dropped() != 0 {
		t.Errorf("a recorder that wrote reports %v, %d dropped", ok.Err(), ok.Dropped())
	}
}

// TestJSONLRecorderConcurrent writes from several goroutines: every line
// stays whole.
func TestJSONLRecorderConcurrent(t *testing.T) {
	var b bytes.Buffer
	rec := NewJSONLRecorder(&b)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				rec.Record(&Record{Pack: "p", Codes: []string{"A"}})
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Pack != "p" {
			t.Fatalf("line %q: %v", l, err)
		}
	}
}

// TestAppendRecordIsEncodingJSON: the hand-written encoder writes the bytes
// encoding/json (HTML characters not escaped) writes for the same record,
// for strings with every kind of character JSON escapes, invalid UTF-8,
// U+2028/U+2029, and random bytes; times in and out of UTC; every list nil
// and not.
func TestAppendRecordIsEncodingJSON(t *testing.T) {
	tricky := []string{"", "plain", "quote \" backslash \\ slash /", "<html> & 'x'", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"caf\u00e9 \u65e5\u672c \U0001F600", "\u2028\u2029", "bad \xff\xfe utf8 \xe2\x82", "\xed\xa0\x80 surrogate", "\uFEFF\u200b"}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		b := make([]byte, rnd.Intn(12))
		for j := range b {
			switch rnd.Intn(4) {
			case 0:
				b[j] = byte(rnd.Intn(0x20))
			case 1:
				b[j] = byte(0x80 + rnd.Intn(0x80))
			default:
				b[j] = byte(0x20 + rnd.Intn(0x60))
			}
		}
		tricky = append(tricky, string(b))
	}
	pick := func(i int) string { return tricky[i%len(tricky)] }
	zones := []*time.Location{time.UTC, time.FixedZone("X", -7*3600-1800), time.Local}
	for i := range tricky {
		r := &Record{
			Time: time.Date(2026, 3, 1+i%28, i%24, i%60, i%60, (i*7919)%1_000_000_000, zones[i%len(zones)]),
			Pack: pick(i), Digest: pick(i + 1), Session: pick(i + 2), Anchor: pick(i + 3), Tool: pick(i + 4),
			Decision: pick(i + 5), Code: pick(i + 6),
		}
		if i%2 == 0 {
			r.Codes, r.Monitored, r.FailedClosed = []string{pick(i + 7), pick(i + 8)}, []string{pick(i + 9)}, []string{}
			r.Errors = []RecordError{{Rule: pick(i + 10), Kind: pick(i + 11), Message: pick(i + 12)}, {}}
		}
		if i%3 == 0 {
			r.Call = json.RawMessage([]string{`7`, `"req-1"`, ` { "a" : [1, "x y", "\u0041\n"] } `, `-1.5e3`, `null`}[i%5])
		}
		got := appendRecord(nil, r)
		// encoding/json writes what the recorder always wrote: nil lists
		// as [] and the time in UTC.
		c := *r
		c.Time = c.Time.UTC()
		for _, l := range []*[]string{&c.Codes, &c.Monitored, &c.FailedClosed} {
			if *l == nil {
				*l = []string{}
			}
		}
		if c.Errors == nil {
			c.Errors = []RecordError{}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&c); err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Fatalf("record %d:\n got %q\nwant %q", i, got, want.String())
		}
		if !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("record %d is not JSON in UTF-8: %q", i, got)
		}
	}
}

// TestRecordCall: the call id is written after session as the JSON value
// the host gave (compacted), left out when there is none; a value that is
// not JSON in UTF-8, which encoding/json refuses to write (and so would
// have stopped the recorder), is written as a string of its text.
func TestRecordCall(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct{ call, want string }{
		{"", ``},
		{"7", `,"call":7`},
		{`"abc"`, `,"call":"abc"`},
		{" 12 \n", `,"call":12`},
		{`{"a": [1, " x\" "]}`, `,"call":{"a":[1," x\" "]}`},
		{`not json`, `,"call":"not json"`},
		{"{\"a\":\n", `,"call":"{\"a\":\n"`},
		{"\"\xff\"", `,"call":"\"\ufffd\""`},
	} {
		var b bytes.Buffer
		rec := NewJSONLRecorder(&b)
		r := &Record{Time: at, Pack: "p", Digest: "d", Session: "s", Anchor: "a", Decision: "allow"}
		if tc.call != "" {
			r.Call = json.RawMessage(tc.call)
		}
		rec.Record(r)
		want := `{"time":"2026-01-02T03:04:05Z","pack":"p","digest":"d","session":"s"` + tc.want + `,"anchor":"a","tool":"","decision":"allow","code":"","codes":[],"monitored":[],"failed_closed":[],"errors":[]}` + "\n"
		if rec.Err() != nil || b.String() != want {
			t.Errorf("call %q: %v\n got %s\nwant %s", tc.call, rec.Err(), b.String(), want)
		}
		if !json.Valid(b.Bytes()) {
			t.Errorf("call %q: not JSON", tc.call)
		}
	}
}

// TestCallID: the call id travels in the context, copied from the host's
// bytes; reading it allocates nothing, and a nil or bare context has none.
func TestCallID(t *testing.T) {
	//lint:ignore SA1012 a nil context is what generated code may pass
	if id := CallID(nil); id != nil {
		t.Errorf("CallID(nil) = %s", id)
	}
	if id := CallID(context.Background()); id != nil {
		t.Errorf("CallID(Background) = %s", id)
	}
	buf := []byte(`"req-7"`)
	ctx := WithCallID(context.Background(), buf)
	copy(buf, `"XXXXX"`)
	if id := CallID(ctx); string(id) != `"req-7"` {
		t.Errorf("CallID = %s, want the bytes as given", id)
	}
	ctx = context.WithValue(ctx, struct{ k int }{1}, 2)
	if n := testing.AllocsPerRun(100, func() { _ = CallID(ctx) }); n != 0 {
		t.Errorf("CallID allocates %v times", n)
	}
	if id := CallID(WithCallID(ctx, json.RawMessage(`42`))); string(id) != `42` {
		t.Errorf("the inner call id: %s", id)
	}
}

// sampleRecord is a record of a typical block.
func sampleRecord() *Record {
	return &Record{Time: time.Now().UTC(), Pack: "starter", Digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		Session: "s1", Call: json.RawMessage(`17`), Anchor: "tool.pre_invoke", Tool: "bash", Decision: "block", Code: "RM_RF",
		Codes: []string{"RM_RF", "LONG_COMMAND"}, Monitored: []string{"SECRET_IN_ARGS"}, FailedClosed: []string{},
		Errors: []RecordError{{Rule: "LONG_COMMAND", Kind: "provider", Message: "provider path_outside_scope: not registered"}}}
}

// TestRecordersDoNotAllocate: once its buffers have grown, recording
// allocates nothing on the evaluating goroutine, synchronously or not.
func TestRecordersDoNotAllocate(t *testing.T) {
	r := sampleRecord()
	syncRec := NewJSONLRecorder(io.Discard)
	if n := testing.AllocsPerRun(200, func() { syncRec.Record(r) }); n != 0 {
		t.Errorf("JSONLRecorder.Record allocates %v times", n)
	}
	gate := make(chan struct{})
	async := NewAsyncRecorder(&gatedWriter{gate: gate}, AsyncQueue(1000))
	// The writer is held: every record stays in its slot. Fill the
	// queue once so that each slot's lists have grown, then free it.
	for i := 0; i < 1000; i++ {
		async.Record(r)
	}
	close(gate)
	waitFor(t, func() bool { return async.Written() == 1000 })
	if n := testing.AllocsPerRun(200, func() { async.Record(r) }); n != 0 {
		t.Errorf("AsyncRecorder.Record allocates %v times", n)
	}
	if err := async.Close(); err != nil {
		t.Fatal(err)
	}
}

// gatedWriter writes to b once gate is closed, counting its writes.
type gatedWriter struct {
	gate   chan struct{}
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	<-w.gate
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.b.Write(p)
}

func (w *gatedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAsyncRecorderWrites: the lines are the synchronous recorder's, in
// order, each record copied when it was recorded (the caller reuses its
// record and lists at once); Close writes what is queued.
func TestAsyncRecorderWrites(t *testing.T) {
	var want bytes.Buffer
	syncRec := NewJSONLRecorder(&want)
	gate := make(chan struct{})
	w := &gatedWriter{gate: gate}
	async := NewAsyncRecorder(w, AsyncQueue(64))
	r := sampleRecord()
	for i := 0; i < 50; i++ {
		r.Session = fmt.Sprint("s", i)
		r.Codes = append(r.Codes[:0], fmt.Sprint("C", i))
		r.Errors[0].Message = fmt.Sprint("message ", i)
		r.Call = append(r.Call[:0], fmt.Sprint(i)...)
		syncRec.Record(r)
		async.Record(r)
	}
	close(gate)
	if err := async.Close(); err != nil {
		t.Fatal(err)
	}
	if w.String() != want.String() {
		t.Errorf("got:\n%s\nwant:\n%s", w.String(), want.String())
	}
	if async.Written() != 50 || async.Dropped() != 0 {
		t.Errorf("written %d, dropped %d", async.Written(), async.Dropped())
	}
	// The writer wrote batches, not a line each: it was held while the
	// 50 records were queued.
	if w.writes >= 50 {
		t.Errorf("%d writes for 50 records", w.writes)
	}
}

// TestAsyncRecorderNeverBlocks: with the writer stuck, Record returns at
// once; what does not fit in the queue is dropped and counted, and what
// fits is written once the writer moves again.
func TestAsyncRecorderNeverBlocks(t *testing.T) {
	gate := make(chan struct{})
	w := &gatedWriter{gate: gate}
	async := NewAsyncRecorder(w, AsyncQueue(10))
	r := sampleRecord()
	done := make(chan struct{})
	go func() {
		for i := 0; i < 100; i++ {
			async.Record(r)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Record blocked on a stuck writer")
	}
	// The records the stuck writer took still hold their slots: 10
	// records are held, the rest dropped.
	if d := async.Dropped(); d != 90 {
		t.Errorf("Dropped() = %d, want 90", d)
	}
	close(gate)
	if err := async.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(w.String(), "\n")
	if uint64(lines) != async.Written() || async.Written()+async.Dropped() != 100 {
		t.Errorf("%d lines, written %d, dropped %d", lines, async.Written(), async.Dropped())
	}
}

// shortWriter writes the first n bytes it is given, then fails.
type shortWriter struct {
	n int
	b bytes.Buffer
}

func (w *shortWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, errors.New("disk full")
	}
	k := min(w.n, len(p))
	w.b.Write(p[:k])
	w.n -= k
	if k < len(p) {
		return k, errors.New("disk full")
	}
	return k, nil
}

// TestAsyncRecorderWriteError: a write error is kept and returned by Err
// and Close; the records of the failed write that were written whole
// count as written, the rest (the one cut in the middle too) and every
// later one as dropped.
func TestAsyncRecorderWriteError(t *testing.T) {
	r := sampleRecord()
	line := len(appendRecord(nil, r))
	gate := make(chan struct{})
	sw := &shortWriter{n: 2*line + line/2}
	async := NewAsyncRecorder(writerFunc(func(p []byte) (int, error) {
		<-gate // held until the five records are queued
		return sw.Write(p)
	}), AsyncQueue(8))
	for i := 0; i < 5; i++ {
		async.Record(r)
	}
	close(gate)
	waitFor(t, func() bool { return async.Err() != nil })
	async.Record(r)
	err := async.Close()
	if err == nil || err.Error() != "disk full" || async.Err() != err {
		t.Fatalf("Close() = %v, Err() = %v", err, async.Err())
	}
	if async.Written() != 2 || async.Dropped() != 4 {
		t.Errorf("written %d, dropped %d; want 2 and 4", async.Written(), async.Dropped())
	}
	if strings.Count(sw.b.String(), "\n") != 2 {
		t.Errorf("wrote %q", sw.b.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestAsyncRecorderAfterClose: records after Close are dropped and
// counted; Close again returns the same.
func TestAsyncRecorderAfterClose(t *testing.T) {
	var b bytes.Buffer
	async := NewAsyncRecorder(&b)
	async.Record(sampleRecord())
	if err := async.Close(); err != nil {
		t.Fatal(err)
	}
	async.Record(sampleRecord())
	async.Record(sampleRecord())
	if err := async.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), "\n") != 1 || async.Written() != 1 || async.Dropped() != 2 {
		t.Errorf("%q: written %d, dropped %d", b.String(), async.Written(), async.Dropped())
	}
}

// TestAsyncRecorderConcurrent records from several goroutines while the
// writer writes (run under -race): every line is whole, and every record
// is either written or counted as dropped.
func TestAsyncRecorderConcurrent(t *testing.T) {
	var mu sync.Mutex
	var b bytes.Buffer
	async := NewAsyncRecorder(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return b.Write(p)
	}), AsyncQueue(16))
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &Record{Pack: "p", Codes: []string{"A"}}
			for i := 0; i < 500; i++ {
				r.Session = fmt.Sprint("g", g)
				async.Record(r)
				_, _ = async.Dropped(), async.Err()
			}
		}()
	}
	wg.Wait()
	if err := async.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if b.Len() == 0 {
		lines = nil
	}
	if uint64(len(lines)) != async.Written() || async.Written()+async.Dropped() != 4000 {
		t.Fatalf("%d lines, written %d, dropped %d", len(lines), async.Written(), async.Dropped())
	}
	for _, l := range lines {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Pack != "p" || !strings.HasPrefix(r.Session, "g") {
			t.Fatalf("line %q: %v", l, err)
		}
	}
}

// BenchmarkRecorder measures recording, to io.Discard and to a file, from
// one goroutine and from GOMAXPROCS (parallel):
//
//   - sync: JSONLRecorder.Record, which encodes and writes on the
//     evaluating goroutine;
//   - async: AsyncRecorder.Record, what evaluation pays: a copy into the
//     queue (the timer stops while a full queue drains, so nothing is
//     dropped and every call is measured on the path that keeps it);
//   - async-sustained: records as fast as the writer takes them, waiting
//     (outside Record) whenever the queue is full, and Close: the time per
//     record of the writer goroutine, the most records a second it keeps
//     up with (in parallel, two goroutines may both see room for one
//     record: dropped/op counts what that cost).
//
// -benchmem gives the allocations on the recording goroutine(s).
func BenchmarkRecorder(b *testing.B) {
	targets := []struct {
		name string
		open func(b *testing.B) io.Writer
	}{
		{"discard", func(*testing.B) io.Writer { return io.Discard }},
		{"file", func(b *testing.B) io.Writer {
			f, err := os.CreateTemp(b.TempDir(), "records")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { f.Close() })
			return f
		}},
	}
	for _, tg := range targets {
		b.Run("sync/"+tg.name, func(b *testing.B) {
			rec := NewJSONLRecorder(tg.open(b))
			b.ReportAllocs()
			r := sampleRecord()
			for i := 0; i < b.N; i++ {
				rec.Record(r)
			}
			if rec.Err() != nil || rec.Dropped() != 0 {
				b.Fatal(rec.Err())
			}
		})
		b.Run("sync/"+tg.name+"/parallel", func(b *testing.B) {
			rec := NewJSONLRecorder(tg.open(b))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r := sampleRecord()
				for pb.Next() {
					rec.Record(r)
				}
			})
			if rec.Err() != nil || rec.Dropped() != 0 {
				b.Fatal(rec.Err())
			}
		})
		b.Run("async/"+tg.name, func(b *testing.B) {
			rec := NewAsyncRecorder(tg.open(b))
			b.ReportAllocs()
			r := sampleRecord()
			for i := 0; i < b.N; i++ {
				if i%DefaultAsyncQueue == 0 {
					b.StopTimer()
					rec.drain()
					b.StartTimer()
				}
				rec.Record(r)
			}
			b.StopTimer()
			closeRecorder(b, rec)
		})
		b.Run("async-sustained/"+tg.name, func(b *testing.B) {
			rec := NewAsyncRecorder(tg.open(b))
			b.ReportAllocs()
			r := sampleRecord()
			for i := 0; i < b.N; i++ {
				rec.waitRoom()
				rec.Record(r)
			}
			closeRecorder(b, rec)
		})
		b.Run("async-sustained/"+tg.name+"/parallel", func(b *testing.B) {
			rec := NewAsyncRecorder(tg.open(b))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r := sampleRecord()
				for pb.Next() {
					rec.waitRoom()
					rec.Record(r) // may find the queue full after all: counted below
				}
			})
			if err := rec.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(rec.Dropped())/float64(b.N), "dropped/op")
		})
	}
}

func closeRecorder(b *testing.B, rec *AsyncRecorder) {
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	if rec.Dropped() != 0 {
		b.Fatalf("%d records dropped", rec.Dropped())
	}
}

// drain waits until the queue is empty.
func (a *AsyncRecorder) drain() {
	for a.queued() > 0 {
		goruntime.Gosched()
	}
}

// waitRoom waits until the queue has room for a record.
func (a *AsyncRecorder) waitRoom() {
	for a.queued() == len(a.slots) {
		goruntime.Gosched()
	}
}

func (a *AsyncRecorder) queued() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}
