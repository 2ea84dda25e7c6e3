// This file owns running fixtures: collecting them from the paths `oarc
// test` takes, loading the packs they run against, sending every step to
// the engines and comparing the answers with the fixture and with each
// other.

package harness

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/fixture"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// Engines selects what fixtures run against.
type Engines int

// The engine selections.
const (
	Both Engines = iota
	Reference
	Generated
)

// ParseEngines parses the -engine flag.
func ParseEngines(s string) (Engines, bool) {
	switch s {
	case "both", "":
		return Both, true
	case "reference":
		return Reference, true
	case "generated":
		return Generated, true
	}
	return 0, false
}

// Options configures a run.
type Options struct {
	Engines Engines
	Run     *regexp.Regexp // only fixtures whose name matches; nil for all
	Load    compiler.Options
}

// Status is a fixture's outcome.
type Status string

// The outcomes.
const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Invalid Status = "invalid"
)

// Result is the outcome of one fixture.
type Result struct {
	Name     string `json:"name"`
	File     string `json:"file"`
	Status   Status `json:"status"`
	Expected any    `json:"expected,omitempty"`
	// Got holds the answers by engine ("reference", "generated"), one
	// entry per step, or the load diagnostics of a rejection fixture.
	Got      map[string]any `json:"got,omitempty"`
	Messages []string       `json:"messages,omitempty"`
}

// job is one fixture with what it runs against.
type job struct {
	fx  *fixture.Fixture
	set *loaded // the set it runs against when it has no rule of its own
}

// loaded is a compilation set fixtures run against.
type loaded struct {
	set    *compiler.Set
	diags  compiler.Diagnostics
	ref    *reference.Engine
	refErr error
	index  int // in the runner, -1 if not built
	// cov is what the fixtures run against a set of packs (or a rule
	// file) covered; nil for a fixture's own rule.
	cov *SetCoverage
}

// collector gathers the fixtures of a run and the sets they run against.
type collector struct {
	opts  Options
	jobs  []job
	bad   []Result
	packs map[string]*loaded // a pack directory or rule file loaded on its own
	sets  []*loaded          // the sets of packs and rule files, in the order loaded
}

// track starts the coverage of a set of packs (or of a rule file).
func (c *collector) track(l *loaded, paths []string) *loaded {
	l.cov = newCoverage(l.set, paths)
	c.sets = append(c.sets, l)
	return l
}

// catalogOf is the catalog a set's fixtures are read with: the set's
// (which -catalog overrides), else the command's.
func (c *collector) catalogOf(l *loaded) *catalog.Catalog {
	if l != nil && l.set != nil && l.set.Catalog != nil {
		return l.set.Catalog
	}
	if c.opts.Load.Catalog != nil {
		return c.opts.Load.Catalog
	}
	return catalog.Default()
}

func (c *collector) addFile(file string, l *loaded) {
	fxs, err := fixture.ParseFile(file, c.catalogOf(l))
	if err != nil {
		c.bad = append(c.bad, Result{File: file, Status: Invalid, Messages: []string{err.Error()}})
		return
	}
	for _, f := range fxs {
		c.jobs = append(c.jobs, job{fx: f, set: l})
	}
}

// alone loads a pack directory or rule file as a set of its own.
func (c *collector) alone(key string) *loaded {
	if l := c.packs[key]; l != nil {
		return l
	}
	s, diags := compiler.LoadPack(key, c.opts.Load)
	l := c.track(&loaded{set: s, diags: diags, index: -1}, []string{key})
	c.packs[key] = l
	return l
}

// collect finds the fixtures under paths. A path is a pack directory, a
// rule file, a fixture file or a directory searched recursively for
// fixture files. The pack directories given form one compilation set,
// which their fixtures run against (spec section 1); a rule file's
// fixtures run against it alone; any other fixture file against its own
// pack. Unreadable files are reported as invalid results.
func collect(paths []string, opts Options) ([]job, []Result, []*loaded) {
	c := &collector{opts: opts, packs: map[string]*loaded{}}
	var packDirs []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() && isPack(p) {
			packDirs = append(packDirs, p)
		}
	}
	var set *loaded
	if len(packDirs) > 0 {
		s, diags := compiler.Load(packDirs, opts.Load)
		set = c.track(&loaded{set: s, diags: diags, index: -1}, packDirs)
		if len(packDirs) == 1 {
			c.packs[packDirs[0]] = set
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			c.bad = append(c.bad, Result{File: p, Status: Invalid, Messages: []string{err.Error()}})
			continue
		}
		if !st.IsDir() {
			switch filepath.Ext(p) {
			case ".yaml", ".yml":
				stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
				dir := filepath.Join(filepath.Dir(filepath.Dir(p)), "fixtures")
				files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
				for _, f := range files {
					b := strings.TrimSuffix(filepath.Base(f), ".json")
					if b == stem || strings.HasPrefix(b, stem+".") {
						c.addFile(f, c.alone(p))
					}
				}
			default:
				var l *loaded
				if pk := packOf(p); pk != "" {
					l = c.alone(pk)
				}
				c.addFile(p, l)
			}
			continue
		}
		var files []string
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(path) == ".json" {
				files = append(files, path)
			}
			return nil
		})
		sort.Strings(files)
		inSet := isPack(p)
		for _, f := range files {
			var l *loaded
			switch pk := packOf(f); {
			case inSet && pk != "" && sameDir(pk, p):
				l = set
			case pk != "":
				l = c.alone(pk)
			}
			c.addFile(f, l)
		}
	}
	return c.jobs, c.bad, c.sets
}

