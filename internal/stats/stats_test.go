package stats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	oarcrt "github.com/oarc/oarc/runtime"
)

const goodLine = `{"time":"2026-12-01T11:08:32.5Z","pack":"starter","digest":"sha256:aa","session":"s1","anchor":"tool.pre_invoke","tool":"bash","decision":"block","code":"A","codes":["A"],"monitored":["M"],"failed_closed":[],"errors":[{"rule":"E","kind":"provider","message":"boom"}]}`

func TestParseRecord(t *testing.T) {
	var r oarcrt.Record
	if err := ParseRecord([]byte(goodLine), &r); err != nil {
		t.Fatal(err)
	}
	want := oarcrt.Record{Time: time.Date(2026, 12, 1, 11, 8, 32, 5e8, time.UTC), Pack: "starter", Digest: "sha256:aa", Session: "s1",
		Anchor: "tool.pre_invoke", Tool: "bash", Decision: "block", Code: "A", Codes: []string{"A"}, Monitored: []string{"M"},
		FailedClosed: []string{}, Errors: []oarcrt.RecordError{{Rule: "E", Kind: "provider", Message: "boom"}}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Without a session, at another offset, with a field from the future.
	l := strings.Replace(strings.Replace(goodLine, `"session":"s1",`, `"future":{"x":1},`, 1), "11:08:32.5Z", "12:08:32.5+01:00", 1)
	if err := ParseRecord([]byte(l), &r); err != nil || r.Session != "" || !r.Time.Equal(want.Time) || r.Time.Location() != time.UTC {
		t.Errorf("%v %+v", err, r)
	}
	// The record is reused: its lists do not keep the previous values.
	ParseRecord([]byte(strings.Replace(goodLine, `"codes":["A"]`, `"codes":[]`, 1)), &r)
	if len(r.Codes) != 0 || r.Codes == nil {
		t.Errorf("codes %#v", r.Codes)
	}
}

// TestParseRecordBad: lines that are not records, and why.
func TestParseRecordBad(t *testing.T) {
	repl := func(old, new string) string {
		if !strings.Contains(goodLine, old) {
			panic(old)
		}
		return strings.Replace(goodLine, old, new, 1)
	}
	for _, tc := range []struct{ line, err string }{
		{"", "empty line, not a record"},
		{"   ", "empty line, not a record"},
		{"hello", "not JSON: invalid character 'h'"},
		{goodLine[:40], "not JSON: unexpected end of the line looking for a value"},
		{goodLine + " {}", "not JSON: invalid character '{' after the object (at byte 269)"},
		{`{"codes":["A",]}`, `field "codes": element 1 is not a rule id`},
		{`{"x":[1,{"y":tru}]}`, "not JSON: invalid character '}' in the literal true (at byte 17)"},
		{`{"x":01}`, "not JSON: invalid character '1' after a value in an object"},
		{`{"x":"\q"}`, "not JSON: invalid character 'q' in an escape"},
		{"{\"x\":\"a\tb\"}", "not JSON: invalid character '\\t' in a string"},
		{`{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, "nested too deeply"},
		{`{"x" 1}`, "not JSON: invalid character '1' after a key"},
		{`{1:1}`, "not JSON: invalid character '1' looking for a key"},
		{"[1, 2]", "not a JSON object but an array"},
		{"42", "not a JSON object but a number"},
		{"null", "not a JSON object but null"},
		{"{}", `field "time" is missing (or null)`},
		{repl(`"digest":"sha256:aa",`, ""), `field "digest" is missing (or null)`},
		{repl(`"tool":"bash"`, `"tool":null`), `field "tool" is missing (or null)`},
		{repl(`"time":"2026-12-01T11:08:32.5Z"`, `"time":1764587312`), `field "time": a number where a string is expected`},
		{repl(`"time":"2026-12-01T11:08:32.5Z"`, `"time":"yesterday"`), `field "time": "yesterday" is not an RFC 3339 time`},
		{repl(`"time":"2026-12-01T11:08:32.5Z"`, `"time":"0000-01-01T00:30:00+01:00"`), `outside the years 0 to 9999`},
		{repl(`"digest":"sha256:aa"`, `"digest":""`), `field "digest" is empty`},
		{repl(`"decision":"block"`, `"decision":"deny"`), `field "decision": "deny" is not an effect`},
		{repl(`"decision":"block"`, `"decision":true`), `field "decision": a bool where a string is expected`},
		{repl(`"codes":["A"]`, `"codes":"A"`), `field "codes": a string where a list of strings is expected`},
		{repl(`"codes":["A"]`, `"codes":[7]`), `field "codes": a number where a string is expected`},
		{repl(`"codes":["A"]`, `"codes":null`), `field "codes" is missing (or null): want a list of rule ids`},
		{repl(`"monitored":["M"],`, ``), `field "monitored" is missing (or null)`},
		{repl(`"monitored":["M"]`, `"monitored":["M",""]`), `field "monitored": element 1 is not a rule id`},
		{repl(`"failed_closed":[]`, `"failed_closed":[null]`), `field "failed_closed": element 0 is not a rule id`},
		{repl(`"errors":[{"rule":"E","kind":"provider","message":"boom"}]`, `"errors":{}`), `field "errors": an object where a list of {rule, kind, message} is expected`},
		{repl(`"errors":[{"rule":"E","kind":"provider","message":"boom"}]`, `"errors":[]`) + "x", "not JSON"},
		{repl(`"kind":"provider",`, ``), `field "errors": element 0 is not a {rule, kind, message} object of strings`},
		{repl(`"kind":"provider"`, `"kind":3`), `field "errors.kind": a number where a string is expected`},
		{repl(`"errors":[{"rule":"E","kind":"provider","message":"boom"}]`, `"errors":[null]`), `field "errors": element 0 is not`},
	} {
		var r oarcrt.Record
		err := ParseRecord([]byte(tc.line), &r)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseRecord(%s) = %v, want %q", tc.line, err, tc.err)
		}
	}
}

// TestReader: line numbers, CRLF, a last line without a newline, a line
// too long to hold, and reading going on after bad lines.
func TestReader(t *testing.T) {
	long := `{"pack":"` + strings.Repeat("x", MaxLine) + `"}`
	in := goodLine + "\r\n" + "oops\n" + long + "\n" + "\n" + goodLine
	rd := NewReader(strings.NewReader(in))
	var got []string
	var r oarcrt.Record
	for {
		err := rd.Next(&r)
		if err == io.EOF {
			break
		}
		var le *LineError
		switch {
		case err == nil:
			got = append(got, fmt.Sprintf("%d ok %s", rd.Line(), r.Digest))
		case errors.As(err, &le):
			got = append(got, fmt.Sprintf("%d bad %v", le.Line, le.Err))
		default:
			t.Fatal(err)
		}
	}
	want := []string{
		"1 ok sha256:aa",
		"2 bad not JSON: invalid character 'o' looking for the beginning of an object (at byte 1)",
		fmt.Sprintf("3 bad line longer than %d bytes", MaxLine),
		"4 bad empty line, not a record",
		"5 ok sha256:aa",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if cap(rd.buf) > MaxLine+64<<10+2 {
		t.Errorf("the reader holds %d bytes", cap(rd.buf))
	}
}

// FuzzReadRecord: arbitrary lines never panic; a line that parses is a
// record that round-trips through the JSONLRecorder unchanged.
func FuzzReadRecord(f *testing.F) {
	f.Add([]byte(goodLine))
	f.Add([]byte(strings.Replace(goodLine, `"session":"s1",`, "", 1)))
	f.Add([]byte(`{"time":"2026-12-01T11:08:32+05:30","pack":"","digest":"d","anchor":"","tool":"","decision":"allow","code":"","codes":[],"monitored":[],"failed_closed":[],"errors":[]}`))
	f.Add([]byte(`{"codes":[1]}`))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, line []byte) {
		var r oarcrt.Record
		if err := ParseRecord(line, &r); err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		var b bytes.Buffer
		rec := oarcrt.NewJSONLRecorder(&b)
		rec.Record(&r)
		if err := rec.Err(); err != nil {
			t.Fatalf("a parsed record does not encode: %v", err)
		}
		out := b.Bytes()
		if bytes.Count(out, []byte("\n")) != 1 || out[len(out)-1] != '\n' {
			t.Fatalf("not one line: %q", out)
		}
		var again oarcrt.Record
		if err := ParseRecord(bytes.TrimSuffix(out, []byte("\n")), &again); err != nil {
			t.Fatalf("re-reading %s: %v", out, err)
		}
		if diff := cmp.Diff(r, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		// encoding/json agrees: the line is JSON, and when no key differs
		// from a field's name only by case (encoding/json matches keys
		// case-insensitively), it reads the same values.
		if !json.Valid(line) {
			t.Fatalf("accepted a line that is not JSON: %q", line)
		}
		if ref, ok := parseReference(t, line); ok {
			if diff := cmp.Diff(ref, r); diff != "" {
				t.Fatalf("encoding/json reads (-) what ParseRecord reads (+):\n%s", diff)
			}
		}
		// Through the Reader too.
		var viaReader oarcrt.Record
		if err := NewReader(bytes.NewReader(out)).Next(&viaReader); err != nil || !cmp.Equal(r, viaReader) {
			t.Fatalf("Reader: %v", err)
		}
	})
}

// gen generates n records on the fly (no file): a few rules at two
// anchors, sessions s0..s(sessions-1) in turn, two digests.
type gen struct {
	n, i, sessions int
	buf            []byte
}

func (g *gen) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.i == g.n {
			return 0, io.EOF
		}
		i := g.i
		g.i++
		digest := "sha256:one"
		if i%3 == 0 {
			digest = "sha256:two"
		}
		switch i % 4 {
		case 0:
			g.buf = fmt.Appendf(g.buf[:0], `{"time":"2026-12-01T11:%02d:%02dZ","pack":"p","digest":"%s","session":"s%d","anchor":"tool.pre_invoke","tool":"bash","decision":"block","code":"A","codes":["A"],"monitored":["M"],"failed_closed":[],"errors":[]}`+"\n", i/60%60, i%60, digest, i%g.sessions)
		case 1:
			g.buf = fmt.Appendf(g.buf[:0], `{"time":"2026-12-01T12:00:00Z","pack":"p","digest":"%s","session":"s%d","anchor":"tool.pre_invoke","tool":"read","decision":"allow","code":"","codes":[],"monitored":[],"failed_closed":[],"errors":[]}`+"\n", digest, i%g.sessions)
		case 2:
			g.buf = fmt.Appendf(g.buf[:0], `{"time":"2026-12-01T12:00:00Z","pack":"p","digest":"%s","session":"s%d","anchor":"content.tool_result","tool":"","decision":"block","code":"C","codes":["C"],"monitored":[],"failed_closed":["C"],"errors":[{"rule":"C","kind":"provider","message":"boom"}]}`+"\n", digest, i%g.sessions)
		default:
			g.buf = append(g.buf[:0], "not a record\n"...)
		}
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func aggregate(t testing.TB, in io.Reader) (*Stats, int) {
	st := New()
	rd := NewReader(in)
	var r oarcrt.Record
	bad := 0
	for {
		err := rd.Next(&r)
		if err == io.EOF {
			return st, bad
		}
		var le *LineError
		if errors.As(err, &le) {
			bad++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		st.Add(&r)
	}
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStreamsMillion aggregates 10^6 generated records: the heap the
// stats hold after a million is what they hold after ten thousand (the
// counters grow with digests, rules and sessions, not records), and the
// counts are exact.
func TestStreamsMillion(t *testing.T) {
	const sessions = 50
	small, _ := aggregate(t, &gen{n: 10_000, sessions: sessions})
	h0 := heap()
	st, bad := aggregate(t, &gen{n: 1_000_000, sessions: sessions})
	h1 := heap()
	runtime.KeepAlive(small)
	// The small aggregate is alive during the second measure and the
	// large one is alive at the end: h1-h0 is the large one's size.
	if grow := int64(h1) - int64(h0); grow > 256<<10 {
		t.Errorf("the heap grew by %d bytes over 10^6 records", grow)
	}
	if bad != 250_000 || st.Records != 750_000 {
		t.Fatalf("%d bad lines, %d records", bad, st.Records)
	}
	reps := st.Report(5)
	if len(reps) != 2 || reps[0].Digest != "sha256:two" {
		t.Fatalf("digests %+v", reps)
	}
	total := 0
	for _, d := range reps {
		total += d.Records
		if d.Sessions != sessions {
			t.Errorf("%s: %d sessions", d.Digest, d.Sessions)
		}
		for _, r := range d.Rules {
			switch r.Rule {
			case "A":
				if r.Enforced != r.Occurrences/2 && r.Enforced != (r.Occurrences+1)/2 {
					t.Errorf("A: %d of %d", r.Enforced, r.Occurrences)
				}
			case "M":
				if !r.Candidate || !r.Ready || r.MonitoredSessions == 0 {
					t.Errorf("M: %+v", r)
				}
			case "C":
				if r.Errors != r.Enforced || r.FailedClosed != r.Enforced || r.Occurrences != r.Enforced || r.ErrorRate != 1 {
					t.Errorf("C: %+v", r)
				}
			}
		}
	}
	if total != 750_000 {
		t.Errorf("%d records in the digests", total)
	}
	runtime.KeepAlive(st)
}

// TestAggregate pins the counting on a few records.
func TestAggregate(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rec := func(digest, session, anchor, decision string, codes, monitored, fc []string, errs ...oarcrt.RecordError) *oarcrt.Record {
		at = at.Add(time.Second)
		return &oarcrt.Record{Time: at, Pack: "p", Digest: digest, Session: session, Anchor: anchor, Decision: decision,
			Codes: codes, Monitored: monitored, FailedClosed: fc, Errors: errs}
	}
	st := New()
	for _, r := range []*oarcrt.Record{
		rec("d1", "a", "tool.pre_invoke", "block", []string{"B", "B"}, []string{"M"}, nil),
		rec("d1", "b", "tool.pre_invoke", "allow", nil, []string{"M"}, nil),
		rec("d1", "", "tool.pre_invoke", "allow", nil, []string{"M"}, nil), // no session: not a distinct session
		rec("d1", "c", "content.tool_result", "allow", nil, nil, nil, oarcrt.RecordError{Rule: "X", Kind: "provider"}, oarcrt.RecordError{Rule: "X", Kind: "provider"}),
		rec("d1", "c", "", "block", nil, nil, nil, oarcrt.RecordError{Kind: "anchor"}),
		rec("d2", "a", "tool.pre_invoke", "allow", nil, nil, nil),
	} {
		st.Add(r)
	}
	got := st.Report(2)
	if len(got) != 2 {
		t.Fatalf("%d digests", len(got))
	}
	d1 := got[0]
	if d1.Records != 5 || d1.Sessions != 3 || d1.ErrorsWithoutRule != 1 || d1.Anchors["tool.pre_invoke"] != 3 || d1.Anchors[""] != 1 ||
		d1.Decisions["allow"] != 3 || !d1.First.Equal(time.Date(2026, 12, 1, 0, 0, 1, 0, time.UTC)) || !d1.Last.Equal(time.Date(2026, 12, 1, 0, 0, 5, 0, time.UTC)) {
		t.Errorf("d1 %+v", d1)
	}
	byRule := map[string]RuleReport{}
	for _, r := range d1.Rules {
		byRule[r.Rule] = r
	}
	if b := byRule["B"]; b.Enforced != 1 || b.Occurrences != 3 || b.Sessions != 1 || b.Candidate || b.Ready {
		t.Errorf("B %+v", b)
	}
	if m := byRule["M"]; m.Monitored != 3 || m.MonitoredSessions != 2 || !m.Candidate || !m.Ready || m.MonitoredRate != 1 {
		t.Errorf("M %+v", m)
	}
	if x := byRule["X"]; x.Errors != 1 || x.Occurrences != 1 || x.Anchors[0] != "content.tool_result" || x.Candidate {
		t.Errorf("X %+v", x)
	}
	if len(got[1].Rules) != 0 || got[1].Records != 1 {
		t.Errorf("d2 %+v", got[1])
	}
	// A threshold above the sessions: not ready.
	for _, r := range st.Report(3)[0].Rules {
		if r.Ready {
			t.Errorf("%s ready with 3 sessions needed", r.Rule)
		}
	}
	rows, err := st.Compare("d1", "d2")
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(rows[1]) // M
	if want := `{"type":"compare","version":1,"rule":"M","anchors":["tool.pre_invoke"],"before":{"occurrences":3,"firings":3,"rate":1},"after":{"occurrences":1,"firings":0,"rate":0},"change":-1}`; string(j) != want {
		t.Errorf("compare row\n%s\nwant\n%s", j, want)
	}
	for name, want := range map[string]string{"d1": "d1", "d": "ambiguous", "x": "no record has digest x"} {
		got, err := st.Resolve(name)
		if got != want && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Resolve(%q) = %q, %v", name, got, err)
		}
	}
}

// parseReference reads line with encoding/json, when its keys allow.
func parseReference(t *testing.T, line []byte) (oarcrt.Record, bool) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	fields := []string{"time", "pack", "digest", "session", "anchor", "tool", "decision", "code", "codes", "monitored", "failed_closed", "errors"}
	for k, v := range keys {
		for _, f := range fields {
			if k != f && strings.EqualFold(k, f) {
				return oarcrt.Record{}, false
			}
		}
		if k == "errors" {
			var es []map[string]json.RawMessage
			json.Unmarshal(v, &es)
			for _, e := range es {
				for ek := range e {
					for _, f := range []string{"rule", "kind", "message"} {
						if ek != f && strings.EqualFold(ek, f) {
							return oarcrt.Record{}, false
						}
					}
				}
			}
		}
	}
	var r oarcrt.Record
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("encoding/json cannot read an accepted record: %v", err)
	}
	r.Time = r.Time.UTC()
	// ParseRecord leaves call out: oarc stats has no use for it.
	r.Call = nil
	return r, true
}

// recordOfLength is a record line of exactly n bytes (an unknown field
// pads it).
func recordOfLength(t *testing.T, n int) string {
	t.Helper()
	pad := n - len(`{"pad":"",`) - (len(goodLine) - 1)
	if pad < 0 {
		t.Fatalf("a record cannot be %d bytes", n)
	}
	line := `{"pad":"` + strings.Repeat("x", pad) + `",` + goodLine[1:]
	if len(line) != n {
		t.Fatalf("built %d bytes, want %d", len(line), n)
	}
	return line
}

// TestReaderLineLimit: a line of exactly MaxLine bytes is a record,
// whatever ends it (LF, CRLF, the end of the log); one byte more is a bad
// line, and the next line is read.
func TestReaderLineLimit(t *testing.T) {
	atLimit, over := recordOfLength(t, MaxLine), recordOfLength(t, MaxLine+1)
	for _, eol := range []string{"\n", "\r\n", ""} {
		for _, tc := range []struct {
			line string
			want string
		}{
			{atLimit, "ok"},
			{over, fmt.Sprintf("bad line longer than %d bytes", MaxLine)},
		} {
			in := tc.line + eol
			if eol != "" {
				in += goodLine + "\n"
			}
			rd := NewReader(strings.NewReader(in))
			var r oarcrt.Record
			var got []string
			for {
				err := rd.Next(&r)
				if err == io.EOF {
					break
				}
				var le *LineError
				switch {
				case err == nil:
					got = append(got, "ok")
				case errors.As(err, &le):
					got = append(got, "bad "+le.Err.Error())
				default:
					t.Fatal(err)
				}
			}
			want := []string{tc.want}
			if eol != "" {
				want = append(want, "ok")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("a line of %d bytes ended by %q (-want +got):\n%s", len(tc.line), eol, diff)
			}
		}
	}
}

// TestOccurrenceErrors: an error with no rule is the occurrence's (an
// unknown anchor, counter updates a store did not apply): it is counted
// per record and per kind, never as an unknown anchor when it is not one,
// and it is no rule's error (the candidate of the same records stays
// ready).
func TestOccurrenceErrors(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	st := New()
	for i, errs := range [][]oarcrt.RecordError{
		{{Kind: "store", Message: "counter updates not applied: timeout"}},
		{{Kind: "store", Message: "a"}, {Kind: "store", Message: "b"}}, // one record
		{{Kind: "anchor", Message: "unknown anchor 60000"}},
		{{Kind: "store"}, {Kind: "invalid_argument"}, {Rule: "P", Kind: "provider"}},
		nil,
	} {
		anchor := "tool.pre_invoke"
		if i == 2 {
			anchor = ""
		}
		st.Add(&oarcrt.Record{Time: at, Pack: "p", Digest: "d", Session: fmt.Sprint("s", i), Anchor: anchor, Decision: "allow",
			Monitored: []string{"M"}, Errors: errs})
	}
	d := st.Report(4)[0]
	if d.ErrorsWithoutRule != 4 {
		t.Errorf("%d records with an error of no rule, want 4", d.ErrorsWithoutRule)
	}
	if diff := cmp.Diff(map[string]int{"store": 3, "anchor": 1, "invalid_argument": 1}, d.OccurrenceErrors); diff != "" {
		t.Errorf("occurrence errors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"tool.pre_invoke": 4, "": 1}, d.Anchors); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
	var ids []string
	for _, r := range d.Rules {
		ids = append(ids, r.Rule)
		switch r.Rule {
		case "M":
			if r.Errors != 0 || !r.Ready {
				t.Errorf("M: %+v", r)
			}
		case "P":
			if r.Errors != 1 {
				t.Errorf("P: %+v", r)
			}
		}
	}
	if !cmp.Equal(ids, []string{"M", "P"}) {
		t.Errorf("rules %q: an error of no rule made a rule", ids)
	}
}

// TestEscape: a string of a record is printed as it is only when every
// character is printable and not a space, quote or backslash; otherwise
// quoted with every control and format character escaped.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"READY_CANDIDATE":             "READY_CANDIDATE",
		"tool.pre_invoke":             "tool.pre_invoke",
		"sha256:ab12":                 "sha256:ab12",
		"équipe":                      "équipe",
		"":                            `""`,
		"my pack":                     `"my pack"`,
		"A\n  FAKE  ready to enforce": `"A\n  FAKE  ready to enforce"`,
		"A\x1b[2K":                    `"A\x1b[2K"`,
		"A\u200bB":                    `"A\u200bB"`,
		"A\u202eB":                    `"A\u202eB"`,
		"A\u00adB":                    `"A\u00adB"`,
		"\ufeffA":                     `"\ufeffA"`,
		"A\U000E0041":                 `"A\U000e0041"`,
		"A\u2028B":                    `"A\u2028B"`,
		"A\x7f":                       `"A\x7f"`,
		`A"B`:                         `"A\"B"`,
		"A\xffB":                      `"A\xffB"`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %s, want %s", in, got, want)
		}
	}
	// Every character oarcrt.HiddenRune names (the invisible class of
	// docs/texts.md: Hangul fillers, variation selectors, ... besides Cf
	// and Cc) is escaped: strconv calls U+3164 printable, so a pack name
	// or tool of a record that holds one printed it raw.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if oarcrt.HiddenRune(r) {
			if got := Escape("A" + string(r)); strings.ContainsRune(got, r) {
				t.Errorf("Escape leaves %U raw: %s", r, got)
			}
		}
	}
	if got := Escape("A\u3164\ufe0fé"); got != `"A\u3164\ufe0fé"` {
		t.Errorf("Escape(A U+3164 U+FE0F é) = %s", got)
	}
	// Every character of Unicode's Cf (format) and Cc (control) is
	// escaped.
	for _, tab := range []*unicode.RangeTable{unicode.Cf, unicode.Cc} {
		for _, rg := range tab.R16 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
				if got := Escape("A" + string(r)); strings.ContainsRune(got, r) {
					t.Errorf("Escape leaves %U raw: %s", r, got)
				}
			}
		}
		for _, rg := range tab.R32 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
				if got := Escape("A" + string(r)); strings.ContainsRune(got, r) {
					t.Errorf("Escape leaves %U raw: %s", r, got)
				}
			}
		}
	}
}

// TestAskRecords: a record of an ask decision (spec 5.12) is read, counted
// among the decisions, and its ask rule's firing is an enforced one.
func TestAskRecords(t *testing.T) {
	line := strings.NewReplacer(`"decision":"block"`, `"decision":"ask"`).Replace(goodLine)
	var r oarcrt.Record
	if err := ParseRecord([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	st := New()
	st.Add(&r)
	d := st.Report(1)[0]
	if d.Decisions["ask"] != 1 || len(d.Decisions) != 1 {
		t.Errorf("decisions %v", d.Decisions)
	}
	for _, rr := range d.Rules {
		if rr.Rule == "A" && rr.Enforced != 1 {
			t.Errorf("A %+v", rr)
		}
	}
}

// TestTenantSessions: a session is its (tenant, id) pair (spec 5.11): one
// id in two tenants is two sessions, for the digest and for a rule's
// ready-to-enforce count; a record's tenant is read from its line.
func TestTenantSessions(t *testing.T) {
	st := New()
	for i, tenant := range []string{"", "acme", "globex", "acme"} {
		line := strings.Replace(goodLine, `"session":"s1",`, fmt.Sprintf(`"session":"s1","tenant":%q,`, tenant), 1)
		var r oarcrt.Record
		if err := ParseRecord([]byte(line), &r); err != nil || r.Tenant != tenant {
			t.Fatalf("record %d: %v, tenant %q", i, err, r.Tenant)
		}
		st.Add(&r)
	}
	d := st.Report(3)[0]
	if d.Sessions != 3 {
		t.Errorf("%d sessions, want 3 (s1 in no tenant, in acme, in globex)", d.Sessions)
	}
	for _, r := range d.Rules {
		if r.Rule == "M" && r.MonitoredSessions != 3 {
			t.Errorf("rule M: %d monitored sessions, want 3", r.MonitoredSessions)
		}
	}
}

// TestReaderBOM: a byte order mark at the start of a log (an editor wrote
// one) does not cost its first record; one at the start of a later line
// is no record.
func TestReaderBOM(t *testing.T) {
	bom := "\xef\xbb\xbf"
	rd := NewReader(strings.NewReader(bom + goodLine + "\r\n" + bom + goodLine + "\n"))
	var r oarcrt.Record
	if err := rd.Next(&r); err != nil || r.Digest != "sha256:aa" {
		t.Errorf("line 1: %v, digest %q", err, r.Digest)
	}
	var le *LineError
	if err := rd.Next(&r); !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("line 2: %v", err)
	}
}
