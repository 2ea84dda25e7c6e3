// This file owns differential testing: random expressions, batched as the
// rules of a few packs (each rule warn + fail_open, so that its outcome
// reads off the decision: in codes when true, in errors when it failed),
// evaluated over random facts by the generated code and by the reference.

package difftest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// DiffOptions configures a differential run.
type DiffOptions struct {
	Seed        int64
	Expressions int  // number of generated expressions
	PackSize    int  // rules per generated pack
	FactSets    int  // fact sets each pack is evaluated with
	Classic     bool // the first generator's distribution only (Gen.Classic)
}

// Mismatch is one (expression, facts) case where the engines disagree.
type Mismatch struct {
	Rule      string
	When      string
	Facts     string
	Reference string
	Generated string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("when: %s\nfacts: %s\nreference: %s\ngenerated: %s", m.When, m.Facts, m.Reference, m.Generated)
}

// DiffReport is the outcome of a differential run.
type DiffReport struct {
	Rules      int            // expressions that loaded
	Rejected   int            // expressions the compiler rejected (cost, unsupported)
	RejectedBy map[string]int // by diagnostic code
	Cases      int            // (expression, facts) pairs compared
	True       int
	False      int
	Errors     int // cases where both engines reported an error
	Mismatches []Mismatch
	// Productions counts, per biased production (biased.go), the
	// expressions that used it and how many of them the compiler
	// rejected.
	Productions map[string]*ProductionCount
}

// ProductionCount is how often one biased production was generated and
// rejected.
type ProductionCount struct{ Generated, Rejected int }

func (c ProductionCount) String() string {
	return fmt.Sprintf("%d/%d rejected", c.Rejected, c.Generated)
}

// TagFirst counts, in DiffReport.Productions, the expressions of the
// first generator's distribution: those that use no biased production.
const TagFirst = "first"

// codeNoPlan counts, in DiffReport.RejectedBy, the expressions the
// compiler accepts and cel-go checks but cannot plan.
const codeNoPlan = "CEL_GO_NO_PLAN"

var noPlanRE = regexp.MustCompile(`^reference: rule (R[0-9]+): `)

// WhenGen generates the rules' expressions: each with the profiles it
// reads, and the productions it used (Tags).
type WhenGen interface {
	When() (string, []string)
	Tags() []string
}

// DiffPack is a generated pack ready to run: the loaded pack and each rule's
// expression by id.
type DiffPack struct {
	Pack  *compiler.Set
	Whens map[string]string
	Tags  map[string][]string // biased productions by rule id
	ref   *reference.Engine
}

// BuildDiffPacks generates expressions and loads them as packs, dropping
// expressions the compiler rejects.
func BuildDiffPacks(g WhenGen, n, packSize int) ([]*DiffPack, int, error) {
	rep := NewReport()
	packs, err := buildDiffPacks(g, n, packSize, rep)
	return packs, rep.Rejected, err
}

// BuildDiffPacksInto is BuildDiffPacks counting rejections in rep, and
// adding to its mismatches the rules the code generator fails on.
func BuildDiffPacksInto(g WhenGen, n, packSize int, rep *DiffReport) ([]*DiffPack, error) {
	return buildDiffPacks(g, n, packSize, rep)
}

// NewReport returns an empty report.
func NewReport() *DiffReport {
	return &DiffReport{RejectedBy: map[string]int{}, Productions: map[string]*ProductionCount{}}
}

// drop removes a generated rule from its pack directory, counted in rep
// under code.
func drop(pdir, id, code string, tags map[string][]string, rep *DiffReport) bool {
	if os.Remove(filepath.Join(pdir, "policy", id+".yaml")) != nil {
		return false
	}
	rep.Rejected++
	rep.RejectedBy[code]++
	for _, t := range tags[id] {
		count(rep.Productions, t).Rejected++
	}
	return true
}

