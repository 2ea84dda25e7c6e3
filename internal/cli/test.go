// This file owns `oarc test`.

package cli

import (
	"flag"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/testkit/harness"
)

func init() {
	register("test", &Command{Summary: "run fixtures against the generated code and the reference evaluator", Help: testHelp, Run: runTest})
}

const testHelp = `Runs fixtures (spec section 8: a pack's fixtures/*.json, fixture files, or
directories of them) against the generated code, compiled and run through
the Go toolchain in a temporary module, and against the reference evaluator
(cel-go), by default both: a disagreement between the engines is a failure
of its own. The pack directories given together are one compilation set,
which their fixtures run against. In a directory searched, each pack runs
alone, and a directory with a set.yaml (packs: [a, b]) runs the packs it
lists as one set (docs/test.md). Prints the problems of every pack or set
that does not load (as oarc check does), one line per failure (with the
fixture's file:line:col), "PASS" lines with -v, a line for each pack that
has no fixtures, and the summary "N passed, N failed".

With -cover, prints per set what its fixtures covered, rule by rule in
evaluation order (docs/test.md): covered (some step made it fire on its
condition), failed-closed (it fired only by failing closed), not-fired
(reached, never fired) or unreached (no step got to it), with the steps in
which it fired, failed closed and was reached. -min P (which implies
-cover) fails the run when a set has less than P percent of its rules
covered; a pack without fixtures covers nothing.

Exit status: 1 on any failure or invalid fixture, a pack that does not
load, or coverage under -min; 0 otherwise; 2 on bad usage.`

func runTest(env *Env, args []string) int {
	fs := newFlags(env, "test", "PATH...")
	asJSON := fs.Bool("json", false, "print JSON Lines: a record per fixture, per set with -cover, and a summary record last (docs/json.md)")
	run := fs.String("run", "", "run only fixtures whose name matches this regular expression")
	engine := fs.String("engine", "both", "engine: generated, reference or both (both also fails when they disagree)")
	verbose := fs.Bool("v", false, "list the passing fixtures too")
	cover := fs.Bool("cover", false, "report which rules the fixtures covered (docs/test.md)")
	minCover := fs.Float64("min", 0, "with -cover (implied): fail when a set has less than this percent of its rules covered")
	var lf loadFlags
	lf.register(fs)
	paths, code := parseAnywhere(fs, args)
	if code >= 0 {
		return code
	}
	if len(paths) == 0 {
		fmt.Fprintln(env.Stderr, "oarc test: give pack directories, rule files, fixture files or directories of them")
		fs.Usage()
		return ExitUsage
	}
	if missingPaths(env, "test", paths) {
		return ExitUsage
	}
	engines, ok := harness.ParseEngines(*engine)
	if !ok {
		fmt.Fprintf(env.Stderr, "oarc test: -engine must be generated, reference or both, not %q\n", *engine)
		return ExitUsage
	}
	if engines != harness.Reference {
		if _, err := exec.LookPath("go"); err != nil {
			fmt.Fprintf(env.Stderr, "oarc test: the generated engine builds the generated code with the go command, which is not on PATH (%v): install Go, or run -engine reference\n", err)
			return ExitFailure
		}
	}
	minSet := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "min" {
			minSet = true
		}
	})
	if minSet && (*minCover < 0 || *minCover > 100) {
		fmt.Fprintf(env.Stderr, "oarc test: -min must be a percentage from 0 to 100, not %v\n", *minCover)
		return ExitUsage
	}
	*cover = *cover || minSet
	load, ok := lf.options(env, "test")
	if !ok {
		return ExitFailure
	}
	opts := harness.Options{Engines: engines, Load: load}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			fmt.Fprintf(env.Stderr, "oarc test: -run: %v\n", err)
			return ExitUsage
		}
		opts.Run = re
	}
	rep := harness.RunReport(paths, opts)
	sum := testSummary{Command: "test", Min: nil}
	for _, r := range rep.Results {
		switch r.Status {
		case harness.Pass:
			sum.Passed++
		case harness.Invalid:
			sum.Invalid++
			sum.Failed++
		default:
			sum.Failed++
		}
	}
	var below []*harness.SetCoverage
	for _, c := range rep.Coverage {
		if c.Fixtures == 0 && c.Invalid == 0 {
			sum.NoFixtures = append(sum.NoFixtures, setLabel(c))
		}
		if minSet && c.Percent() < *minCover {
			below = append(below, c)
		}
	}
	if sum.NoFixtures == nil {
		sum.NoFixtures = []string{}
	}
	sum.NotLoaded = []string{}
	for _, nl := range rep.NotLoaded {
		sum.NotLoaded = append(sum.NotLoaded, strings.Join(nl.Paths, " + "))
	}
	code = ExitOK
	if sum.Failed > 0 || len(below) > 0 || len(rep.NotLoaded) > 0 {
		code = ExitFailure
	}
	if *asJSON {
		w := newJSONOut(env.Stdout)
		for _, nl := range rep.NotLoaded {
			for _, d := range nl.Diagnostics {
				w.record("diagnostic", d)
			}
		}
		for _, r := range rep.Results {
			w.record("fixture", r)
		}
		if *cover {
			for _, c := range rep.Coverage {
				w.record("coverage", coverageRecord(c))
			}
		}
		if minSet {
			sum.Min = minCover
		}
		sum.Exit = code
		w.record("summary", sum)
		return code
	}
	// The problems of a set that does not load come first, printed as
	// oarc check prints them.
	for _, nl := range rep.NotLoaded {
		fmt.Fprint(env.Stdout, nl.Diagnostics.Text())
		errs, _ := countDiags(nl.Diagnostics)
		fmt.Fprintf(env.Stdout, "%s: does not load (%s)\n", compiler.Visible(strings.Join(nl.Paths, " + ")), countOf(errs, "error"))
	}
	for _, r := range rep.Results {
		switch {
		case r.Status != harness.Pass:
			for _, m := range r.Messages {
				// A message quotes the fixture file (a key, a path
				// into it): its control and invisible characters are
				// shown as escapes, line by line (a message of a set
				// that does not load holds the diagnostics' lines).
				lines := strings.Split(m, "\n")
				for i, l := range lines {
					lines[i] = compiler.Visible(l)
				}
				fmt.Fprintf(env.Stdout, "%s: %s\n", strings.ToUpper(string(r.Status)), strings.Join(lines, "\n"))
			}
		case *verbose:
			fmt.Fprintf(env.Stdout, "PASS: %s: fixture %q\n", compiler.Visible(r.File), r.Name)
		}
	}
	for _, name := range sum.NoFixtures {
		fmt.Fprintf(env.Stdout, "%s: no fixtures\n", compiler.Visible(name))
	}
	fmt.Fprintf(env.Stdout, "%d passed, %d failed", sum.Passed, sum.Failed)
	switch n := len(sum.NotLoaded); n {
	case 0:
	case 1:
		fmt.Fprint(env.Stdout, ", 1 set does not load")
	default:
		fmt.Fprintf(env.Stdout, ", %d sets do not load", n)
	}
	fmt.Fprintln(env.Stdout)
	if *cover {
		for _, c := range rep.Coverage {
			printCoverage(env, c)
		}
	}
	for _, c := range below {
		fmt.Fprintf(env.Stdout, "coverage of %s is %.1f%%, below -min %v\n", setLabel(c), c.Percent(), *minCover)
	}
	return code
}

