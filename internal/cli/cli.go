// Package cli is the oarc command line: a table of subcommands, each in its
// own file, dispatched by [Run]. cmd/oarc/main.go only calls Run, so the
// whole CLI is testable in-process.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"sort"
	"strings"
)

// Command is one subcommand.
type Command struct {
	// Summary is the one-line description shown by `oarc help`.
	Summary string
	// Help is the description `oarc help CMD` and `oarc CMD -h` print
	// between the usage line and the flags: what the command does, what it
	// prints, its exit status.
	Help string
	// Run executes the subcommand with the arguments after its name and
	// returns the exit code: 0 success, 1 failure, 2 bad usage.
	Run func(env *Env, args []string) int
}

// Env is what a subcommand may use of its process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// commands is the dispatch table. Subcommands register themselves from
// their own file with [register] in an init function.
var commands = map[string]*Command{}

// register adds a subcommand to the dispatch table.
func register(name string, c *Command) {
	if _, dup := commands[name]; dup {
		panic("cli: duplicate command " + name)
	}
	commands[name] = c
}

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// Run runs oarc with args (without the program name) and returns the exit
// code. It never lets a panic escape: an internal error is reported on
// stderr with exit code 1.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "oarc: internal error: %v\nplease report this with the input that caused it\n", r)
			if strings.Contains(strings.Join(args, " "), "-debug-panic") {
				stderr.Write(debug.Stack())
			}
			code = ExitFailure
		}
	}()
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && name == "help" {
			return help(env, args[1:])
		}
		usage(stdout)
		return ExitOK
	case "-version", "--version":
		return runVersion(env, args[1:])
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "oarc: unknown command %q\n", name)
		usage(stderr)
		return ExitUsage
	}
	return c.Run(env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: oarc <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	var names []string
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nRun 'oarc help <command>' for a command's help and flags; 'oarc -version' prints the version.")
}

// help prints the help of one command on stdout: its usage line, its
// description and its flags (what `oarc CMD -h` prints on stderr).
func help(env *Env, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(env.Stderr, "usage: oarc help <command>")
		return ExitUsage
	}
	if args[0] == "help" {
		fmt.Fprintln(env.Stdout, "usage: oarc help <command>\n\nPrints a command's help: its usage line, what it does, and its flags.")
		return ExitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "oarc help: unknown command %q\n", args[0])
		usage(env.Stderr)
		return ExitUsage
	}
	return c.Run(&Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stdout}, []string{"-h"})
}

// newFlags returns a flag set that reports errors on env.Stderr and does
// not exit the process. Its usage (-h) is the usage line, the command's
// Help and the flags.
func newFlags(env *Env, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "usage: oarc %s [flags] %s\n", name, args)
		if c := commands[name]; c != nil && c.Help != "" {
			fmt.Fprintf(env.Stderr, "\n%s\n", strings.TrimSpace(c.Help))
		}
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(env.Stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args and returns the exit code to use when parsing
// failed (or -h was given), or -1 to go on.
func parseFlags(fs *flag.FlagSet, args []string) int {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return ExitOK
		}
		return ExitUsage
	}
	return -1
}

// missingPaths reports, as usage errors, the paths given to command cmd
// that do not exist, and says whether there were any: a mistyped path is
// the user's mistake, not a problem of the rules (OAR_YAML).
func missingPaths(env *Env, cmd string, paths []string) bool {
	missing := false
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(env.Stderr, "oarc %s: %s: no such file or directory\n", cmd, p)
			missing = true
		}
	}
	return missing
}

// parseAnywhere parses flags wherever they are among the positional
// arguments (`oarc test PACK -cover`), which it returns; "--" ends the
// flags. The int is as for parseFlags.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, int) {
	var pos []string
	for {
		if code := parseFlags(fs, args); code >= 0 {
			return nil, code
		}
		rest := fs.Args()
		if len(rest) > 0 && len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), -1
		}
		if len(rest) == 0 {
			return pos, -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
