package compiler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// longWhen builds a rule document whose `when` is about size bytes of CEL
// in the given YAML scalar style, spread over lines of about 100 bytes when
// multi is set, and ending in the unknown name lycaon.tool_is_sate. It
// returns the document and the position of that name in the file.
func longWhen(style string, size int, multi bool) ([]byte, Pos) {
	const unit = "fire_count > 1 || "
	const bad = "lycaon.tool_is_sate"
	perLine := size / len(unit)
	lines := 1
	if multi {
		perLine = 100 / len(unit)
		lines = max(1, size/(perLine*len(unit)))
	}
	body := make([]string, lines)
	for i := range body {
		body[i] = strings.Repeat(unit, perLine)
	}
	body[lines-1] += bad
	var b strings.Builder
	b.WriteString("oar: '1.0'\nid: LONG\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n")
	var open, indent, close string
	switch style {
	case "plain":
		open, indent = "when: ", "  "
	case "single":
		open, indent, close = "when: '", "  ", "'"
	case "double":
		open, indent, close = "when: \"", "  ", "\""
	case "literal":
		open, indent = "when: |\n  ", "  "
	case "folded":
		open, indent = "when: >\n  ", "  "
	default:
		panic(style)
	}
	b.WriteString(open)
	for i, l := range body {
		if i > 0 {
			b.WriteString(indent)
		}
		b.WriteString(l)
		if i == lines-1 {
			b.WriteString(close)
		}
		b.WriteString("\n")
	}
	line := 6 + lines - 1
	col := len(indent) + len(body[lines-1]) - len(bad) + 1
	if style == "literal" || style == "folded" {
		line++ // the content starts below the indicator
	} else if lines == 1 {
		col = len(open) + len(body[0]) - len(bad) + 1
	}
	return []byte(b.String()), Pos{File: "long.yaml", Line: line, Col: col}
}

var longStyles = []string{"plain", "single", "double", "literal", "folded"}

// TestLongWhenPositions checks that a `when` just under the length limit
// is checked quickly in every scalar style, on one line and over a
// thousand lines, and that the error at its very end is reported where it
// is. Position mapping used to be quadratic (seconds per style).
func TestLongWhenPositions(t *testing.T) {
	for _, style := range longStyles {
		for _, multi := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/multi=%v", style, multi), func(t *testing.T) {
				doc, want := longWhen(style, maxWhenLen-5000, multi)
				start := time.Now()
				diags := withDeadline(t, 10*time.Second, func() Diagnostics {
					_, d := LoadRuleDoc("long.yaml", doc, "", Options{})
					return d
				})
				if el := time.Since(start); el > 5*time.Second {
					t.Errorf("checking took %v", el)
				}
				if len(diags) != 1 || diags[0].Code != CodeUnknownFact || diags[0].Pos != want {
					t.Fatalf("want one OAR_UNKNOWN_FACT at %v, got:\n%.2000s", want, diags.Text())
				}
			})
		}
	}
}

// TestTooLongWhen checks that a 1 MB `when` is rejected at once, at the
// position of the `when` value, without mapping or parsing it.
func TestTooLongWhen(t *testing.T) {
	for _, style := range longStyles {
		for _, multi := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/multi=%v", style, multi), func(t *testing.T) {
				doc, _ := longWhen(style, 1_000_000, multi)
				start := time.Now()
				diags := withDeadline(t, 10*time.Second, func() Diagnostics {
					_, d := LoadRuleDoc("long.yaml", doc, "", Options{})
					return d
				})
				if el := time.Since(start); el > 2*time.Second {
					t.Errorf("checking took %v", el)
				}
				want := Pos{File: "long.yaml", Line: 6, Col: 7}
				if len(diags) != 1 || diags[0].Code != CodeCELSyntax || diags[0].Pos != want ||
					!strings.Contains(diags[0].Message, "the limit is 100000") {
					t.Fatalf("want one OAR_CEL_SYNTAX length error at %v, got:\n%.2000s", want, diags.Text())
				}
				// The source line under the message is cut to a window.
				if text := diags.Text(); len(text) > 500 {
					t.Errorf("the rendering is %d bytes long:\n%.1000s", len(text), text)
				}
			})
		}
	}
}

