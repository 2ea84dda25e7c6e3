package runtime

// This file owns the session facts the engine keeps (spec 5.10): the
// record of a session's tool.pre_invoke occurrences, what a store reads of
// it for one occurrence ([History]), what it applies ([Call]), and the
// values rules read ([KeptFacts]).

import (
	"errors"
	"unsafe"
)

// RecentLimit is how many tool names the record keeps (spec 5.4: flows
// look at most this far back).
const RecentLimit = 64

// TotalsLimit is how many (code, tool) pairs a record counts blocks of
// (code_reject_total). Past it, a pair not yet counted is not added and
// the record is marked: reading code_reject_total of a pair it does not
// hold is then an error, since its count may be missing.
const TotalsLimit = 1024

// Call is one tool.pre_invoke occurrence as the record keeps it: its
// tool, its arguments' fingerprint, and its blocking code ("" when it was
// not blocked; monitored firings do not block).
type Call struct {
	Tool           string
	Fingerprint    Fingerprint
	HasFingerprint bool // false: the arguments have none (see ErrNoFingerprint)
	Code           string
	// Time is the occurrence's time in Unix nanoseconds (spec 5.13), 0
	// in a set whose rules read no call times: such a call is not kept
	// in the record's times.
	Time int64
}

// same reports whether c repeats p for repeat_count: the same tool and
// the same fingerprint (arguments without one differ from every call).
func (c *Call) same(p *Call) bool {
	return c.HasFingerprint && p.HasFingerprint && c.Tool == p.Tool && c.Fingerprint == p.Fingerprint
}

// HistoryQuery says which block counts an occurrence reads: for each code
// (the id of a rule that reads code_reject_total), the blocks of Tool
// with it; with LastTool, of the tool of the session's last call (at an
// anchor other than tool.pre_invoke).
type HistoryQuery struct {
	Codes    []string
	Tool     string
	LastTool bool
	// Names says that the occurrence reads recent_tool_names: a store may
	// leave History.Tools empty without it.
	Names bool
	// Times says that the occurrence reads the calls' times (calls_within,
	// tool_calls_within, spec 5.13): a store that keeps them fills
	// History.Times and sets History.TimesKept.
	Times bool
}

// History is what one occurrence reads of its session's record, in the
// same snapshot as its counters. A store fills it ([Store.Read]); the
// engine derives the facts from it ([KeptFacts]).
type History struct {
	Calls int64    // the tool.pre_invoke occurrences recorded
	Tools []string // the tools of the last RecentLimit of them, oldest first
	Last  Call     // the last one (when Calls > 0)
	// Run counts the identical calls (same tool, same fingerprint) in a
	// row ending with Last; CodeRun the calls blocked with Last.Code in a
	// row ending with Last (0 when Last was not blocked).
	Run, CodeRun int64
	// LastRepeat and LastCodeRun are the repeat_count and
	// same_code_reject_run of Last, which an anchor other than
	// tool.pre_invoke reads.
	LastRepeat, LastCodeRun int64
	// Totals holds, for each code of the query, how many calls of the
	// query's tool were blocked with it; TotalsKnown whether each is
	// exact (false: the pair is not counted and the record is full).
	Totals      []int64
	TotalsKnown []bool
	// The calls' times (spec 5.13), when the query asked for them: see
	// [CallTimes].
	Times CallTimes
}

// Reset empties h, keeping its buffers.
//
// It writes only the fields that are not already empty (see
// [Decision.Reset]); TestResetEveryField keeps it complete.
func (h *History) Reset() {
	if h.Calls != 0 {
		h.Calls = 0
	}
	truncate(&h.Tools)
	if l := &h.Last; l.Tool != "" || l.Code != "" || l.HasFingerprint || l.Time != 0 || l.Fingerprint != (Fingerprint{}) {
		*l = Call{}
	}
	if h.Run|h.CodeRun|h.LastRepeat|h.LastCodeRun != 0 {
		h.Run, h.CodeRun, h.LastRepeat, h.LastCodeRun = 0, 0, 0, 0
	}
	truncate(&h.Totals)
	truncate(&h.TotalsKnown)
	t := &h.Times
	if t.Kept || t.Dropped || t.DroppedAt != 0 {
		t.Kept, t.Dropped, t.DroppedAt = false, false, 0
	}
	truncate(&t.At)
	truncate(&t.Tools)
}

// record is a session's record of tool calls, as MemStore keeps it. Its
// size is bounded: RecentLimit names, TotalsLimit pairs.
type record struct {
	calls             int64
	tools             [RecentLimit]string // a ring: the next name goes to tools[calls%RecentLimit]
	last              Call
	run, codeRun      int64
	lastRep, lastCRun int64
	totals            map[codeTool]int64
	full              bool // a pair was not counted: TotalsLimit reached
	times             timeRing
}

