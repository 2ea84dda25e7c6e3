// This file owns running fixtures: collecting them from the paths `oarc
// test` takes, loading the packs they run against, sending every step to
// the engines and comparing the answers with the fixture and with each
// other.

package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

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
	// file) covered; nil for a fixture's own rule. paths are what the
	// set was loaded from.
	cov   *SetCoverage
	paths []string
}

// collector gathers the fixtures of a run and the sets they run against.
type collector struct {
	opts  Options
	jobs  []job
	bad   []Result
	packs map[string]*loaded // a pack directory or rule file loaded on its own
	sets  []*loaded          // the sets of packs and rule files, in the order loaded
	// inSet are the pack directories a set.yaml declared, inside its
	// directory: a walk of that directory does not run them alone.
	inSet map[string]bool
}

// track starts the coverage of a set of packs (or of a rule file).
func (c *collector) track(l *loaded, paths []string) *loaded {
	l.cov = newCoverage(l.set, paths)
	l.paths = paths
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

// invalid reports a problem of a file that is not a fixture's.
func (c *collector) invalid(file, format string, args ...any) {
	c.bad = append(c.bad, Result{File: file, Status: Invalid, Messages: []string{fmt.Sprintf(format, args...)}})
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

// together loads pack directories as one compilation set.
func (c *collector) together(dirs []string) *loaded {
	s, diags := compiler.Load(dirs, c.opts.Load)
	l := c.track(&loaded{set: s, diags: diags, index: -1}, dirs)
	if len(dirs) == 1 {
		c.packs[dirs[0]] = l
	}
	return l
}

// collect finds the fixtures under paths (docs/test.md). A path is a
// pack directory, a rule file, a fixture file, or a directory searched
// for them. The pack directories given form one compilation set, which
// their fixtures run against (spec section 1); a rule file's fixtures run
// against it alone; any other fixture file against its own pack. In a
// directory searched, a pack directory runs alone, and a directory with
// a set.yaml runs the packs it lists as one set. A pack's fixtures are its
// fixtures/*.json. Unreadable files are reported as invalid results.
func collect(paths []string, opts Options) ([]job, []Result, []*loaded) {
	c := &collector{opts: opts, packs: map[string]*loaded{}, inSet: map[string]bool{}}
	var packDirs []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() && isPack(p) {
			packDirs = append(packDirs, p)
		}
	}
	var given *loaded
	if len(packDirs) > 0 {
		given = c.together(packDirs)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			c.bad = append(c.bad, Result{File: p, Status: Invalid, Messages: []string{err.Error()}})
		case st.IsDir() && isPack(p):
			c.packFixtures(p, given)
		case st.IsDir():
			before := len(c.jobs) + len(c.bad) + len(c.sets)
			c.walk(p)
			if len(c.jobs)+len(c.bad)+len(c.sets) == before {
				// A directory named on the command line in which nothing
				// runs is a mistake (rule files beside fixtures/, not in
				// policy/), not a green run.
				c.invalid(p, "%s: no pack, set.yaml or fixture file in it: a pack is a directory with pack.yaml or policy/ (rules in policy/<ID>.yaml, fixtures in fixtures/*.json)", p)
			}
		case filepath.Ext(p) == ".yaml" || filepath.Ext(p) == ".yml":
			// A rule file is loaded even without fixtures: a rule that
			// does not load fails the run.
			l := c.alone(p)
			stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
			files, _ := jsonFiles(filepath.Join(filepath.Dir(filepath.Dir(p)), "fixtures"))
			for _, f := range files {
				b := strings.TrimSuffix(filepath.Base(f), ".json")
				if b == stem || strings.HasPrefix(b, stem+".") {
					c.addFile(f, l)
				}
			}
		default:
			var l *loaded
			if pk := packOf(p); pk != "" {
				l = c.alone(pk)
			}
			c.addFile(p, l)
		}
	}
	return c.jobs, c.bad, c.sets
}

// packFixtures adds a pack's fixtures, fixtures/*.json, run against l.
func (c *collector) packFixtures(pack string, l *loaded) {
	if exists(filepath.Join(pack, SetFile)) {
		c.invalid(filepath.Join(pack, SetFile), "%s: a %s declares a set of the packs of a directory that is not itself a pack; this one is a pack (it has pack.yaml or policy/)",
			filepath.Join(pack, SetFile), SetFile)
	}
	dir := filepath.Join(pack, "fixtures")
	files, err := jsonFiles(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.invalid(dir, "%s: %v", dir, err)
	}
	for _, f := range files {
		c.addFile(f, l)
	}
}

