package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenDir holds the CLI's end-to-end cases, one directory per case (as
// sqlc's internal/endtoend/testdata):
//
//	cmd      the commands, one oarc invocation per line, shell-like words
//	         (quotes, backslash), without "oarc"; # starts a comment line;
//	         $ROOT is the repository's root
//	stdout   what the commands print on standard output, in order
//	stderr   what they print on standard error
//	exit     their exit codes, one per line
//	want/    optional: files the commands must leave in the case's work
//	         directory (want/x/y is compared with x/y)
//
// Every other file of the case directory is its input. A case runs in a
// copy of its directory (so commands that write, like fmt -w and gen,
// leave the case as it is), with paths relative to it; in the outputs the
// repository's root reads $ROOT and the work directory $WORK. go test
// ./internal/cli -run TestGolden -update rewrites stdout, stderr and exit.
// Adding a case is adding a directory.
const goldenDir = "testdata/golden"

// goldenOutputs are the files of a case that are not its input.
var goldenOutputs = map[string]bool{"cmd": true, "stdout": true, "stderr": true, "exit": true, "want": true}

func TestGolden(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(goldenDir, "*", "cmd"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir, err := filepath.Abs(filepath.Dir(c))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(dir), func(t *testing.T) { runGoldenCase(t, root, dir) })
	}
}

func runGoldenCase(t *testing.T, root, dir string) {
	text, err := os.ReadFile(filepath.Join(dir, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds [][]string
	for i, line := range strings.Split(string(text), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := shellWords(strings.ReplaceAll(line, "$ROOT", root))
		if err != nil {
			t.Fatalf("cmd:%d: %v", i+1, err)
		}
		cmds = append(cmds, words)
	}
	if len(cmds) == 0 {
		t.Fatal("cmd has no command")
	}
	work := t.TempDir()
	if w, err := filepath.EvalSymlinks(work); err == nil {
		work = w
	}
	if err := copyInputs(dir, work); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	var stdout, stderr bytes.Buffer
	var exits strings.Builder
	for _, args := range cmds {
		code := Run(args, strings.NewReader(""), &stdout, &stderr)
		fmt.Fprintf(&exits, "%d\n", code)
	}
	clean := func(s string) string {
		s = strings.ReplaceAll(s, work, "$WORK")
		return strings.ReplaceAll(s, root, "$ROOT")
	}
	got := map[string]string{"stdout": clean(stdout.String()), "stderr": clean(stderr.String()), "exit": exits.String()}
	for _, name := range []string{"stdout", "stderr", "exit"} {
		file := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(file, []byte(got[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%v (run with -update to create it)", err)
			continue
		}
		if diff := cmp.Diff(string(want), got[name]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	wantDir := filepath.Join(dir, "want")
	filepath.WalkDir(wantDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(wantDir, p)
		want, _ := os.ReadFile(p)
		have, err := os.ReadFile(filepath.Join(work, rel))
		if err != nil {
			t.Errorf("want/%s: %v", rel, err)
			return nil
		}
		if diff := cmp.Diff(string(want), string(have)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", rel, diff)
		}
		return nil
	})
}

// copyInputs copies the input files of a case directory into work.
func copyInputs(dir, work string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if top := strings.Split(filepath.ToSlash(rel), "/")[0]; goldenOutputs[top] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(work, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// shellWords splits a line into words as a shell would, for the quoting
// a cmd file needs: '...' literally, "..." with \" and \\, and \ outside
// quotes.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false // inside a word
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' at column %d", i+1)
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
				w.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unterminated \" in %s", strconv.Quote(line))
			}
			in = true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	got, err := shellWords(`test -run '^a b$' "x \"y\"" a\ b -v`)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"test", "-run", "^a b$", `x "y"`, "a b", "-v"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
