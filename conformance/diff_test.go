package conformance

import (
	"flag"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/testkit/difftest"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/long"
)

var (
	diffExprs   = flag.Int("diff.exprs", long.N(600, 3000), "expressions in the differential test")
	diffFacts   = flag.Int("diff.facts", 100, "fact sets each expression is evaluated with")
	diffSeed    = flag.Int64("diff.seed", 1, "seed of the differential test")
	diffClassic = flag.Bool("diff.classic", false, "the first generator's distribution only: none of the biased productions")
)

// report fails the test on every mismatch. They are grouped by what the
// engines said (error kinds, not messages), and the shortest expressions
// of each group are shown first, ready to reduce.
func report(t *testing.T, rep *difftest.DiffReport) {
	t.Helper()
	groups := map[string][]difftest.Mismatch{}
	var keys []string
	for _, m := range rep.Mismatches {
		k := mismatchKind(m.Reference) + " vs " + mismatchKind(m.Generated)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], m)
	}
	sort.Strings(keys)
	shown := 0
	for _, k := range keys {
		ms := groups[k]
		sort.SliceStable(ms, func(i, j int) bool { return len(ms[i].When) < len(ms[j].When) })
		t.Errorf("%d mismatches: reference %s", len(ms), k)
		for i, m := range ms {
			if i == 3 || shown == 20 {
				break
			}
			shown++
			t.Errorf("mismatch (rule %s):\n%s", m.Rule, m)
		}
	}
}

// mismatchKind is an outcome without its message: "true", "false",
// "error:kind", or the first words of a generation failure.
func mismatchKind(s string) string {
	if i := strings.Index(s, " ("); i >= 0 && strings.HasPrefix(s, "error:") {
		return s[:i]
	}
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// maxRejected bounds, per production of the expression generator
// (difftest.TagFirst: the first generator's distribution), the share of
// its expressions the compiler may refuse (cost, unsupported, the
// generator's rare type errors): what seeds 1 to 3 of the default run
// reach, with a margin (and 3 expressions of slack for the rare ones). A
// production that loses more tests less than its count says.
var maxRejected = map[string]float64{
	difftest.TagFirst: .08, "chain": .05, "conv-edge": .06, "dyn": .10, "dyn-arith": .12, "dyn-cmp": .10,
	"dyn-conv": .15, "dyn-in": .06, "dyn-index": .13, "dyn-logic": .10, "dyn-range": .25, "dyn-size": .12,
	"map": .09, "mixed": .13, "mixed-eq": .05, "negzero": .12, "nonbool": .10, "num-edge": .07,
	"provider": .13, "shadow": .16, "toolarg": .16, "uint": .14,
}

// maxRejectedAll bounds the share of all expressions the compiler may
// refuse: about 5% today.
const maxRejectedAll = .08

// TestDifferential compares the generated code with the reference on
// random expressions and facts: 100,000 cases by default (fewer when the
// compiler rejects some expressions, for cost or as unsupported).
func TestDifferential(t *testing.T) {
	rep, err := difftest.Differential(difftest.DiffOptions{Seed: *diffSeed, Expressions: *diffExprs, PackSize: 250, FactSets: *diffFacts, Classic: *diffClassic})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rules (%d rejected by the compiler: %v), %d cases: %d true, %d false, %d errors, %d mismatches",
		rep.Rules, rep.Rejected, rep.RejectedBy, rep.Cases, rep.True, rep.False, rep.Errors, len(rep.Mismatches))
	var tags []string
	for t := range rep.Productions {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		c := rep.Productions[tag]
		t.Logf("production %-10s %s", tag, c)
		limit, ok := maxRejected[tag]
		if !ok {
			t.Errorf("production %s has no bound in maxRejected", tag)
			continue
		}
		if float64(c.Rejected) > limit*float64(c.Generated)+3 {
			t.Errorf("the compiler refused %d of the %d expressions of production %s, more than %.0f%%: it tests less than it claims",
				c.Rejected, c.Generated, tag, limit*100)
		}
	}
	if float64(rep.Rejected) > maxRejectedAll*float64(*diffExprs) {
		t.Errorf("the compiler refused %d of %d expressions (%v), more than %.0f%%", rep.Rejected, *diffExprs, rep.RejectedBy, maxRejectedAll*100)
	}
	if rep.Cases != rep.Rules**diffFacts {
		t.Errorf("%d cases compared, want every one of the %d rules on each of the %d fact sets", rep.Cases, rep.Rules, *diffFacts)
	}
	if rep.True == 0 || rep.False == 0 || rep.Errors == 0 {
		t.Errorf("the generator should produce true, false and error outcomes")
	}
	report(t, rep)
}

