package compiler

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cel.dev/cel-go/cel"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/testkit/long"
)

// lexicalProblem reports what the explanations of celsyntax.go would
// call an error on their own: a bad escape, a string never closed, a lone
// `=`, a bracket that does not balance.
func lexicalProblem(src string) string {
	toks := lexCEL(src)
	for _, t := range toks {
		switch {
		case t.kind == tokString && t.badEscape >= 0:
			return "bad escape"
		case t.kind == tokString && !t.closed:
			return "unclosed string"
		case t.kind == tokPunct && t.text(src) == "=":
			return "lone ="
		}
	}
	w := &whenSource{text: src, m: &scalarMap{}}
	if c, ok := bracketProblem(w, toks); ok {
		return c.msg
	}
	return ""
}

// TestLexCELAgreesWithCelGo: whatever the explanations call an error,
// cel-go refuses too (cel-go is the oracle), on random text made of the
// pieces these mistakes are made of, and on every when of the
// repository's packs (which parse) no explanation finds a problem.
func TestLexCELAgreesWithCelGo(t *testing.T) {
	env, err := cel.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	check := func(src string) {
		t.Helper()
		_, iss := env.Parse(src)
		parses := iss == nil || iss.Err() == nil
		if p := lexicalProblem(src); p != "" && parses {
			t.Fatalf("%q parses, but the explanation finds: %s", src, p)
		}
	}
	pieces := []string{"a", "b1", " ", "\n", "==", "=", "!", "!=", "&&", "||", "(", ")", "[", "]", "{", "}", ",", ":", ".",
		`"`, `'`, `"""`, `'''`, `\`, `\\`, `\s`, `\n`, `\x4`, `\x41`, `\u00e9`, `\U0001F600`, `\101`, `\400`, `\'`, `\"`, "`",
		"r", "b", "R", "br", "r'", `r"`, "//", "1", "1.5", "1e3", "0x1F", "2u", "é", "''", `""`, "and", "?", "-", "+", "in"}
	rnd := rand.New(rand.NewSource(7))
	for i := 0; i < long.N(10000, 50000); i++ {
		var b strings.Builder
		for n := rnd.Intn(8); n >= 0; n-- {
			b.WriteString(pieces[rnd.Intn(len(pieces))])
		}
		check(b.String())
	}
	files, _ := filepath.Glob("../*/*/policy/*.yaml")
	more, _ := filepath.Glob("../*/*/*/policy/*.yaml")
	files = append(files, more...)
	more, _ = filepath.Glob("../*/*/packs/*/policy/*.yaml")
	files = append(files, more...)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // testdata holds a directory named like a rule file
		}
		var doc struct {
			When string `yaml:"when"`
		}
		if yaml.Unmarshal(b, &doc) != nil || doc.When == "" {
			continue
		}
		if _, iss := env.Parse(doc.When); iss != nil && iss.Err() != nil {
			continue
		}
		seen++
		if p := lexicalProblem(doc.When); p != "" {
			t.Errorf("%s: the when parses, but the explanation finds: %s", f, p)
		}
	}
	t.Logf("%d whens of the repository's packs", seen)
	if seen < 50 {
		t.Errorf("only %d whens of the repository's packs read", seen)
	}
}
