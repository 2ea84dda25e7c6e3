//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// oarc fmt reads what the loader reads and refuses what it refuses: a FIFO
// never blocks it, and a pack's symlinked, directory or FIFO entries are
// formatted or reported, never skipped in silence (a fmt -l check in CI
// would otherwise pass over an unformatted rule that the pack loads).
func TestFmtNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "p")
	pol := filepath.Join(pack, "policy")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(pol, 0o755))
	formatted := "oar: '1.0'\nid: OK\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy:\n  title: ok\n"
	unformatted := "id: LINK\noar: '1.0'\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: link}\n"
	must(os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: p\norigin: project\n"), 0o644))
	must(os.WriteFile(filepath.Join(pol, "OK.yaml"), []byte(formatted), 0o644))
	target := filepath.Join(dir, "target.yaml")
	must(os.WriteFile(target, []byte(unformatted), 0o644))
	must(os.Symlink(target, filepath.Join(pol, "LINK.yaml")))
	must(os.Mkdir(filepath.Join(pol, "DIR.yaml"), 0o755))
	must(syscall.Mkfifo(filepath.Join(pol, "FIFO.yaml"), 0o644))
	fifo := filepath.Join(dir, "F.yaml")
	must(syscall.Mkfifo(fifo, 0o644))

	type result struct {
		code      int
		out, errs string
	}
	runTimed := func(args ...string) result {
		t.Helper()
		done := make(chan result, 1)
		go func() {
			code, out, errs := run(args...)
			done <- result{code, out, errs}
		}()
		select {
		case r := <-done:
			return r
		case <-time.After(10 * time.Second):
			t.Fatalf("oarc %s blocked", strings.Join(args, " "))
			return result{}
		}
	}

	for _, args := range [][]string{{"fmt", fifo}, {"fmt", "-l", fifo}, {"fmt", "-w", fifo}} {
		r := runTimed(args...)
		if r.code != ExitFailure || !strings.Contains(r.errs, "named pipe") {
			t.Errorf("oarc %s: exit %d, stderr %q; want 1 and the FIFO refused", strings.Join(args, " "), r.code, r.errs)
		}
	}

	r := runTimed("fmt", "-l", pack)
	if r.code != ExitFailure {
		t.Errorf("fmt -l: exit %d, want 1", r.code)
	}
	if !strings.Contains(r.out, "LINK.yaml") || strings.Contains(r.out, "OK.yaml") {
		t.Errorf("fmt -l lists %q; want the symlinked, unformatted LINK.yaml and not OK.yaml", r.out)
	}
	for _, name := range []string{"DIR.yaml", "FIFO.yaml"} {
		if !strings.Contains(r.errs, filepath.Join(pol, name)+": cannot read") {
			t.Errorf("fmt -l: stderr %q does not report %s", r.errs, name)
		}
	}

	r = runTimed("fmt", "-w", pack)
	if r.code != ExitFailure || !strings.Contains(r.errs, "LINK.yaml is not a regular file; refusing to replace it") {
		t.Errorf("fmt -w: exit %d, stderr %q; want the symlink refused", r.code, r.errs)
	}
	if got, _ := os.ReadFile(target); string(got) != unformatted {
		t.Errorf("fmt -w wrote through the symlink: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(pol, "LINK.yaml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("fmt -w replaced the symlink: %v %v", fi, err)
	}

	// A pack whose pack.yaml is a FIFO: reported, not skipped.
	q := filepath.Join(dir, "q")
	must(os.MkdirAll(filepath.Join(q, "policy"), 0o755))
	must(syscall.Mkfifo(filepath.Join(q, "pack.yaml"), 0o644))
	r = runTimed("fmt", q)
	if r.code != ExitFailure || !strings.Contains(r.errs, "pack.yaml: cannot read") {
		t.Errorf("fmt of a pack with a FIFO pack.yaml: exit %d, stderr %q", r.code, r.errs)
	}
}