// fuzzRules is how many expressions the pack of FuzzDifferential holds.
const fuzzRules = 300

// fuzzPack is the pack the fuzz target evaluates: fixed expressions, built
// once per process. Rules the code generator fails on are left out, and
// make the fuzz target fail.
var fuzzPack = sync.OnceValues(func() (*fuzzState, error) {
	rep := difftest.NewReport()
	packs, err := difftest.BuildDiffPacksInto(difftest.NewGen(7), fuzzRules, fuzzRules, rep)
	if err != nil {
		return nil, err
	}
	runner, err := difftest.BuildRunner(packs, rep)
	if err != nil {
		return nil, err
	}
	return &fuzzState{pack: packs[0], runner: runner, dropped: rep.Mismatches, rejected: rep.Rejected, rejectedBy: rep.RejectedBy}, nil
})

type fuzzState struct {
	pack    *difftest.DiffPack
	runner  *harness.Runner
	dropped []difftest.Mismatch
	// rejected counts the expressions the compiler refused, by code in
	// rejectedBy.
	rejected   int
	rejectedBy map[string]int
}

// maxFuzzRejected bounds the share of the fuzz pack's expressions that
// the compiler may refuse (cost, unsupported, the generator's rare type
// errors): 15 of 300 with the fixed seed today.
const maxFuzzRejected = fuzzRules / 15

// FuzzDifferential draws fact values from the fuzzer's input and compares
// both engines on a fixed set of generated expressions. A rule of the
// pack that the code generator fails on is a failure, and so are more
// refusals by the compiler than maxFuzzRejected: the pack is what is
// fuzzed, it must hold what the generator means to test.
func FuzzDifferential(f *testing.F) {
	for _, s := range []int64{0, 1, 42, -7, 1 << 40} {
		f.Add(s)
	}
	st, err := fuzzPack()
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range st.dropped {
		f.Errorf("the code generator fails on a rule of the fuzz pack (rule %s):\n%s", m.Rule, m)
	}
	f.Logf("the compiler refused %d of the fuzz pack's %d expressions: %v", st.rejected, fuzzRules, st.rejectedBy)
	if st.rejected > maxFuzzRejected {
		f.Errorf("the compiler refused %d of the fuzz pack's %d expressions (%v), more than %d", st.rejected, fuzzRules, st.rejectedBy, maxFuzzRejected)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		st, err := fuzzPack()
		if err != nil {
			t.Fatal(err)
		}
		g := difftest.NewGenFrom(rand.New(rand.NewSource(seed)))
		rep := &difftest.DiffReport{}
		if err := difftest.CompareInput(st.runner, 0, st.pack, g.Input(), rep); err != nil {
			t.Fatal(err)
		}
		report(t, rep)
	})
}

var (
	provRules    = flag.Int("prov.rules", long.N(200, 800), "rules in the provenance differential")
	provSessions = flag.Int("prov.sessions", long.N(250, 1200), "sessions in the provenance differential")
	provSeed     = flag.Int64("prov.seed", 1, "seed of the provenance differential")
)

// TestProvenanceDifferential compares the generated code, walking the
// runtime's graph, with the reference, walking its own, on random rules
// over the provenance facts and random sessions.
func TestProvenanceDifferential(t *testing.T) {
	rep, shapes, err := difftest.ProvenanceDifferential(difftest.ProvenanceOptions{Seed: *provSeed, Rules: *provRules, Sessions: *provSessions})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rules (%d over the cost limit), %d cases: %d true, %d false, %d errors, %d mismatches; sessions: %v",
		rep.Rules, rep.Rejected, rep.Cases, rep.True, rep.False, rep.Errors, len(rep.Mismatches), shapes)
	if rep.True == 0 || rep.False == 0 || rep.Errors == 0 {
		t.Errorf("the generator should produce true, false and error outcomes")
	}
	for _, s := range []string{"chain", "diamonds", "fan-in", "fan-out-in", "forest", "dag", "empty", "unrecorded input", "incomplete", "no inputs", "no profile", "rules reading provenance_nodes"} {
		if shapes[s] == 0 {
			t.Errorf("no session of shape %q", s)
		}
	}
	report(t, rep)
}

