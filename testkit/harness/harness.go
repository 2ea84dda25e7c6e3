// Package harness runs generated code the way a host would: it generates
// each pack into a package of a temporary module, builds a runner program
// around them once (testkit/wire is the protocol) and sends it
// occurrences. The temporary module requires this module through a replace
// directive, so a build needs no network: every dependency is already in
// the module cache.
package harness

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/testkit/wire"
)

// ModulePath is the module whose source the runner builds against.
const ModulePath = "github.com/oarc/oarc"

// ModuleRoot finds the source of this module: from where this file was
// compiled when that tree still exists, else by walking up from the
// working directory.
func ModuleRoot() (string, error) {
	var starts []string
	if _, file, _, ok := goruntime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if isRoot(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find the source of module %s (run from inside it, or use the reference engine)", ModulePath)
}

func isRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" {
			return f[1] == ModulePath
		}
	}
	return false
}

// Runner is a running runner program.
type Runner struct {
	dir  string
	bin  string
	slot []int // the runner's index of each pack given to the build, -1 if left out
	cmd  *exec.Cmd
	in   io.WriteCloser
	enc  *gob.Encoder
	dec  *gob.Decoder
	mu   sync.Mutex
	err  bytes.Buffer
}

// generate is the code generator; tests replace it to break the code of
// one pack.
var generate = codegen.Generate

// builds counts the go build runs, for tests.
var builds atomic.Int64

// Build generates packs into a temporary module, builds the runner and
// starts it. Close removes the module and stops the runner. A pack that
// does not generate or build fails the whole build (see BuildEach).
func Build(packs []*ir.Pack) (*Runner, error) {
	r, errs := build(packs, false)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// BuildEach is Build that keeps going: the runner serves every pack that
// generates and compiles, and errs[i] says why pack i does not (nil when
// it does). Requests keep the numbering of packs. The runner is nil when
// no pack could be built. The common case is one go build; when it fails,
// the packs at fault are found from the compiler's output (one more build
// confirms) or else by building halves of the set.
func BuildEach(packs []*ir.Pack) (*Runner, []error) { return build(packs, true) }

func build(packs []*ir.Pack, keepGoing bool) (*Runner, []error) {
	errs := make([]error, len(packs))
	all := func(err error) (*Runner, []error) {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return nil, errs
	}
	root, err := ModuleRoot()
	if err != nil {
		return all(err)
	}
	dir, err := os.MkdirTemp("", "oarc-harness-")
	if err != nil {
		return all(err)
	}
	fail := func(err error) (*Runner, []error) {
		os.RemoveAll(dir)
		return all(err)
	}
	m := &module{dir: dir, root: root, packs: packs}
	if err := m.init(); err != nil {
		return fail(err)
	}
	var good []int
	for i, p := range packs {
		if err := m.write(i, p); err != nil {
			errs[i] = fmt.Errorf("generating pack %d (%s): %v", i, p.Name, err)
			if !keepGoing {
				return fail(errs[i])
			}
			continue
		}
		good = append(good, i)
	}
	if len(good) == 0 && len(packs) > 0 {
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
	r := &Runner{dir: dir, bin: m.bin(), slot: make([]int, len(packs))}
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
// pack (p0, p1, ...) and a main package that links a chosen subset.
type module struct {
	dir, root string
	packs     []*ir.Pack
	last      []int // the packs of the last successful build
}

func (m *module) bin() string { return filepath.Join(m.dir, "runner") }

func (m *module) init() error {
	goVersion := "1.26"
	if data, err := os.ReadFile(filepath.Join(m.root, "go.mod")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "go" {
				goVersion = f[1]
			}
		}
	}
	gomod := fmt.Sprintf("module oarcrunner\n\ngo %s\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", goVersion, ModulePath, ModulePath, m.root)
	if err := os.WriteFile(filepath.Join(m.dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	if sum, err := os.ReadFile(filepath.Join(m.root, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(m.dir, "go.sum"), sum, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func pkgName(i int) string { return fmt.Sprintf("p%d", i) }

// write generates pack i into its package.
func (m *module) write(i int, p *ir.Pack) error {
	pkg := pkgName(i)
	src, err := generate(p, codegen.Options{Package: pkg})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(m.dir, pkg), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(m.dir, pkg, "rules_oarc.go"), src, 0o644)
}

// build builds the runner over the packs listed, returning the compiler's
// output on failure.
func (m *module) build(list []int) ([]byte, error) {
	var imports, packs strings.Builder
	for _, i := range list {
		fmt.Fprintf(&imports, "\t%s \"oarcrunner/%s\"\n", pkgName(i), pkgName(i))
		fmt.Fprintf(&packs, "\t\t%s.Pack,\n", pkgName(i))
	}
	main := fmt.Sprintf(runnerMain, imports.String(), packs.String())
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

// atFault finds the packs of list that do not build, with their errors,
// after a build of list failed with out.
func (m *module) atFault(list []int, out []byte, err error) map[int]error {
	bad := map[int]error{}
	// The go command names each package that fails: "# oarcrunner/p3".
	// Take those, and confirm with one build without them.
	sections := packageErrors(out)
	var rest []int
	for _, i := range list {
		if msg, ok := sections[pkgName(i)]; ok {
			bad[i] = fmt.Errorf("building pack %d (%s):\n%s", i, m.packs[i].Name, msg)
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
	// toolchain): if the runner does not build even without packs, every
	// pack fails with that error; else bisect.
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

// bisect records in bad the packs of list, which fails to build with out,
// that fail on their own: halves that build are cleared with one build.
func (m *module) bisect(list []int, out []byte, err error, bad map[int]error) {
	if len(list) == 1 {
		bad[list[0]] = fmt.Errorf("building pack %d (%s): %v\n%s", list[0], m.packs[list[0]].Name, err, out)
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

const runnerMain = `package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/oarc/oarc/testkit/wire"
	"github.com/oarc/oarc/runtime"
%s)

func main() {
	packs := []*runtime.Pack{
%s	}
	w := bufio.NewWriter(os.Stdout)
	err := wire.Serve(packs, bufio.NewReader(os.Stdin), flushWriter{w})
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

// Do evaluates one occurrence in the runner. req.Pack numbers packs as
// given to the build. A runner that died (generated code that crashed the
// process) is restarted for the next request, so that one fixture's crash
// does not fail the ones after it.
func (r *Runner) Do(req *wire.Request) (wire.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var resp wire.Response
	if req.Pack < 0 || req.Pack >= len(r.slot) || r.slot[req.Pack] < 0 {
		return resp, fmt.Errorf("runner: pack %d is not in the runner", req.Pack)
	}
	if r.cmd == nil {
		if err := r.start(); err != nil {
			return resp, fmt.Errorf("runner: restarting: %v", err)
		}
	}
	sent := *req
	sent.Pack = r.slot[req.Pack]
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
	// gob does not tell an empty slice from nil.
	if resp.Codes == nil {
		resp.Codes = []string{}
	}
	if resp.Monitored == nil {
		resp.Monitored = []string{}
	}
	if resp.Errors == nil {
		resp.Errors = []wire.Error{}
	}
	return resp, nil
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
