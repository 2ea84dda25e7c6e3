// This file owns the session differential: generated compilation sets
// (sessiongen.go) loaded and built into one runner, and generated
// sessions, each a fixture of several steps, run on both engines, whose
// whole decisions are compared at every step with [harness.Disagree]:
// effect, code, codes, monitored, failed_closed, the rules and kinds of
// the errors, the rewritten content.

package difftest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/fixture"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// SessionOptions configures a session differential run.
type SessionOptions struct {
	Seed     int64
	Sets     int // compilation sets generated
	Sessions int // sessions run against each set
	MaxSteps int // steps of a session, at most
	// Transforms biases the sets and sessions towards transforms
	// (SessionGen.Transforms).
	Transforms bool
}

// SessionReport is what a session differential run did and found.
type SessionReport struct {
	Sets, Rules, Sessions, Steps int
	// Checks counts the steps that were checks (spec 5.11).
	Checks int
	// Dropped counts the generated rules left out, by reason: a
	// compiler's refusal (OAR_COST), cel-go not planning a condition, a
	// rule whose generated code does not build (also a mismatch), or a
	// rule that names one of those.
	Dropped map[string]int
	// Coverage counts, by class, what the generated sets and sessions
	// used (the generator's productions) and what the reference decided
	// (decisions, outcomes, error kinds).
	Coverage map[string]int
	// Supplied, Selected and Read are the catalog facts that some step
	// supplied, some selector named and some condition read.
	Supplied, Selected, Read map[string]bool
	Mismatches               []*SessionMismatch
}

// NewSessionReport returns an empty report.
func NewSessionReport() *SessionReport {
	return &SessionReport{Dropped: map[string]int{}, Coverage: map[string]int{},
		Supplied: map[string]bool{}, Selected: map[string]bool{}, Read: map[string]bool{}}
}

// SessionMismatch is a step where the engines disagree, or a rule whose
// generated code does not build.
type SessionMismatch struct {
	Set *GenSet
	// Fields is what differs ([harness.Disagree]), "build" for code that
	// does not build, or "runner" when the runner failed.
	Fields string
	// Rules are the rules at fault of a build failure.
	Rules []string
	// Err is the build error or the runner's failure.
	Err string
	// Fixture is the session up to the step that differs, with the
	// reference's answers as expectations (nil for a build failure).
	Fixture []byte
	// Hosts is what the host did at each of those steps beyond the
	// fixture (StepHost).
	Hosts                []StepHost
	Step                 int
	Reference, Generated wire.Response
}

// String shows the mismatch with everything needed to reproduce it: the
// set's files, the fixture and what the host did beyond it.
func (m *SessionMismatch) String() string {
	var b strings.Builder
	switch m.Fields {
	case "build":
		fmt.Fprintf(&b, "set %s: the generated code of %s does not build: %s\n", m.Set.Name, strings.Join(m.Rules, ", "), m.Err)
	case "runner":
		fmt.Fprintf(&b, "set %s, step %d: the runner failed: %s\n", m.Set.Name, m.Step, m.Err)
	default:
		fmt.Fprintf(&b, "set %s, step %d: engines disagree on %s\n  reference: %s\n  generated: %s\n", m.Set.Name, m.Step, m.Fields, harness.Show(m.Reference), harness.Show(m.Generated))
	}
	files := m.Set.Files()
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "--- %s\n%s", p, files[p])
	}
	if m.Fixture != nil {
		fmt.Fprintf(&b, "--- fixture\n%s\n", m.Fixture)
	}
	if h := m.hostText(); h != "" {
		fmt.Fprintf(&b, "--- what the host does beyond the fixture (wire.Request)\n%s", h)
	}
	return b.String()
}

// hostText lists, by step, what the host does that the fixture cannot say.
func (m *SessionMismatch) hostText() string {
	var b strings.Builder
	for k, h := range m.Hosts {
		if s := h.String(); s != "" {
			fmt.Fprintf(&b, "step %d: %s\n", k, s)
		}
	}
	return b.String()
}

