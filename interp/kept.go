// This file owns the reference's session facts the engine keeps (spec
// 5.10), written from the spec's definitions over the whole list of a
// session's calls, independently of the runtime's bounded record: the
// fingerprint through an independent RFC 8785 implementation
// (github.com/gowebpki/jcs, the Go port of the RFC's reference code), and
// each fact by scanning the calls as its row of the table says.

package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"cel.dev/cel-go/common/types"
	"github.com/gowebpki/jcs"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/runtime"
)

// call is one recorded tool.pre_invoke occurrence.
type call struct {
	tool  string
	fp    string // "" when the arguments have no fingerprint
	code  string // its blocking code, "" when not blocked
	valid bool   // fp is a fingerprint
	at    int64  // its time, Unix nanoseconds (spec 5.13)
}

// same reports whether b repeats a for repeat_count.
func (a call) same(b call) bool { return a.valid && b.valid && a.tool == b.tool && a.fp == b.fp }

// fingerprint is the fingerprint of tool arguments (spec 5.10), ok false
// for arguments JCS cannot serialise.
func fingerprint(args any) (string, bool) {
	if args == nil {
		args = map[string]any{}
	}
	v, ok := plainJSON(args, 0)
	if !ok {
		return "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:8]), true
}

// plainJSON checks a dyn value for what JCS can serialise (the runtime's
// depth limit, finite numbers, UTF-8 strings and names, JSON's types) and
// returns it with every number as the double JCS writes.
func plainJSON(v any, depth int) (any, bool) {
	if depth > runtime.MaxDepth {
		return nil, false
	}
	num := func(f float64) (any, bool) { return f, !math.IsNaN(f) && !math.IsInf(f, 0) }
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return x, utf8.ValidString(x)
	case int64:
		return num(float64(x))
	case int:
		return num(float64(x))
	case int32:
		return num(float64(x))
	case int16:
		return num(float64(x))
	case int8:
		return num(float64(x))
	case uint64:
		return num(float64(x))
	case uint:
		return num(float64(x))
	case uint32:
		return num(float64(x))
	case uint16:
		return num(float64(x))
	case uint8:
		return num(float64(x))
	case float64:
		return num(x)
	case float32:
		return num(float64(x))
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, false
		}
		return num(f)
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			if depth+1 > runtime.MaxDepth || !utf8.ValidString(e) {
				return nil, false
			}
			out[i] = e
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = plainJSON(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = plainJSON(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !utf8.ValidString(k) {
				return nil, false
			}
			var ok bool
			if out[k], ok = plainJSON(e, depth+1); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// kept computes the engine-kept facts of an occurrence (spec 5.10) into
// act, from the session's calls before it, and says which rules read
// code_reject_total through perRule (set for each rule before it runs).
type kept struct {
	host   string
	atCall bool
	cur    call   // the call the facts describe: this one, or the last
	prev   []call // the calls before cur
	// admitted are the (code, tool) pairs a record bounded to
	// runtime.TotalsLimit pairs counts, full whether one was refused.
	admitted map[[2]string]bool
	full     bool
}

// newKept describes the occurrence occ in a session whose calls are s.
func newKept(host string, occ *Occurrence, calls []call) *kept {
	k := &kept{host: host, atCall: occ.Anchor == "tool.pre_invoke"}
	if k.atCall {
		k.cur = call{tool: stringFact(occ.Facts["tool"])}
		k.cur.fp, k.cur.valid = fingerprint(occ.Facts["tool_args"])
		k.prev = calls
	} else if n := len(calls); n > 0 {
		k.cur, k.prev = calls[n-1], calls[:n-1]
	}
	k.admitted = map[[2]string]bool{}
	for _, c := range calls {
		if c.code == "" {
			continue
		}
		p := [2]string{c.code, c.tool}
		switch {
		case k.admitted[p]:
		case len(k.admitted) < runtime.TotalsLimit:
			k.admitted[p] = true
		default:
			k.full = true
		}
	}
	return k
}

func stringFact(v any) string { s, _ := v.(string); return s }

// repeatCount: the calls immediately before cur, consecutively, with its
// tool and fingerprint.
func (k *kept) repeatCount() int64 {
	if !k.atCall && len(k.prev) == 0 && k.cur.tool == "" {
		return 0
	}
	n := int64(0)
	for i := len(k.prev) - 1; i >= 0 && k.prev[i].same(k.cur); i-- {
		n++
	}
	return n
}

// recent: the tools of the last 64 calls, cur last.
func (k *kept) recent(calls []call) []string {
	var all []string
	if k.atCall {
		for _, c := range k.prev {
			all = append(all, c.tool)
		}
		all = append(all, k.cur.tool)
	} else {
		for _, c := range calls {
			all = append(all, c.tool)
		}
	}
	if len(all) > runtime.RecentLimit {
		all = all[len(all)-runtime.RecentLimit:]
	}
	if all == nil {
		all = []string{}
	}
	return all
}

// sameCodeRun: the blocked calls with one code in a row, ending just
// before cur.
func (k *kept) sameCodeRun() int64 {
	n := len(k.prev)
	if n == 0 || k.prev[n-1].code == "" {
		return 0
	}
	code := k.prev[n-1].code
	run := int64(0)
	for i := n - 1; i >= 0 && k.prev[i].code == code; i-- {
		run++
	}
	return run
}

// codeRejectTotal: the calls before cur with cur's tool blocked with the
// rule's id; an error for a pair a bounded record could not count.
func (k *kept) codeRejectTotal(rule string) any {
	if !k.atCall && len(k.prev) == 0 && k.cur.tool == "" {
		return int64(0)
	}
	p := [2]string{rule, k.cur.tool}
	if !k.admitted[p] && k.full {
		return types.WrapErr(&Error{runtime.ErrStore, runtime.ErrTotalsUnknown.Error()})
	}
	n := int64(0)
	for _, c := range k.prev {
		if c.tool == k.cur.tool && c.code == rule {
			n++
		}
	}
	return n
}

// set puts the engine-kept facts of cat into act, the override of occ
// replacing each (a fixture's facts). code_reject_total is set per rule
// (rule).
func (k *kept) set(cat *catalog.Catalog, occ *Occurrence, calls []call, act map[string]any) {
	for _, f := range cat.Facts {
		if f.Kept == catalog.NotKept {
			continue
		}
		if v, ok := occ.Kept[f.Name]; ok {
			act[f.CELName] = v
			continue
		}
		switch f.Kept {
		case catalog.KeptFingerprint:
			if fp, ok := fingerprint(occ.Facts["tool_args"]); ok {
				act[f.CELName] = fp
			} else {
				act[f.CELName] = types.WrapErr(&Error{runtime.ErrInvalidArgument, "tool_args_fingerprint: the arguments have no fingerprint"})
			}
		case catalog.KeptRepeatCount:
			act[f.CELName] = k.repeatCount()
		case catalog.KeptRecentToolNames:
			act[f.CELName] = k.recent(calls)
		case catalog.KeptSameCodeRejectRun:
			act[f.CELName] = k.sameCodeRun()
		}
	}
}

// setRule sets code_reject_total for rule in act.
func (k *kept) setRule(cat *catalog.Catalog, occ *Occurrence, rule string, act map[string]any) {
	name := cat.Host + ".code_reject_total"
	if f := cat.Fact(name); f == nil || f.Kept != catalog.KeptCodeRejectTotal {
		return
	}
	if v, ok := occ.Kept["code_reject_total"]; ok {
		act[name] = v
		return
	}
	act[name] = k.codeRejectTotal(rule)
}