func isPack(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "policy"))
	return err == nil && st.IsDir()
}

func sameDir(a, b string) bool { return filepath.Clean(a) == filepath.Clean(b) }

// packOf returns the pack a fixture file belongs to: <pack> for
// <pack>/fixtures/x.json when <pack>/policy exists, else "".
func packOf(file string) string {
	dir := filepath.Dir(file)
	if filepath.Base(dir) != "fixtures" {
		return ""
	}
	pack := filepath.Dir(dir)
	if isPack(pack) {
		return pack
	}
	return ""
}

// Run runs the fixtures under paths.
func Run(paths []string, opts Options) []Result { return RunReport(paths, opts).Results }

// Report is what a run found: the result of every fixture, and what the
// fixtures covered of each set of packs (or rule file) they ran against.
type Report struct {
	Results []Result
	// Coverage has one entry per set of packs or rule file the paths
	// named or the fixtures belong to, in the order they were loaded
	// (fixtures with a rule of their own cover nothing of a pack).
	Coverage []*SetCoverage
}

// RunReport runs the fixtures under paths and reports their coverage.
func RunReport(paths []string, opts Options) *Report {
	jobs, results, sets := collect(paths, opts)
	type planned struct {
		job  job
		set  *loaded
		res  Result
		done bool
	}
	var plan []*planned
	var irs []*ir.Set
	for _, j := range jobs {
		f := j.fx
		if opts.Run != nil && !opts.Run.MatchString(f.Name) {
			continue
		}
		pl := &planned{job: j, res: Result{Name: f.Name, File: f.File}}
		plan = append(plan, pl)
		if f.Invalid != "" {
			pl.res.Status, pl.res.Messages, pl.done = Invalid, []string{f.InvalidWhere()}, true
			continue
		}
		var l *loaded
		switch {
		case f.Rule != nil:
			// The rule uses the catalog of the pack the fixture belongs
			// to, else the command's.
			lo := opts.Load
			if j.set != nil && j.set.set != nil && lo.Catalog == nil {
				lo.Catalog = j.set.set.Catalog
			}
			p, diags := LoadRule(f, lo)
			l = &loaded{set: p, diags: diags, index: -1}
		case j.set != nil:
			l = j.set
		default:
			pl.res.Status, pl.res.Messages, pl.done = Invalid, []string{f.Where() + ": no rule, and the file is not in a pack's fixtures directory"}, true
			continue
		}
		pl.set = l
		if f.Error != "" {
			pl.res.Expected = map[string]string{"error": f.Error}
			pl.res.Got = map[string]any{"diagnostics": l.diags.Codes()}
			if contains(l.diags.Codes(), f.Error) {
				pl.res.Status = Pass
			} else {
				pl.res.Status = Fail
				pl.res.Messages = []string{fmt.Sprintf("%s: expected load error %s, got %s", f.Where(), f.Error, describeDiags(l.diags))}
			}
			pl.done = true
			continue
		}
		if l.diags.HasErrors() {
			pl.res.Status, pl.res.Messages, pl.done = Fail, []string{fmt.Sprintf("%s: the pack does not load:\n%s", f.Where(), l.diags.Text())}, true
			continue
		}
		for _, st := range f.Steps {
			for id := range st.Input.Counters {
				if !HasRule(l.set, id) {
					pl.res.Status, pl.res.Messages, pl.done = Invalid, []string{fmt.Sprintf("%s: counters: no rule %s in the set", f.Where(), id)}, true
				}
			}
		}
		if pl.done {
			continue
		}
		if opts.Engines != Generated && l.ref == nil && l.refErr == nil {
			l.ref, l.refErr = reference.New(l.set)
		}
		if opts.Engines != Reference && l.index < 0 {
			l.index = len(irs)
			irs = append(irs, compiler.Build(l.set))
		}
	}
	// One runner for every set; a set that does not generate or build
	// fails its own fixtures only.
	var runner *Runner
	var buildErrs []error
	if len(irs) > 0 {
		runner, buildErrs = BuildEach(irs)
		if runner != nil {
			defer runner.Close()
		}
	}
	for i, pl := range plan {
		if pl.set != nil && pl.set.cov != nil {
			pl.set.cov.Fixtures++
		}
		if !pl.done {
			var buildErr error
			if pl.set.index >= 0 {
				buildErr = buildErrs[pl.set.index]
			}
			runFixture(pl.job.fx, pl.set, opts.Engines, runner, buildErr, fmt.Sprintf("s%d", i), &pl.res)
		}
		results = append(results, pl.res)
	}
	rep := &Report{Results: results}
	for _, l := range sets {
		rep.Coverage = append(rep.Coverage, l.cov)
	}
	return rep
}

