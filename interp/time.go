package interp

// The time functions (spec 5.13) as the oracle answers them: from every
// call of the session (its calls are not bounded) with the bound of the
// record replayed here, independently of the runtime's ring.

import (
	"time"

	"github.com/oarc/oarc/runtime"
)

// timeFunction answers calls_within, tool_calls_within, local_hour and
// local_weekday; ok is false for any other function.
func (in *occInput) timeFunction(fn string, args []any) (v any, e *Error, ok bool) {
	invalid := func(msg string) *Error {
		return &Error{runtime.ErrInvalidArgument, runtime.Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + msg}.Error()}
	}
	switch fn {
	case "calls_within", "tool_calls_within":
		n, _ := args[len(args)-1].(int64)
		tool, anyTool := "", fn == "calls_within"
		if !anyTool {
			tool, _ = args[0].(string)
		}
		if err := runtime.CheckWindow(n); err != nil {
			return nil, invalid(err.Error()), true
		}
		now := runtime.UnixNanos(in.now)
		// lo is the window's open lower bound, now - n seconds; below
		// says that it is below the int64 range (every time is after it).
		lo := now - n*int64(time.Second)
		below := lo > now
		kept, dropped, droppedAt := boundedTimes(in.calls)
		if dropped && (below || droppedAt > lo) {
			return nil, &Error{runtime.ErrStore, runtime.Err{Kind: runtime.ErrStore, S: fn + ": " + runtime.ErrTimesDropped.Error()}.Error()}, true
		}
		var c int64
		for _, k := range kept {
			if (below || k.at > lo) && k.at <= now && (anyTool || k.tool == tool) {
				c++
			}
		}
		if in.occ.Anchor == "tool.pre_invoke" && (anyTool || stringFact(in.occ.Facts["tool"]) == tool) {
			c++
		}
		return c, nil, true
	case "local_hour", "local_weekday":
		zone, _ := args[0].(string)
		l, err := runtime.LoadZone(zone)
		if err != nil {
			return nil, invalid(err.Error()), true
		}
		t := in.now.In(l)
		if fn == "local_hour" {
			return int64(t.Hour()), nil, true
		}
		return int64(t.Weekday()), nil, true
	}
	return nil, nil, false
}

// boundedTimes replays the record's bound over the session's calls (spec
// 5.13): each call is kept; past runtime.TimesLimit the oldest kept is
// dropped, and so is every oldest kept call 24 hours or more before the
// latest time seen. It returns the calls kept and the latest time among
// those dropped.
func boundedTimes(calls []call) (kept []call, dropped bool, droppedAt int64) {
	var latest int64
	drop := func() {
		if !dropped || kept[0].at > droppedAt {
			droppedAt = kept[0].at
		}
		dropped = true
		kept = kept[1:]
	}
	for i, c := range calls {
		if c.at == 0 {
			continue // a call without a time (not kept in the times)
		}
		if len(kept) == 0 || c.at > latest {
			latest = c.at
		}
		if len(kept) == runtime.TimesLimit {
			drop()
		}
		kept = append(kept, calls[i])
		// The calls 24 hours or more before the latest go; the cut is
		// below every time when it is below the int64 range.
		cut := latest - int64(runtime.TimesSpan)
		for cut < latest && len(kept) > 0 && kept[0].at <= cut {
			drop()
		}
	}
	return kept, dropped, droppedAt
}