// provPack is the pack FuzzProvenance evaluates: fixed rules, built once
// per process.
var provPack = sync.OnceValues(func() (*fuzzState, error) {
	rep := difftest.NewReport()
	p, err := difftest.ProvenancePack(difftest.NewProvGen(11), 300, rep)
	if err != nil {
		return nil, err
	}
	runner, err := difftest.BuildRunner([]*difftest.DiffPack{p}, rep)
	if err != nil {
		return nil, err
	}
	return &fuzzState{pack: p, runner: runner, dropped: rep.Mismatches}, nil
})

// fuzzSessions numbers the fuzzer's sessions: each starts afresh.
var fuzzSessions atomic.Int64

// FuzzProvenance draws sessions (graphs, inputs, steps) from the fuzzer's
// input and compares both engines on fixed provenance rules.
func FuzzProvenance(f *testing.F) {
	for _, s := range []int64{0, 1, 42, -7, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		st, err := provPack()
		if err != nil {
			t.Fatal(err)
		}
		g := difftest.NewProvGen(seed)
		rep := &difftest.DiffReport{}
		if err := difftest.CompareSession(st.runner, 0, st.pack, g.Session(fmt.Sprint("fuzz", fuzzSessions.Add(1))), rep); err != nil {
			t.Fatal(err)
		}
		report(t, rep)
	})
}

var (
	sessSets     = flag.Int("diff.sets", long.N(15, 60), "compilation sets in the session differential")
	sessSessions = flag.Int("diff.sessions", 40, "sessions run against each set in the session differential")
	sessSteps    = flag.Int("diff.steps", 5, "steps of a session of the session differential, at most")
	sessOut      = flag.String("diff.out", "", "write each mismatch of the session differential under this directory, as a compilation set with its fixture")
)

// knownMismatch is an engine bug that the session differential finds and
// that is being fixed elsewhere: its signature, and the coverage class
// that produces it, so that a run that produced the class without meeting
// the bug says that the entry can go.
type knownMismatch struct {
	bug   string
	class string
	match func(m *difftest.SessionMismatch) bool
}

// knownMismatches are the engine bugs the session differential meets
// today: none. (Selectors over core facts, issue 18 item 4, and a flow away
// from tool.pre_invoke that ignored the given recent_tool_names,
// conformance/s5_eval/flow_kept.json, were found by it and fixed.)
var knownMismatches = []knownMismatch{}

// classFlowOverride counts the steps away from tool.pre_invoke that give
// lycaon.recent_tool_names to an anchor with a flow rule.
const classFlowOverride = "outcome:flow away from the call, names given"

// sessionClasses are the classes of generated sets, sessions and
// outcomes that a default run must produce: a generator that silently
// stops producing one fails here.
var sessionClasses = []string{
	"set:1 packs", "set:2 packs", "set:3 packs", "origin:stock", "origin:project",
	"anchor:tool", "anchor:content", "anchor:block", "anchor:block+inform", "anchor:inform",
	"kind:schema", "kind:policy", "kind:invariant", "kind:detector",
	"effect:block", "effect:warn", "effect:nudge", "effect:allow", "effect:transform", "transform:content anchor",
	"selector:string", "selector:int", "selector:bool", "selector:list(string)",
	"selector:core", "selector:standard", "selector:host", "selector:scalar", "selector:list",
	"requires", "extra profile", "flow", "flow:within", "flow:contiguous", "monitor",
	"on_error:default", "on_error:fail_open", "on_error:fail_closed",
	"on_fire:increment", "on_fire:reset self", "on_fire:reset other", "on_fire:reset across packs",
	"when:fact", "when:core", "when:fire_count_of", "when:breaker_count_of", "when:provider", "when:provider:dynamic argument",
	"when:tool_arg", "when:provenance", "when:detector fact", "when:cel", "when:absorb", "when:engine-kept",
	"when:tier core", "when:tier standard", "when:tier host", "when:tier oarc",
	"deny:enforce", "deny:monitor",
	"session:1 steps", "session:5 steps", "step:anchor of no rule", "step:content", "step:counters preset",
	"step:no profile supplied", "step:some profiles supplied", "fact:engine-kept", "step:history preset",
	"call:repeats the last", "call:walks a flow", "call:an int written as a double",
	"step:deadline",
	"validator:hits", "validator:misses", "validator:fails", "validator:times out", "validator:panics", "validator:not registered", "validator:facts",
	"provider:answers", "provider:answers zero values", "provider:missing", "provider:fails", "provider:times out", "provider:panics",
	"provenance:graph", "provenance:unrecorded input", "provenance:incomplete",
	"decision:allow", "decision:block", "decision:warn", "decision:nudge", "decision:transform", "decision:ask",
	"outcome:monitored", "outcome:failed closed", "outcome:several firings", "outcome:denied by default",
	"outcome:deny by default monitored", "outcome:content rewritten",
	"outcome:failed-closed transform, whole content", "outcome:failed-closed transform, known spans", "outcome:ask overruled by a block", "outcome:state carried from an earlier step",
	"outcome:counter read after a firing", "outcome:counter read after a reset", "outcome:counter read after an increment",
	classFlowOverride,
	"error:profile", "error:detector", "error:timeout", "error:not_registered", "error:no_provider", "error:provenance",
	"error:no_such_key", "error:index_out_of_range", "error:int_overflow", "error:divide_by_zero", "error:no_such_overload",
	"error:provider", "error:panic",
	"when:time", "when:content", "step:time later", "step:time back", "step:time dst", "step:time edge", "step:history times",
	"check:more than 8 actions",
}