// walk searches a directory that is not a pack: a set.yaml makes the
// packs it lists one set; each other pack directory runs alone; fixture
// files run against their own rule, or their pack when the walk started
// in its fixtures directory; other directories are searched in turn.
// Symlinks to directories are not followed.
func (c *collector) walk(dir string) {
	if exists(filepath.Join(dir, SetFile)) && !c.declaredSet(dir) {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.invalid(dir, "%s: %v", dir, err)
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() && c.inSet[filepath.Clean(p)]:
		case e.IsDir() && isPack(p):
			c.packFixtures(p, c.alone(p))
		case e.IsDir():
			c.walk(p)
		case filepath.Ext(p) == ".json":
			var l *loaded
			if pk := packOf(p); pk != "" {
				l = c.alone(pk)
			}
			c.addFile(p, l)
		}
	}
}

// declaredSet loads the packs dir's set.yaml lists as one set and adds
// their fixtures; it reports false, with the problem as an invalid
// result, when the file is not a valid set.yaml.
func (c *collector) declaredSet(dir string) bool {
	file := filepath.Join(dir, SetFile)
	packs, err := ReadSetFile(file)
	if err != nil {
		c.invalid(file, "%v", err)
		return false
	}
	l := c.together(packs)
	for _, pk := range packs {
		if rel, err := filepath.Rel(dir, pk); err == nil && filepath.IsLocal(rel) {
			c.inSet[filepath.Clean(pk)] = true
		}
		c.packFixtures(pk, l)
	}
	return true
}

// SetFile is the file that makes the packs of a directory one compilation
// set for `oarc test` (docs/test.md):
//
//	packs: [stock, project]
//
// lists the pack directories, relative to the file's directory.
const SetFile = "set.yaml"

// ReadSetFile reads a set.yaml and returns the pack directories it lists,
// joined to its directory, in its order. The file is one YAML mapping
// with one field, packs: a non-empty list of distinct relative paths,
// each a pack directory (it has pack.yaml or policy/). A problem is an
// error "file:line:col: message".
func ReadSetFile(file string) ([]string, error) {
	text, err := compiler.ReadRegularFile(file, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", file, n.Line, n.Column, fmt.Sprintf(format, args...))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:1:1: a %s is a mapping with one field, packs: the pack directories of the set", file, SetFile)
	}
	root := doc.Content[0]
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch {
		case k.Value != "packs":
			return nil, at(k, "unknown field %q: a %s has one field, packs", k.Value, SetFile)
		case list != nil:
			return nil, at(k, "packs is given twice")
		}
		list = v
	}
	if list == nil {
		return nil, at(root, "missing field packs: the pack directories of the set")
	}
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, at(list, "packs must be a non-empty list of pack directories, relative to %s", filepath.Dir(file))
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range list.Content {
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" || n.Value == "" {
			return nil, at(n, "packs: not a directory name")
		}
		if filepath.IsAbs(n.Value) {
			return nil, at(n, "packs: %q is absolute; name it relative to %s", n.Value, filepath.Dir(file))
		}
		dir := filepath.Join(filepath.Dir(file), n.Value)
		if seen[dir] {
			return nil, at(n, "packs: %q is listed twice", n.Value)
		}
		seen[dir] = true
		if st, err := os.Stat(dir); err != nil || !st.IsDir() || !isPack(dir) {
			return nil, at(n, "packs: %s is not a pack directory (a directory with pack.yaml or policy/)", dir)
		}
		out = append(out, dir)
	}
	return out, nil
}

// jsonFiles lists the .json files of a directory (not its
// subdirectories), sorted.
func jsonFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !e.IsDir() && filepath.Ext(e.Name()) == ".json" {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, err
}

// isPack reports whether dir is a pack directory: it has a pack.yaml or
// a policy directory (spec section 1).
func isPack(dir string) bool {
	if st, err := os.Stat(filepath.Join(dir, "policy")); err == nil && st.IsDir() {
		return true
	}
	return exists(filepath.Join(dir, "pack.yaml"))
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// packOf returns the pack a fixture file belongs to: <pack> for
// <pack>/fixtures/x.json when <pack> is a pack directory, else "".
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
	// NotLoaded are those sets that do not load, with their diagnostics
	// (every one, warnings included), in the same order. A run with one
	// fails, fixtures or not: a green run means the rules load.
	NotLoaded []NotLoaded
}