func buildDiffPacks(g WhenGen, n, packSize int, rep *DiffReport) ([]*DiffPack, error) {
	dir, err := os.MkdirTemp("", "oarc-diff-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var packs []*DiffPack
	for start := 0; start < n; start += packSize {
		pdir := filepath.Join(dir, fmt.Sprintf("pack%d", start/packSize))
		if err := os.MkdirAll(filepath.Join(pdir, "policy"), 0o755); err != nil {
			return nil, err
		}
		whens := map[string]string{}
		tags := map[string][]string{}
		for i := start; i < min(n, start+packSize); i++ {
			id := fmt.Sprintf("R%06d", i)
			when, profiles := g.When()
			whens[id] = when
			tags[id] = g.Tags()
			if len(tags[id]) == 0 {
				tags[id] = []string{TagFirst}
			}
			q, _ := json.Marshal(when)
			doc := fmt.Sprintf("oar: '1.0'\nid: %s\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\non_error: fail_open\nwhen: %s\n", id, q)
			if len(profiles) > 0 {
				doc += fmt.Sprintf("requires:\n  profiles: [%s]\n", strings.Join(profiles, ", "))
			}
			if err := os.WriteFile(filepath.Join(pdir, "policy", id+".yaml"), []byte(doc), 0o644); err != nil {
				return nil, err
			}
		}
		load := func() (*compiler.Set, error) {
			p, diags := compiler.LoadPack(pdir, compiler.Options{})
			if diags.HasErrors() {
				return nil, fmt.Errorf("generated pack does not load after dropping rejected rules:\n%s", diags.Text())
			}
			return p, nil
		}
		p, diags := compiler.LoadPack(pdir, compiler.Options{})
		if diags.HasErrors() {
			for _, d := range diags {
				if d.Severity == compiler.Error {
					drop(pdir, strings.TrimSuffix(filepath.Base(d.Pos.File), ".yaml"), d.Code, tags, rep)
				}
			}
			if p, err = load(); err != nil {
				return nil, err
			}
		}
		// cel-go checks some expressions it then cannot plan (a constant
		// null index of a dyn value: "invalid qualifier type"); the
		// compiler accepts them, so the reference cannot run them: drop
		// them too, counted under codeNoPlan.
		ref, err := reference.New(p)
		for tries := 0; err != nil && tries < 50; tries++ {
			m := noPlanRE.FindStringSubmatch(err.Error())
			if m == nil || !drop(pdir, m[1], codeNoPlan, tags, rep) {
				return nil, err
			}
			if p, err = load(); err != nil {
				return nil, err
			}
			ref, err = reference.New(p)
		}
		if err != nil {
			return nil, err
		}
		// A rule the code generator cannot generate (it panics or its
		// output does not format) is a failure of its own, reported with
		// the mismatches; the others still run.
		if bad := ungeneratable(p); len(bad) > 0 {
			for _, b := range bad {
				if drop(pdir, b.Rule, codeNoGen, tags, rep) {
					rep.Mismatches = append(rep.Mismatches, b)
				}
			}
			if p, err = load(); err != nil {
				return nil, err
			}
			if ref, err = reference.New(p); err != nil {
				return nil, err
			}
		}
		for id := range whens {
			for _, t := range tags[id] {
				count(rep.Productions, t).Generated++
			}
			if !harness.HasRule(p, id) {
				delete(whens, id)
				delete(tags, id)
			}
		}
		packs = append(packs, &DiffPack{Pack: p, Whens: whens, Tags: tags, ref: ref})
	}
	return packs, nil
}

// codeNoGen counts, in DiffReport.RejectedBy, the rules the code
// generator fails on (each is also a mismatch).
const codeNoGen = "CODEGEN_FAILS"

// generates runs the code generator on p, a panic turned into an error.
func generates(p *compiler.Set) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("codegen panics: %v", r)
		}
	}()
	_, err = codegen.Generate(compiler.Build(p), codegen.Options{Package: "p"})
	return err
}

// ungeneratable returns the rules of p that the code generator fails on
// alone, when it fails on the whole pack.
func ungeneratable(p *compiler.Set) []Mismatch {
	if generates(p) == nil {
		return nil
	}
	var out []Mismatch
	for _, r := range p.Rules {
		one := *p
		one.Rules = []*compiler.Rule{r}
		if err := generates(&one); err != nil {
			out = append(out, Mismatch{Rule: r.ID, When: r.When, Facts: "(any)", Reference: "runs", Generated: err.Error()})
		}
	}
	return out
}

// Differential runs a seeded differential test.
func Differential(o DiffOptions) (*DiffReport, error) {
	g := NewGen(o.Seed)
	g.Classic = o.Classic
	return runDifferential(g, o.Expressions, o.PackSize, o.FactSets, false)
}

// inputGen is a [WhenGen] that also generates the inputs the rules are
// evaluated with.
type inputGen interface {
	WhenGen
	Input() Input
}

