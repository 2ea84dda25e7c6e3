// This file owns `oarc check`.

package cli

import (
	"flag"
	"fmt"

	"github.com/oarc/oarc/compiler"
)

func init() {
	register("check", &Command{Summary: "load and check rule packs or rule files", Run: runCheck})
}

// loadFlags are the flags of every command that loads packs.
type loadFlags struct {
	portable bool
	maxCost  uint64
}

// register adds -portable and -max-cost to fs.
func (lf *loadFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&lf.portable, "portable", false, "reject every use of a host fact or host function")
	fs.Uint64Var(&lf.maxCost, "max-cost", compiler.DefaultMaxCost, "limit of a rule's estimated CEL cost")
}

func (lf *loadFlags) options() compiler.Options {
	return compiler.Options{Portable: lf.portable, MaxCost: lf.maxCost}
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
	_, diags := compiler.Load(fs.Args(), lf.options())
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
