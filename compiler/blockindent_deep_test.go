package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBlockIndicatorDeepDocumentIsPrompt: a rule file whose mapping is
// indented far to the right and whose when is a block scalar with an
// explicit indentation indicator. The position map tried every parent
// indentation below the node's column, each re-scanning the rest of the
// file: quadratic in the indentation.
func TestBlockIndicatorDeepDocumentIsPrompt(t *testing.T) {
	pad := strings.Repeat(" ", 20000)
	var b strings.Builder
	for _, l := range []string{"oar: '1.0'", "id: DEEP", "kind: policy", "anchor: tool.pre_invoke", "effect: block", "when: |2-"} {
		b.WriteString(pad + l + "\n")
	}
	for range 20 {
		b.WriteString(pad + "    tool == 'x' ||\n")
	}
	b.WriteString(pad + "    tol == 'x'\n")
	file := filepath.Join(t.TempDir(), "DEEP.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, diags := LoadFile(file, Options{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("LoadFile took %v", d)
	}
	want := file + ":27:20005: error: undeclared reference to 'tol'"
	if got := diags.Text(); !strings.Contains(got, want) {
		t.Errorf("want %q in:\n%.2000s", want, got)
	}
}