// LoadRule loads a fixture's inline rule as a pack of its own (origin
// stock, spec section 8). The diagnostics point into the fixture file: at
// the JSON value (or key) they are about, and inside a string at the
// character they name.
func LoadRule(f *fixture.Fixture, opts compiler.Options) (*compiler.Set, compiler.Diagnostics) {
	// The document's own name only has to be unique; what users see is
	// the fixture file, once the positions are mapped.
	doc := fmt.Sprintf("%s#%d", f.File, f.Index)
	p, diags := compiler.LoadRuleDoc(doc, f.Rule, "stock", opts)
	at := func(pos compiler.Pos) (compiler.Pos, bool) {
		if pos.File != doc || f.RuleMap == nil {
			return pos, false
		}
		line, col := f.RuleMap.Pos(pos.Line, pos.Col)
		return compiler.Pos{File: f.File, Line: line, Col: col}, true
	}
	for i := range diags {
		if pos, ok := at(diags[i].Pos); ok {
			diags[i].Pos = pos
			diags[i].Source = f.RuleMap.Line(pos.Line)
		}
	}
	diags.Sort()
	if p != nil {
		for _, r := range p.Rules {
			r.Pos, _ = at(r.Pos)
			r.WhenPos, _ = at(r.WhenPos)
		}
	}
	return p, diags
}

