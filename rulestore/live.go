// This file owns the store's rules in force (spec 12, "In force"): the
// runtime.RuleStore an evaluator runs, rebuilt once per change of the
// store, each rule's cel-go program built once, when it is loaded.

package rulestore

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/operators"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/runtime"
)

// storeSlot is the counter slot of a store's rules: none in the compiled
// set (runtime.MemStore keeps such counters by rule id).
const storeSlot = -1

// liveSet is the store's rules in force, by anchor.
type liveSet struct {
	anchors map[string]*liveAnchor
}

// liveAnchor is the store's rules in force at one anchor: a
// runtime.LiveRules.
type liveAnchor struct {
	s       *Store
	anchor  string
	ids     []string
	rules   []runtime.LiveRule
	progs   []*interp.Rule
	keys    []runtime.CounterKey
	keyIdx  map[counterRef]int
	codes   []string
	codeIdx map[string]int
	// times says that some rule reads windows of calls: the evaluator
	// then reads the session's record with the calls' times.
	times bool
	// broken is, for a rule that does not load (progs[i] nil), the error
	// every evaluation of it is.
	broken []runtime.Err
	// reads is what the rules that load read (a rule that does not load
	// reads nothing: it fails at every occurrence).
	reads runtime.Reads
}

// Reads returns what the store's rules in force at anchor read of an
// occurrence, as the generated Reads(anchor) does for the compiled rules:
// a host that fills only the facts its rules read (docs/hosts.md) fills
// what either lists. It changes with the store: ask at every occurrence
// (an added rule is in force at once).
func (s *Store) Reads(anchor string) runtime.Reads {
	if ls := s.live.Load(); ls != nil {
		if a, ok := ls.anchors[anchor]; ok {
			return a.reads
		}
	}
	return runtime.Reads{}
}

// runtimeReads is rd as runtime.Reads, its lists sorted.
func runtimeReads(rd *ir.Reads) runtime.Reads {
	list := func(m map[string]bool) []string {
		if len(m) == 0 {
			return nil
		}
		l := make([]string, 0, len(m))
		for k := range m {
			l = append(l, k)
		}
		sort.Strings(l)
		return l
	}
	return runtime.Reads{Facts: list(rd.Facts), Kept: list(rd.Kept), Functions: list(rd.Functions), Validators: list(rd.Validators),
		Counters: rd.Counters, Provenance: rd.Provenance, Time: rd.Time, CallTimes: rd.CallTimes}
}

// Live implements runtime.RuleStore.
func (s *Store) Live(anchor string) runtime.LiveRules {
	if ls := s.live.Load(); ls != nil {
		if a, ok := ls.anchors[anchor]; ok {
			return a
		}
	}
	return nil
}

func (a *liveAnchor) Rules() []runtime.LiveRule  { return a.rules }
func (a *liveAnchor) Keys() []runtime.CounterKey { return a.keys }
func (a *liveAnchor) Codes() []string            { return a.codes }

// ReadsCallTimes tells the evaluator (impl.Live) that a rule at the
// anchor calls calls_within or tool_calls_within (spec 5.13).
func (a *liveAnchor) ReadsCallTimes() bool { return a.times }

// Observe implements runtime.LiveRules: the trials count from the
// decision.
func (a *liveAnchor) Observe(session string, evaluated int, d *runtime.Decision) {
	for _, r := range a.rules[:min(evaluated, len(a.rules))] {
		if r.Monitor {
			a.s.observeDecision(a.ids, session, evaluated, d)
			return
		}
	}
}

// Eval implements runtime.LiveRules.
func (a *liveAnchor) Eval(i int, env runtime.LiveEnv) (bool, runtime.Err) {
	if a.progs[i] == nil {
		return false, a.broken[i]
	}
	in := &input{a: a, env: env}
	ok, _, err := a.progs[i].Eval(in)
	if err != nil {
		if err.Kind == runtime.ErrPanic {
			// As a compiled rule says it (a panic recovered at its
			// anchor): the rule's id.
			return false, runtime.Err{Kind: runtime.ErrPanic, S: a.ids[i]}
		}
		return false, in.toErr(err)
	}
	return ok, runtime.Err{}
}

