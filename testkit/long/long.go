// Package long tells tests whether to run at full length. The README's
// `go test ./...` runs every test, each with enough cases to catch a
// regression in a few seconds; .ci/run sets OARC_LONG=1 and the long
// differential runs, the whole fuzz seed corpora and the tests that build
// and install binaries run at full length there.
package long

import (
	"os"
	"testing"
)

// Enabled reports whether tests run at full length (OARC_LONG=1).
func Enabled() bool { return os.Getenv("OARC_LONG") == "1" }

// N returns full under OARC_LONG=1, else short.
func N(short, full int) int {
	if Enabled() {
		return full
	}
	return short
}

// Require skips tb, with the reason, unless tests run at full length.
func Require(tb testing.TB, why string) {
	tb.Helper()
	if !Enabled() {
		tb.Skipf("%s: runs under .ci/run (OARC_LONG=1)", why)
	}
}
