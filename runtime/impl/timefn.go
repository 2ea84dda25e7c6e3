package impl

// The time functions (spec 5.13): calls_within, tool_calls_within,
// local_hour and local_weekday read the occurrence's time, the host's or,
// when it gives none, the runtime's clock, read only when a rule needs it.

import (
	"time"

	"github.com/oarc/oarc/runtime"
)

// When gives the occurrence's time (zero: the runtime's clock, read at
// the first need) and says whether the set keeps the calls' times (then a
// tool.pre_invoke call is recorded with its time). Generated code calls it
// only at anchors whose rules need the time, or that record it.
func (x *Exec) When(t time.Time, keep bool) {
	x.at, x.keepTimes = t, keep
}

// Now is the occurrence's time in Unix nanoseconds: the host's, else the
// clock's, read once.
func (x *Exec) Now() int64 {
	x.readNow()
	return x.now
}

// readNow reads the occurrence's time, once: at (the clock's when the
// host gave none), and now, its Unix nanoseconds.
func (x *Exec) readNow() {
	if !x.nowRead {
		x.nowRead = true
		if x.at.IsZero() {
			x.at = time.Now()
		}
		x.now = runtime.UnixNanos(x.at)
	}
}

// Times says that the anchor's rules read windows of calls: the session's
// record is read with the calls' times.
func (x *Exec) Times() {
	if !x.hist {
		x.hist = true
		x.query = runtime.HistoryQuery{Tool: x.tool, LastTool: !x.atCall}
	}
	x.query.Times = true
}

// CallsWithin is calls_within(n): the session's tool.pre_invoke
// occurrences in the last n seconds, the current one included at
// tool.pre_invoke.
func (x *Exec) CallsWithin(n int64) (int64, Err) {
	return x.within("calls_within", "", true, n)
}

// ToolCallsWithin is tool_calls_within(tool, n): calls_within of the
// calls of tool.
func (x *Exec) ToolCallsWithin(tool string, n int64) (int64, Err) {
	return x.within("tool_calls_within", tool, false, n)
}

func (x *Exec) within(fn, tool string, anyTool bool, n int64) (int64, Err) {
	if err := runtime.CheckWindow(n); err != nil {
		return 0, Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + err.Error()}
	}
	k, e := x.Kept()
	if e.Kind != runtime.ErrNone {
		return 0, e
	}
	now := x.Now()
	c, err := k.History.Times.Within(now, n, tool, anyTool)
	if err != nil {
		return 0, Err{Kind: runtime.ErrStore, S: fn + ": " + err.Error()}
	}
	if x.atCall && (anyTool || x.tool == tool) {
		c++
	}
	return c, Err{}
}

// LocalHour is local_hour(zone): the hour (0-23) of the occurrence's time
// in the IANA time zone.
func (x *Exec) LocalHour(zone string) (int64, Err) {
	t, e := x.local("local_hour", zone)
	return int64(t.Hour()), e
}

// LocalWeekday is local_weekday(zone): the day of the week (0 Sunday to
// 6) of the occurrence's time in the IANA time zone.
func (x *Exec) LocalWeekday(zone string) (int64, Err) {
	t, e := x.local("local_weekday", zone)
	return int64(t.Weekday()), e
}

func (x *Exec) local(fn, zone string) (time.Time, Err) {
	l, err := runtime.LoadZone(zone)
	if err != nil {
		return time.Time{}, Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + err.Error()}
	}
	// The time itself: its Unix nanoseconds wrap outside 1677-2262.
	x.readNow()
	return x.at.In(l), Err{}
}
