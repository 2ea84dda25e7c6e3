package difftest

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler"
)

var (
	genN    = flag.Int("gen.n", 1500, "expressions TestGeneratedWellTyped generates")
	genShow = flag.Bool("gen.show", false, "print every rejected expression with its diagnostic")
	genSeed = flag.Int64("gen.seed", 3, "seed of TestGeneratedWellTyped")
)

// TestGeneratedWellTyped loads generated expressions one pack at a time
// and requires that cel-go's checker accepts almost all of them: a type
// error is the generator's fault (the compiler's own refusals, cost and
// unsupported, are only counted).
func TestGeneratedWellTyped(t *testing.T) {
	g := NewGen(*genSeed)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	whens := map[string]string{}
	tags := map[string][]string{}
	for i := 0; i < *genN; i++ {
		id := fmt.Sprintf("R%06d", i)
		when, profiles := g.When()
		whens[id], tags[id] = when, g.Tags()
		q, _ := json.Marshal(when)
		doc := fmt.Sprintf("oar: '1.0'\nid: %s\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\non_error: fail_open\nwhen: %s\n", id, q)
		if len(profiles) > 0 {
			doc += fmt.Sprintf("requires:\n  profiles: [%s]\n", strings.Join(profiles, ", "))
		}
		if err := os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, diags := compiler.LoadPack(dir, compiler.Options{})
	byCode := map[string]int{}
	typeErrs := map[string]int{}
	biased := 0
	for _, tg := range tags {
		if len(tg) > 0 {
			biased++
		}
	}
	seen := map[string]bool{}
	for _, d := range diags {
		if d.Severity != compiler.Error {
			continue
		}
		id := strings.TrimSuffix(filepath.Base(d.Pos.File), ".yaml")
		if seen[id] {
			continue
		}
		seen[id] = true
		byCode[d.Code]++
		if *genShow {
			t.Logf("%s %v: %s\n  %s", d.Code, tags[id], d.Message, whens[id])
		}
		if d.Code == compiler.CodeCELType || d.Code == compiler.CodeUnknownFact {
			for _, tg := range tags[id] {
				typeErrs[tg]++
			}
			if len(tags[id]) > 0 {
				typeErrs[""]++
			}
		}
	}
	t.Logf("%d expressions (%d biased), %d rejected: %v; type errors of biased expressions, by production: %v", len(whens), biased, len(seen), byCode, typeErrs)
	if typeErrs[""]*50 > biased {
		t.Errorf("%d of %d biased expressions do not type-check (more than 2%%); run with -gen.show", typeErrs[""], biased)
	}
}
