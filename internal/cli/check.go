// This file owns `oarc check`.

package cli

import (
	"flag"
	"fmt"
	"os"

	"github.com/oarc/oarc/compiler"
)

func init() {
	register("check", &Command{Summary: "load and check rule packs or rule files", Help: checkHelp, Run: runCheck})
	register("vet", &Command{Summary: "check packs and report rules that cannot do what they mean", Help: vetHelp, Run: runVet})
}

// loadFlags are the flags of every command that loads packs.
type loadFlags struct {
	portable bool
	maxCost  uint64
	catalog  string
}

// register adds -portable, -max-cost and -catalog to fs.
func (lf *loadFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&lf.portable, "portable", false, "reject every use of a host fact or host function (and of oarc's provenance facts)")
	fs.Uint64Var(&lf.maxCost, "max-cost", 0, "limit of a rule's estimated CEL cost, overriding every pack's max_cost (default: a pack's max_cost, else 1000000)")
	fs.StringVar(&lf.catalog, "catalog", "", "the host catalog file the packs are checked against (overrides pack.yaml; default: the embedded Painted Wolf catalog)")
}

// valid loads the -catalog file, if any, for a command whose work does not
// depend on it, and reports whether it loaded (its problems printed).
func (lf *loadFlags) valid(env *Env, cmd string) bool {
	_, ok := lf.options(env, cmd)
	return ok
}

// options returns the load options; with -catalog it loads the catalog,
// printing its problems on stderr, and reports false when it has errors.
func (lf *loadFlags) options(env *Env, cmd string) (compiler.Options, bool) {
	opts := compiler.Options{Portable: lf.portable, MaxCost: lf.maxCost}
	if lf.catalog == "" {
		return opts, true
	}
	if missingPaths(env, cmd, []string{lf.catalog}) {
		return opts, false
	}
	cat, diags := compiler.LoadCatalog(lf.catalog)
	if len(diags) > 0 {
		fmt.Fprint(env.Stderr, diags.Text())
	}
	if cat == nil {
		return opts, false
	}
	opts.Catalog = cat
	return opts, true
}

// loaded is one compilation set and its own diagnostics.
type loaded struct {
	set   *compiler.Set
	diags compiler.Diagnostics
}

// loadEach loads paths as compilation sets (spec section 1): the pack
// directories together as one set, each rule file as a set of its own.
func loadEach(paths []string, opts compiler.Options) []loaded {
	var dirs, files []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	var out []loaded
	if len(dirs) > 0 {
		s, ds := compiler.Load(dirs, opts)
		out = append(out, loaded{s, ds})
	}
	for _, f := range files {
		s, ds := compiler.LoadFile(f, opts)
		out = append(out, loaded{s, ds})
	}
	return out
}

// loadSets is loadEach with the diagnostics of every set together,
// sorted.
func loadSets(paths []string, opts compiler.Options) ([]*compiler.Set, compiler.Diagnostics) {
	var sets []*compiler.Set
	var all compiler.Diagnostics
	for _, l := range loadEach(paths, opts) {
		sets = append(sets, l.set)
		all = append(all, l.diags...)
	}
	all.Sort()
	return sets, all
}

const checkHelp = `Loads the packs or rule files (the pack directories given together are one
compilation set, each rule file one of its own), validates every field
against the OAR 1.0 spec and the catalog, and type-checks each when with
cel-go. Every problem of every file is printed, sorted by position, as

    path:line:col: error: message [CODE]

(warnings say "warning:"), with the source line and a caret under the
offending token for CEL problems. The codes are stable (spec section 7).
With -vet, the checks of oarc vet run too, on every set that loads without
errors.

Exit status: 0 when there are no errors (warnings allowed; with -strict,
none either), 1 when there are, 2 on bad usage.`

