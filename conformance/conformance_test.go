package conformance

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/oarc/oarc/testkit/harness"
)

// minFixtures guards against the corpus silently shrinking (for example a
// directory no longer being found).
const minFixtures = 250

// knownFailures reads KNOWN_FAILURES.md: file -> fixture names.
func knownFailures(t *testing.T) map[[2]string]bool {
	data, err := os.ReadFile("KNOWN_FAILURES.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]string]bool{}
	re := regexp.MustCompile("(?m)^- `([^`]+)` `([^`]+)`")
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		out[[2]string{m[1], m[2]}] = true
	}
	return out
}

// TestCorpus runs the corpus the way `oarc test conformance` runs it (one
// definition, in testkit/harness): every fixture file of the section
// directories, each pack alone, and each directory with a set.yaml
// (sets/...) as the one compilation set of the packs it lists (spec
// section 1). Every pack and set loads and has fixtures.
func TestCorpus(t *testing.T) {
	known := knownFailures(t)
	rep := harness.RunReport([]string{"."}, harness.Options{Engines: harness.Both})
	results := rep.Results
	if len(results) < minFixtures {
		t.Errorf("ran %d fixtures, want at least %d", len(results), minFixtures)
	}
	for _, nl := range rep.NotLoaded {
		t.Errorf("%s does not load:\n%s", strings.Join(nl.Paths, " + "), nl.Diagnostics.Text())
	}
	for _, c := range rep.Coverage {
		if c.Fixtures == 0 {
			t.Errorf("%s: no fixtures", strings.Join(c.Paths, " + "))
		}
	}
	bySection := map[string]int{}
	seen := map[[2]string]bool{}
	passed, failed := 0, 0
	for _, r := range results {
		bySection[strings.SplitN(r.File, "/", 2)[0]]++
		if r.Status == harness.Pass {
			passed++
		} else {
			failed++
		}
		key := [2]string{r.File, r.Name}
		if known[key] {
			seen[key] = true
			checkKnownFailure(t, r)
			continue
		}
		if r.Status != harness.Pass {
			t.Errorf("%s %s: %s\n%s", r.Status, r.File, r.Name, strings.Join(r.Messages, "\n"))
		}
	}
	for k := range known {
		if !seen[k] {
			t.Errorf("KNOWN_FAILURES.md lists %s %q, which is not in the corpus", k[0], k[1])
		}
	}
	for _, dir := range []string{"s2_load", "s3_facts", "s4_cel", "s5_eval", "sets"} {
		if bySection[dir] == 0 {
			t.Errorf("no fixtures ran from %s", dir)
		}
	}
	// The line oarc test prints, to compare with `oarc test conformance`.
	t.Logf("%d passed, %d failed; fixtures by directory: %v", passed, failed, bySection)
}

// checkKnownFailure requires a known failure to pass on the reference and
// to fail on the generated code only.
func checkKnownFailure(t *testing.T, r harness.Result) {
	t.Helper()
	if r.Status == harness.Pass {
		t.Errorf("%s %q now passes: remove it from KNOWN_FAILURES.md", r.File, r.Name)
		return
	}
	for _, m := range r.Messages {
		if strings.Contains(m, ": reference: ") {
			t.Errorf("%s %q: the reference fails too: %s", r.File, r.Name, m)
		}
	}
}

// TestStarter runs the starter pack's fixtures against both engines.
func TestStarter(t *testing.T) {
	results := harness.Run([]string{"../examples/starter"}, harness.Options{Engines: harness.Both})
	if len(results) < 30 {
		t.Errorf("ran %d starter fixtures, want at least 30", len(results))
	}
	for _, r := range results {
		if r.Status != harness.Pass {
			t.Errorf("%s %s: %s\n%s", r.Status, r.File, r.Name, strings.Join(r.Messages, "\n"))
		}
	}
}
