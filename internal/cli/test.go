// This file owns `oarc test`.

package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/oarc/oarc/testkit/harness"
)

func init() {
	register("test", &Command{Summary: "run fixtures against the generated code and the reference evaluator", Run: runTest})
}

func runTest(env *Env, args []string) int {
	fs := newFlags(env, "test", "PATH...")
	asJSON := fs.Bool("json", false, "print one JSON result object per fixture")
	run := fs.String("run", "", "run only fixtures whose name matches this regular expression")
	engine := fs.String("engine", "both", "engine: generated, reference or both (both also fails when they disagree)")
	var lf loadFlags
	lf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(env.Stderr, "oarc test: give pack directories, rule files, fixture files or directories of them")
		fs.Usage()
		return ExitUsage
	}
	if missingPaths(env, "test", fs.Args()) {
		return ExitUsage
	}
	engines, ok := harness.ParseEngines(*engine)
	if !ok {
		fmt.Fprintf(env.Stderr, "oarc test: -engine must be generated, reference or both, not %q\n", *engine)
		return ExitUsage
	}
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
	results := harness.Run(fs.Args(), opts)
	passed, failed := 0, 0
	enc := json.NewEncoder(env.Stdout)
	for _, r := range results {
		if r.Status == harness.Pass {
			passed++
		} else {
			failed++
		}
		if *asJSON {
			enc.Encode(r)
			continue
		}
		if r.Status != harness.Pass {
			for _, m := range r.Messages {
				fmt.Fprintf(env.Stdout, "%s: %s\n", strings.ToUpper(string(r.Status)), m)
			}
		}
	}
	if !*asJSON {
		fmt.Fprintf(env.Stdout, "%d passed, %d failed\n", passed, failed)
	}
	if failed > 0 {
		return ExitFailure
	}
	return ExitOK
}
