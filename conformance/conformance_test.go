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
// found, or a fixture lost from a file, fails the test that runs it.
const manifest = "manifest.txt"

var updateManifest = flag.Bool("update-manifest", false, "rewrite manifest.txt with the fixtures that TestCorpus and TestSets run")

// checkManifest compares the fixtures run, counted by file, with the
// entries of the manifest under the given directories (or, with
// -update-manifest, rewrites those entries).
func checkManifest(t *testing.T, dirs []string, results []harness.Result) {
	t.Helper()
	under := func(file string) bool {
		for _, d := range dirs {
			if strings.HasPrefix(file, d+"/") {
				return true
			}
		}
		return false
	}
	ran := map[string]int{}
	for _, r := range results {
		ran[filepath.ToSlash(r.File)]++
	}
	data, err := os.ReadFile(manifest)
	if err != nil && !*updateManifest {
		t.Fatal(err)
	}
	want := map[string]int{}
	var keep []string // the lines of other tests' directories
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 || strings.HasPrefix(line, "#") {
			continue
		}
		n, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("%s: bad line %q", manifest, line)
		}
		if under(f[1]) {
			want[f[1]] = n
		} else {
			keep = append(keep, line)
		}
	}
	if *updateManifest {
		for file, n := range ran {
			keep = append(keep, fmt.Sprintf("%d %s", n, file))
		}
		sort.Slice(keep, func(i, j int) bool { return strings.Fields(keep[i])[1] < strings.Fields(keep[j])[1] })
		head := "# Fixtures the corpus runs, by file (count path): TestCorpus and TestSets compare\n" +
			"# what they run with it. After adding fixtures: go test ./conformance -run 'TestCorpus|TestSets' -update-manifest\n"
		if err := os.WriteFile(manifest, []byte(head+strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for file, n := range want {
		if ran[file] != n {
			t.Errorf("%s: ran %d fixtures, the manifest says %d (after a deliberate change: -update-manifest)", file, ran[file], n)
		}
	}
	for file, n := range ran {
		if _, ok := want[file]; !ok {
			t.Errorf("%s: ran %d fixtures of a file the manifest does not list (after a deliberate change: -update-manifest)", file, n)
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

// sections are the corpus's directories of fixtures by spec section; each
// pack in them runs alone. Compilation sets of several packs are in sets/.
var sections = []string{"s2_load", "s3_facts", "s4_cel", "s5_eval"}

func TestCorpus(t *testing.T) {
	known := knownFailures(t)
	results := harness.Run(sections, harness.Options{Engines: harness.Both})
	checkManifest(t, sections, results)
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
	var all []harness.Result
	defer func() { checkManifest(t, []string{"sets"}, all) }()
	for _, dir := range dirs {
		packs, _ := filepath.Glob(filepath.Join(dir, "*", "policy"))
		var paths []string
		for _, p := range packs {
			paths = append(paths, filepath.Dir(p))
		}
		results := harness.Run(paths, harness.Options{Engines: harness.Both})
		all = append(all, results...)
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
