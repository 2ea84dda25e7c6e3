// This file owns `oarc fmt`.

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/oarc/oarc/compiler"
)

func init() {
	register("fmt", &Command{Summary: "lay out rule files and pack.yaml canonically", Help: fmtHelp, Run: runFmt})
}

const fmtHelp = `Lays out rule files and pack.yaml in oarc's one canonical layout
(docs/fmt.md): fields in the order of the spec (oar, id, kind, anchor,
effect, selector, requires, when, flow, enforcement, on_error, copy,
on_fire, detector, transform; pack.yaml: oar, name, origin, catalog,
deny_by_default, max_cost, bindings), two-space indentation, oar: '1.0' quoted. Comments stay
with the fields they are about; the text of when, of every block
scalar and of every double-quoted string written with an escape
("\u200B") is kept exactly as written; a file of CRLF lines keeps CRLF.
Formatting is idempotent and never changes what a file means (the result
is parsed again and compared).

A PATH is a rule file, a pack.yaml, a pack directory (its pack.yaml and
policy/*.yaml), a pack's policy directory (its rule files), or a directory
searched for packs (one with none under it is an error). Host catalog files are
left alone. Without flags the formatted files are printed.

Exit status: 1 when a file cannot be formatted, or with -l when a file is
not formatted; 0 otherwise; 2 on bad usage.`

func runFmt(env *Env, args []string) int {
	fs := newFlags(env, "fmt", "PATH...")
	list := fs.Bool("l", false, "list the files whose layout differs from oarc fmt's (exit 1 if any)")
	write := fs.Bool("w", false, "write the result to the files (through a temporary file and a rename; symlinks, read-only files and files with several hard links are refused)")
	diff := fs.Bool("d", false, "print a unified diff of the changes instead of the files")
	catalogFile := fs.String("catalog", "", "accepted like on every command (spec 9); the layout does not depend on a catalog: it is only checked")
	paths, code := parseAnywhere(fs, args)
	if code >= 0 {
		return code
	}
	// The catalog changes nothing here; like every command, this one
	// checks it (loadFlags.options does nothing without one).
	if lf := (loadFlags{catalog: *catalogFile}); !lf.valid(env, "fmt") {
		return ExitFailure
	}
	if len(paths) == 0 {
		fmt.Fprintln(env.Stderr, "oarc fmt: give rule files, pack.yaml files, pack directories or directories of packs")
		fs.Usage()
		return ExitUsage
	}
	if missingPaths(env, "fmt", paths) {
		return ExitUsage
	}
	var files []string
	for _, p := range paths {
		found, err := fmtFiles(p)
		if err != nil {
			fmt.Fprintf(env.Stderr, "oarc fmt: %v\n", err)
			return ExitFailure
		}
		files = append(files, found...)
	}
	code = ExitOK
	for _, file := range files {
		// What the loader refuses (a directory, a FIFO, a device, a file
		// over 1 MiB) fmt refuses too, without blocking on a FIFO.
		src, err := compiler.ReadRuleFile(file)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: cannot read: %v\n", file, err)
			code = ExitFailure
			continue
		}
		out, err := compiler.Format(file, src)
		if err != nil {
			// The loader's own report of a file it cannot read as YAML
			// says where and carries a code; fmt's reason is the fallback.
			if ds := compiler.YAMLDiagnostics(file, src); len(ds) > 0 {
				for _, d := range ds {
					fmt.Fprintln(env.Stderr, d)
				}
			} else if fe, ok := errors.AsType[*compiler.FormatError](err); ok {
				fmt.Fprintf(env.Stderr, "%s:%d:%d: error: %s\n", file, fe.Line, fe.Col, fe.Msg)
			} else {
				fmt.Fprintf(env.Stderr, "%s: error: %v\n", file, err)
			}
			code = ExitFailure
			continue
		}
		changed := string(out) != string(src)
		if *list && changed {
			fmt.Fprintln(env.Stdout, file)
			if !*write {
				code = ExitFailure
			}
		}
		if *diff && changed {
			fmt.Fprint(env.Stdout, unifiedDiff(file, file+" (formatted)", src, out))
		}
		if *write && changed {
			if err := replaceFile(file, out); err != nil {
				fmt.Fprintf(env.Stderr, "oarc fmt: %v\n", err)
				code = ExitFailure
			}
		}
		if !*list && !*write && !*diff {
			env.Stdout.Write(out)
		}
	}
	return code
}