// rebuild checks the live rules not checked yet and makes the rules in
// force.
func (s *Store) rebuild() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rebuildLocked()
}

// rebuildLocked is rebuild; the caller holds s.mu.
func (s *Store) rebuildLocked() {
	for _, id := range s.order {
		e := s.entries[id]
		if !e.rec.Status.Live() || s.compiled[id] || e.prog != nil || e.problem != "" {
			continue
		}
		s.load(e)
	}
	ls := &liveSet{anchors: map[string]*liveAnchor{}}
	type placed struct {
		e      *entry
		broken *brokenAt // a rule that does not load
		kind   string
		id     string
		anchor string
	}
	var inForce []placed
	for _, id := range s.order {
		e := s.entries[id]
		switch {
		case !e.rec.Status.Live() || s.compiled[id]:
		case e.prog != nil:
			inForce = append(inForce, placed{e: e, kind: e.rule.Kind, id: id, anchor: e.rule.Anchor})
		case e.problem != "":
			b := s.broken(e)
			for _, at := range b.at {
				inForce = append(inForce, placed{e: e, broken: &at, kind: b.kind, id: id, anchor: at.rule.Anchor})
			}
		}
	}
	sort.SliceStable(inForce, func(i, j int) bool {
		a, b := inForce[i], inForce[j]
		if ra, rb := compiler.KindRank(a.kind), compiler.KindRank(b.kind); ra != rb {
			return ra < rb
		}
		return a.id < b.id
	})
	reads := map[string]*ir.Reads{}
	for _, p := range inForce {
		e := p.e
		a := ls.anchors[p.anchor]
		if a == nil {
			a = &liveAnchor{s: s, anchor: p.anchor, keyIdx: map[counterRef]int{}, codeIdx: map[string]int{}}
			ls.anchors[p.anchor] = a
		}
		a.ids = append(a.ids, p.id)
		if p.broken != nil {
			a.progs = append(a.progs, nil)
			a.broken = append(a.broken, p.broken.err)
			a.rules = append(a.rules, p.broken.rule)
			continue
		}
		a.progs = append(a.progs, e.prog)
		a.broken = append(a.broken, runtime.Err{})
		rd := reads[p.anchor]
		if rd == nil {
			rd = &ir.Reads{}
			reads[p.anchor] = rd
		}
		rd.Merge(&e.reads)
		a.rules = append(a.rules, s.liveRule(e))
		for _, c := range e.counters {
			if _, ok := a.keyIdx[c]; !ok {
				a.keyIdx[c] = len(a.keys)
				a.keys = append(a.keys, s.counterKey(c.Rule, c.Counter))
			}
		}
		a.times = a.times || e.reads.CallTimes
		if e.codeRejectTotal {
			a.codeIdx[e.rule.ID] = len(a.codes)
			a.codes = append(a.codes, e.rule.ID)
		}
	}
	for anchor, rd := range reads {
		ls.anchors[anchor].reads = runtimeReads(rd)
	}
	s.live.Store(ls)
}

