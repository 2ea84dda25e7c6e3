package edgecases

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
)

// RuleID is the id of the rule for Exprs[i].
func RuleID(i int) string { return fmt.Sprintf("E%03d", i) }

// Pack writes the expressions as a stock pack into a temporary directory
// and loads it: one fail_open warn rule per expression, so that every rule
// is evaluated and reports either firing or its error.
func Pack() (*compiler.Set, error) {
	dir, err := os.MkdirTemp("", "oarc-edge")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		return nil, err
	}
	os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte("oar: '1.0'\nname: edge\norigin: stock\n"), 0o644)
	for i, e := range Exprs {
		doc := fmt.Sprintf("oar: '1.0'\nid: %s\nkind: policy\nanchor: tool.pre_invoke\nrequires: {profiles: [tool, session, content-safety, content-provenance]}\nwhen: %s\neffect: warn\non_error: fail_open\n", RuleID(i), strconv.Quote(e))
		if err := os.WriteFile(filepath.Join(dir, "policy", RuleID(i)+".yaml"), []byte(doc), 0o644); err != nil {
			return nil, err
		}
	}
	p, diags := compiler.LoadPack(dir, compiler.Options{MaxCost: ^uint64(0)})
	var errs compiler.Diagnostics
	for _, d := range diags {
		if d.Severity == compiler.Error {
			errs = append(errs, d)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", errs.Text())
	}
	return p, nil
}

// Generate returns the generated Go source for the edge-case pack.
func Generate() ([]byte, error) {
	p, err := Pack()
	if err != nil {
		return nil, err
	}
	return codegen.Generate(compiler.Build(p), codegen.Options{Package: "edge"})
}
