// Package harness runs generated code the way a host would: it generates
// each compilation set (and the catalog packages of host catalogs) into a
// package of a temporary module, builds a runner program around them once
// (testkit/wire is the protocol) and sends it occurrences. The temporary
// module builds against oarc's runtime sources embedded in this binary
// (oarc.RuntimeSource), so a build needs no checkout and no network: an
// installed oarc runs fixtures anywhere.
package harness

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/oarc/oarc"
	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/wire"
)

// ModulePath is the module whose runtime the runner builds against.
const ModulePath = "github.com/oarc/oarc"

// Runner is a running runner program.
type Runner struct {
	dir  string
	bin  string
	slot []int // the runner's index of each set given to the build, -1 if left out
	cmd  *exec.Cmd
	in   io.WriteCloser
	enc  *gob.Encoder
	dec  *gob.Decoder
	mu   sync.Mutex
	err  bytes.Buffer
}

// StoreModule is a module with a package that keeps the runner's sessions
// in a session store (spec 5.9) instead of the process. The package
// (Import) declares
//
//	func Sessions() (func(id string) *runtime.Session, error)
//
// which the runner calls once, when it starts; it reads its configuration
// from the environment, which the runner inherits.
type StoreModule struct {
	Path   string // the module path
	Dir    string // the module's directory, absolute
	Import string // the package's import path
	// GoSum is the module's go.sum: the runner builds offline, from the
	// module cache, so the store's dependencies must be there.
	GoSum []byte
}

// RunnerStore, when set, is where runners built from then on keep their
// sessions (the tests of a store set it); nil keeps them in the process.
var RunnerStore *StoreModule

// generate is the code generator; tests replace it to break the code of
// one set.
var generate = codegen.Generate

// builds counts the go build runs, for tests.
var builds atomic.Int64

