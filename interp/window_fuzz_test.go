package interp_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
)

// windowTimes are the bases the fuzzer's calls and occurrence times are
// offsets from: an ordinary day, the Unix epoch, and the ends of the int64
// range of Unix nanoseconds, past which times saturate (runtime.UnixNanos).
var windowTimes = []time.Time{
	time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), time.Unix(0, 0).UTC(),
	time.Unix(0, math.MinInt64).UTC(), time.Unix(0, math.MaxInt64).UTC(),
}

// FuzzCallWindows: for any record of calls (tools, times in any order, at
// the int64 ends, without a time, more than the record keeps) and any
// window, calls_within and tool_calls_within in the interpreter, which
// replays the record's bounds over every call (interp/time.go), give the
// count or the error the runtime's MemStore ring gives (runtime
// CallTimes.Within).
func FuzzCallWindows(f *testing.F) {
	f.Add([]byte{0, 60, 0, 1, 2, 3})
	f.Add([]byte{3, 1, 0, 200, 1, 100, 0, 0})
	f.Add([]byte{2, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{1, 86, 0x80, 1, 0x81, 2})
	engine := func(when string) *interp.Engine {
		doc := `{"oar":"1.0","id":"W","kind":"policy","anchor":"tool.pre_invoke","effect":"warn","on_error":"fail_open","requires":{"profiles":["tool"]},"when":` + quote(when) + `}`
		set, ds := compiler.LoadRuleDoc("r.json", []byte(doc), "", compiler.Options{})
		if ds.HasErrors() {
			f.Fatal(ds.Text())
		}
		e, err := interp.New(set)
		if err != nil {
			f.Fatal(err)
		}
		return e
	}
	all := engine(`calls_within(tool_arg_int("n")) == tool_arg_int("k")`)
	one := engine(`tool_calls_within("a", tool_arg_int("n")) == tool_arg_int("k")`)
	windows := []int64{1, 2, 60, 61, 3600, 86399, 86400}
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		base := windowTimes[next()%len(windowTimes)]
		n := windows[next()%len(windows)]
		// The occurrence's time: the base moved by a signed number of
		// seconds and nanoseconds.
		offset := func() time.Duration {
			if len(data) < 2 {
				return 0
			}
			v := int16(binary.LittleEndian.Uint16(data))
			data = data[2:]
			d := time.Duration(v) * time.Second
			if v%7 == 0 {
				d = time.Duration(v) * time.Hour
			}
			if v%5 == 0 {
				d += time.Duration(next()%3-1) * time.Nanosecond
			}
			return d
		}
		now := base.Add(offset())
		m := runtime.NewMemStore(0)
		s := interp.NewSession()
		ctx := context.Background()
		record := func(tool string, at time.Time) {
			c := runtime.Call{Tool: tool}
			if !at.IsZero() {
				c.Time = runtime.CallTime(runtime.UnixNanos(at))
			}
			if err := m.Apply(ctx, "s", &runtime.Update{Calls: []runtime.Call{c}}); err != nil {
				t.Fatal(err)
			}
			s.AddCallAt(tool, nil, "", at)
		}
		if len(data) > 0 && data[0] == 0xff {
			// Past the record's bound of calls.
			for i := range runtime.TimesLimit + 3 {
				record("a", now.Add(-time.Duration(runtime.TimesLimit+3-i)*time.Second))
			}
		}
		for len(data) > 0 {
			tool := []string{"a", "b"}[next()%2]
			at := base.Add(offset())
			if len(data) > 0 && data[0]%11 == 0 {
				at = time.Time{}
			}
			record(tool, at)
		}
		var h runtime.History
		if err := m.Read(ctx, "s", &runtime.Snapshot{History: &h, Query: runtime.HistoryQuery{Times: true}}); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			e       *interp.Engine
			tool    string
			anyTool bool
			self    int64
		}{{all, "", true, 1}, {one, "a", false, 0}} {
			want, werr := h.Times.Within(runtime.UnixNanos(now), n, q.tool, q.anyTool)
			d := q.e.Evaluate(&interp.Occurrence{Anchor: "tool.pre_invoke", Time: now,
				Facts: map[string]any{"tool": "z", "tool_args": map[string]any{"n": n, "k": want + q.self}}}, s)
			switch {
			case werr != nil:
				if len(d.Errors) != 1 || d.Errors[0].Kind != runtime.ErrStore {
					t.Errorf("window %d of %q at %v: %s %+v, want the runtime's error %v", n, q.tool, now, d.Effect, d.Errors, werr)
				}
			case len(d.Errors) > 0 || d.Effect != "warn":
				t.Errorf("window %d of %q at %v: %s %+v, want the runtime's count %d", n, q.tool, now, d.Effect, d.Errors, want)
			}
		}
	})
}

func quote(s string) string {
	b := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}
