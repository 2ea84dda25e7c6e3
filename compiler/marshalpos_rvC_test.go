package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestMarshalledWhenPositions: the when of every example and conformance
// rule, extended with an unknown name after text of several kinds (a line
// break, U+2028, a tab, astral characters, trailing blanks) and written
// back with yaml.Marshal, as the differential generator writes rules: the
// unknown name is reported exactly where it is in the file, whatever
// scalar style yaml.Marshal chose.
func TestMarshalledWhenPositions(t *testing.T) {
	files, _ := filepath.Glob("../examples/*/policy/*.yaml")
	more, _ := filepath.Glob("../conformance/*/packs/*/policy/*.yaml")
	files = append(files, more...)
	suffixes := []string{" && nope_zz", "\n&& nope_zz", " && \"\u2028\" == \"x\" || nope_zz", " && 'a\tb' == 'c' || nope_zz", " &&\n\n  nope_zz", " && '\u00e9\U0001F600' == 'x' || nope_zz", " && \"  \" == \"x \" || nope_zz   "}
	bad, checked := 0, 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, suf := range suffixes {
			var m map[string]any
			if yaml.Unmarshal(b, &m) != nil {
				continue
			}
			w, _ := m["when"].(string)
			if w == "" {
				continue
			}
			m["when"] = w + suf
			out, err := yaml.Marshal(m)
			if err != nil {
				continue
			}
			_, diags := LoadRuleDoc("f.yaml", out, "stock", Options{})
			var d *Diagnostic
			for i := range diags {
				if strings.Contains(diags[i].Message, "nope_zz") {
					d = &diags[i]
				}
			}
			if d == nil {
				continue
			}
			checked++
			src := newSource("f.yaml", out)
			line := src.line(d.Pos.Line)
			i := runeIndex(line, d.Pos.Col-1)
			if !strings.HasPrefix(line[i:], "nope_zz") {
				bad++
				if bad < 6 {
					t.Errorf("%s %q: at %d:%d %q\n%s", f, suf, d.Pos.Line, d.Pos.Col, line[i:], out)
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d positions checked", checked)
	}
}
