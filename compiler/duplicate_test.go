package compiler

import (
	"path/filepath"
	"testing"
)

func TestNormalizeWhen(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      "",
		"  a  &&\n\t b  ":                       "a&&b",
		"a&&b":                                  "a&&b",
		"x in  [1,  2]":                         "x in[1,2]",
		"f(x)\n   .startsWith('/')":             "f(x).startsWith('/')",
		`"a  b" ==  'c  d'`:                     `"a  b"=='c  d'`,
		`"x\"  y" +  "z"`:                       `"x\"  y"+"z"`,
		`r"\s  " +  r'\'  z`:                    `r"\s  "+r'\'z`, // a raw literal ends at its first quote
		"'''a\n  ''b'''  + \"\"\" \"x\" \"\"\"": "'''a\n  ''b'''+\"\"\" \"x\" \"\"\"",
		`b"a  b"  +  br'\  '`:                   `b"a  b"+br'\  '`,
		"a // a comment && b\n  && c":           "a&&c",
		`"// not a comment"  + x`:               `"// not a comment"+x`,
		`"unterminated  `:                       `"unterminated  `,
		"1 - -1":                                "1--1",
		"!  x || y":                             "!x||y",
	} {
		if got := NormalizeWhen(in); got != want {
			t.Errorf("NormalizeWhen(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDuplicateIsAWarning: the duplicate case loads, every rule in it.
func TestDuplicateIsAWarning(t *testing.T) {
	p, diags := LoadPack(filepath.Join("testdata", "duplicate"), Options{})
	if diags.HasErrors() || p == nil || len(p.Rules) != 15 {
		t.Fatalf("%d rules\n%s", len(p.Rules), diags.Text())
	}
	n := 0
	for _, d := range diags {
		if d.Code == CodeDuplicate && d.Severity == Warning {
			n++
		}
	}
	if n != 5 || n != len(diags) {
		t.Errorf("%d duplicate warnings of %d diagnostics", n, len(diags))
	}
}