const vetHelp = `Checks the packs or rule files like oarc check, then, on every set that
loads without errors, looks for rules that load but cannot do what their
author meant, reported as warnings with stable codes (docs/vet.md):

    OAR_VET_NEVER        the rule's condition can never hold (a selector that
                         contradicts the when, a when that folds to false,
                         tool == "a" && tool == "b", a flow longer than its
                         window)
    OAR_VET_UNREACHABLE  an earlier enforced block at the same anchor fires
                         whenever the rule would
    OAR_VET_DYN_COMPARE  an ordering comparison of a dyn value that fails for
                         every value it can hold (tool_args.n > null)
    OAR_VET_NO_TITLE     an enforced block or warn without copy.title
    OAR_VET_MISSING_ARG  tool_args.x, unguarded by has(), in a rule that fails
                         closed: it fires on every call without x
    OAR_VET_ARG_INT      tool_arg_int("x") > 500 and the like: a number with a
                         fraction reads as 0 and gets past the rule
    OAR_VET_ARG_STRING   tool_arg_string("x") == "5" and the like: a JSON
                         number reads as ""
    OAR_VET_NODE_FIELD   a field no provenance node has (n.lables): an error
                         on every node

oarc check -vet prints the same. Exit status: 1 when there are errors (and
with -strict when there are warnings), 0 otherwise, 2 on bad usage.`

func runCheck(env *Env, args []string) int { return checkCommand(env, "check", args) }

func runVet(env *Env, args []string) int { return checkCommand(env, "vet", args) }

// checkCommand is oarc check and oarc vet.
func checkCommand(env *Env, cmd string, args []string) int {
	fs := newFlags(env, cmd, "PATH...")
	asJSON := fs.Bool("json", false, "print JSON Lines: a record per diagnostic, a summary record last (docs/json.md)")
	strict := fs.Bool("strict", false, "warnings are errors: exit 1 when there is any")
	vet := cmd == "vet"
	if !vet {
		fs.BoolVar(&vet, "vet", false, "run the checks of oarc vet too (docs/vet.md)")
	}
	var lf loadFlags
	lf.register(fs)
	paths, code := parseAnywhere(fs, args)
	if code >= 0 {
		return code
	}
	if len(paths) == 0 {
		fmt.Fprintf(env.Stderr, "oarc %s: give at least one pack directory or rule file\n", cmd)
		fs.Usage()
		return ExitUsage
	}
	if lf.maxCost == 0 && flagSet(fs, "max-cost") {
		fmt.Fprintf(env.Stderr, "oarc %s: -max-cost must be positive\n", cmd)
		return ExitUsage
	}
	if missingPaths(env, cmd, paths) {
		return ExitUsage
	}
	opts, ok := lf.options(env, cmd)
	if !ok {
		return ExitFailure
	}
	var diags compiler.Diagnostics
	for _, l := range loadEach(paths, opts) {
		diags = append(diags, l.diags...)
		if vet && !l.diags.HasErrors() {
			diags = append(diags, compiler.Vet(l.set)...)
		}
	}
	diags.Sort()
	errs, warns := countDiags(diags)
	code = ExitOK
	if errs > 0 || *strict && warns > 0 {
		code = ExitFailure
	}
	if *asJSON {
		w := newJSONOut(env.Stdout)
		for _, d := range diags {
			w.record("diagnostic", d)
		}
		w.record("summary", checkSummary{Command: cmd, Errors: errs, Warnings: warns, Strict: *strict, Vet: vet, Exit: code})
		return code
	}
	fmt.Fprint(env.Stdout, diags.Text())
	if *strict && errs == 0 && warns > 0 {
		fmt.Fprintf(env.Stderr, "oarc %s: -strict: %s\n", cmd, countOf(warns, "warning"))
	}
	return code
}

// checkSummary is the last record of check -json and vet -json.
type checkSummary struct {
	Command  string `json:"command"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	Strict   bool   `json:"strict"`
	Vet      bool   `json:"vet"`
	Exit     int    `json:"exit"`
}

func countDiags(ds compiler.Diagnostics) (errs, warns int) {
	for _, d := range ds {
		if d.Severity == compiler.Error {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

// countOf spells n things.
func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
