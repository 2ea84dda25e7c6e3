package runtime

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"
)

const sec = int64(time.Second)

func readTimes(t *testing.T, m *MemStore) *CallTimes {
	t.Helper()
	var h History
	if err := m.Read(context.Background(), "s", &Snapshot{History: &h, Query: HistoryQuery{Times: true}}); err != nil {
		t.Fatal(err)
	}
	return &h.Times
}

func applyCall(t *testing.T, m *MemStore, tool string, at int64) {
	t.Helper()
	if err := m.Apply(context.Background(), "s", &Update{Calls: []Call{{Tool: tool, Time: at}}}); err != nil {
		t.Fatal(err)
	}
}

// TestWithinEdges: a call exactly N seconds before now is out of the
// window, one a nanosecond later is in, a call after now is out, and the
// tool filter counts only that tool (spec 5.13: t - N < time <= t).
func TestWithinEdges(t *testing.T) {
	m := NewMemStore(0)
	now := 1_000_000 * sec
	applyCall(t, m, "a", now-60*sec)
	applyCall(t, m, "b", now-60*sec+1)
	applyCall(t, m, "a", now)
	applyCall(t, m, "a", now+1)
	c := readTimes(t, m)
	for _, tc := range []struct {
		n, want int64
		tool    string
	}{{60, 2, ""}, {61, 3, ""}, {60, 1, "a"}, {61, 2, "a"}, {1, 1, ""}, {86400, 3, ""}} {
		got, err := c.Within(now, tc.n, tc.tool, tc.tool == "")
		if err != nil || got != tc.want {
			t.Errorf("Within(%d, %q) = %d, %v; want %d", tc.n, tc.tool, got, err, tc.want)
		}
	}
	for _, n := range []int64{0, -1, 86401} {
		if _, err := c.Within(now, n, "", true); err == nil {
			t.Errorf("Within(%d) is not an error", n)
		}
	}
}

// TestTimesDropped: past TimesLimit calls, or calls older than 24 hours,
// the record drops the oldest; a window that reaches back to a dropped
// call is an error, one that does not is still counted.
func TestTimesDropped(t *testing.T) {
	m := NewMemStore(0)
	base := 1_000_000 * sec
	for i := range TimesLimit + 10 {
		applyCall(t, m, "a", base+int64(i)*sec)
	}
	c := readTimes(t, m)
	if len(c.At) != TimesLimit || !c.Dropped || c.DroppedAt != base+9*sec {
		t.Fatalf("kept %d, dropped %v at %d", len(c.At), c.Dropped, c.DroppedAt)
	}
	now := base + int64(TimesLimit+9)*sec
	if n, err := c.Within(now, int64(TimesLimit), "", true); err != nil || n != TimesLimit {
		t.Errorf("the window of the kept calls: %d, %v", n, err)
	}
	if _, err := c.Within(now, int64(TimesLimit+1), "", true); !errors.Is(err, ErrTimesDropped) {
		t.Errorf("a window reaching a dropped call: %v, want ErrTimesDropped", err)
	}

	m = NewMemStore(0)
	applyCall(t, m, "a", base)
	applyCall(t, m, "a", base+int64(TimesSpan))
	c = readTimes(t, m)
	if len(c.At) != 1 || !c.Dropped || c.DroppedAt != base {
		t.Fatalf("a call 24 hours old: kept %d, dropped %v at %d", len(c.At), c.Dropped, c.DroppedAt)
	}
	if n, err := c.Within(base+int64(TimesSpan), MaxWindow, "", true); err != nil || n != 1 {
		t.Errorf("the 24-hour window: %d, %v", n, err)
	}
	// A clock that went back: the dropped call falls in the window.
	if _, err := c.Within(base+30*sec, 60, "", true); !errors.Is(err, ErrTimesDropped) {
		t.Errorf("a window over a dropped call after the clock went back: %v", err)
	}
}