// TestSessionDifferential compares the engines' whole decisions, step by
// step, on random compilation sets and random sessions (spec section 5):
// see testkit/difftest/sessiongen.go for what it generates.
func TestSessionDifferential(t *testing.T) {
	o := difftest.SessionOptions{Seed: *diffSeed, Sets: *sessSets, Sessions: *sessSessions, MaxSteps: *sessSteps}
	rep, err := difftest.SessionDifferential(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sets, %d rules (left out: %v), %d sessions, %d steps (%d checks), %d mismatches",
		rep.Sets, rep.Rules, rep.Dropped, rep.Sessions, rep.Steps, rep.Checks, len(rep.Mismatches))
	if *sessSets >= 30 && *sessSessions >= 40 && rep.Checks == 0 {
		t.Errorf("no step was a check (spec 5.11)")
	}
	var classes []string
	for c := range rep.Coverage {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		t.Logf("%-45s %d", c, rep.Coverage[c])
	}
	cat := catalog.Default()
	var supplied, selectable, selected int
	for _, f := range cat.Facts {
		if f.Tier != catalog.Core && f.Tier != catalog.Oarc {
			supplied++
		}
		if f.Type.Selectable() && f.Tier != catalog.Oarc {
			selectable++
		}
	}
	selected = len(rep.Selected)
	t.Logf("facts: %d of %d supplied by some step, %d of %d selectable named by some selector, %d of %d read by some condition",
		len(rep.Supplied), supplied, selected, selectable, len(rep.Read), len(cat.Facts))
	// The floors hold for runs at least as large as the default one.
	if *sessSets >= 30 && *sessSessions >= 40 {
		for _, c := range sessionClasses {
			if rep.Coverage[c] == 0 {
				t.Errorf("the run produced no %q", c)
			}
		}
		for _, f := range cat.Facts {
			if f.Tier != catalog.Core && f.Tier != catalog.Oarc && !rep.Supplied[f.CELName] {
				t.Errorf("no step supplied %s", f.CELName)
			}
			if f.Type.Selectable() && f.Tier != catalog.Oarc && !rep.Selected[f.CELName] {
				t.Errorf("no selector named %s", f.CELName)
			}
			if !rep.Read[f.CELName] {
				t.Errorf("no condition read %s", f.CELName)
			}
		}
	}
	reportSessions(t, rep)
}

var transSets = flag.Int("diff.transform_sets", long.N(10, 40), "compilation sets in the transform-biased session differential")

// transformClasses are what the transform-biased run must produce: the
// transforms side by side (their rewrites, failed-closed ones, asks and
// allowlists beside them) and the host's odd answers.
var transformClasses = []string{
	"bias:transforms", "effect:transform", "effect:ask", "deny:enforce", "monitor", "on_error:fail_open", "on_error:fail_closed",
	"decision:transform", "decision:ask", "outcome:content rewritten", "outcome:failed-closed transform, whole content",
	"outcome:failed-closed transform, known spans", "outcome:denied by default", "outcome:monitored",
	"validator:fails", "validator:times out", "when:time", "when:content", "when:content functions", "provenance:graph",
	"host:content of invalid UTF-8", "host:odd spans of a validator", "host:odd spans of the host",
	"when:transform that may fail", "host:validator answers without Has bits", "host:odd score of a validator", "span:touching", "span:overlapping", "span:uint bound",
	"span:double bound", "span:json.Number with a fraction",
}