// TestMapScalarLinear maps a 1 MB scalar of every style: the map must be
// exact (the last byte at its place) and built in linear time.
func TestMapScalarLinear(t *testing.T) {
	for _, style := range longStyles {
		for _, multi := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/multi=%v", style, multi), func(t *testing.T) {
				doc, want := longWhen(style, 1_000_000, multi)
				n, src := whenNode(t, doc)
				start := time.Now()
				m := withDeadline(t, 10*time.Second, func() *scalarMap { return src.mapScalar(n) })
				if el := time.Since(start); el > 2*time.Second {
					t.Errorf("mapping took %v", el)
				}
				off := strings.LastIndex(n.Value, "lycaon")
				if got := m.position(off); got != want {
					t.Errorf("position of the last name: got %v, want %v", got, want)
				}
			})
		}
	}
}

// BenchmarkCheckLongWhen measures loading a rule whose `when` is 10 KB,
// 100 KB (just under the limit) and 1 MB (rejected by the limit) long.
func BenchmarkCheckLongWhen(b *testing.B) {
	for _, size := range []int{10_000, maxWhenLen - 5000, 1_000_000} {
		for _, multi := range []bool{false, true} {
			doc, _ := longWhen("plain", size, multi)
			b.Run(fmt.Sprintf("%dB/multi=%v", size, multi), func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					LoadRuleDoc("long.yaml", doc, "", Options{})
				}
			})
		}
	}
}

// BenchmarkMapScalar measures position mapping alone at 10 KB, 100 KB and
// 1 MB, per style: the time per byte must stay flat.
func BenchmarkMapScalar(b *testing.B) {
	for _, style := range longStyles {
		for _, size := range []int{10_000, 100_000, 1_000_000} {
			doc, _ := longWhen(style, size, true)
			n, src := whenNode(b, doc)
			b.Run(fmt.Sprintf("%s/%dB", style, size), func(b *testing.B) {
				b.SetBytes(int64(len(n.Value)))
				for b.Loop() {
					src.mapScalar(n)
				}
			})
		}
	}
}

func whenNode(t testing.TB, doc []byte) (*yaml.Node, *source) {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "when" {
			return m.Content[i+1], newSource("long.yaml", doc)
		}
	}
	t.Fatal("no when")
	return nil, nil
}

// withDeadline runs f and fails the test if it has not returned after d
// (the goroutine is then abandoned).
func withDeadline[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case r := <-done:
		return r
	case <-time.After(d):
		t.Fatalf("did not finish within %v", d)
	}
	var zero T
	return zero
}

// TestTextLongSourceLine checks that a long source line is shown as a
// window around the column, with the caret still under it.
func TestTextLongSourceLine(t *testing.T) {
	line := strings.Repeat("a", 300) + "X" + strings.Repeat("é", 300)
	for _, tc := range []struct {
		col        int
		src, caret string
	}{
		{301, "..." + strings.Repeat("a", 60) + "X" + strings.Repeat("é", 59) + "...", strings.Repeat(" ", 63) + "^"},
		{1, strings.Repeat("a", 120) + "...", "^"},
		{601, "..." + strings.Repeat("é", 120), strings.Repeat(" ", 122) + "^"},
	} {
		d := Diagnostics{{Pos: Pos{File: "f", Line: 1, Col: tc.col}, Code: CodeCELSyntax, Message: "m", Source: line}}
		want := fmt.Sprintf("f:1:%d: error: m [OAR_CEL_SYNTAX]\n   | %s\n   | %s\n", tc.col, tc.src, tc.caret)
		if got := d.Text(); got != want {
			t.Errorf("col %d:\ngot  %q\nwant %q", tc.col, got, want)
		}
	}
}