type codeTool struct{ code, tool string }

// read fills h for q.
func (r *record) read(q *HistoryQuery, h *History) {
	h.Reset()
	h.Calls, h.Last, h.Run, h.CodeRun, h.LastRepeat, h.LastCodeRun = r.calls, r.last, r.run, r.codeRun, r.lastRep, r.lastCRun
	if q.Names {
		n := int(min(r.calls, RecentLimit))
		for i := range n {
			h.Tools = append(h.Tools, r.tools[(r.calls-int64(n)+int64(i))%RecentLimit])
		}
	}
	tool := q.Tool
	if q.LastTool {
		tool = r.last.Tool
	}
	for _, c := range q.Codes {
		v, ok := r.totals[codeTool{c, tool}]
		h.Totals = append(h.Totals, v)
		h.TotalsKnown = append(h.TotalsKnown, ok || !r.full)
	}
	if q.Times {
		r.times.read(&h.Times)
	}
}

// apply records one call after the occurrence's rules: the state is
// derived from what the record holds when it is applied, so concurrent
// occurrences of one session are ordered as they are applied (spec 5.10).
func (r *record) apply(c *Call) {
	same := r.calls > 0 && c.same(&r.last)
	r.lastRep, r.lastCRun = 0, 0
	if same {
		r.lastRep = r.run
	}
	if r.calls > 0 && r.last.Code != "" {
		r.lastCRun = r.codeRun
	}
	if same {
		r.run++
	} else {
		r.run = 1
	}
	switch {
	case c.Code == "":
		r.codeRun = 0
	case r.calls > 0 && r.last.Code == c.Code:
		r.codeRun++
	default:
		r.codeRun = 1
	}
	if c.Code != "" {
		k := codeTool{c.Code, c.Tool}
		if _, ok := r.totals[k]; ok || len(r.totals) < TotalsLimit {
			if r.totals == nil {
				r.totals = map[codeTool]int64{}
			}
			r.totals[k]++
		} else {
			r.full = true
		}
	}
	r.tools[r.calls%RecentLimit] = c.Tool
	r.last = *c
	r.calls++
	if c.Time != 0 {
		r.times.add(c.Time, c.Tool)
	}
}

// KeptFacts are the session facts the engine keeps (spec 5.10) as one
// occurrence reads them. The engine fills them from the session's
// [History] on the first read of one, at most once per occurrence;
// [Decision.Kept] shows them to the host. Their slices and the
// fingerprint's text are valid until the next evaluation into the
// decision.
type KeptFacts struct {
	// Read says whether the facts were read (some rule got to one).
	Read bool
	// Fingerprint is tool_args_fingerprint, "" when the arguments have
	// none.
	Fingerprint     string
	RepeatCount     int64
	RecentToolNames []string
	SameCodeRun     int64
	// History is what the session's store answered.
	History History

	buf   []byte   // the canonical JSON of the arguments
	hex   [16]byte // the fingerprint's text
	names []string // RecentToolNames' buffer
	order []string // the last arguments' names, in canonical order
}

// reset empties k, keeping its buffers.
func (k *KeptFacts) reset() {
	if k.Read || k.Fingerprint != "" || k.RepeatCount != 0 || k.SameCodeRun != 0 {
		k.Read, k.Fingerprint, k.RepeatCount, k.SameCodeRun = false, "", 0, 0
	}
	if len(k.RecentToolNames) != 0 || cap(k.RecentToolNames) != cap(k.names) {
		k.RecentToolNames = k.names[:0]
	}
	k.History.Reset()
}

// ComputeFingerprint computes the fingerprint of args into k (its
// Fingerprint text), without allocating once k's buffer has grown.
func (k *KeptFacts) ComputeFingerprint(args map[string]any) (Fingerprint, error) {
	f, buf, err := argsFingerprint(k.buf, &k.order, args)
	k.buf = buf
	if err != nil {
		k.Fingerprint = ""
		return f, err
	}
	const digits = "0123456789abcdef"
	for i, b := range f {
		k.hex[2*i], k.hex[2*i+1] = digits[b>>4], digits[b&0xF]
	}
	// The text points into k, like the slices of a Decision: valid until
	// the next evaluation into it.
	k.Fingerprint = unsafe.String(&k.hex[0], len(k.hex))
	return f, nil
}