// TestTransformSessionDifferential is the session differential biased
// towards transforms (difftest.SessionGen.Transforms): several transform
// rules at the content anchors with different replacements, detector
// transforms whose validators fail, asks, allowlists and monitored rules
// beside them, and hosts that answer with span facts of odd Go types,
// overlapping and out of the content, validators that forget their Has
// bits, contents of invalid UTF-8.
func TestTransformSessionDifferential(t *testing.T) {
	o := difftest.SessionOptions{Seed: *diffSeed, Sets: *transSets, Sessions: *sessSessions, MaxSteps: *sessSteps, Transforms: true}
	rep, err := difftest.SessionDifferential(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sets, %d rules (left out: %v), %d sessions, %d steps (%d checks), %d mismatches",
		rep.Sets, rep.Rules, rep.Dropped, rep.Sessions, rep.Steps, rep.Checks, len(rep.Mismatches))
	if *transSets >= 10 && *sessSessions >= 40 {
		for _, c := range transformClasses {
			if rep.Coverage[c] == 0 {
				t.Errorf("the run produced no %q", c)
			}
		}
	}
	reportSessions(t, rep)
}

// isKnown says whether a mismatch is a known bug.
func isKnown(m *difftest.SessionMismatch) bool {
	for _, k := range knownMismatches {
		if k.match(m) {
			return true
		}
	}
	return false
}

// reportSessions fails the test on every mismatch that is not a known
// one, grouped by what differs, and says when a known one is gone.
func reportSessions(t *testing.T, rep *difftest.SessionReport) {
	t.Helper()
	groups := map[string][]*difftest.SessionMismatch{}
	seen := make([]int, len(knownMismatches))
next:
	for _, m := range rep.Mismatches {
		for i, k := range knownMismatches {
			if k.match(m) {
				seen[i]++
				continue next
			}
		}
		groups[m.Fields] = append(groups[m.Fields], m)
	}
	for i, k := range knownMismatches {
		switch {
		case seen[i] > 0:
			t.Logf("known mismatch, %d times: %s", seen[i], k.bug)
		case rep.Coverage[k.class] > 0:
			t.Errorf("the run produced %q %d times without the known mismatch: remove it from knownMismatches (%s)", k.class, rep.Coverage[k.class], k.bug)
		}
	}
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ms := groups[k]
		sort.SliceStable(ms, func(i, j int) bool { return len(ms[i].String()) < len(ms[j].String()) })
		t.Errorf("%d mismatches on %s", len(ms), k)
		for i, m := range ms {
			if i == 3 {
				break
			}
			t.Errorf("%s", m)
		}
		if *sessOut != "" {
			for i, m := range ms {
				dir := filepath.Join(*sessOut, fmt.Sprintf("%s-%d", strings.ReplaceAll(k, ", ", "+"), i))
				if err := m.WriteTo(dir); err != nil {
					t.Error(err)
				}
			}
		}
	}
}

// sessionFuzz is the sets FuzzSessions runs sessions against: generated
// and built once per process.
var sessionFuzz = sync.OnceValues(func() (*difftest.SessionRig, error) {
	g := difftest.NewSessionGen(5)
	var sets []*difftest.GenSet
	for i := range 4 {
		sets = append(sets, g.Set(fmt.Sprintf("f%d", i)))
	}
	// Sets biased towards transforms (their sessions are too): several
	// transform rules with asks, allowlists, monitored rules beside them.
	g.Transforms = true
	for i := range 3 {
		sets = append(sets, g.Set(fmt.Sprintf("t%d", i)))
	}
	rep := difftest.NewSessionReport()
	rig, err := difftest.NewSessionRig(sets, rep)
	if err != nil {
		return nil, err
	}
	// A rule whose code does not build is left out of the rig; only a
	// known bug may be.
	for _, m := range rep.Mismatches {
		if !isKnown(m) {
			rig.Close()
			return nil, fmt.Errorf("%s", m)
		}
	}
	return rig, nil
})

