package conformance

import (
	"os"
	"path/filepath"
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

// sections are the corpus's directories of fixtures by spec section; each
// pack in them runs alone. Compilation sets of several packs are in sets/.
var sections = []string{"s2_load", "s3_facts", "s4_cel", "s5_eval"}

func TestCorpus(t *testing.T) {
	known := knownFailures(t)
	results := harness.Run(sections, harness.Options{Engines: harness.Both})
	if len(results) < minFixtures {
		t.Errorf("ran %d fixtures, want at least %d", len(results), minFixtures)
	}
	bySection := map[string]int{}
	seen := map[[2]string]bool{}
	for _, r := range results {
		bySection[strings.SplitN(r.File, "/", 2)[0]]++
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
	t.Logf("fixtures by section: %v", bySection)
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

// TestSets runs each directory of sets/ as one compilation set: its pack
// directories given together (spec section 1), their fixtures against the
// whole set.
func TestSets(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("sets", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no sets: %v", err)
	}
	for _, dir := range dirs {
		packs, _ := filepath.Glob(filepath.Join(dir, "*", "policy"))
		var paths []string
		for _, p := range packs {
			paths = append(paths, filepath.Dir(p))
		}
		results := harness.Run(paths, harness.Options{Engines: harness.Both})
		if len(results) == 0 {
			t.Errorf("%s: no fixtures", dir)
		}
		for _, r := range results {
			if r.Status != harness.Pass {
				t.Errorf("%s %s: %s\n%s", r.Status, r.File, r.Name, strings.Join(r.Messages, "\n"))
			}
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
