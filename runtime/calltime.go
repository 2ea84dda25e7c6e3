package runtime

// This file owns the calls' times of the record of tool calls (spec 5.13):
// what a store keeps of them (at most the calls of the last 24 hours and
// at most TimesLimit of them), what one occurrence reads ([CallTimes]),
// and the window counts rules read (calls_within, tool_calls_within).

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zone names check the same at load and at run time
)

// TimesLimit is how many calls' times the record keeps (spec 5.13).
const TimesLimit = 4096

// TimesSpan is how far back the record keeps calls' times: the longest
// window a rule may ask about (spec 5.13: N <= 86,400 seconds).
const TimesSpan = 24 * time.Hour

// MaxWindow is the largest window of calls_within, in seconds.
const MaxWindow = 86400

// CallTimes is what an occurrence reads of the calls' times: each kept
// call's time (Unix nanoseconds) and tool, in the order the record applied
// them.
type CallTimes struct {
	// Kept says that the store keeps calls' times and filled these
	// fields; a store that does not leaves it false, and reading a window
	// is then an error (never a count of 0).
	Kept  bool
	At    []int64
	Tools []string
	// Dropped says that the record dropped calls (older than TimesSpan,
	// or beyond TimesLimit); DroppedAt is the latest time among them. A
	// window that reaches back past DroppedAt may miss calls: reading it
	// is an error (a missing observation proves nothing).
	Dropped   bool
	DroppedAt int64
}

// ErrTimesNotKept is the error of reading a window of calls in a session
// whose store does not keep the calls' times.
var ErrTimesNotKept = errors.New("the calls' times are not kept by this store")

// ErrTimesDropped is the error of reading a window of calls that reaches
// back to calls the record dropped (spec 5.13).
var ErrTimesDropped = errors.New("the record dropped calls that fall in this window (it keeps the calls of the last 24 hours, at most 4096)")

// UnixNanos is t in Unix nanoseconds, as the record keeps calls' times
// and windows are counted: saturated at the ends of the int64 range
// (1677-09-21 and 2262-04-11), outside which time.Time.UnixNano wraps
// around, so that a later time is never a smaller number (a time past the
// end counts as the end). local_hour and local_weekday read the time
// itself.
func UnixNanos(t time.Time) int64 {
	switch {
	case t.Before(minNanos):
		return math.MinInt64
	case t.After(maxNanos):
		return math.MaxInt64
	}
	return t.UnixNano()
}

var minNanos, maxNanos = time.Unix(0, math.MinInt64), time.Unix(0, math.MaxInt64)

// CallTime is the time ns (Unix nanoseconds) as the record keeps a call's
// time: ns, except the Unix epoch itself, which is 1 ns before it. The
// record's 0 says "no time" (a store that does not keep times, a Call
// without one), so a call at exactly 1970-01-01T00:00:00Z was not kept,
// and every window over it counted one call too few (a host whose clock
// reads the epoch at every call was never rate limited). One nanosecond
// earlier falls in exactly the same windows for any clock of microsecond
// resolution or coarser (the window's bound would have to be 1 ns before
// the epoch to tell them apart).
func CallTime(ns int64) int64 {
	if ns == 0 {
		return -1
	}
	return ns
}

// CheckWindow checks a window of calls_within or tool_calls_within, in
// seconds: 1 to [MaxWindow].
func CheckWindow(n int64) error {
	if n < 1 || n > MaxWindow {
		return fmt.Errorf("the window of a call count must be between 1 and %d seconds, got %d", MaxWindow, n)
	}
	return nil
}

// Within counts the kept calls, of tool when one is given (anyTool false),
// whose time t satisfies now-n seconds < t <= now (spec 5.13). It does not
// count the occurrence itself: at tool.pre_invoke the caller adds it.
func (c *CallTimes) Within(now, n int64, tool string, anyTool bool) (int64, error) {
	if err := CheckWindow(n); err != nil {
		return 0, err
	}
	if !c.Kept {
		return 0, ErrTimesNotKept
	}
	// lo is the window's open lower bound; below the int64 range (a now
	// within n seconds of its low end) every time is above it.
	lo, all := now-n*int64(time.Second), now < math.MinInt64+n*int64(time.Second)
	if c.Dropped && (all || c.DroppedAt > lo) {
		return 0, ErrTimesDropped
	}
	var k int64
	for i, t := range c.At {
		if (all || t > lo) && t <= now && (anyTool || c.Tools[i] == tool) {
			k++
		}
	}
	return k, nil
}