// Build generates sets into a temporary module, builds the runner and
// starts it. Close removes the module and stops the runner. A set that
// does not generate or build fails the whole build (see BuildEach).
func Build(sets []*ir.Set) (*Runner, error) {
	r, errs := build(sets, false)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// BuildEach is Build that keeps going: the runner serves every set that
// generates and compiles, and errs[i] says why set i does not (nil when it
// does). Requests keep the numbering of sets. The runner is nil when no
// set could be built. The common case is one go build; when it fails, the
// sets at fault are found from the compiler's output (one more build
// confirms) or else by building halves.
func BuildEach(sets []*ir.Set) (*Runner, []error) { return build(sets, true) }

func build(sets []*ir.Set, keepGoing bool) (*Runner, []error) {
	errs := make([]error, len(sets))
	all := func(err error) (*Runner, []error) {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return nil, errs
	}
	dir, err := os.MkdirTemp("", "oarc-harness-")
	if err != nil {
		return all(err)
	}
	fail := func(err error) (*Runner, []error) {
		os.RemoveAll(dir)
		return all(err)
	}
	m := &module{dir: dir, sets: sets, catalogs: map[string]string{}, store: RunnerStore}
	if err := m.init(); err != nil {
		return fail(err)
	}
	var good []int
	for i, p := range sets {
		if err := m.write(i, p); err != nil {
			errs[i] = fmt.Errorf("generating set %d (%s): %v", i, p.Name(), err)
			if !keepGoing {
				return fail(errs[i])
			}
			continue
		}
		good = append(good, i)
	}
	if len(good) == 0 && len(sets) > 0 {
		return fail(nil)
	}
	if out, err := m.build(good); err != nil {
		if !keepGoing {
			return fail(m.buildError(out, err))
		}
		var rest []int
		for i, e := range m.atFault(good, out, err) {
			errs[i] = e
		}
		for _, i := range good {
			if errs[i] == nil {
				rest = append(rest, i)
			}
		}
		if good = rest; len(good) == 0 {
			return fail(nil)
		}
		if !slices.Equal(m.last, good) {
			if out, err := m.build(good); err != nil {
				return fail(m.buildError(out, err))
			}
		}
	}
	r := &Runner{dir: dir, bin: m.bin(), slot: make([]int, len(sets))}
	for i := range r.slot {
		r.slot[i] = -1
	}
	for k, i := range good {
		r.slot[i] = k
	}
	if err := r.start(); err != nil {
		r.Close()
		return all(err)
	}
	return r, errs
}

// module is the temporary module the runner is built in: one package per
// set (p0, p1, ...), one per host catalog (c<fingerprint>), oarc's runtime
// sources, and a main package that links a chosen subset of the sets.
type module struct {
	dir      string
	sets     []*ir.Set
	catalogs map[string]string // fingerprint -> import path, for the catalogs written
	last     []int             // the sets of the last successful build
	store    *StoreModule      // where the runner keeps sessions; nil: in the process
}

func (m *module) bin() string { return filepath.Join(m.dir, "runner") }

// srcDir is where oarc's runtime sources are written, as the module
// github.com/oarc/oarc.
const srcDir = "oarcsrc"

func (m *module) init() error {
	goVersion := "1.26"
	if data, err := oarc.RuntimeSource.ReadFile("go.mod"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "go" {
				goVersion = f[1]
			}
		}
	}
	src := filepath.Join(m.dir, srcDir)
	err := fs.WalkDir(oarc.RuntimeSource, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !oarc.IsBuildSource(p) {
			return err
		}
		data, err := oarc.RuntimeSource.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(src, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(fmt.Sprintf("module %s\n\ngo %s\n", ModulePath, goVersion)), 0o644); err != nil {
		return err
	}
	gomod := fmt.Sprintf("module oarcrunner\n\ngo %s\n\nrequire %s v0.0.0\n\nreplace %s => ./%s\n", goVersion, ModulePath, ModulePath, srcDir)
	if st := m.store; st != nil {
		gomod += fmt.Sprintf("\nrequire %s v0.0.0\n\nreplace %s => %s\n", st.Path, st.Path, st.Dir)
		if err := os.WriteFile(filepath.Join(m.dir, "go.sum"), st.GoSum, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(m.dir, "go.mod"), []byte(gomod), 0o644)
}

func pkgName(i int) string { return fmt.Sprintf("p%d", i) }

var defaultFingerprint = catalog.Default().Fingerprint()

// isDefault reports whether a set uses the default catalog, whose package
// oarc ships.
func isDefault(c *ir.Catalog) bool { return c.Fingerprint == defaultFingerprint }

// catalogImport writes the catalog package of c, once per catalog, and
// returns its import path.
func (m *module) catalogImport(c *ir.Catalog) (string, error) {
	if isDefault(c) {
		return codegen.DefaultCatalogImport, nil
	}
	if ip, ok := m.catalogs[c.Fingerprint]; ok {
		return ip, nil
	}
	name := "c" + c.Fingerprint
	src, err := codegen.GenerateCatalog(c, codegen.CatalogOptions{})
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(m.dir, name), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(m.dir, name, "catalog_oarc.go"), src, 0o644); err != nil {
		return "", err
	}
	m.catalogs[c.Fingerprint] = "oarcrunner/" + name
	return m.catalogs[c.Fingerprint], nil
}

// write generates set i into its package.
func (m *module) write(i int, p *ir.Set) error {
	cat, err := m.catalogImport(p.Catalog)
	if err != nil {
		return err
	}
	pkg := pkgName(i)
	src, err := generate(p, codegen.Options{Package: pkg, CatalogImport: cat})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(m.dir, pkg), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.dir, pkg, "rules_oarc.go"), src, 0o644)
}

// build builds the runner over the sets listed, returning the compiler's
// output on failure.
func (m *module) build(list []int) ([]byte, error) {
	var imports, adapters, sets strings.Builder
	catImports := map[string]string{} // import path -> name in main
	for _, i := range list {
		cat := codegen.DefaultCatalogImport
		if !isDefault(m.sets[i].Catalog) {
			cat = m.catalogs[m.sets[i].Catalog.Fingerprint]
		}
		cname, ok := catImports[cat]
		if !ok {
			cname = fmt.Sprintf("cat%d", len(catImports))
			catImports[cat] = cname
			fmt.Fprintf(&imports, "\t%s %s\n", cname, strconv.Quote(cat))
		}
		fmt.Fprintf(&imports, "\t%s %s\n", pkgName(i), strconv.Quote("oarcrunner/"+pkgName(i)))
		fmt.Fprintf(&adapters, setAdapter, i, pkgName(i), cname)
		fmt.Fprintf(&sets, "\t\tset%d{},\n", i)
	}
	storeInit := ""
	if st := m.store; st != nil {
		fmt.Fprintf(&imports, "\toarcstore %s\n", strconv.Quote(st.Import))
		storeInit = storeSessions
	}
	main := fmt.Sprintf(runnerMain, imports.String(), sets.String(), storeInit, adapters.String())
	if err := os.WriteFile(filepath.Join(m.dir, "main.go"), []byte(main), 0o644); err != nil {
		return nil, err
	}
	builds.Add(1)
	cmd := exec.Command("go", "build", "-trimpath", "-o", m.bin(), ".")
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	m.last = nil
	if err == nil {
		m.last = slices.Clone(list)
	}
	return out, err
}

