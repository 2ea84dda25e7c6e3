// This file owns `oarc gen` and `oarc ir`.

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"

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
	if name != "" {
		if err := checkPackageName(name); err != nil {
			fmt.Fprintf(env.Stderr, "oarc gen: -pkg %q is not a valid Go package name: %v\n", name, err)
			return ExitUsage
		}
	} else {
		abs, err := filepath.Abs(*out)
		if err != nil {
			fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
			return ExitFailure
		}
		name = goPackageName(filepath.Base(abs))
		if err := checkPackageName(name); err != nil {
			fmt.Fprintf(env.Stderr, "oarc gen: the package name %q derived from -out %s is not a valid Go package name (%v); pass -pkg NAME\n", name, *out, err)
			return ExitUsage
		}
	}
	if missingPaths(env, "gen", []string{*pack}) {
		return ExitUsage
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
		// What gen would refuse to replace is not merely stale.
		if _, err := replaceable(file); err != nil {
			fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
			return ExitFailure
		}
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
	if err := writeGenerated(file, src); err != nil {
		fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// checkPackageName reports why name cannot be the package name of the
// generated file: it must be a Go identifier, not a keyword, not the blank
// identifier, and not main (the generated file is a library package).
func checkPackageName(name string) error {
	switch {
	case token.IsKeyword(name):
		return fmt.Errorf("%s is a Go keyword", name)
	case !token.IsIdentifier(name):
		return errors.New("a package name is a Go identifier: letters, digits and _, not starting with a digit")
	case name == "_":
		return errors.New("_ is the blank identifier")
	case name == "main":
		return errors.New("package main is a command; the generated code is a package the host imports")
	}
	return nil
}

// generatedHeader is the line by which Go's tools recognise a generated
// file; gen replaces only a file that starts with it.
var generatedHeader = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// replaceable checks that file, if it exists, may be replaced: a regular
// file (not a symlink) whose first line is the generated header. It
// returns the permission bits of the existing file, or 0 if there is none.
func replaceable(file string) (fs.FileMode, error) {
	st, err := os.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return 0, err
	case st.Mode()&fs.ModeSymlink != 0:
		return 0, fmt.Errorf("%s is a symlink; refusing to replace it or write through it (remove it to generate the file here)", file)
	case !st.Mode().IsRegular():
		return 0, fmt.Errorf("%s is not a regular file; refusing to replace it", file)
	}
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	first, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return 0, err
	}
	first = strings.TrimSuffix(strings.TrimSuffix(first, "\n"), "\r")
	if !generatedHeader.MatchString(first) {
		return 0, fmt.Errorf("%s was not generated by oarc (its first line is not a \"// Code generated ... DO NOT EDIT.\" header); refusing to replace it", file)
	}
	return st.Mode().Perm(), nil
}

// writeGenerated replaces file with src: it writes a temporary file in the
// same directory and renames it over file, so that file is never seen
// truncated, and keeps the mode of the file it replaces (a new file gets
// 0644 less the umask).
func writeGenerated(file string, src []byte) error {
	mode, err := replaceable(file)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(file)
	var tmp *os.File
	for range 100 {
		// A leading dot: go build ignores the file if it is left behind.
		name := filepath.Join(dir, fmt.Sprintf(".%s.%d.tmp", base, rand.Uint32()))
		tmp, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(src); err != nil {
		return err
	}
	if mode != 0 {
		if err := tmp.Chmod(mode); err != nil {
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	done = true
	return nil
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
	if missingPaths(env, "ir", fs.Args()) {
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