// NotLoaded is a set of packs (or a rule file) with load errors.
type NotLoaded struct {
	Paths       []string             `json:"paths"`
	Diagnostics compiler.Diagnostics `json:"diagnostics"`
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
			if j.set != nil && j.set.cov != nil && !f.GivesRule() {
				j.set.cov.Invalid++
			}
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
			// Spec 8: the rule must be rejected, and by that code: a
			// warning with it (a rule that loads) does not pass.
			if contains(errorCodes(l.diags), f.Error) {
				pl.res.Status = Pass
			} else {
				pl.res.Status = Fail
				pl.res.Messages = []string{fmt.Sprintf("%s: expected load error %s, got %s", f.Where(), f.Error, describeDiags(l.diags))}
			}
			pl.done = true
			continue
		}
		if l.diags.HasErrors() {
			msg := fmt.Sprintf("%s: the pack does not load:\n%s", f.Where(), l.diags.Text())
			if l.paths != nil {
				// The set's diagnostics are reported once, with the set
				// (Report.NotLoaded): the fixture names the first.
				msg = fmt.Sprintf("%s: %s does not load: %s", f.Where(), strings.Join(l.paths, " + "), firstError(l.diags))
			}
			pl.res.Status, pl.res.Messages, pl.done = Fail, []string{msg}, true
			continue
		}
		// Counters of a rule outside the set (spec 8's own example gives
		// OTHER_RULE's beside a rule alone) are state no rule can read:
		// fire_count_of and reset name rules of the set (spec 5.3). They
		// are not sent (wire.SetCounters skips them too).
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
		if l.diags.HasErrors() {
			rep.NotLoaded = append(rep.NotLoaded, NotLoaded{Paths: l.paths, Diagnostics: l.diags})
		}
	}
	return rep
}

// firstError is the first error of ds, and how many more there are.
func firstError(ds compiler.Diagnostics) string {
	n := 0
	first := ""
	for _, d := range ds {
		if d.Severity == compiler.Error {
			if n == 0 {
				first = d.String()
			}
			n++
		}
	}
	if n > 1 {
		first += fmt.Sprintf(" (and %d more)", n-1)
	}
	return first
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

// errorCodes are the codes of the errors among ds (not its warnings).
func errorCodes(ds compiler.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		if d.Severity == compiler.Error {
			out = append(out, d.Code)
		}
	}
	return out
}

func describeDiags(ds compiler.Diagnostics) string {
	if len(ds) == 0 {
		return "no diagnostics"
	}
	return strings.TrimSpace(ds.Text())
}

