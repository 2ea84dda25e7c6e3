package compiler

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden diagnostics.txt files")

// TestGolden loads every testdata/<case>/ directory as a pack (the case's
// pack.yaml and policy/*.yaml) and compares the text rendering of the
// diagnostics with testdata/<case>/diagnostics.txt. A case may hold a file
// named options with "portable" and/or "max-cost N".
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/policy")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no golden cases")
	}
	for _, d := range dirs {
		dir := filepath.Dir(d)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			opts := Options{}
			if b, err := os.ReadFile(filepath.Join(dir, "options")); err == nil {
				for _, f := range strings.Fields(string(b)) {
					if f == "portable" {
						opts.Portable = true
					}
				}
				if i := strings.Index(string(b), "max-cost "); i >= 0 {
					var n uint64
					for _, c := range strings.Fields(string(b)[i+9:])[0] {
						n = n*10 + uint64(c-'0')
					}
					opts.MaxCost = n
				}
			}
			_, diags := LoadPack(dir, opts)
			got := strings.ReplaceAll(diags.Text(), dir+string(filepath.Separator), "")
			golden := filepath.Join(dir, "diagnostics.txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./compiler -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEveryCodeCovered checks that the golden cases exercise every stable
// code at least once.
func TestEveryCodeCovered(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/diagnostics.txt")
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, c := range Codes {
		if c == CodeUnsupported {
			// Produced by internal/lower; covered where it is implemented
			// once the lowering rejects something (see TestLowerProblems).
			continue
		}
		if !strings.Contains(all.String(), "["+c+"]") {
			t.Errorf("no golden case produces %s", c)
		}
	}
}
