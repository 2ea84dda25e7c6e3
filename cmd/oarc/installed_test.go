package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/testkit/long"
)

// TestInstalledBinary builds oarc as `go install` would for a user
// (-trimpath: no path to this checkout in the binary) and runs `oarc test`
// with it from a directory outside the repository, on copies of a pack with
// the default catalog and of one with a host catalog, with an empty module
// cache and no network: the runtime the fixtures link comes from the
// binary itself.
func TestInstalledBinary(t *testing.T) {
	long.Require(t, "builds oarc and two test runners with the go command")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin", "oarc")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/oarc")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -trimpath: %v\n%s", err, out)
	}
	work := filepath.Join(tmp, "work")
	for _, ex := range []string{"starter", "acme"} {
		if err := os.CopyFS(filepath.Join(work, ex), os.DirFS(filepath.Join(root, "examples", ex))); err != nil {
			t.Fatal(err)
		}
	}

	env := append(os.Environ(),
		"GOMODCACHE="+filepath.Join(tmp, "modcache"), // nothing downloaded, nothing to find
		"GOPROXY=off",
		"GOFLAGS=",
		"GOWORK=off",
	)
	for _, args := range [][]string{
		{"test", "starter"},
		{"test", "-catalog", filepath.Join("acme", "acme.catalog.yaml"), filepath.Join("acme", "rules")},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		// The summary is the last line: "N passed, 0 failed".
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var passed, failed int
		_, scanErr := fmt.Sscanf(lines[len(lines)-1], "%d passed, %d failed", &passed, &failed)
		if err != nil || scanErr != nil || passed == 0 || failed != 0 {
			t.Errorf("oarc %s (installed, outside the repository): %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// The runner's module lives in a temporary directory of its own, not
	// in the user's.
	if _, err := os.Stat(filepath.Join(work, "go.mod")); err == nil {
		t.Errorf("oarc test wrote a go.mod into the user's directory")
	}
}

// oarc guard builds a proxy from an installed binary, outside the
// repository, with nothing in the module cache and no network (spec 11),
// for the default catalog and for a host catalog.
func TestInstalledGuard(t *testing.T) {
	long.Require(t, "builds oarc and two proxies with the go command")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin", "oarc")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/oarc")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -trimpath: %v\n%s", err, out)
	}
	work := filepath.Join(tmp, "work")
	for _, ex := range []string{"mcp", "acme"} {
		if err := os.CopyFS(filepath.Join(work, ex), os.DirFS(filepath.Join(root, "examples", ex))); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOMODCACHE="+filepath.Join(tmp, "modcache"), "GOPROXY=off", "GOFLAGS=", "GOWORK=off")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"guard", "-pack", "mcp/stock", "-pack", "mcp/project", "-o", "g1"}, "set mcp-stock+mcp-project"},
		{[]string{"guard", "-catalog", filepath.Join("acme", "acme.catalog.yaml"), "-pack", filepath.Join("acme", "rules"), "-o", "g2"}, "set acme"},
	} {
		cmd := exec.Command(bin, tc.args...)
		cmd.Dir = work
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("oarc %s: %v\n%s", strings.Join(tc.args, " "), err, out)
		}
		proxy := exec.Command(filepath.Join(work, tc.args[len(tc.args)-1]), "-version")
		out, err := proxy.CombinedOutput()
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s -version: %v\n%s", tc.args[len(tc.args)-1], err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "go.mod")); err == nil {
		t.Errorf("oarc guard wrote a go.mod into the user's directory")
	}
}