// load checks a live record's rule against the compilation set and
// builds its program; a rule that no longer checks is a problem, not in
// force. The caller holds s.mu.
func (s *Store) load(e *entry) {
	fail := func(msg string) {
		e.problem = msg
		where := ""
		if e.line > 0 {
			where = " (line " + strconv.Itoa(e.line) + ")"
		}
		s.problem(Problem{File: s.name, ID: e.rec.ID, Msg: fmt.Sprintf("rule %s%s is not in force: %s", e.rec.ID, where, msg)})
	}
	doc, err := decodeDoc(e.rec.Rule)
	if err != nil {
		fail(err.Error())
		return
	}
	r, _, diags := s.check(e.rec.ID, doc)
	if r == nil {
		var msgs []string
		for _, d := range diags {
			if d.Severity == "error" {
				msgs = append(msgs, d.String())
			}
		}
		fail("it no longer checks against the compilation set: " + strings.Join(msgs, "; "))
		return
	}
	prog, err := s.env.Compile(r)
	if err != nil {
		fail(err.Error())
		return
	}
	e.rule, e.prog, e.key = r, prog, meaningKey(s.set.Env, r)
	// What it reads, as the generator finds it for a compiled rule: from
	// the rule's IR, so that the snapshot holds every counter the
	// evaluation reads.
	built := compiler.Build(&compiler.Set{Catalog: s.set.Catalog, Rules: []*compiler.Rule{r}}).Rules[0]
	e.reads = ir.Reads{}
	e.reads.Add(s.set.Catalog.Host, built)
	counters, crt := ir.SessionReads(built)
	e.counters, e.codeRejectTotal = e.counters[:0], crt
	for _, c := range counters {
		e.counters = append(e.counters, counterRef{Rule: c.Rule, Counter: runtimeCounter(c.Counter)})
	}
}

// brokenRule is a live rule of the store that does not load, as it is in
// force: an evaluation error at the anchors it is placed at, handled by
// its on_error.
type brokenRule struct {
	kind string
	// at is where it fails: its anchor, or, when its document names no
	// anchor of the catalog, every anchor of the catalog.
	at []brokenAt
	// everywhere says that its document names no anchor of the catalog.
	everywhere bool
	failOpen   bool
}

// brokenAt is a rule that does not load at one anchor.
type brokenAt struct {
	rule runtime.LiveRule
	err  runtime.Err
}

// broken places a live rule that does not load (e.problem), so that it
// fails as its on_error says (spec 6) instead of dropping out of every
// evaluation: an active block rule that stopped would be a silent
// allow. What its document says is read as far as it can be: its
// anchor, kind (else policy), effect (a project's, block, warn, nudge or
// ask; else block), on_error (fail_open, else it fails closed) and copy.
// Its selector and condition are never read: it fails at every
// occurrence of its anchor. A document that names no anchor of the
// catalog (none, not a string, an anchor the catalog no longer has, a
// record damaged by hand) cannot say which anchor the rule guarded: it
// fails at every anchor of the catalog. At an anchor whose planes do not
// allow its effect (spec 2) it fires with the strongest one they allow:
// block with the block plane, else warn with the inform plane; an
// anchor with neither (transform only) cannot be failed closed at and
// is left out. Its status decides monitor, as for any rule of the store.
// The caller holds s.mu.
func (s *Store) broken(e *entry) *brokenRule {
	doc := ruleDoc(e.rec)
	str := func(n *yaml.Node, key string) string {
		if n == nil || n.Kind != yaml.MappingNode {
			return ""
		}
		if v := member(n, key); v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
			return v.Value
		}
		return ""
	}
	anchors := s.set.Catalog.Anchors
	b := &brokenRule{}
	if a := s.set.Catalog.Anchor(str(doc, "anchor")); a != nil {
		anchors = []*catalog.Anchor{a}
	} else {
		b.everywhere = true
	}
	kinds := map[string]runtime.Kind{"schema": runtime.KindSchema, "policy": runtime.KindPolicy, "invariant": runtime.KindInvariant, "detector": runtime.KindDetector}
	b.kind = str(doc, "kind")
	if _, ok := kinds[b.kind]; !ok {
		b.kind = "policy"
	}
	eff, ok := runtime.ParseEffect(str(doc, "effect"))
	if !ok || eff != runtime.Block && eff != runtime.Warn && eff != runtime.Nudge && eff != runtime.Ask {
		eff = runtime.Block
	}
	b.failOpen = str(doc, "on_error") == "fail_open"
	cp := member(doc, "copy")
	msg, _, _ := strings.Cut(e.problem, "\n")
	err := runtime.Err{Kind: runtime.ErrRuleStore, S: "rule " + e.rec.ID + " does not load: " + msg}
	if b.everywhere {
		err.S += " (its document names no anchor of the catalog, so it fails at every anchor)"
	}
	for _, a := range anchors {
		effAt, ok := effectAt(eff, a)
		if !ok {
			continue
		}
		b.at = append(b.at, brokenAt{
			err: err,
			rule: runtime.LiveRule{
				Rule: runtime.Rule{
					ID: e.rec.ID, Pack: "store", Kind: kinds[b.kind], Anchor: a.ID, Effect: effAt,
					Monitor:  e.rec.Status == Candidate,
					FailOpen: b.failOpen,
					Copy: runtime.Copy{Title: str(cp, "title"), What: str(cp, "what"), Cause: str(cp, "cause"),
						Why: str(cp, "why"), Fix: str(cp, "fix"), Instead: str(cp, "instead")},
				},
				Fire: s.counterKey(e.rec.ID, runtime.Fire),
			},
		})
	}
	return b
}

