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
	"strings"
	"sync"

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
	dir string
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *gob.Encoder
	dec *gob.Decoder
	mu  sync.Mutex
	err bytes.Buffer
}

// Build generates packs into a temporary module, builds the runner and
// starts it. Close removes the module and stops the runner.
func Build(packs []*ir.Pack) (*Runner, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "oarc-harness-")
	if err != nil {
		return nil, err
	}
	r := &Runner{dir: dir}
	if err := r.build(root, packs); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return r, nil
}

func (r *Runner) build(root string, packs []*ir.Pack) error {
	goVersion := "1.26"
	if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "go" {
				goVersion = f[1]
			}
		}
	}
	gomod := fmt.Sprintf("module oarcrunner\n\ngo %s\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", goVersion, ModulePath, ModulePath, root)
	if err := os.WriteFile(filepath.Join(r.dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(r.dir, "go.sum"), sum, 0o644); err != nil {
			return err
		}
	}
	var imports, list strings.Builder
	for i, p := range packs {
		pkg := fmt.Sprintf("p%d", i)
		src, err := codegen.Generate(p, codegen.Options{Package: pkg})
		if err != nil {
			return fmt.Errorf("generating pack %d (%s): %v", i, p.Name, err)
		}
		if err := os.MkdirAll(filepath.Join(r.dir, pkg), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(r.dir, pkg, "rules_oarc.go"), src, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&imports, "\t%s \"oarcrunner/%s\"\n", pkg, pkg)
		fmt.Fprintf(&list, "\t\t%s.Pack,\n", pkg)
	}
	main := fmt.Sprintf(`package main

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
`, imports.String(), list.String())
	if err := os.WriteFile(filepath.Join(r.dir, "main.go"), []byte(main), 0o644); err != nil {
		return err
	}
	bin := filepath.Join(r.dir, "runner")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the runner in %s: %v\n%s", r.dir, err, out)
	}
	r.cmd = exec.Command(bin)
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

// Do evaluates one occurrence in the runner.
func (r *Runner) Do(req *wire.Request) (wire.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var resp wire.Response
	req.MarkNegativeZeros()
	if err := r.enc.Encode(req); err != nil {
		return resp, fmt.Errorf("runner: %v (stderr: %s)", err, r.err.String())
	}
	if err := r.dec.Decode(&resp); err != nil {
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

// Close stops the runner and removes its module.
func (r *Runner) Close() error {
	if r.cmd != nil && r.cmd.Process != nil {
		r.in.Close()
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
	return os.RemoveAll(r.dir)
}