// Derive fills the facts of the record's fields from k.History: at
// tool.pre_invoke (atCall) for the call c, else as the session's last
// call read them. RecentToolNames is filled from History.Tools, which a
// store fills when the query asked for the names.
func (k *KeptFacts) Derive(atCall bool, c *Call) {
	h := &k.History
	k.Read = true
	names := k.names[:0]
	if atCall {
		k.RepeatCount, k.SameCodeRun = 0, 0
		if h.Calls > 0 && c.same(&h.Last) {
			k.RepeatCount = h.Run
		}
		if h.Calls > 0 && h.Last.Code != "" {
			k.SameCodeRun = h.CodeRun
		}
		tools := h.Tools
		if len(tools) > RecentLimit-1 {
			tools = tools[len(tools)-(RecentLimit-1):]
		}
		names = append(append(names, tools...), c.Tool)
	} else {
		k.RepeatCount, k.SameCodeRun = h.LastRepeat, h.LastCodeRun
		names = append(names, h.Tools...)
	}
	k.names = names
	k.RecentToolNames = names
}

// errTotalsMissing is the error of reading code_reject_total where the
// record read holds no count for the code.
var errTotalsMissing = errors.New("code_reject_total: the session's record read holds no count for this code")

// ErrTotalsUnknown is the error of reading code_reject_total of a pair the
// session's record could not count (it holds [TotalsLimit] pairs).
var ErrTotalsUnknown = errors.New("code_reject_total: the session's record holds its limit of (code, tool) pairs, and this one is not among them")

// CodeRejectTotal is code_reject_total for the i-th code of the query:
// at tool.pre_invoke the blocks of the call's tool with that code before
// it; elsewhere those the session's last call read (the last call's own
// block not included).
func (k *KeptFacts) CodeRejectTotal(atCall bool, i int, code string) (int64, error) {
	h := &k.History
	if i < 0 || i >= len(h.Totals) || i >= len(h.TotalsKnown) {
		// Every store answers one count per code of the query: a count
		// missing is a record that cannot be read, never 0 blocks.
		return 0, errTotalsMissing
	}
	if !h.TotalsKnown[i] {
		return 0, ErrTotalsUnknown
	}
	n := h.Totals[i]
	if !atCall && h.Calls > 0 && h.Last.Code == code {
		n--
	}
	return n, nil
}

// KeptOverride replaces engine-kept facts for one occurrence's rules: a
// testing and replay aid (a fixture that gives an engine-kept fact in its
// facts, spec 5.10). The session's record still keeps what happened: the
// call's real tool, fingerprint and code.
type KeptOverride struct {
	Has               KeptFactSet
	Fingerprint       string
	RepeatCount       int64
	RecentToolNames   []string
	SameCodeRejectRun int64
	CodeRejectTotal   int64
}

// ApplyTo writes into k the facts of f that o replaces and that k holds
// (repeat_count, recent_tool_names, same_code_reject_run; the fingerprint
// and code_reject_total are read from o itself), and reports which it
// wrote.
func (o *KeptOverride) ApplyTo(k *KeptFacts, f KeptFactSet) KeptFactSet {
	f &= o.Has
	if f&KeptRepeatCount != 0 {
		k.RepeatCount = o.RepeatCount
	}
	if f&KeptRecentToolNames != 0 {
		k.RecentToolNames = o.RecentToolNames
	}
	if f&KeptSameCodeRejectRun != 0 {
		k.SameCodeRun = o.SameCodeRejectRun
	}
	return f & (KeptRepeatCount | KeptRecentToolNames | KeptSameCodeRejectRun)
}

// KeptFactSet says which facts a [KeptOverride] replaces.
type KeptFactSet uint8

// The engine-kept facts.
const (
	KeptFingerprint KeptFactSet = 1 << iota
	KeptRepeatCount
	KeptRecentToolNames
	KeptSameCodeRejectRun
	KeptCodeRejectTotal
)

// Set replaces the engine-kept fact of the given bare name
// (tool_args_fingerprint, repeat_count, recent_tool_names,
// same_code_reject_run, code_reject_total) with v, which must have the
// fact's Go type (string, int64, []string); it reports whether it did.
func (o *KeptOverride) Set(name string, v any) bool {
	switch name {
	case "tool_args_fingerprint":
		s, ok := v.(string)
		o.Fingerprint, o.Has = s, o.Has|KeptFingerprint
		return ok
	case "repeat_count", "same_code_reject_run", "code_reject_total":
		n, ok := v.(int64)
		switch name {
		case "repeat_count":
			o.RepeatCount, o.Has = n, o.Has|KeptRepeatCount
		case "same_code_reject_run":
			o.SameCodeRejectRun, o.Has = n, o.Has|KeptSameCodeRejectRun
		default:
			o.CodeRejectTotal, o.Has = n, o.Has|KeptCodeRejectTotal
		}
		return ok
	case "recent_tool_names":
		l, ok := v.([]string)
		o.RecentToolNames, o.Has = l, o.Has|KeptRecentToolNames
		return ok
	}
	return false
}