// effectAt is the effect a rule that does not load fires with at anchor
// a: its own where a's planes allow it (spec 2: block and ask need the
// block plane, warn and nudge block or inform), else block with the
// block plane, else warn with the inform plane; false with neither.
func effectAt(eff runtime.Effect, a *catalog.Anchor) (runtime.Effect, bool) {
	block, inform := a.HasPlane("block"), a.HasPlane("inform")
	switch {
	case (eff == runtime.Block || eff == runtime.Ask) && block,
		(eff == runtime.Warn || eff == runtime.Nudge) && (block || inform):
		return eff, true
	case block:
		return runtime.Block, true
	case inform:
		return runtime.Warn, true
	}
	return 0, false
}

// counterKey is the key of a rule's counter: a compiled rule's slot, or
// none for a store's rule.
func (s *Store) counterKey(id string, c runtime.Counter) runtime.CounterKey {
	if slot, ok := s.slots[id]; ok {
		return runtime.CounterKey{Slot: slot, Rule: id, Counter: c}
	}
	return runtime.CounterKey{Slot: storeSlot, Rule: id, Counter: c}
}

// liveRule describes a rule in force: its status decides monitor.
func (s *Store) liveRule(e *entry) runtime.LiveRule {
	r := e.rule
	kind := map[string]runtime.Kind{"schema": runtime.KindSchema, "policy": runtime.KindPolicy, "invariant": runtime.KindInvariant, "detector": runtime.KindDetector}[r.Kind]
	eff, _ := runtime.ParseEffect(r.Effect)
	lr := runtime.LiveRule{
		Rule: runtime.Rule{
			ID: r.ID, Pack: "store", Kind: kind, Anchor: r.Anchor, Effect: eff,
			Monitor:  e.rec.Status == Candidate,
			FailOpen: r.OnError == "fail_open",
			Copy:     runtime.Copy{Title: r.Copy.Title, What: r.Copy.What, Cause: r.Copy.Cause, Why: r.Copy.Why, Fix: r.Copy.Fix, Instead: r.Copy.Instead},
		},
		Fire: s.counterKey(r.ID, runtime.Fire),
	}
	for _, inc := range r.OnFire.Increment {
		c := runtime.Fire
		if inc == "breaker" {
			c = runtime.Breaker
		}
		lr.Increment = append(lr.Increment, s.counterKey(r.ID, c))
	}
	for _, ref := range r.OnFire.Reset {
		c := runtime.Fire
		if ref.Counter == "breaker" {
			c = runtime.Breaker
		}
		lr.Reset = append(lr.Reset, s.counterKey(ref.Rule, c))
	}
	return lr
}

// input is the interp.Input of a store rule in an evaluator: the
// evaluator's reads, through runtime.LiveEnv.
type input struct {
	a   *liveAnchor
	env runtime.LiveEnv
	// errs keeps the evaluator's own errors, to give them back as they
	// were once they went through cel-go.
	errs map[*interp.Error]runtime.Err
}

