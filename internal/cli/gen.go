// This file owns `oarc gen` and `oarc ir`.

package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/ir"
)

func init() {
	register("gen", &Command{Summary: "compile a pack into a Go package", Run: runGen})
	register("ir", &Command{Summary: "print the IR of a pack", Run: runIR})
}

// GenFileName is the name of the generated file in the output directory.
const GenFileName = "rules_oarc.go"

// buildPack loads, checks and lowers packs, printing diagnostics to stderr.
func buildPack(env *Env, paths []string, opts compiler.Options) (*ir.Pack, bool) {
	p, diags := compiler.Load(paths, opts)
	if len(diags) > 0 {
		fmt.Fprint(env.Stderr, diags.Text())
	}
	if diags.HasErrors() || p == nil {
		return nil, false
	}
	return compiler.Build(p), true
}

func runGen(env *Env, args []string) int {
	fs := newFlags(env, "gen", "-pack DIR -out DIR")
	pack := fs.String("pack", "", "the pack directory (or rule file) to compile")
	out := fs.String("out", "", "the directory of the generated package")
	pkg := fs.String("pkg", "", "the Go package name (default: the base name of -out)")
	check := fs.Bool("check", false, "only report whether the files on disk are up to date")
	var lf loadFlags
	lf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *pack == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "oarc gen: need -pack and -out, and no other arguments")
		fs.Usage()
		return ExitUsage
	}
	name := *pkg
	if name == "" {
		abs, err := filepath.Abs(*out)
		if err != nil {
			fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
			return ExitFailure
		}
		name = goPackageName(filepath.Base(abs))
	}
	p, ok := buildPack(env, []string{*pack}, lf.options())
	if !ok {
		return ExitFailure
	}
	src, err := codegen.Generate(p, codegen.Options{Package: name})
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
		return ExitFailure
	}
	file := filepath.Join(*out, GenFileName)
	if *check {
		old, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(old, src) {
			fmt.Fprintf(env.Stderr, "oarc gen: %s is stale: run oarc gen -pack %s -out %s\n", file, *pack, *out)
			return ExitFailure
		}
		return ExitOK
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
		return ExitFailure
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// goPackageName turns a directory name into a valid package name.
func goPackageName(dir string) string {
	var b []byte
	for i := 0; i < len(dir); i++ {
		c := dir[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c >= '0' && c <= '9' && len(b) > 0:
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "rules"
	}
	return string(b)
}

func runIR(env *Env, args []string) int {
	fs := newFlags(env, "ir", "PATH...")
	outFile := fs.String("o", "", "write the IR to this file instead of standard output")
	var lf loadFlags
	lf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(env.Stderr, "oarc ir: give a pack directory or rule file")
		return ExitUsage
	}
	p, ok := buildPack(env, fs.Args(), lf.options())
	if !ok {
		return ExitFailure
	}
	if *outFile != "" {
		if err := os.WriteFile(*outFile, []byte(ir.Print(p)), 0o644); err != nil {
			fmt.Fprintf(env.Stderr, "oarc ir: %v\n", err)
			return ExitFailure
		}
		return ExitOK
	}
	fmt.Fprint(env.Stdout, ir.Print(p))
	return ExitOK
}