// Request converts a fixture step's input into a wire request, for a set
// checked against cat: the facts the engine keeps (spec 5.10) that the
// input gives replace the engine's values for that step (Kept).
func Request(in *fixture.Input, set int, session string, cat *catalog.Catalog) *wire.Request {
	req := &wire.Request{
		Set: set, Session: session, Anchor: in.Anchor, Facts: in.Facts,
		Profiles: in.Profiles, Content: in.Content, Providers: in.Providers,
	}
	for name, v := range in.Facts {
		if f := cat.Fact(name); f != nil && f.Kept != catalog.NotKept {
			if req.Kept == nil {
				req.Kept = map[string]any{}
				req.Facts = map[string]any{}
				for n, v := range in.Facts {
					req.Facts[n] = v
				}
			}
			req.Kept[f.Name] = v
			delete(req.Facts, name)
		}
	}
	req.Tenant, req.Time = in.Tenant, in.Time
	for _, c := range in.History {
		req.History = append(req.History, wire.HistoryCall{Tool: c.Tool, Args: c.Args, Code: c.Code, Time: c.Time})
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
	var exp []any
	for _, st := range f.Steps {
		if len(st.Check) > 0 {
			var l []map[string]any
			for _, a := range st.Check {
				l = append(l, expectedMap(a.Expected))
			}
			exp = append(exp, l)
			continue
		}
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
		if len(st.Check) > 0 {
			refGot, genGot = runCheck(&st, l, engines, runner, buildErr, session, step, fail, refSession, refGot, genGot)
			continue
		}
		req := Request(&st.Input, l.index, session, l.set.Catalog)
		var ref, gen *wire.Response
		if engines != Generated {
			if l.refErr != nil {
				fail("%sreference: %v", step, l.refErr)
			} else {
				r := l.ref.Evaluate(req, refSession)
				ref = &r
				refGot = append(refGot, r)
				for _, m := range compare(st.Expected, st.Input.Approve, r) {
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
					for _, m := range compare(st.Expected, st.Input.Approve, r) {
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

// CheckRequest converts a check step into a wire request (spec 5.11): the
// first action's input gives the session's state and the host
// environment, shared by every action.
func CheckRequest(st *fixture.Step, set int, session string, cat *catalog.Catalog) *wire.Request {
	req := Request(&st.Check[0].Input, set, session, cat)
	outer := *req
	outer.Check = make([]wire.Request, len(st.Check))
	for i := range st.Check {
		a := Request(&st.Check[i].Input, set, session, cat)
		a.Counters, a.History, a.Nodes, a.Incomplete, a.Tenant = nil, nil, nil, false, ""
		a.Detectors, a.Providers = req.Detectors, req.Providers
		outer.Check[i] = *a
	}
	return &outer
}

// runCheck runs a check step on the engines, compares each action's
// decision with its expectation and the engines' decisions with each
// other.
func runCheck(st *fixture.Step, l *loaded, engines Engines, runner *Runner, buildErr error, session, step string,
	fail func(string, ...any), refSession *reference.Session, refGot, genGot []wire.Response) ([]wire.Response, []wire.Response) {
	req := CheckRequest(st, l.index, session, l.set.Catalog)
	var ref, gen []wire.Response
	if engines != Generated {
		if l.refErr != nil {
			fail("%sreference: %v", step, l.refErr)
		} else {
			ref = l.ref.Evaluate(req, refSession).Check
			if len(ref) != len(st.Check) {
				fail("%sreference: %d decisions for a check of %d actions", step, len(ref), len(st.Check))
				ref = nil
			}
		}
	}
	if engines != Reference {
		if buildErr != nil {
			fail("%sgenerated: %v", step, buildErr)
		} else if r, err := runner.Do(req); err != nil {
			fail("%sgenerated: %v", step, err)
		} else if len(r.Check) != len(st.Check) {
			fail("%sgenerated: %d decisions for a check of %d actions", step, len(r.Check), len(st.Check))
		} else {
			gen = r.Check
			for i := range gen {
				normalize(&gen[i])
			}
		}
	}
	for i, a := range st.Check {
		at := fmt.Sprintf("%saction %d: ", step, i)
		if ref != nil {
			refGot = append(refGot, ref[i])
			for _, m := range compare(a.Expected, a.Input.Approve, ref[i]) {
				fail("%sreference: %s", at, m)
			}
		}
		if gen != nil {
			genGot = append(genGot, gen[i])
			for _, m := range compare(a.Expected, a.Input.Approve, gen[i]) {
				fail("%sgenerated: %s", at, m)
			}
		}
		if ref != nil && gen != nil {
			if d := Disagree(ref[i], gen[i]); d != "" {
				fail("%sengines disagree: %s\n  reference: %s\n  generated: %s", at, d, Show(ref[i]), Show(gen[i]))
			}
		}
		if l.cov != nil {
			var rp, gp *wire.Response
			if ref != nil {
				rp = &ref[i]
			}
			if gen != nil {
				gp = &gen[i]
			}
			l.cov.observe(a.Input.Anchor, rp, gp)
		}
	}
	return refGot, genGot
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
	if e.Rejection != nil {
		m["rejection"] = *e.Rejection
	}
	if e.Banner != nil {
		m["banner"] = *e.Banner
	}
	if e.Notes != nil {
		m["notes"] = *e.Notes
	}
	if e.Question != nil {
		m["question"] = *e.Question
	}
	if e.Outcome != nil {
		m["outcome"] = *e.Outcome
	}
	return m
}

// Outcome is what a host does with a decision given the person's answer
// (spec 5.12): an ask goes ahead only on an explicit yes (approve true);
// no answer (nil: no way to ask) or a no blocks, as a block does; every
// other decision goes ahead.
func Outcome(decision string, approve *bool) string {
	switch decision {
	case "block":
		return "block"
	case "ask":
		if approve != nil && *approve {
			return "proceed"
		}
		return "block"
	}
	return "proceed"
}

// compare checks an answer, and the outcome of the person's answer
// approve, against the keys a fixture gives.
func compare(e fixture.Expected, approve *bool, r wire.Response) []string {
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
	// content is the rewritten content (spec 8's example: "transform
	// only"): compared when the answer is a transform, or an ask, which
	// goes ahead, once approved, with the content the transforms rewrote
	// (docs/choices-runtime.md). Any other decision leaves the content as
	// it was, and a decision that is not the one expected fails above.
	if e.Content != nil && (r.Effect == "transform" || r.Effect == "ask") && *e.Content != r.Content {
		out = append(out, fmt.Sprintf("content: expected %q, got %q", *e.Content, r.Content))
	}
	if e.Rejection != nil && *e.Rejection != r.Rejection {
		out = append(out, fmt.Sprintf("rejection: expected %q, got %q", *e.Rejection, r.Rejection))
	}
	if e.Banner != nil && *e.Banner != r.Banner {
		out = append(out, fmt.Sprintf("banner: expected %q, got %q", *e.Banner, r.Banner))
	}
	if e.Notes != nil && *e.Notes != r.Notes {
		out = append(out, fmt.Sprintf("notes: expected %q, got %q", *e.Notes, r.Notes))
	}
	if e.Question != nil && *e.Question != r.Question {
		out = append(out, fmt.Sprintf("question: expected %q, got %q", *e.Question, r.Question))
	}
	if got := Outcome(r.Effect, approve); e.Outcome != nil && *e.Outcome != got {
		out = append(out, fmt.Sprintf("outcome: expected %s, got %s", *e.Outcome, got))
	}
	// A difference is often caused by an evaluation error the fixture
	// does not count (a validator or provider it does not give): say
	// which, unless a line above shows them already.
	if len(out) > 0 && len(r.Errors) > 0 && e.Decision == r.Effect && e.Errors == nil {
		out = append(out, fmt.Sprintf("errors: not in expected; the decision had %d %s", len(r.Errors), showErrors(r.Errors)))
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
	if withoutReason(a.Rejection) != withoutReason(b.Rejection) {
		d = append(d, "rejection")
	}
	if withoutReasons(a.Banner) != withoutReasons(b.Banner) {
		d = append(d, "banner")
	}
	if withoutReasons(a.Notes) != withoutReasons(b.Notes) {
		d = append(d, "notes")
	}
	if questionWithoutReason(a.Question) != questionWithoutReason(b.Question) {
		d = append(d, "question")
	}
	ea, eb := errKeys(a.Errors), errKeys(b.Errors)
	if !sameList(ea, eb) {
		d = append(d, "errors")
	}
	// A check's decisions, action by action.
	same := len(a.Check) == len(b.Check)
	for i := 0; same && i < len(a.Check); i++ {
		same = Disagree(a.Check[i], b.Check[i]) == ""
	}
	if !same {
		d = append(d, "check")
	}
	return strings.Join(d, ", ")
}

// withoutReason is a rejection without the reason its first line gives
// for a rule that could not be evaluated, and without those a
// deny-by-default rejection gives for the allow rules that could not be:
// the engines' error messages may differ (Disagree compares error kinds,
// not messages), the rest of the text may not.
func withoutReason(s string) string {
	for _, p := range [...]string{"This rule could not be evaluated (", "The guardrails could not evaluate this action ("} {
		if strings.HasPrefix(s, p) {
			if i := strings.Index(s, "); "); i >= 0 {
				s = p[:len(p)-2] + s[i+1:]
			}
			break
		}
	}
	if !strings.Contains(s, allowFailedEnd) {
		return s
	}
	lines := strings.Split(s, "\n")
	for k, l := range lines {
		if strings.HasPrefix(l, "The allow rule ") && strings.HasSuffix(l, allowFailedEnd) {
			if i := strings.Index(l, allowFailedMid); i >= 0 {
				lines[k] = l[:i+len(allowFailedMid)] + "…" + allowFailedEnd
			}
		}
	}
	return strings.Join(lines, "\n")
}

// The line of a deny-by-default rejection for an allow rule that could not
// be evaluated: "The allow rule <id> could not be evaluated (<error>), so
// it did not allow this action."
const (
	allowFailedMid = " could not be evaluated ("
	allowFailedEnd = "), so it did not allow this action."
)

// questionWithoutReason is withoutReason of the rejection a question
// carries after its first line (spec 5.12).
func questionWithoutReason(s string) string {
	head, tail, _ := strings.Cut(s, "\n")
	return head + "\n" + withoutReason(tail)
}

// withoutReasons is withoutReason of each part of a banner or notes.
func withoutReasons(s string) string {
	parts := strings.Split(s, "\n\n")
	for i, p := range parts {
		parts[i] = withoutReason(p)
	}
	return strings.Join(parts, "\n\n")
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