func (in *input) Anchor() string               { return in.a.anchor }
func (in *input) Profiles() runtime.ProfileSet { return in.env.Profiles() }

// fromErr turns an evaluator's error into the interpreter's, remembering
// it.
func (in *input) fromErr(e runtime.Err) *interp.Error {
	ie := &interp.Error{Kind: e.Kind, Msg: e.Error()}
	if in.errs == nil {
		in.errs = map[*interp.Error]runtime.Err{}
	}
	in.errs[ie] = e
	return ie
}

// toErr turns the interpreter's error into the evaluator's: the
// evaluator's own as it was, a cel-go error with the details the
// runtime's messages are built from.
func (in *input) toErr(ie *interp.Error) runtime.Err {
	if e, ok := in.errs[ie]; ok {
		return e
	}
	return celErr(ie)
}

// celErr is a cel-go error as the runtime spells it, so that the two
// engines' messages agree.
func celErr(ie *interp.Error) runtime.Err {
	e := runtime.Err{Kind: ie.Kind}
	after := func(prefix string) (string, bool) {
		if strings.HasPrefix(ie.Msg, prefix) {
			return ie.Msg[len(prefix):], true
		}
		return "", false
	}
	switch ie.Kind {
	case runtime.ErrNoSuchKey:
		e.S, _ = after("no such key: ")
	case runtime.ErrIndexOutOfRange:
		if v, ok := after("index out of bounds: "); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				e.N = n
			} else {
				e.S = v
			}
		}
	case runtime.ErrStringIndex:
		if v, ok := after("index out of range: "); ok {
			e.N, _ = strconv.ParseInt(v, 10, 64)
		}
	case runtime.ErrDivideByZero, runtime.ErrModulusByZero, runtime.ErrIntOverflow, runtime.ErrUintOverflow:
	case runtime.ErrNoSuchOverload:
		if v, ok := after("no such overload: "); ok {
			// cel-go names the operator it found no overload of
			// ("_>_" for a list compared with an int); the compiled
			// rule does not (docs/cel-semantics.md), and the same rule
			// must say the same in both (its rejection, its record).
			if _, op := operators.FindReverse(v); !op {
				e.S = overloadName(v)
			}
		} else if ie.Msg != "no such overload" {
			e.S = ie.Msg
		}
	case runtime.ErrProfile:
		e.S, _ = after("profile not supplied: ")
	case runtime.ErrPanic:
		e.S = ie.Msg
	default:
		e.S = ie.Msg
	}
	return e
}

// overloadName is the detail of cel-go's "no such overload" as the
// runtime gives it: a function of the strings extension is named alone,
// as the compiled rule names it ("replace", not "replace(null_type,
// string, string)"); a conversion keeps its argument's type ("int(map)"),
// as the runtime's does.
func overloadName(detail string) string {
	name, _, ok := strings.Cut(detail, "(")
	if !ok || !strings.HasSuffix(detail, ")") {
		return detail
	}
	switch name {
	case "int", "uint", "double", "string", "bool", "bytes", "dyn", "type", "timestamp", "duration":
		return detail
	}
	return name
}

