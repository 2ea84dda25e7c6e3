package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLoadRule loads arbitrary bytes as a rule file: it must never panic,
// and every diagnostic must carry a position in the file.
func FuzzLoadRule(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/policy/*.y*ml")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	// YAML 1.1 line breaks that editors do not break at, before an error.
	f.Add([]byte("# a\u2028b\u0085c\u2029\noar: '1.0'\nid: A\nkind: [policy\n"))
	f.Add([]byte("copy: {why: \"x\u2028y\", title: 3}\nwhen: 'tool == \"\u2029\" && nope'\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, diags := LoadRuleDoc("fuzz.yaml", doc, "stock", Options{})
		src := newSource("fuzz.yaml", doc)
		for _, d := range diags {
			if d.Pos.File != "fuzz.yaml" || d.Pos.Line < 1 || d.Code == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
			// Every position is a place in the file as an editor shows it
			// (U+2028 and the like are no line breaks there).
			if d.Pos.Line > len(src.lines) || d.Pos.Col < 1 || d.Pos.Col > utf8.RuneCountInString(src.line(d.Pos.Line))+1 {
				t.Fatalf("diagnostic outside the file: %+v\n%q", d, doc)
			}
		}
		_ = diags.Text()
	})
}

// FuzzCheckWhen checks arbitrary CEL text inside each YAML scalar style:
// it must never panic, and positions must stay inside the file.
func FuzzCheckWhen(f *testing.F) {
	for _, s := range []string{
		`tool == "bash"`,
		`session_posture == "spec" && lycaon.tool_is_sate`,
		`tool_arg_string("cmd").matches("curl.*\\|\\s*sh")`,
		`principal_roles.exists(r, r == "admin") || fire_count_of("A") > 1`,
		`size(tool_args) > 2 ? tool_args.x == 1 : "a".lowerAscii() == "a"`,
		"a &&\n  b",
		`'it''s' + "\u00e9"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, when string) {
		for _, doc := range whenDocs(when) {
			_, diags := LoadRuleDoc("fuzz.yaml", []byte(doc), "stock", Options{Portable: len(when)%2 == 0})
			lines := len(newSource("", []byte(doc)).lines)
			for _, d := range diags {
				if d.Pos.Line < 1 || d.Pos.Line > lines {
					t.Fatalf("diagnostic outside the file (%d lines): %+v\n%s", lines, d, doc)
				}
			}
		}
	})
}

// whenDocs embeds a `when` text into rule documents with every scalar
// style that can hold it.
func whenDocs(when string) []string {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: "
	var out []string
	out = append(out, head+when+"\n")
	out = append(out, head+"'"+strings.ReplaceAll(when, "'", "''")+"'\n")
	out = append(out, head+quoteDouble(when)+"\n")
	out = append(out, head+"|\n  "+strings.ReplaceAll(when, "\n", "\n  ")+"\n")
	out = append(out, head+">\n  "+strings.ReplaceAll(when, "\n", "\n  ")+"\n")
	return out
}

func quoteDouble(s string) string {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, c)
		}
	}
	return string(append(out, '"'))
}
