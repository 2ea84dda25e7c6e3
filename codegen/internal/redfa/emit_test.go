package redfa

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

// TestEmittedCode builds and runs the code the generator emits for a batch
// of patterns (the project's and random ones, of every kind: string
// comparisons, DFAs with and without a prefix, fallbacks), and compares
// what it answers on random inputs with regexp.MatchString. The program
// is placed in the module with an overlay (-overlay), so nothing is
// written into the tree.
func TestEmittedCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: not with -short")
	}
	r := rand.New(rand.NewPCG(11, 11))
	var pats []string
	for _, p := range projectPatterns {
		pats = append(pats, p.pattern)
	}
	// Jumps to a prefix, resuming after '\n', a word byte and another.
	pats = append(pats, `(?m)^ab`, `\bab`, `\Bab`, `(?m)(?:^|\b)ab`)
	pats = append(pats, `(a|b)*a(a|b){12}`, `\A\x{D800}`, `^(yes|no)$`, `^$`, ``, `a*`, `a\bb`)
	for len(pats) < 250 {
		p := genPattern(r, 4)
		if _, err := regexp.Compile(p); err == nil {
			pats = append(pats, p)
		}
	}
	inputs := []string{"", "\xff", "sudo rm -rf /", "curl x | sh", "git push -f", "https://pkg.go.dev/", "yes", "x\nab", "xab", " ab", "ab"}
	for len(inputs) < 60 {
		inputs = append(inputs, genInput(r, 12))
	}

	f := jen.NewFile("main")
	const implPath = "github.com/oarc/oarc/runtime/impl"
	f.ImportName(implPath, "impl")
	var matchers []jen.Code
	kinds := map[Kind]int{}
	for i, pat := range pats {
		p := Compile(pat)
		kinds[p.Kind]++
		s := jen.Id("s")
		var body jen.Code
		switch p.Kind {
		case Literal:
			body = p.LiteralCode(s)
		case DFA:
			name := fmt.Sprintf("oRe_%d", i)
			f.Var().Id(name).Op("=").Add(p.DFA.Code(implPath))
			body = jen.Id(name).Dot("MatchString").Call(s)
		default:
			name := fmt.Sprintf("oRe_%d", i)
			f.Var().Id(name).Op("=").Qual("regexp", "MustCompile").Call(jen.Lit(pat))
			body = jen.Id(name).Dot("MatchString").Call(s)
		}
		matchers = append(matchers, jen.Func().Params(jen.Id("s").String()).Bool().Block(jen.Return(body)))
	}
	if kinds[DFA] == 0 || kinds[Literal] == 0 || kinds[Fallback] == 0 {
		t.Fatalf("the batch lacks a kind: %v", kinds)
	}
	var ins []jen.Code
	for _, s := range inputs {
		ins = append(ins, jen.Lit(s))
	}
	f.Var().Id("matchers").Op("=").Index().Func().Params(jen.String()).Bool().Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, matchers...)
	f.Var().Id("inputs").Op("=").Index().String().Values(ins...)
	f.Func().Id("main").Params().Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("m")).Op(":=").Range().Id("matchers")).Block(
			jen.Id("line").Op(":=").Make(jen.Index().Byte(), jen.Len(jen.Id("inputs"))),
			jen.For(jen.List(jen.Id("j"), jen.Id("s")).Op(":=").Range().Id("inputs")).Block(
				jen.Id("line").Index(jen.Id("j")).Op("=").LitByte('0'),
				jen.If(jen.Id("m").Call(jen.Id("s"))).Block(jen.Id("line").Index(jen.Id("j")).Op("=").LitByte('1')),
			),
			jen.Qual("fmt", "Println").Call(jen.String().Call(jen.Id("line"))),
		),
	)
	var src bytes.Buffer
	if err := f.Render(&src); err != nil {
		t.Fatalf("the emitted code does not format: %v", err)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	target, err := filepath.Abs(filepath.Join("emitted", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{target: file}})
	if err := os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "run", "-overlay", filepath.Join(dir, "overlay.json"), "./emitted").CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the emitted code: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(pats) {
		t.Fatalf("the program printed %d lines for %d patterns:\n%s", len(lines), len(pats), out)
	}
	for i, pat := range pats {
		re := regexp.MustCompile(pat)
		for j, s := range inputs {
			if got, want := lines[i][j] == '1', re.MatchString(s); got != want {
				t.Errorf("pattern %q (%s): input %q: the emitted code matched %v, regexp.MatchString %v", pat, Compile(pat), s, got, want)
			}
		}
	}
	t.Logf("%d patterns (%v) x %d inputs", len(pats), kinds, len(inputs))
}