// WriteTo writes the mismatch as a compilation set with its fixture, as
// conformance/sets/<name> holds them: <dir>/<pack>/... and the fixture
// in the first pack's fixtures directory.
func (m *SessionMismatch) WriteTo(dir string) error {
	for p, data := range m.Set.Files() {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	if m.Fixture == nil {
		return nil
	}
	fx := filepath.Join(dir, m.Set.Packs[0].Name, "fixtures", "differential.json")
	if err := os.MkdirAll(filepath.Dir(fx), 0o755); err != nil {
		return err
	}
	if h := m.hostText(); h != "" {
		// Not a fixture: what a test must add to the fixture's requests.
		if err := os.WriteFile(filepath.Join(dir, "HOST.txt"), []byte(h), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(fx, m.Fixture, 0o644)
}

// StepInput returns the anchor and the facts of the step that differs, as
// its fixture gives them ("" and nil for a build failure).
func (m *SessionMismatch) StepInput() (string, map[string]any) {
	var fx struct {
		Steps []struct {
			Input struct {
				Anchor string         `json:"anchor"`
				Facts  map[string]any `json:"facts"`
			} `json:"input"`
		} `json:"steps"`
	}
	if json.Unmarshal(m.Fixture, &fx) != nil || m.Step >= len(fx.Steps) {
		return "", nil
	}
	in := fx.Steps[m.Step].Input
	return in.Anchor, in.Facts
}

// drop removes rules from the set, and every rule that names one of them
// (transitively), counting them in rep under why and "naming a dropped
// rule".
func (s *GenSet) drop(ids []string, why string, rep *SessionReport) {
	gone := map[string]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	for changed := true; changed; {
		changed = false
		for _, r := range s.Rules() {
			if !gone[r.ID] && slices.ContainsFunc(r.Refs, func(id string) bool { return gone[id] }) {
				gone[r.ID] = true
				changed = true
			}
		}
	}
	for _, p := range s.Packs {
		p.Rules = slices.DeleteFunc(p.Rules, func(r *GenRule) bool {
			if !gone[r.ID] {
				return false
			}
			if slices.Contains(ids, r.ID) {
				rep.Dropped[why]++
			} else {
				rep.Dropped["naming a dropped rule"]++
			}
			return true
		})
	}
}

// SessionRig is generated sets, loaded, built into one runner and ready
// to run sessions.
type SessionRig struct {
	Sets   []*GenSet
	loaded []*compiler.Set
	refs   []*reference.Engine
	runner *harness.Runner
	dir    string
}

// Close stops the runner and removes the sets' files.
func (rig *SessionRig) Close() {
	if rig.runner != nil {
		rig.runner.Close()
	}
	os.RemoveAll(rig.dir)
}

// NewSessionRig loads the sets and builds them. Rules the compiler
// refuses for their cost, or whose condition cel-go cannot plan, are left
// out (with the rules that name them); any other load error is the
// generator's fault. A rule whose generated code does not build is a
// mismatch of rep, and is left out too.
func NewSessionRig(sets []*GenSet, rep *SessionReport) (*SessionRig, error) {
	dir, err := os.MkdirTemp("", "oarc-sessions-")
	if err != nil {
		return nil, err
	}
	rig := &SessionRig{Sets: sets, dir: dir, loaded: make([]*compiler.Set, len(sets)), refs: make([]*reference.Engine, len(sets))}
	for i := range sets {
		if err := rig.load(i, rep); err != nil {
			rig.Close()
			return nil, err
		}
	}
	irs := make([]*ir.Set, len(sets))
	for i, l := range rig.loaded {
		irs[i] = compiler.Build(l)
	}
	runner, errs := harness.BuildEach(irs)
	failed := false
	for i, berr := range errs {
		if berr == nil {
			continue
		}
		failed = true
		bad, err := notCompiling(i, irs[i], berr)
		if err != nil {
			if runner != nil {
				runner.Close()
			}
			rig.Close()
			return nil, fmt.Errorf("set %s: %v", sets[i].Name, err)
		}
		var ids []string
		for id := range bad {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			rep.Mismatches = append(rep.Mismatches, &SessionMismatch{Set: sets[i].clone(), Fields: "build", Rules: []string{id}, Err: bad[id]})
		}
		sets[i].drop(ids, "does not build", rep)
		if err := rig.load(i, rep); err != nil {
			if runner != nil {
				runner.Close()
			}
			rig.Close()
			return nil, err
		}
		irs[i] = compiler.Build(rig.loaded[i])
	}
	if failed {
		if runner != nil {
			runner.Close()
		}
		if runner, err = harness.Build(irs); err != nil {
			rig.Close()
			return nil, fmt.Errorf("the sets do not build without the rules at fault: %v", err)
		}
	}
	rig.runner = runner
	for _, s := range sets {
		rep.Sets++
		rep.Rules += len(s.Rules())
	}
	return rig, nil
}

// clone copies a set deeply enough that dropping rules from the copy
// leaves the original as it was.
func (s *GenSet) clone() *GenSet {
	c := *s
	c.Packs = nil
	for _, p := range s.Packs {
		pc := *p
		pc.Rules = slices.Clone(p.Rules)
		c.Packs = append(c.Packs, &pc)
	}
	return &c
}

// mayRefuse says whether the compiler may refuse rule id with code: for
// its cost, or, for a rule with an expression of the expression
// differential's generator (when:cel), as that generator's small share of
// ill-typed or unsupported expressions (TestGeneratedWellTyped bounds it).
func (s *GenSet) mayRefuse(id, code string) bool {
	if code == compiler.CodeCost {
		return true
	}
	for _, r := range s.Rules() {
		if r.ID == id {
			return slices.Contains(r.Tags, "when:cel") && (code == compiler.CodeCELType || code == compiler.CodeUnsupported)
		}
	}
	return false
}

// load writes set i and loads it, leaving out the rules that cannot run.
func (rig *SessionRig) load(i int, rep *SessionReport) error {
	s := rig.Sets[i]
	sdir := filepath.Join(rig.dir, s.Name)
	for tries := 0; ; tries++ {
		if tries > 100 {
			return fmt.Errorf("set %s: still failing to load after dropping 100 times", s.Name)
		}
		if err := writeSet(sdir, s); err != nil {
			return err
		}
		var dirs []string
		for _, p := range s.Packs {
			dirs = append(dirs, filepath.Join(sdir, p.Name))
		}
		set, diags := compiler.Load(dirs, compiler.Options{})
		if diags.HasErrors() {
			refused := map[string][]string{}
			for _, d := range diags {
				if d.Severity != compiler.Error {
					continue
				}
				id := strings.TrimSuffix(filepath.Base(d.Pos.File), ".yaml")
				if !s.mayRefuse(id, d.Code) {
					return fmt.Errorf("set %s: the generator wrote a set that does not load:\n%s\n%s", s.Name, diags.Text(), (&SessionMismatch{Set: s}).String())
				}
				refused[d.Code] = append(refused[d.Code], id)
			}
			for code, ids := range refused {
				s.drop(ids, code, rep)
			}
			continue
		}
		ref, err := reference.New(set)
		if err != nil {
			m := noPlanRE.FindStringSubmatch(err.Error())
			if m == nil {
				return fmt.Errorf("set %s: %v", s.Name, err)
			}
			s.drop([]string{m[1]}, codeNoPlan, rep)
			continue
		}
		rig.loaded[i], rig.refs[i] = set, ref
		return nil
	}
}

func writeSet(dir string, s *GenSet) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, p := range s.Packs {
		if err := os.MkdirAll(filepath.Join(dir, p.Name, "policy"), 0o755); err != nil {
			return err
		}
	}
	for p, data := range s.Files() {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Run runs one generated session (a fixture, see [SessionGen.Session])
// against set i on both engines, comparing the decisions at every step.
// The first step that differs is recorded in rep and ends the session.
// An error is the generator's fault (an invalid fixture).
func (rig *SessionRig) Run(i int, gs *GenSession, rep *SessionReport) error {
	name, data := gs.Name, gs.Fixture
	fxs, err := fixture.Parse(name+".json", data, rig.loaded[i].Catalog)
	if err != nil {
		return err
	}
	f := fxs[0]
	if f.Invalid != "" {
		return fmt.Errorf("the generator wrote an invalid fixture: %s\n%s", f.InvalidWhere(), data)
	}
	rep.Sessions++
	refSession := reference.NewSession()
	var answers []wire.Response
	fired := false // an enforced firing in an earlier step
	// The rules that fired (enforced) and that a firing reset in the
	// earlier steps, by id.
	firedRules, resetRules, incremented := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for k, st := range f.Steps {
		in := st.Inputs()[0]
		rep.observeCounters(rig.Sets[i], in.Anchor, firedRules, resetRules, incremented)
		req := harness.Request(in, i, name, rig.loaded[i].Catalog)
		if len(st.Check) > 0 {
			req = harness.CheckRequest(&st, i, name, rig.loaded[i].Catalog)
			rep.Checks++
		}
		gs.Hosts[k].apply(req)
		gen, err := rig.runner.Do(req)
		ref := rig.refs[i].Evaluate(req, refSession)
		answers = append(answers, ref)
		rep.Steps++
		// What the step's decisions fired (a check's, every action's).
		codes := ref.Codes
		if len(ref.Check) > 0 {
			rep.observe(rig.Sets[i], in, ref.Check[0], k > 0 && fired)
			codes = nil
			for _, a := range ref.Check {
				codes = append(codes, a.Codes...)
			}
		} else {
			rep.observe(rig.Sets[i], in, ref, k > 0 && fired)
		}
		fired = fired || len(codes) > 0
		for _, r := range rig.Sets[i].Rules() {
			if slices.Contains(codes, r.ID) {
				firedRules[r.ID] = true
				incremented[r.ID] = incremented[r.ID] || r.Increment
				for _, x := range r.Reset {
					id, _, _ := strings.Cut(x, ".")
					resetRules[id] = true
				}
			}
		}
		m := &SessionMismatch{Set: rig.Sets[i], Step: k, Reference: ref, Generated: gen}
		switch {
		case err != nil:
			m.Fields, m.Err = "runner", err.Error()
		default:
			m.Fields = harness.Disagree(ref, gen)
		}
		if m.Fields != "" {
			m.Fixture, m.Hosts = reproducer(data, answers), gs.Hosts[:k+1]
			rep.Mismatches = append(rep.Mismatches, m)
			return nil
		}
	}
	return nil
}

// observeCounters counts the steps where a rule at the anchor reads the
// counters of a rule that fired, or that a firing reset, in an earlier
// step: what a session carries, seen.
func (rep *SessionReport) observeCounters(s *GenSet, anchor string, fired, reset, incremented map[string]bool) {
	var afterFiring, afterReset, afterIncrement bool
	for _, r := range s.Rules() {
		if r.Anchor != anchor {
			continue
		}
		for _, id := range r.CounterReads {
			afterFiring = afterFiring || fired[id]
			afterReset = afterReset || reset[id]
			afterIncrement = afterIncrement || incremented[id]
		}
	}
	if afterFiring {
		rep.Coverage["outcome:counter read after a firing"]++
	}
	if afterReset {
		rep.Coverage["outcome:counter read after a reset"]++
	}
	if afterIncrement {
		rep.Coverage["outcome:counter read after an increment"]++
	}
}

// effectOf is the effect of the set's rule id ("" for a deny-by-default
// code).
func effectOf(s *GenSet, id string) string {
	for _, r := range s.Rules() {
		if r.ID == id {
			return r.Effect
		}
	}
	return ""
}

// replacements are the replacements of the set's transform rules at
// anchor.
func replacements(s *GenSet, anchor string) []string {
	var out []string
	for _, r := range s.Rules() {
		if r.Effect != "transform" || r.Anchor != anchor {
			continue
		}
		rep := "[REDACTED]"
		if r.Replacement != nil {
			rep = *r.Replacement
		}
		out = append(out, rep)
	}
	return out
}

// observe counts what the reference decided at one step.
func (rep *SessionReport) observe(s *GenSet, in *fixture.Input, r wire.Response, carried bool) {
	c := rep.Coverage
	c["decision:"+r.Effect]++
	if len(r.Monitored) > 0 {
		c["outcome:monitored"]++
	}
	if len(r.FailedClosed) > 0 {
		c["outcome:failed closed"]++
	}
	if len(r.Codes) > 1 {
		c["outcome:several firings"]++
	}
	for _, e := range r.Errors {
		c["error:"+e.Kind]++
	}
	for _, p := range s.Packs {
		if p.Deny == nil {
			continue
		}
		if r.Code == p.Deny.Code {
			c["outcome:denied by default"]++
		}
		if slices.Contains(r.Monitored, p.Deny.Code) {
			c["outcome:deny by default monitored"]++
		}
	}
	if r.Effect == "transform" && r.Content != in.Content {
		c["outcome:content rewritten"]++
	}
	// A transform rule that fired only by failing closed: with unknown
	// spans it redacts the whole content (the content is then one
	// replacement), else its known spans (docs/choices-runtime.md).
	if (r.Effect == "transform" || r.Effect == "ask") && in.Content != "" {
		for _, rule := range s.Rules() {
			if rule.Effect != "transform" || !slices.Contains(r.FailedClosed, rule.ID) || !slices.Contains(r.Codes, rule.ID) {
				continue
			}
			if slices.Contains(replacements(s, in.Anchor), r.Content) {
				c["outcome:failed-closed transform, whole content"]++
			} else {
				c["outcome:failed-closed transform, known spans"]++
			}
			break
		}
	}
	if r.Effect == "block" && r.Question == "" && slices.ContainsFunc(r.Codes, func(id string) bool { return effectOf(s, id) == "ask" }) {
		c["outcome:ask overruled by a block"]++
	}
	if _, given := in.Facts["lycaon.recent_tool_names"]; given && in.Anchor != "tool.pre_invoke" {
		for _, rule := range s.Rules() {
			if rule.Anchor == in.Anchor && rule.Flow != nil {
				c["outcome:flow away from the call, names given"]++
				break
			}
		}
	}
	if carried {
		c["outcome:state carried from an earlier step"]++
	}
	for name := range in.Facts {
		rep.Supplied[name] = true
	}
}

// reproducer rewrites a generated session as a fixture that runs up to
// the last step answered, each step expecting the reference's whole
// answer.
func reproducer(data []byte, answers []wire.Response) []byte {
	var fx struct {
		Name  string           `json:"name"`
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal(data, &fx); err != nil {
		return data
	}
	fx.Steps = fx.Steps[:len(answers)]
	for k, a := range answers {
		if len(a.Check) > 0 {
			var l []any
			for _, x := range a.Check {
				l = append(l, expectation(x))
			}
			fx.Steps[k]["expected"] = l
			continue
		}
		fx.Steps[k]["expected"] = expectation(a)
	}
	out, err := json.MarshalIndent(fx, "", "  ")
	if err != nil {
		return data
	}
	return out
}

// expectation is an answer as a fixture's expected.
func expectation(a wire.Response) map[string]any {
	{
		exp := map[string]any{"decision": a.Effect, "code": a.Code, "codes": a.Codes, "monitored": a.Monitored,
			"failed_closed": a.FailedClosed, "errors": len(a.Errors)}
		if a.Effect == "transform" {
			exp["content"] = a.Content
		}
		for k, v := range map[string]string{"rejection": a.Rejection, "banner": a.Banner, "notes": a.Notes, "question": a.Question} {
			if v != "" {
				exp[k] = v
			}
		}
		return exp
	}
}

// SessionDifferential runs a seeded session differential.
func SessionDifferential(o SessionOptions) (*SessionReport, error) {
	g := NewSessionGen(o.Seed)
	g.Transforms = o.Transforms
	rep := NewSessionReport()
	sets := make([]*GenSet, o.Sets)
	for i := range sets {
		sets[i] = g.Set(fmt.Sprintf("s%d", i))
	}
	rig, err := NewSessionRig(sets, rep)
	if err != nil {
		return rep, err
	}
	defer rig.Close()
	for i, s := range rig.Sets {
		for k := range o.Sessions {
			if err := rig.Run(i, g.Session(s, fmt.Sprintf("%s-%d", s.Name, k), o.MaxSteps), rep); err != nil {
				return rep, err
			}
		}
	}
	g.Report(rep)
	return rep, nil
}

// Report adds what the generator used to rep: its productions and the
// facts its sets select and read.
func (g *SessionGen) Report(rep *SessionReport) {
	for k, n := range g.Counts {
		rep.Coverage[k] += n
	}
	for k := range g.selected {
		rep.Selected[k] = true
	}
	for k := range g.read {
		rep.Read[k] = true
	}
}

// byteSource is a rand.Source that deals the fuzzer's bytes, one a draw,
// so that each byte the fuzzer changes changes one choice; past them, a
// generator seeded with their hash.
type byteSource struct {
	data []byte
	rest rand.Source64
}

// NewByteRand returns a rand.Rand whose draws come from data (see
// byteSource).
func NewByteRand(data []byte) *rand.Rand {
	h := fnv.New64a()
	h.Write(data)
	return rand.New(&byteSource{data: data, rest: rand.NewSource(int64(h.Sum64())).(rand.Source64)})
}

// Uint64 deals the next byte, or a draw of the generator past them.
func (s *byteSource) Uint64() uint64 {
	if len(s.data) == 0 {
		return s.rest.Uint64()
	}
	b := s.data[0]
	s.data = s.data[1:]
	// The byte in every byte of the word: Intn reads high bits for
	// powers of two and the remainder otherwise.
	var w [8]byte
	for i := range w {
		w[i] = b
	}
	return binary.LittleEndian.Uint64(w[:])
}

// Int63 is Uint64 without its low bit.
func (s *byteSource) Int63() int64 { return int64(s.Uint64() >> 1) }

// Seed does nothing: the bytes are the seed.
func (s *byteSource) Seed(int64) {}
