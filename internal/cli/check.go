// This file owns `oarc check`.

package cli

import (
	"flag"
	"fmt"
	"os"

	"github.com/oarc/oarc/compiler"
)

func init() {
	register("check", &Command{Summary: "load and check rule packs or rule files", Run: runCheck})
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
	fs.Uint64Var(&lf.maxCost, "max-cost", compiler.DefaultMaxCost, "limit of a rule's estimated CEL cost")
	fs.StringVar(&lf.catalog, "catalog", "", "the host catalog file the packs are checked against (overrides pack.yaml; default: the embedded Painted Wolf catalog)")
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

// loadSets loads paths as compilation sets (spec section 1): the pack
// directories together as one set, each rule file as a set of its own.
func loadSets(paths []string, opts compiler.Options) ([]*compiler.Set, compiler.Diagnostics) {
	var dirs, files []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	var sets []*compiler.Set
	var all compiler.Diagnostics
	if len(dirs) > 0 {
		s, ds := compiler.Load(dirs, opts)
		sets = append(sets, s)
		all = append(all, ds...)
	}
	for _, f := range files {
		s, ds := compiler.LoadFile(f, opts)
		sets = append(sets, s)
		all = append(all, ds...)
	}
	all.Sort()
	return sets, all
}

func runCheck(env *Env, args []string) int {
	fs := newFlags(env, "check", "PATH...")
	asJSON := fs.Bool("json", false, "print the diagnostics as JSON")
	var lf loadFlags
	lf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(env.Stderr, "oarc check: give at least one pack directory or rule file")
		fs.Usage()
		return ExitUsage
	}
	if lf.maxCost == 0 {
		fmt.Fprintln(env.Stderr, "oarc check: -max-cost must be positive")
		return ExitUsage
	}
	if missingPaths(env, "check", fs.Args()) {
		return ExitUsage
	}
	opts, ok := lf.options(env, "check")
	if !ok {
		return ExitFailure
	}
	_, diags := loadSets(fs.Args(), opts)
	if *asJSON {
		env.Stdout.Write(diags.JSON())
	} else {
		fmt.Fprint(env.Stdout, diags.Text())
	}
	if diags.HasErrors() {
		return ExitFailure
	}
	return ExitOK
}