// fmtFiles lists the files oarc fmt formats under path: path itself when
// it is a file; a pack's pack.yaml and policy/*.yaml|yml; for any other
// directory, the packs under it (directories with a policy directory),
// sorted.
func fmtFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	var files []string
	// A pack's policy directory itself (cd pack/policy; oarc fmt -l .):
	// its rule files, as oarc check reads a pack's; searched for packs,
	// it has none, and the check passed on files it never read.
	if abs, err := filepath.Abs(path); err == nil && filepath.Base(abs) == "policy" && !isPackDir(path) {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if ext := filepath.Ext(e.Name()); ext == ".yaml" || ext == ".yml" {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		return files, nil
	}
	packs := 0
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 && p != path && isPackDir(p) {
			// A pack linked in (packs are often assembled from links):
			// its own files, as oarc check reads it; nothing under it is
			// searched, so a link loop cannot recur.
			packs++
			found, err := packFiles(p)
			files = append(files, found...)
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != path && (n == ".git" || n == "testdata" && !isPackDir(p)) {
			return filepath.SkipDir
		}
		if !isPackDir(p) {
			return nil
		}
		packs++
		found, err := packFiles(p)
		files = append(files, found...)
		return err
	})
	sort.Strings(files)
	if err == nil && packs == 0 {
		// A directory with no pack under it is a wrong path (a CI check
		// of it would pass on nothing), not a set of formatted files.
		return nil, fmt.Errorf("%s: no pack under it (a directory with a policy/ directory); give rule files, pack.yaml files, pack directories or directories of packs", path)
	}
	return files, err
}

// packFiles lists the files of the pack directory p: every file the
// loader would read or refuse is formatted or refused here too (a symlink
// is read through, and refused by -w; anything that is not a regular file
// is reported, never skipped).
func packFiles(p string) ([]string, error) {
	var files []string
	if pf := filepath.Join(p, "pack.yaml"); exists(pf) {
		files = append(files, pf)
	}
	entries, err := os.ReadDir(filepath.Join(p, "policy"))
	if err != nil {
		return files, err
	}
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); ext == ".yaml" || ext == ".yml" {
			files = append(files, filepath.Join(p, "policy", e.Name()))
		}
	}
	return files, nil
}

func isPackDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "policy"))
	return err == nil && st.IsDir()
}

// exists reports whether there is a directory entry at file, of any type.
func exists(file string) bool {
	_, err := os.Lstat(file)
	return err == nil
}

// replaceFile replaces a regular file with data: a temporary file in the
// same directory renamed over it, with the file's mode (and owner, where
// the system has them), so that the file is never seen half written. A
// symlink, a read-only file (no write permission in its mode, or not
// writable by this process) and a file with several hard links (the new
// file would have only the one name, the others keeping the old text) are
// refused rather than replaced.
func replaceFile(file string, data []byte) error {
	st, err := os.Lstat(file)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; refusing to replace it", file)
	}
	if st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s is read-only; refusing to replace it", file)
	}
	if w, err := os.OpenFile(file, os.O_WRONLY, 0); err != nil {
		return fmt.Errorf("%s is read-only (%v); refusing to replace it", file, err)
	} else {
		w.Close()
	}
	if n := linkCount(st); n > 1 {
		return fmt.Errorf("%s has %d hard links; refusing to replace it (the others would keep the old text)", file, n)
	}
	dir, base := filepath.Split(file)
	var tmp *os.File
	for range 100 {
		tmp, err = os.OpenFile(filepath.Join(dir, fmt.Sprintf(".%s.%d.tmp", base, rand.Uint32())), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(st.Mode().Perm())
	}
	if err == nil {
		if oerr := keepOwner(tmp, st); oerr != nil {
			err = fmt.Errorf("cannot give the new %s the owner and group of the old one; left as it is: %v", file, oerr)
		}
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, file)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
