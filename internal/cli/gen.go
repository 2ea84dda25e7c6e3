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

	"golang.org/x/mod/modfile"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
)

func init() {
	register("gen", &Command{Summary: "compile packs (one compilation set) into a Go package", Run: runGen})
	register("ir", &Command{Summary: "print the IR of a compilation set", Run: runIR})
}

// GenFileName is the name of the generated file in the output directory.
const GenFileName = "rules_oarc.go"

// CatalogFileName is the name of the generated file of a catalog package.
const CatalogFileName = "catalog_oarc.go"

// buildSet loads, checks and lowers one compilation set (pack directories,
// or one rule file), printing diagnostics to stderr.
func buildSet(env *Env, paths []string, opts compiler.Options) (*ir.Set, *compiler.Set, bool) {
	sets, diags := loadSets(paths, opts)
	if len(diags) > 0 {
		fmt.Fprint(env.Stderr, diags.Text())
	}
	if diags.HasErrors() {
		return nil, nil, false
	}
	if len(sets) != 1 {
		fmt.Fprintln(env.Stderr, "oarc: give pack directories (one compilation set) or a single rule file")
		return nil, nil, false
	}
	return compiler.Build(sets[0]), sets[0], true
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func runGen(env *Env, args []string) int {
	fs := newFlags(env, "gen", "-pack DIR [-pack DIR...] -out DIR | -catalog-out DIR")
	var packs multiFlag
	fs.Var(&packs, "pack", "a pack directory (or one rule file) to compile; repeat it to compile several packs as one compilation set")
	out := fs.String("out", "", "the directory of the generated package")
	pkg := fs.String("pkg", "", "the Go package name (default: the base name of -out)")
	check := fs.Bool("check", false, "only report whether the files on disk are up to date")
	catalogPkg := fs.String("catalog-pkg", "", "the import path of the catalog package the generated package imports (default: oarc's package for the default catalog; else -catalog-out's)")
	catalogOut := fs.String("catalog-out", "", "also write the catalog package into this directory (default for a host catalog: <out>/<host>)")
	var lf loadFlags
	lf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if (len(packs) == 0 || *out == "") && *catalogOut == "" || len(packs) > 0 && *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "oarc gen: need -pack and -out (or -catalog-out alone), and no other arguments")
		fs.Usage()
		return ExitUsage
	}
	opts, ok := lf.options(env, "gen")
	if !ok {
		return ExitFailure
	}
	g := &generator{env: env, check: *check}
	if len(packs) == 0 {
		// The catalog package alone.
		cat := opts.Catalog
		if cat == nil {
			cat = catalog.Default()
		}
		cmd := "oarc gen -catalog-out " + *catalogOut
		if lf.catalog != "" {
			cmd += " -catalog " + lf.catalog
		}
		if !g.catalog(compiler.CatalogIR(cat), *catalogOut, cmd) {
			return ExitFailure
		}
		return g.code
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
	if missingPaths(env, "gen", packs) {
		return ExitUsage
	}
	p, set, ok := buildSet(env, packs, opts)
	if !ok {
		return ExitFailure
	}
	importPath := *catalogPkg
	cdir := *catalogOut
	if !set.Catalog.IsDefault() && cdir == "" && importPath == "" {
		cdir = filepath.Join(*out, p.Catalog.Host)
	}
	cmd := "oarc gen -pack " + strings.Join(packs, " -pack ") + " -out " + *out
	if lf.catalog != "" {
		cmd += " -catalog " + lf.catalog
	}
	if *catalogOut != "" {
		cmd += " -catalog-out " + *catalogOut
	}
	if *catalogPkg != "" {
		cmd += " -catalog-pkg " + *catalogPkg
	}
	if cdir != "" {
		if !g.catalog(p.Catalog, cdir, cmd) {
			return ExitFailure
		}
		if importPath == "" {
			ip, err := importPathOf(cdir)
			if err != nil {
				fmt.Fprintf(env.Stderr, "oarc gen: the import path of the catalog package in %s: %v; pass -catalog-pkg\n", cdir, err)
				return ExitFailure
			}
			importPath = ip
		}
	}
	if importPath == "" {
		importPath = codegen.DefaultCatalogImport
	}
	src, err := codegen.Generate(p, codegen.Options{Package: name, CatalogImport: importPath, Version: Version})
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc gen: %v\n", err)
		return ExitFailure
	}
	g.write(filepath.Join(*out, GenFileName), src, cmd)
	return g.code
}

// generator writes (or, with -check, compares) generated files.
type generator struct {
	env   *Env
	check bool
	code  int
}

func (g *generator) catalog(c *ir.Catalog, dir, cmd string) bool {
	src, err := codegen.GenerateCatalog(c, codegen.CatalogOptions{Version: Version})
	if err != nil {
		fmt.Fprintf(g.env.Stderr, "oarc gen: %v\n", err)
		return false
	}
	g.write(filepath.Join(dir, CatalogFileName), src, cmd)
	return g.code == ExitOK
}

func (g *generator) write(file string, src []byte, cmd string) {
	if g.check {
		// What gen would refuse to replace is not merely stale.
		if _, err := replaceable(file); err != nil {
			fmt.Fprintf(g.env.Stderr, "oarc gen: %v\n", err)
			g.code = ExitFailure
			return
		}
		old, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(old, src) {
			fmt.Fprintf(g.env.Stderr, "oarc gen: %s is stale: run %s\n", file, cmd)
			g.code = ExitFailure
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		fmt.Fprintf(g.env.Stderr, "oarc gen: %v\n", err)
		g.code = ExitFailure
		return
	}
	if err := writeGenerated(file, src); err != nil {
		fmt.Fprintf(g.env.Stderr, "oarc gen: %v\n", err)
		g.code = ExitFailure
	}
}

// importPathOf computes the import path of the package in dir from the
// nearest go.mod above it.
func importPathOf(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod := modfile.ModulePath(data)
			if mod == "" {
				return "", fmt.Errorf("%s has no module line", filepath.Join(d, "go.mod"))
			}
			rel, err := filepath.Rel(d, abs)
			if err != nil {
				return "", err
			}
			if rel == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(rel), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above it")
		}
	}
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
	return writeAtomic(file, src, mode)
}

// writeOutput replaces file, which need not be generated, with src as
// writeGenerated does: never a symlink or anything but a regular file.
func writeOutput(file string, src []byte) error {
	st, err := os.Lstat(file)
	var mode fs.FileMode
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink; refusing to replace it or write through it", file)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file; refusing to replace it", file)
	default:
		mode = st.Mode().Perm()
	}
	return writeAtomic(file, src, mode)
}

// writeAtomic writes src to a temporary file next to file and renames it
// over file, with mode (0: 0644 less the umask).
func writeAtomic(file string, src []byte, mode fs.FileMode) error {
	dir, base := filepath.Split(file)
	var tmp *os.File
	var err error
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
	opts, ok := lf.options(env, "ir")
	if !ok {
		return ExitFailure
	}
	p, _, ok := buildSet(env, fs.Args(), opts)
	if !ok {
		return ExitFailure
	}
	if *outFile != "" {
		if err := writeOutput(*outFile, []byte(ir.Print(p))); err != nil {
			fmt.Fprintf(env.Stderr, "oarc ir: %v\n", err)
			return ExitFailure
		}
		return ExitOK
	}
	fmt.Fprint(env.Stdout, ir.Print(p))
	return ExitOK
}