func (m *module) buildError(out []byte, err error) error {
	return fmt.Errorf("building the runner in %s: %v\n%s", m.dir, err, out)
}

// atFault finds the sets of list that do not build, with their errors,
// after a build of list failed with out.
func (m *module) atFault(list []int, out []byte, err error) map[int]error {
	bad := map[int]error{}
	// The go command names each package that fails: "# oarcrunner/p3".
	// Take those, and confirm with one build without them.
	sections := packageErrors(out)
	var rest []int
	for _, i := range list {
		if msg, ok := sections[pkgName(i)]; ok {
			bad[i] = fmt.Errorf("building set %d (%s):\n%s", i, m.sets[i].Name(), msg)
		} else {
			rest = append(rest, i)
		}
	}
	if len(bad) > 0 {
		if len(rest) == 0 {
			return bad
		}
		out, err = m.build(rest)
		if err == nil {
			return bad
		}
	}
	// The output did not tell (an error in main, at link time, or in the
	// toolchain): if the runner does not build even without sets, every
	// set fails with that error; else bisect.
	if out0, err0 := m.build(nil); err0 != nil {
		e := m.buildError(out0, err0)
		for _, i := range rest {
			bad[i] = e
		}
		return bad
	}
	m.bisect(rest, out, err, bad)
	return bad
}

// bisect records in bad the sets of list, which fails to build with out,
// that fail on their own: halves that build are cleared with one build.
func (m *module) bisect(list []int, out []byte, err error, bad map[int]error) {
	if len(list) == 1 {
		bad[list[0]] = fmt.Errorf("building set %d (%s): %v\n%s", list[0], m.sets[list[0]].Name(), err, out)
		return
	}
	half := len(list) / 2
	for _, part := range [][]int{list[:half], list[half:]} {
		if o, e := m.build(part); e != nil {
			m.bisect(part, o, e, bad)
		}
	}
}

// packageErrors splits go build output into the sections of the packages
// it names: "oarcrunner/p3" -> its lines.
func packageErrors(out []byte) map[string]string {
	sections := map[string]string{}
	var cur string
	var b strings.Builder
	flush := func() {
		if cur != "" {
			sections[cur] = strings.TrimRight(b.String(), "\n")
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			flush()
			cur = ""
			if pkg, ok := strings.CutPrefix(strings.TrimSpace(rest), "oarcrunner/"); ok {
				cur = pkg
			}
			continue
		}
		b.WriteString(line)
	}
	flush()
	return sections
}

// runnerMain is the runner's main: the sets' adapters to the wire
// protocol, and the loop. Its imports are quoted import paths.
const runnerMain = `package main

import (
	"bufio"
	"context"
	"fmt"
	"os"

	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/wire"
%s)

func main() {
	sets := []wire.Set{
%s	}
	newSession := func(id string) *runtime.Session { return runtime.NewSession(id) }
%s	w := bufio.NewWriter(os.Stdout)
	err := wire.ServeSessions(sets, bufio.NewReader(os.Stdin), flushWriter{w}, newSession)
	w.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// flushWriter flushes after every response so that the harness, which
// waits for each answer, never waits on a buffer.
type flushWriter struct{ w *bufio.Writer }

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = f.w.Flush()
	}
	return n, err
}

var _ = context.Background
%s`

// storeSessions makes the runner's sessions with the store module's
// package (RunnerStore).
const storeSessions = `	if f, err := oarcstore.Sessions(); err != nil {
		fmt.Fprintln(os.Stderr, "session store:", err)
		os.Exit(1)
	} else {
		newSession = f
	}
`