// timeRing is the calls' times a MemStore's record keeps: a ring of at
// most TimesLimit entries, in the order they were applied, from which the
// calls older than TimesSpan before the latest one are dropped.
type timeRing struct {
	at        []int64
	tools     []string
	start, n  int
	latest    int64
	dropped   bool
	droppedAt int64
}

// add keeps the time of one call.
func (r *timeRing) add(t int64, tool string) {
	if r.n == 0 || t > r.latest {
		r.latest = t
	}
	if r.n == len(r.at) && len(r.at) < TimesLimit {
		// Grow (a ring of length n is full from start).
		size := min(max(2*len(r.at), 16), TimesLimit)
		at, tools := make([]int64, size), make([]string, size)
		for i := 0; i < r.n; i++ {
			at[i], tools[i] = r.at[(r.start+i)%len(r.at)], r.tools[(r.start+i)%len(r.at)]
		}
		r.at, r.tools, r.start = at, tools, 0
	}
	if r.n == len(r.at) {
		r.drop()
	}
	i := (r.start + r.n) % len(r.at)
	r.at[i], r.tools[i] = t, tool
	r.n++
	// The cut is TimesSpan before the latest time; within TimesSpan of
	// the int64 range's low end it is below every time (computed, it would
	// wrap to a time after all of them).
	if r.latest >= math.MinInt64+int64(TimesSpan) {
		cut := r.latest - int64(TimesSpan)
		for r.n > 0 && r.at[r.start] <= cut {
			r.drop()
		}
	}
}

// drop drops the oldest kept call.
func (r *timeRing) drop() {
	t := r.at[r.start]
	if !r.dropped || t > r.droppedAt {
		r.droppedAt = t
	}
	r.dropped = true
	r.tools[r.start] = ""
	r.start = (r.start + 1) % len(r.at)
	r.n--
}

// read fills c.
func (r *timeRing) read(c *CallTimes) {
	c.Kept, c.Dropped, c.DroppedAt = true, r.dropped, r.droppedAt
	for i := 0; i < r.n; i++ {
		j := (r.start + i) % len(r.at)
		c.At = append(c.At, r.at[j])
		c.Tools = append(c.Tools, r.tools[j])
	}
}

// zones caches the locations LoadZone loaded, by name.
var zones sync.Map // string -> *time.Location

// LoadZone loads the IANA time zone of local_hour and local_weekday (spec
// 5.13) from the time zone database embedded in the binary (time/tzdata),
// so that a name checks the same at load and at run time, on any host.
// "" and "Local", which Go accepts but which name no IANA zone, are
// errors, and so are the names that only a system's zoneinfo directory
// has (Go reads it before the embedded database): "localtime" (the
// machine's own zone, as "Local"), "posixrules", and the "right/" (leap
// seconds counted, so other hours) and "posix/" trees.
func LoadZone(name string) (*time.Location, error) {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location), nil
	}
	if name == "" || name == "Local" || SystemOnlyZone(name) {
		return nil, fmt.Errorf("%q is not an IANA time zone name", name)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	zones.Store(name, l)
	return l, nil
}

// SystemOnlyZone reports whether name is a zone file (or a path to one,
// such as "Europe//Paris") that a system's
// zoneinfo directory may hold but Go's embedded database (time/tzdata)
// does not, so that it would load on one host and not on another (see
// [LoadZone]); the compiler rejects the same names.
func SystemOnlyZone(name string) bool {
	return name == "localtime" || name == "posixrules" ||
		strings.HasPrefix(name, "right/") || strings.HasPrefix(name, "posix/") ||
		!cleanZonePath(name)
}

// cleanZonePath reports whether name is a clean relative path, as every
// IANA zone name is: no empty segment (a leading, trailing or double
// "/") and no "." or ".." segment. A system's zoneinfo directory opens
// "Europe//Paris" or "./UTC" as a file path, the embedded database does
// not: such a name would load on one host and not on another.
func cleanZonePath(name string) bool {
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