// testSummary is the last record of test -json.
type testSummary struct {
	Command string `json:"command"`
	Passed  int    `json:"passed"`
	// Failed counts failed and invalid fixtures; Invalid the invalid ones.
	Failed  int `json:"failed"`
	Invalid int `json:"invalid"`
	// NoFixtures names the sets no fixture ran against, NotLoaded those
	// that do not load (their diagnostics are the diagnostic records).
	NoFixtures []string `json:"no_fixtures"`
	NotLoaded  []string `json:"not_loaded"`
	// Min is -min, absent without it.
	Min  *float64 `json:"min,omitempty"`
	Exit int      `json:"exit"`
}

// coverageJSON is a coverage record of test -json.
type coverageJSON struct {
	*harness.SetCoverage
	Rules   []ruleCoverageJSON `json:"rules"`
	Covered int                `json:"covered"`
	Percent float64            `json:"percent"`
}

type ruleCoverageJSON struct {
	*harness.RuleCoverage
	Status string `json:"status"`
}

func coverageRecord(c *harness.SetCoverage) coverageJSON {
	out := coverageJSON{SetCoverage: c, Rules: []ruleCoverageJSON{}, Covered: c.Covered(), Percent: c.Percent()}
	for _, r := range c.Rules {
		out.Rules = append(out.Rules, ruleCoverageJSON{RuleCoverage: r, Status: r.Status()})
	}
	return out
}

// setLabel names a set in messages: the paths it was loaded from.
func setLabel(c *harness.SetCoverage) string { return strings.Join(c.Paths, " + ") }

// printCoverage prints one set's coverage: a header line, then a line per
// rule in evaluation order.
func printCoverage(env *Env, c *harness.SetCoverage) {
	fmt.Fprintf(env.Stdout, "coverage of %s: %d of %d rules covered (%.1f%%) by %s, %s\n",
		setLabel(c), c.Covered(), len(c.Rules), c.Percent(), countOf(c.Fixtures, "fixture"), countOf(c.Steps, "step"))
	width := 0
	for _, r := range c.Rules {
		width = max(width, len(r.Rule))
	}
	for _, r := range c.Rules {
		fmt.Fprintf(env.Stdout, "  %-13s %-*s  fired %d, failed closed %d, errors %d, reached %d\n",
			r.Status(), width, r.Rule, r.Fired, r.FailedClosed, r.Errors, r.Reached)
	}
}