// HasRule reports whether the set has a rule with the given id.
func HasRule(p *compiler.Set, id string) bool {
	for _, r := range p.Rules {
		if r.ID == id {
			return true
		}
	}
	return false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func describeDiags(ds compiler.Diagnostics) string {
	if len(ds) == 0 {
		return "no diagnostics"
	}
	return strings.TrimSpace(ds.Text())
}

// Request converts a fixture step's input into a wire request.
func Request(in *fixture.Input, set int, session string) *wire.Request {
	req := &wire.Request{
		Set: set, Session: session, Anchor: in.Anchor, Facts: in.Facts,
		Profiles: in.Profiles, Content: in.Content, Providers: in.Providers,
	}
	if pv := in.Provenance; pv != nil {
		req.Nodes, req.Inputs, req.Incomplete = pv.Nodes, pv.Inputs, pv.Incomplete
	}
	if in.Counters != nil {
		req.Counters = map[string][2]int64{}
		for id, c := range in.Counters {
			req.Counters[id] = [2]int64{c.Fire, c.Breaker}
		}
	}
	if in.Detectors != nil {
		req.Detectors = map[string]wire.Detector{}
		for id, d := range in.Detectors {
			req.Detectors[id] = wire.Detector{Hit: d.Hit, Facts: d.Facts, Error: d.Error}
		}
	}
	return req
}

func runFixture(f *fixture.Fixture, l *loaded, engines Engines, runner *Runner, buildErr error, session string, res *Result) {
	var exp []map[string]any
	for _, st := range f.Steps {
		exp = append(exp, expectedMap(st.Expected))
	}
	if len(exp) == 1 {
		res.Expected = exp[0]
	} else {
		res.Expected = exp
	}
	res.Got = map[string]any{}
	var refGot, genGot []wire.Response
	refSession := reference.NewSession()
	fail := func(format string, args ...any) {
		res.Messages = append(res.Messages, fmt.Sprintf(f.Where()+": "+format, args...))
	}
	for i, st := range f.Steps {
		step := ""
		if len(f.Steps) > 1 {
			step = fmt.Sprintf("step %d: ", i)
		}
		req := Request(&st.Input, l.index, session)
		var ref, gen *wire.Response
		if engines != Generated {
			if l.refErr != nil {
				fail("%sreference: %v", step, l.refErr)
			} else {
				r := l.ref.Evaluate(req, refSession)
				ref = &r
				refGot = append(refGot, r)
				for _, m := range compare(st.Expected, r) {
					fail("%sreference: %s", step, m)
				}
			}
		}
		if engines != Reference {
			if buildErr != nil {
				fail("%sgenerated: %v", step, buildErr)
			} else {
				r, err := runner.Do(req)
				if err != nil {
					fail("%sgenerated: %v", step, err)
				} else {
					gen = &r
					genGot = append(genGot, r)
					for _, m := range compare(st.Expected, r) {
						fail("%sgenerated: %s", step, m)
					}
				}
			}
		}
		if ref != nil && gen != nil {
			if d := Disagree(*ref, *gen); d != "" {
				fail("%sengines disagree: %s\n  reference: %s\n  generated: %s", step, d, Show(*ref), Show(*gen))
			}
		}
		if l.cov != nil {
			l.cov.observe(st.Input.Anchor, ref, gen)
		}
	}
	if refGot != nil {
		res.Got["reference"] = oneOrMany(refGot)
	}
	if genGot != nil {
		res.Got["generated"] = oneOrMany(genGot)
	}
	res.Status = Pass
	if len(res.Messages) > 0 {
		res.Status = Fail
	}
}

func oneOrMany(l []wire.Response) any {
	if len(l) == 1 {
		return l[0]
	}
	return l
}

func expectedMap(e fixture.Expected) map[string]any {
	m := map[string]any{"decision": e.Decision}
	if e.Code != nil {
		m["code"] = *e.Code
	}
	if e.Codes != nil {
		m["codes"] = *e.Codes
	}
	if e.Monitored != nil {
		m["monitored"] = *e.Monitored
	}
	if e.FailedClosed != nil {
		m["failed_closed"] = *e.FailedClosed
	}
	if e.Errors != nil {
		m["errors"] = *e.Errors
	}
	if e.Content != nil {
		m["content"] = *e.Content
	}
	return m
}

// compare checks an answer against the keys a fixture gives.
func compare(e fixture.Expected, r wire.Response) []string {
	var out []string
	if e.Decision != r.Effect {
		out = append(out, fmt.Sprintf("decision: expected %s, got %s", e.Decision, Show(r)))
	}
	if e.Code != nil && *e.Code != r.Code {
		out = append(out, fmt.Sprintf("code: expected %q, got %q", *e.Code, r.Code))
	}
	if e.Codes != nil && !sameList(*e.Codes, r.Codes) {
		out = append(out, fmt.Sprintf("codes: expected %q, got %q", *e.Codes, r.Codes))
	}
	if e.Monitored != nil && !sameList(*e.Monitored, r.Monitored) {
		out = append(out, fmt.Sprintf("monitored: expected %q, got %q", *e.Monitored, r.Monitored))
	}
	if e.FailedClosed != nil && !sameList(*e.FailedClosed, r.FailedClosed) {
		out = append(out, fmt.Sprintf("failed_closed: expected %q, got %q", *e.FailedClosed, r.FailedClosed))
	}
	if e.Errors != nil && *e.Errors != len(r.Errors) {
		out = append(out, fmt.Sprintf("errors: expected %d, got %d %s", *e.Errors, len(r.Errors), showErrors(r.Errors)))
	}
	if e.Content != nil && *e.Content != r.Content {
		out = append(out, fmt.Sprintf("content: expected %q, got %q", *e.Content, r.Content))
	}
	return out
}

func sameList(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Disagree compares two engines' answers: everything but error messages
// must be equal. It returns "" when they agree.
func Disagree(a, b wire.Response) string {
	var d []string
	if a.Effect != b.Effect {
		d = append(d, "decision")
	}
	if a.Code != b.Code {
		d = append(d, "code")
	}
	if !sameList(a.Codes, b.Codes) {
		d = append(d, "codes")
	}
	if !sameList(a.Monitored, b.Monitored) {
		d = append(d, "monitored")
	}
	if !sameList(a.FailedClosed, b.FailedClosed) {
		d = append(d, "failed_closed")
	}
	if a.Content != b.Content {
		d = append(d, "content")
	}
	ea, eb := errKeys(a.Errors), errKeys(b.Errors)
	if !sameList(ea, eb) {
		d = append(d, "errors")
	}
	return strings.Join(d, ", ")
}

func errKeys(es []wire.Error) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Rule+":"+e.Kind)
	}
	return out
}

func showErrors(es []wire.Error) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%s: %s (%s)", e.Rule, e.Message, e.Kind))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// Show prints an answer on one line.
func Show(r wire.Response) string {
	s := fmt.Sprintf("%s code=%q codes=%q monitored=%q failed_closed=%q errors=%s", r.Effect, r.Code, r.Codes, r.Monitored, r.FailedClosed, showErrors(r.Errors))
	if r.Content != "" {
		s += fmt.Sprintf(" content=%q", r.Content)
	}
	return s
}
