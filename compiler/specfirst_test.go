package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpecFirstPositions loads every testdata/<case>/ that has a
// spec_first.txt and compares where and with which code each problem is
// reported (spec 7: `path:line:col`, the stable code, and for CEL the
// column of the offending token inside the `when` string) with that file,
// written by hand from the spec before the cases were run: one line
// `path:line:col severity CODE` per diagnostic, `#` comments. The message
// texts are left to the golden diagnostics.txt.
func TestSpecFirstPositions(t *testing.T) {
	files, err := filepath.Glob("testdata/*/spec_first.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no spec-first cases")
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, line := range strings.Split(string(data), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					want = append(want, strings.Join(strings.Fields(line), " "))
				}
			}
			_, diags := LoadPack(dir, Options{})
			var got []string
			for _, d := range diags {
				p := d.Pos
				rel, err := filepath.Rel(dir, p.File)
				if err != nil {
					rel = p.File
				}
				got = append(got, fmt.Sprintf("%s:%d:%d %s %s", filepath.ToSlash(rel), p.Line, p.Col, d.Severity, d.Code))
			}
			sort.Strings(want)
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostics (-spec +got):\n%s\n%s", diff, diags.Text())
			}
		})
	}
}