// TestTimesNotKept: calls without a time (a set that reads no window) are
// not kept in the times, and a history not filled by a store that keeps
// times is an error to read, never 0.
func TestTimesNotKept(t *testing.T) {
	m := NewMemStore(0)
	applyCall(t, m, "a", 0)
	c := readTimes(t, m)
	if !c.Kept || len(c.At) != 0 || c.Dropped {
		t.Errorf("a call without a time: %+v", c)
	}
	var none CallTimes
	if _, err := none.Within(5*sec, 1, "", true); !errors.Is(err, ErrTimesNotKept) {
		t.Errorf("times not kept: %v", err)
	}
}

// TestTimesNearMinInt64: at the low end of the int64 range (Unix
// nanoseconds of 1677: a host's bogus time, or one that wrapped), the
// record keeps a call of the last 24 hours and a window counts it. Before,
// latest - TimesSpan and now - N seconds overflowed to large positive
// times: the ring dropped every call, the one just added included (so a
// window read as an error, where redisstore, computing in seconds, kept
// them), and Within counted no call of any window, without an error.
func TestTimesNearMinInt64(t *testing.T) {
	m := NewMemStore(0)
	base := int64(math.MinInt64) + 5
	applyCall(t, m, "a", base)
	applyCall(t, m, "b", base+10*sec)
	c := readTimes(t, m)
	if len(c.At) != 2 || c.Dropped {
		t.Fatalf("near MinInt64: kept %v, dropped %v at %d; want both kept, none dropped", c.At, c.Dropped, c.DroppedAt)
	}
	for _, tc := range []struct {
		now, n, want int64
	}{{base + 10*sec, 60, 2}, {base + 10*sec, 10, 1}, {base + 10*sec, 86400, 2}, {base, 1, 1}, {base - 1, 1, 0}} {
		got, err := c.Within(tc.now, tc.n, "", true)
		if err != nil || got != tc.want {
			t.Errorf("Within(now %d, %d s) = %d, %v; want %d", tc.now, tc.n, got, err, tc.want)
		}
	}
	// A day later the first is dropped (it is out of every window), and
	// the others still count.
	applyCall(t, m, "c", base+86400*sec)
	c = readTimes(t, m)
	if len(c.At) != 2 || !c.Dropped || c.DroppedAt != base {
		t.Fatalf("a day later: kept %v, dropped %v at %d", c.At, c.Dropped, c.DroppedAt)
	}
	if got, err := c.Within(base+86400*sec, 86400, "", true); got != 2 || err != nil {
		t.Fatalf("a day later, the last day: %d, %v; want 2", got, err)
	}
}

// TestUnixNanosSaturates: times outside the int64 range of Unix
// nanoseconds are its ends, never a wrapped number, so that a later time
// is never a smaller one; times inside it are UnixNano.
func TestUnixNanosSaturates(t *testing.T) {
	lo, hi := time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)
	times := []time.Time{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), lo.Add(-1), lo, lo.Add(1), time.Unix(0, -1), time.Unix(0, 1),
		time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), hi.Add(-1), hi, hi.Add(1), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}
	want := []int64{math.MinInt64, math.MinInt64, math.MinInt64, math.MinInt64 + 1, -1, 1,
		time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC).UnixNano(), math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64}
	for i, at := range times {
		if got := UnixNanos(at); got != want[i] {
			t.Errorf("UnixNanos(%v) = %d, want %d", at, got, want[i])
		}
	}
}

// A call at the Unix epoch is kept (1 ns before it), not taken for a call
// without a time; every other time is kept as it is.
func TestCallTime(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{
		{0, -1}, {-1, -1}, {1, 1}, {math.MinInt64, math.MinInt64}, {math.MaxInt64, math.MaxInt64}, {1e18, 1e18},
	} {
		if got := CallTime(c.in); got != c.want {
			t.Errorf("CallTime(%d) = %d, want %d", c.in, got, c.want)
		}
	}
	// In a window: two earlier calls at the epoch and the current one.
	var r CallTimes
	r.Kept = true
	for i := 0; i < 2; i++ {
		r.At = append(r.At, CallTime(UnixNanos(time.Unix(0, 0))))
		r.Tools = append(r.Tools, "bash")
	}
	if n, err := r.Within(0, 60, "", true); err != nil || n != 2 {
		t.Errorf("Within at the epoch = %d, %v; want 2", n, err)
	}
}