// setAdapter implements wire.Set for one set: %[1]d its index, %[2]s its
// package, %[3]s its catalog package.
const setAdapter = `
type set%[1]d struct{}

func (set%[1]d) CounterKey(rule string, c runtime.Counter) (runtime.CounterKey, bool) {
	return (*%[2]s.Evaluator)(nil).CounterKey(rule, c)
}

// env is the host environment of req: its validators and providers.
func (set%[1]d) env(req *wire.Request) (%[3]s.Env, error) {
	env := %[3]s.Env{Validators: map[string]%[3]s.Validator{}}
	for id, det := range req.Detectors {
		v := det.Validator()
		env.Validators[id] = func(ctx context.Context, _ *%[3]s.Occurrence) (runtime.Detection, error) { return v(ctx) }
	}
	for name, answers := range req.Providers {
		answers := answers
		if err := env.Providers.Set(name, func(_ context.Context, _ *%[3]s.Occurrence, args []any) (any, error) {
			return wire.Provide(answers, args)
		}); err != nil {
			return env, err
		}
	}
	return env, nil
}

// occurrence is the occurrence of req.
func (set%[1]d) occurrence(req *wire.Request) (%[3]s.Occurrence, error) {
	anchor, _ := %[3]s.ParseAnchor(req.Anchor)
	occ := %[3]s.Occurrence{Anchor: anchor, Profiles: req.Profiles, Content: req.Content, Inputs: req.Inputs, Time: req.Time}
	for name, v := range req.Facts {
		if err := occ.Facts.Set(name, v); err != nil {
			return occ, err
		}
	}
	if len(req.Kept) > 0 {
		occ.Kept = &runtime.KeptOverride{}
		for name, v := range req.Kept {
			if !occ.Kept.Set(name, v) {
				return occ, fmt.Errorf("engine-kept fact %%s: %%T is not its type", name, v)
			}
		}
	}
	return occ, nil
}

func (x set%[1]d) Evaluate(req *wire.Request, s *runtime.Session, d *runtime.Decision) error {
	env, err := x.env(req)
	if err != nil {
		return err
	}
	ev, _ := %[2]s.New(env)
	occ, err := x.occurrence(req)
	if err != nil {
		return err
	}
	ctx, cancel := req.Context()
	defer cancel()
	ev.Evaluate(ctx, &occ, s, d)
	return nil
}

// EvaluateCheck evaluates a check: the host environment (validators,
// providers, deadline) is its first action's, one for the check.
func (x set%[1]d) EvaluateCheck(reqs []wire.Request, s *runtime.Session, ds []runtime.Decision) error {
	env, err := x.env(&reqs[0])
	if err != nil {
		return err
	}
	ev, _ := %[2]s.New(env)
	occs := make([]%[3]s.Occurrence, len(reqs))
	for i := range reqs {
		if occs[i], err = x.occurrence(&reqs[i]); err != nil {
			return err
		}
	}
	ctx, cancel := reqs[0].Context()
	defer cancel()
	ev.EvaluateCheck(ctx, occs, s, ds)
	return nil
}
`

// start starts the runner program.
func (r *Runner) start() error {
	r.err.Reset()
	r.cmd = exec.Command(r.bin)
	r.cmd.Stderr = &r.err
	in, err := r.cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := r.cmd.Start(); err != nil {
		return err
	}
	r.in = in
	r.enc = gob.NewEncoder(in)
	r.dec = gob.NewDecoder(out)
	return nil
}

// Do evaluates one occurrence in the runner. req.Set numbers sets as
// given to the build. A runner that died (generated code that crashed the
// process) is restarted for the next request, so that one fixture's crash
// does not fail the ones after it.
func (r *Runner) Do(req *wire.Request) (wire.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var resp wire.Response
	if req.Set < 0 || req.Set >= len(r.slot) || r.slot[req.Set] < 0 {
		return resp, fmt.Errorf("runner: set %d is not in the runner", req.Set)
	}
	if r.cmd == nil {
		if err := r.start(); err != nil {
			return resp, fmt.Errorf("runner: restarting: %v", err)
		}
	}
	sent := *req
	sent.Set = r.slot[req.Set]
	sent.MarkNegativeZeros()
	err := r.enc.Encode(&sent)
	if err == nil {
		err = r.dec.Decode(&resp)
	}
	if err != nil {
		r.stop()
		return resp, fmt.Errorf("runner: %v (stderr: %s)", err, r.err.String())
	}
	if resp.Fatal != "" {
		return resp, fmt.Errorf("runner: %s", resp.Fatal)
	}
	normalize(&resp)
	return resp, nil
}

// normalize gives a decision's lists that gob decoded as nil their empty
// value: gob does not tell an empty slice from nil.
func normalize(resp *wire.Response) {
	if resp.Codes == nil {
		resp.Codes = []string{}
	}
	if resp.Monitored == nil {
		resp.Monitored = []string{}
	}
	if resp.FailedClosed == nil {
		resp.FailedClosed = []string{}
	}
	if resp.Errors == nil {
		resp.Errors = []wire.Error{}
	}
	for i := range resp.Check {
		normalize(&resp.Check[i])
	}
}

// stop stops the runner process, if it runs.
func (r *Runner) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		r.in.Close()
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
	r.cmd = nil
}

// Close stops the runner and removes its module.
func (r *Runner) Close() error {
	r.stop()
	return os.RemoveAll(r.dir)
}
