package conformance

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/oarc/oarc/testkit/harness"
)

// manifest is the committed count of fixtures of every fixture file the
// corpus runs: a file, a directory or a whole section that is no longer
// found, or a fixture lost from a file, fails TestCorpus.
const manifest = "manifest.txt"

var updateManifest = flag.Bool("update-manifest", false, "rewrite manifest.txt with the fixtures TestCorpus runs")

// checkManifest compares the fixtures run, counted by file, with the
// manifest (or, with -update-manifest, rewrites it).
func checkManifest(t *testing.T, results []harness.Result) {
	t.Helper()
	ran := map[string]int{}
	for _, r := range results {
		ran[filepath.ToSlash(r.File)]++
	}
	if *updateManifest {
		var lines []string
		for file, n := range ran {
			lines = append(lines, fmt.Sprintf("%d %s", n, file))
		}
		sort.Slice(lines, func(i, j int) bool { return strings.Fields(lines[i])[1] < strings.Fields(lines[j])[1] })
		head := "# Fixtures the corpus runs, by file (count path); TestCorpus compares what it runs\n" +
			"# with this. After adding fixtures: go test ./conformance -run TestCorpus -update-manifest\n"
		if err := os.WriteFile(manifest, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(line, "#") {
			continue
		}
		n, err := strconv.Atoi(f[0])
		if len(f) != 2 || err != nil {
			t.Fatalf("%s: bad line %q", manifest, line)
		}
		want[f[1]] = n
	}
	for file, n := range want {
		if ran[file] != n {
			t.Errorf("%s: ran %d fixtures, %s says %d (after a deliberate change: -update-manifest)", file, ran[file], manifest, n)
		}
	}
	for file, n := range ran {
		if _, ok := want[file]; !ok {
			t.Errorf("%s: ran %d fixtures of a file %s does not list (after a deliberate change: -update-manifest)", file, n, manifest)
		}
	}
}

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
	checkManifest(t, results)
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
		// A fixture that ran was answered by both engines, so that their
		// agreement (harness.Disagree) checked every field of the
		// decision, the ones its expectations leave out included.
		if _, rejection := r.Got["diagnostics"]; r.Status == harness.Pass && !rejection && (r.Got["reference"] == nil || r.Got["generated"] == nil) {
			t.Errorf("%s %s: passed without answers of both engines: %v", r.File, r.Name, r.Got)
		}
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
