// Package shared locates the project's shared workspace (../shared next to
// the repository: the spec, the seeds, the shared catalog and benchmark
// pack) for tests that compare against it.
//
// A test that needs it fails when it is missing: CI has it, and a skipped
// comparison would pass without comparing anything. Outside the project's
// workspace, set OARC_NO_SHARED=1 to skip those tests instead.
package shared

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the path of rel inside the shared workspace. It fails the
// test when the path is missing, or skips it when OARC_NO_SHARED=1.
func Dir(tb testing.TB, rel ...string) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("shared: cannot locate the repository")
	}
	// file is <repo>/testkit/shared/shared.go.
	repo := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	p := filepath.Join(append([]string{repo, "..", "shared"}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("OARC_NO_SHARED") == "1" {
			tb.Skipf("OARC_NO_SHARED=1 and %s is missing", p)
		}
		tb.Fatalf("%v: the shared workspace must sit next to the repository (set OARC_NO_SHARED=1 to skip the tests that need it)", err)
	}
	return p
}
