package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardHostNames: oarc guard builds a proxy for a pack of any host
// catalog check accepts. The catalog package was named after the host
// (package func did not even format) and the proxy's main imported it
// under the host's name, beside its own imports: a host named guard, os,
// rules, proxy or main did not build.
func TestGuardHostNames(t *testing.T) {
	for _, host := range []string{"guard", "func", "main", "os", "rules"} {
		t.Run(host, func(t *testing.T) {
			root := t.TempDir()
			write := func(name, text string) {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("cat.yaml", "oar_catalog: '1.0'\nhost: "+host+"\nanchors: [{id: tool.pre_invoke, planes: [block]}]\nfacts: [{name: x, type: int}]\nfunctions: [{name: f, signature: '(string) -> bool'}]\n")
			write("pack/pack.yaml", "oar: '1.0'\nname: p\ncatalog: ../cat.yaml\n")
			write("pack/policy/R.yaml", "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: '"+host+".x == 1 || "+host+".f(\"a\")'\n")
			bin := filepath.Join(root, "guard-bin")
			code, _, errs := run("guard", "-pack", filepath.Join(root, "pack"), "-o", bin)
			if code != 0 || strings.Contains(errs, "go build") {
				t.Fatalf("exit %d:\n%s", code, errs)
			}
			if _, err := os.Stat(bin); err != nil {
				t.Fatal(err)
			}
		})
	}
}
