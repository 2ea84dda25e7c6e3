package ir

// Reads is what some rules read of an occurrence: the facts the host
// fills, the session facts the engine keeps, the provider functions and
// validators they use, and whether they read counters, provenance, the
// occurrence's time or the session's record of calls' times. Generated
// code's Reads gives it for the compiled rules of an anchor; a rule store
// for its own (a host that fills only what the rules read must fill what
// either reads).
type Reads struct {
	Facts, Kept, Functions, Validators map[string]bool
	Counters, Provenance, Time         bool
	CallTimes                          bool
}

// Add adds what rule r reads; host is the catalog's host namespace.
func (rd *Reads) Add(host string, r *Rule) {
	set := func(m *map[string]bool, k string) {
		if *m == nil {
			*m = map[string]bool{}
		}
		(*m)[k] = true
	}
	if r.Detector != "" {
		set(&rd.Validators, r.Detector)
	}
	if r.Flow != nil {
		set(&rd.Kept, host+".recent_tool_names")
	}
	// A transform's span facts, which it redacts whatever its when reads.
	for _, name := range r.Redact {
		set(&rd.Facts, name)
	}
	WalkRule(r, func(e Expr) bool {
		switch n := e.(type) {
		case *Fact:
			switch n.Source {
			case FromFacts, FromDetector:
				set(&rd.Facts, n.Name)
			case FromKept:
				set(&rd.Kept, n.Name)
			case FromProvenance, FromNodes:
				rd.Provenance = true
			}
		case *CounterRead:
			rd.Counters = true
		case *Observe:
			if n.Builtin.ReadsToolArgs() {
				set(&rd.Facts, "tool_args")
			} else if n.Builtin == NotBuiltin {
				set(&rd.Functions, n.Func)
			}
			rd.Time = rd.Time || n.Builtin.ReadsTime()
			rd.CallTimes = rd.CallTimes || n.Builtin.ReadsCallTimes()
		}
		return true
	})
}

// Merge adds what o reads.
func (rd *Reads) Merge(o *Reads) {
	for _, p := range [...]struct {
		dst *map[string]bool
		src map[string]bool
	}{
		{&rd.Facts, o.Facts}, {&rd.Kept, o.Kept}, {&rd.Functions, o.Functions}, {&rd.Validators, o.Validators},
	} {
		for k := range p.src {
			if *p.dst == nil {
				*p.dst = map[string]bool{}
			}
			(*p.dst)[k] = true
		}
	}
	rd.Counters = rd.Counters || o.Counters
	rd.Provenance = rd.Provenance || o.Provenance
	rd.Time = rd.Time || o.Time
	rd.CallTimes = rd.CallTimes || o.CallTimes
}

// SessionReads lists what rule r reads of the session beyond its record
// of calls: the counters it reads (in its selector or its when, its own
// and other rules'), each once in the order WalkRule meets them, and
// whether it reads code_reject_total. A rule store reads them in one
// snapshot per occurrence; deriving them from the IR, as the generator
// does, keeps the two from disagreeing about what a rule reads.
func SessionReads(r *Rule) (counters []CounterRef, codeRejectTotal bool) {
	WalkRule(r, func(e Expr) bool {
		switch n := e.(type) {
		case *CounterRead:
			c := CounterRef{Rule: n.Rule, Slot: n.Slot, Counter: n.Counter}
			for _, o := range counters {
				if o.Rule == c.Rule && o.Counter == c.Counter {
					return true
				}
			}
			counters = append(counters, c)
		case *Fact:
			codeRejectTotal = codeRejectTotal || n.Source == FromKept && n.Kept == KeptCodeRejectTotal
		}
		return true
	})
	return counters, codeRejectTotal
}