func (in *input) Fact(r *compiler.Rule, name string) (any, *interp.Error) {
	f := in.a.s.env.Catalog().Fact(name)
	if f == nil {
		return nil, nil
	}
	switch {
	case f.Kept == catalog.KeptFingerprint:
		v, e := in.env.Fingerprint()
		if e.Kind != runtime.ErrNone {
			return nil, in.fromErr(e)
		}
		return v, nil
	case f.Kept == catalog.KeptCodeRejectTotal:
		i, ok := in.a.codeIdx[r.ID]
		if !ok {
			// Every read is in the history query (ir.SessionReads):
			// one that is not must not read as a zero.
			return nil, in.fromErr(runtime.Err{Kind: runtime.ErrStore, S: "code_reject_total of " + r.ID + " is not in the occurrence's history query"})
		}
		v, e := in.env.CodeRejectTotal(i)
		if e.Kind != runtime.ErrNone {
			return nil, in.fromErr(e)
		}
		return v, nil
	case f.Kept != catalog.NotKept:
		// The occurrence's override of the fact is read without the
		// session's record, as a compiled rule reads it.
		var bit runtime.KeptFactSet
		switch f.Kept {
		case catalog.KeptRepeatCount:
			bit = runtime.KeptRepeatCount
		case catalog.KeptRecentToolNames:
			bit = runtime.KeptRecentToolNames
		case catalog.KeptSameCodeRejectRun:
			bit = runtime.KeptSameCodeRejectRun
		}
		k, e := in.env.KeptFact(bit)
		if e.Kind != runtime.ErrNone {
			return nil, in.fromErr(e)
		}
		switch f.Kept {
		case catalog.KeptRepeatCount:
			return k.RepeatCount, nil
		case catalog.KeptRecentToolNames:
			return k.RecentToolNames, nil
		case catalog.KeptSameCodeRejectRun:
			return k.SameCodeRun, nil
		}
		return nil, nil
	case f.Tier == catalog.Oarc && (f.Name == "batch_tools" || f.Name == "tenant" || f.Name == "content" || f.Name == "provenance_nodes"):
		// The engine knows them (spec 5.11, 5.13): the check's tools, the
		// session's tenant, the occurrence's content, the nodes of its
		// provenance scope.
		v, e := in.env.Fact(name)
		if e.Kind != runtime.ErrNone {
			return nil, in.fromErr(e)
		}
		return v, nil
	case f.Tier == catalog.Oarc:
		sc, e := in.env.Provenance()
		if e.Kind != runtime.ErrNone {
			return nil, in.fromErr(e)
		}
		switch f.Name {
		case "provenance_tools":
			return sc.Tools, nil
		case "provenance_origins":
			return sc.Origins, nil
		case "provenance_trust_tiers":
			return sc.TrustTiers, nil
		case "provenance_labels":
			return sc.Labels, nil
		}
		// An oarc fact this evaluator does not know is an error, never a
		// null a rule would read as no value.
		return nil, in.fromErr(runtime.Err{Kind: runtime.ErrInvalidArgument, S: "the rule store cannot read the fact " + name})
	}
	v, e := in.env.Fact(name)
	if e.Kind != runtime.ErrNone {
		return nil, in.fromErr(e)
	}
	if v == nil {
		return interp.ZeroFact(f.Type), nil
	}
	return v, nil
}

func (in *input) Counter(rule string, c runtime.Counter) (int64, *interp.Error) {
	i, ok := in.a.keyIdx[counterRef{Rule: rule, Counter: c}]
	if !ok {
		return 0, in.fromErr(runtime.Err{Kind: runtime.ErrStore, S: "counter " + rule + "." + c.String() + " is not in the occurrence's snapshot"})
	}
	v, e := in.env.Counter(i)
	if e.Kind != runtime.ErrNone {
		return 0, in.fromErr(e)
	}
	return v, nil
}

func (in *input) Provide(fn string, args []any) (any, *interp.Error) {
	v, e := in.env.Provide(fn, args)
	if e.Kind != runtime.ErrNone {
		return nil, in.fromErr(e)
	}
	return v, nil
}

func (in *input) Detect(id string) (*runtime.Detection, *interp.Error) {
	d, e := in.env.Detect(id)
	if e.Kind != runtime.ErrNone {
		return nil, in.fromErr(e)
	}
	return d, nil
}

// ruleDoc decodes a record's rule document (checked when it was read).
func ruleDoc(rec Record) *yaml.Node {
	doc, err := decodeDoc(rec.Rule)
	if err != nil {
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	return doc
}

// counterRef is a counter a store rule reads: the rule's, and which.
type counterRef struct {
	Rule    string
	Counter runtime.Counter
}

// runtimeCounter is the runtime's name of an IR counter.
func runtimeCounter(c ir.Counter) runtime.Counter {
	if c == ir.Breaker {
		return runtime.Breaker
	}
	return runtime.Fire
}