// FuzzSessions draws sessions from the fuzzer's bytes (each byte one
// choice of the session generator: the set, the steps, their facts,
// validators, providers, graphs) and compares both engines at every step
// on fixed generated sets.
func FuzzSessions(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x01\x02\x03", "sessions", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8",
		// Sessions of the sets biased towards transforms (sets 4, 5, 6).
		"\xb0transforms", "\xc0\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", "\xd0\xff\x00\xff\x00\xff\x00\xff\x00\xff"} {
		f.Add([]byte(s))
	}
	rig, err := sessionFuzz()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(rig.Close)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := difftest.NewByteRand(data)
		i := r.Intn(len(rig.Sets))
		g := difftest.NewSessionGenFrom(r)
		g.Transforms = rig.Sets[i].Transforms
		name := fmt.Sprint("fuzz", fuzzSessions.Add(1))
		rep := difftest.NewSessionReport()
		if err := rig.Run(i, g.Session(rig.Sets[i], name, 6), rep); err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.Mismatches {
			t.Errorf("%s", m)
		}
	})
}

var (
	hostileExprs  = flag.Int("hostile.exprs", long.N(250, 2000), "expressions in the hostile differential")
	hostileInputs = flag.Int("hostile.inputs", 30, "inputs each hostile expression is evaluated with")
	hostileSeed   = flag.Int64("hostile.seed", 1, "seed of the hostile differential")
)

// TestHostileDifferential compares the generated code with the reference
// on the hostile generator's expressions (the oarc-tier functions on
// hostile arguments, macros and && || over errors, host values outside
// the dyn representation) and inputs.
func TestHostileDifferential(t *testing.T) {
	rep, err := difftest.HostileDifferential(difftest.HostileOptions{Seed: *hostileSeed, Expressions: *hostileExprs, PackSize: 200, Inputs: *hostileInputs})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rules (%d rejected by the compiler: %v), %d cases: %d true, %d false, %d errors, %d mismatches",
		rep.Rules, rep.Rejected, rep.RejectedBy, rep.Cases, rep.True, rep.False, rep.Errors, len(rep.Mismatches))
	for _, tag := range difftest.HostileTags {
		c := rep.Productions[tag]
		if c == nil || c.Generated-c.Rejected < 10 {
			t.Errorf("production %s: %v, fewer than 10 expressions compared", tag, c)
			continue
		}
		t.Logf("production %-10s %s", tag, c)
	}
	if rep.True == 0 || rep.False == 0 || rep.Errors == 0 {
		t.Errorf("the generator should produce true, false and error outcomes")
	}
	report(t, rep)
}

// hostilePack is the pack FuzzHostile evaluates: fixed hostile
// expressions, built once per process.
var hostilePack = sync.OnceValues(func() (*fuzzState, error) {
	rep := difftest.NewReport()
	packs, err := difftest.BuildDiffPacksInto(difftest.NewHostileGen(13), fuzzRules, fuzzRules, rep)
	if err != nil {
		return nil, err
	}
	runner, err := difftest.BuildRunner(packs, rep)
	if err != nil {
		return nil, err
	}
	return &fuzzState{pack: packs[0], runner: runner, dropped: rep.Mismatches, rejected: rep.Rejected, rejectedBy: rep.RejectedBy}, nil
})

// FuzzHostile draws hostile inputs from the fuzzer's bytes (each byte one
// choice of the hostile generator: the tool, tool_args of host values
// outside the dyn representation, the time, the history of calls, the
// content, the batch, the tenant) and compares both engines on a fixed
// set of hostile expressions, each input in a session of its own.
func FuzzHostile(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x01\x02\x03", "hostile", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		f.Add([]byte(s))
	}
	st, err := hostilePack()
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range st.dropped {
		f.Errorf("the code generator fails on a rule of the hostile pack (rule %s):\n%s", m.Rule, m)
	}
	if st.rejected > fuzzRules/5 {
		f.Errorf("the compiler refused %d of the hostile pack's %d expressions (%v), more than %d", st.rejected, fuzzRules, st.rejectedBy, fuzzRules/5)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := hostilePack()
		if err != nil {
			t.Fatal(err)
		}
		in := difftest.NewHostileGenFrom(difftest.NewByteRand(data)).Input()
		in.Session = fmt.Sprint("hostile-fuzz", fuzzSessions.Add(1))
		rep := &difftest.DiffReport{}
		if err := difftest.CompareInput(st.runner, 0, st.pack, in, rep); err != nil {
			t.Fatal(err)
		}
		report(t, rep)
	})
}