// runDifferential compares the engines on n of g's expressions, in packs
// of packSize rules, each evaluated with inputs of g's inputs. With
// ownSession, every pack evaluates an input in a session of its own (the
// input's session, "/" and the pack's index), so that what one pack's
// rules record is not read by the next pack's.
func runDifferential(g inputGen, n, packSize, inputs int, ownSession bool) (*DiffReport, error) {
	rep := NewReport()
	packs, err := buildDiffPacks(g, n, packSize, rep)
	if err != nil {
		return nil, err
	}
	runner, err := BuildRunner(packs, rep)
	if err != nil {
		return nil, err
	}
	defer runner.Close()
	for _, p := range packs {
		rep.Rules += len(p.Pack.Rules)
	}
	for range inputs {
		in := g.Input()
		session := in.Session
		for i, p := range packs {
			if ownSession {
				in.Session = fmt.Sprintf("%s/%d", session, i)
			}
			if err := CompareInput(runner, i, p, in, rep); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// BuildRunner builds the runner over the packs. Rules whose generated
// code does not compile are found from the Go compiler's messages, each
// reported as a mismatch and left out, and the runner is built again
// without them.
func BuildRunner(packs []*DiffPack, rep *DiffReport) (*harness.Runner, error) {
	irs := make([]*ir.Set, len(packs))
	for i, p := range packs {
		irs[i] = compiler.Build(p.Pack)
	}
	runner, errs := harness.BuildEach(irs)
	failed := false
	for i, err := range errs {
		if err == nil {
			continue
		}
		failed = true
		bad, err := notCompiling(i, irs[i], err)
		if err != nil {
			return nil, err
		}
		p := packs[i]
		one := *p.Pack
		one.Rules = nil
		for _, r := range p.Pack.Rules {
			if msg, ok := bad[r.ID]; ok {
				rep.Mismatches = append(rep.Mismatches, Mismatch{Rule: r.ID, When: r.When, Facts: "(any)", Reference: "runs", Generated: "does not compile: " + msg})
				rep.Rejected++
				rep.RejectedBy[codeNoGen]++
				for _, t := range p.Tags[r.ID] {
					count(rep.Productions, t).Rejected++
				}
				delete(p.Whens, r.ID)
				continue
			}
			one.Rules = append(one.Rules, r)
		}
		p.Pack = &one
		if p.ref, err = reference.New(p.Pack); err != nil {
			return nil, err
		}
	}
	if !failed {
		return runner, nil
	}
	if runner != nil {
		runner.Close()
	}
	for i, p := range packs {
		irs[i] = compiler.Build(p.Pack)
	}
	return harness.Build(irs)
}

var goErrRE = regexp.MustCompile(`(?m)^\s*p([0-9]+)/rules_oarc\.go:([0-9]+):[0-9]+: (.*)$`)

// notCompiling maps the Go compiler's messages about pack i to the rules
// whose functions they are in, by generating the pack's source again.
func notCompiling(i int, p *ir.Set, buildErr error) (map[string]string, error) {
	src, err := codegen.Generate(p, codegen.Options{Package: fmt.Sprintf("p%d", i)})
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	bad := map[string]string{}
	for _, m := range goErrRE.FindAllStringSubmatch(buildErr.Error(), -1) {
		if m[1] != fmt.Sprint(i) {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		id := ""
		for l := min(n, len(lines)) - 1; l >= 0 && id == ""; l-- {
			if rest, ok := strings.CutPrefix(lines[l], "func oRule_"); ok {
				id, _, _ = strings.Cut(rest, "(")
			}
		}
		if id == "" {
			return nil, fmt.Errorf("pack %d: generated code does not compile outside a rule's function: %v", i, buildErr)
		}
		bad[id] = m[3]
	}
	if len(bad) == 0 {
		return nil, buildErr
	}
	return bad, nil
}

// CompareFacts evaluates one fact set with both engines and adds the
// per-rule outcomes to rep.
func CompareFacts(runner *harness.Runner, index int, p *DiffPack, facts lycaon.Facts, rep *DiffReport) error {
	return CompareInput(runner, index, p, Input{Facts: facts}, rep)
}

// CompareInput evaluates one input (facts and providers) with both
// engines and adds the per-rule outcomes to rep.
func CompareInput(runner *harness.Runner, index int, p *DiffPack, in Input, rep *DiffReport) error {
	req := &wire.Request{Set: index, Anchor: "tool.pre_invoke", Facts: FactsMap(&in.Facts), Providers: in.Providers,
		Session: in.Session, Time: in.Time, History: in.History, Content: in.Content, Tenant: in.Tenant}
	if in.Batch != nil {
		// A check: the occurrence, then one action for each other tool
		// of the batch, alike but for the tool.
		req.Check = []wire.Request{{Anchor: req.Anchor, Facts: req.Facts, Providers: req.Providers, Time: req.Time, Content: req.Content}}
		for _, tool := range in.Batch {
			c := req.Check[0]
			c.Facts = map[string]any{}
			for k, v := range req.Facts {
				c.Facts[k] = v
			}
			c.Facts["tool"] = tool
			req.Check = append(req.Check, c)
		}
	}
	gen, err := runner.Do(req)
	if err != nil {
		return err
	}
	if gen.Fatal != "" {
		return fmt.Errorf("runner: %s (input %s)", gen.Fatal, ShowInput(in))
	}
	ref := p.ref.Evaluate(req, nil)
	if in.Batch == nil {
		rep.tally(p, ref, gen, func() string { return ShowInput(in) }, nil)
		return nil
	}
	if len(ref.Check) != len(req.Check) || len(gen.Check) != len(req.Check) {
		return fmt.Errorf("a check of %d actions: %d decisions from the reference, %d from the generated code", len(req.Check), len(ref.Check), len(gen.Check))
	}
	for i := range req.Check {
		rep.tally(p, ref.Check[i], gen.Check[i], func() string { return fmt.Sprintf("action %d of %s", i, ShowInput(in)) }, nil)
	}
	return nil
}

// tally compares, rule by rule, the outcomes of one evaluation by the
// reference (ref) and the generated code (gen), and counts them in rep.
// facts describes the input of a mismatch; sameMessage, when not nil, says
// for which error kinds the two messages must agree too.
func (rep *DiffReport) tally(p *DiffPack, ref, gen wire.Response, facts func() string, sameMessage func(kind string) bool) {
	ro, gn := outcomes(ref), outcomes(gen)
	for _, r := range p.Pack.Rules {
		a, b := ro[r.ID], gn[r.ID]
		if a.kind == "" {
			a.kind = "false"
		}
		if b.kind == "" {
			b.kind = "false"
		}
		rep.Cases++
		switch {
		case a.kind != b.kind || a.msg != b.msg && sameMessage != nil && sameMessage(a.kind):
			rep.Mismatches = append(rep.Mismatches, Mismatch{Rule: r.ID, When: r.When, Facts: facts(), Reference: a.String(), Generated: b.String()})
		case a.kind == "true":
			rep.True++
		case a.kind == "false":
			rep.False++
		default:
			rep.Errors++
		}
	}
}

type outcome struct{ kind, msg string }

func (o outcome) String() string {
	if o.msg != "" {
		return o.kind + " (" + o.msg + ")"
	}
	return o.kind
}

func outcomes(r wire.Response) map[string]outcome {
	m := map[string]outcome{}
	for _, c := range r.Codes {
		m[c] = outcome{kind: "true"}
	}
	for _, e := range r.Errors {
		m[e.Rule] = outcome{kind: "error:" + e.Kind, msg: e.Message}
	}
	return m
}

// ShowInput prints the facts and, when there are any, the providers.
func ShowInput(in Input) string {
	s := ShowFacts(in.Facts)
	if in.Providers != nil {
		s += fmt.Sprintf(" providers=%#v", in.Providers)
	}
	if !in.Time.IsZero() {
		s += " time=" + in.Time.Format(time.RFC3339)
	}
	for _, h := range in.History {
		s += fmt.Sprintf(" history=%q@%s", h.Tool, h.Time.Format(time.RFC3339))
	}
	if in.Content != "" {
		s += fmt.Sprintf(" content=%q", in.Content)
	}
	if in.Batch != nil {
		s += fmt.Sprintf(" check with tools=%#v", in.Batch)
	}
	if in.Tenant != "" {
		s += fmt.Sprintf(" tenant=%q", in.Tenant)
	}
	return s
}

func count(m map[string]*ProductionCount, t string) *ProductionCount {
	if m == nil {
		return &ProductionCount{}
	}
	if m[t] == nil {
		m[t] = &ProductionCount{}
	}
	return m[t]
}

// ShowFacts prints the facts the generator sets, with Go quoting so that
// invalid UTF-8 and NaN are visible.
func ShowFacts(f lycaon.Facts) string {
	var parts []string
	add := func(name string) {
		v, _ := f.Get(name)
		parts = append(parts, fmt.Sprintf("%s=%#v", name, v))
	}
	for _, n := range []string{"lycaon.fruitless_search_run", "lycaon.active_worker_count", "content_length", "lycaon.last_assistant", "lycaon.phase", "tool",
		"lycaon.workers_idle", "lycaon.tool_is_state", "prompt_injection_score", "jailbreak_score", "lycaon.turn_tools", "principal_roles", "tool_args", "secret_matches"} {
		add(n)
	}
	return strings.Join(parts, " ")
}

// FactsMap spells facts by CEL name, as the wire carries them: every fact
// of the default catalog the struct holds.
func FactsMap(f *lycaon.Facts) map[string]any {
	m := map[string]any{}
	for _, fact := range catalog.Default().Facts {
		if v, ok := f.Get(fact.CELName); ok {
			m[fact.CELName] = v
		}
	}
	return m
}
