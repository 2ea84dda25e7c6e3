// Package shared locates the project's shared workspace (../shared next to
// the repository: the spec, the seeds, the shared catalog and benchmark
// pack) for tests that compare against it.
//
// Those comparisons belong to CI: .ci/run sets OARC_SHARED=1, and then a
// test that needs the workspace fails when it is missing (a skipped
// comparison would pass without comparing anything). Elsewhere (a fresh
// clone, where the README's `go test ./...` must pass with nothing beside
// the repository) they skip, saying why.
package shared

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Required reports whether the tests that compare with the shared
// workspace must run (OARC_SHARED=1, set by .ci/run).
func Required() bool { return os.Getenv("OARC_SHARED") == "1" }

// Dir returns the path of rel inside the shared workspace. Under
// OARC_SHARED=1 it fails the test when the path is missing; otherwise it
// skips the test, with the reason.
func Dir(tb testing.TB, rel ...string) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("shared: cannot locate the repository")
	}
	// file is <repo>/testkit/shared/shared.go.
	repo := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	p := filepath.Join(append([]string{repo, "..", "shared"}, rel...)...)
	if !Required() {
		tb.Skipf("compares with the shared workspace (%s): run under .ci/run, or set OARC_SHARED=1", p)
	}
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("%v: OARC_SHARED=1 and the shared workspace must sit next to the repository", err)
	}
	return p
}
