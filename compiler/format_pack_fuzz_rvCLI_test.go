package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// packView is what the loader reads of a pack.yaml, positions aside: the
// pack's fields and the codes and messages of the diagnostics.
func packView(t testing.TB, dir string, meta []byte) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	set, diags := Load([]string{dir}, Options{})
	var b strings.Builder
	var ds []string
	for _, d := range diags {
		ds = append(ds, fmt.Sprintf("%s %s %s", d.Severity, d.Code, posRE.ReplaceAllString(d.Message, "L:C")))
	}
	sort.Strings(ds)
	for _, d := range ds {
		fmt.Fprintln(&b, d)
	}
	if set != nil {
		for _, pk := range set.Packs {
			fmt.Fprintf(&b, "pack %q %q %q %d\n", pk.Name, pk.Origin, pk.CatalogFile, pk.MaxCost)
			if d := pk.DenyByDefault; d != nil {
				fmt.Fprintf(&b, "deny %q %q %v %#v\n", d.Anchors, d.Code, d.Monitor, d.Copy)
			}
			for _, bd := range pk.Bindings {
				fmt.Fprintf(&b, "binding %q %q %q\n", bd.Server, bd.Tool, bd.Path)
			}
		}
		for _, r := range set.Rules {
			fmt.Fprintf(&b, "rule %q %q %q\n", r.ID, r.Effect, r.Pack.Name)
		}
	}
	return b.String()
}

// FuzzFormatPack is FuzzFormat's property for pack.yaml: formatting never
// panics, is idempotent, and the loader reads the pack (with a rule
// beside it) from the formatted pack.yaml as from the original. FuzzFormat
// checks only the first two for a pack.yaml.
func FuzzFormatPack(f *testing.F) {
	var seeds []string
	for _, g := range []string{"../examples/*/pack.yaml", "../examples/*/*/pack.yaml", "../conformance/*/packs/*/pack.yaml", "../conformance/*/*/pack.yaml", "testdata/*/pack.yaml"} {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				seeds = append(seeds, string(b))
			}
		}
	}
	seeds = append(seeds,
		"# top\nname: p # n\norigin: stock\noar: '1.0'\nmax_cost: 0x10\n",
		"{deny_by_default: {copy: {fix: f, title: t}, code: DENY, anchors: [tool.pre_invoke]}, origin: stock, oar: \"1.0\"}\n",
		"oar: '1.0'\r\norigin: stock\r\ndeny_by_default:\r\n  copy:\r\n    why: |\r\n      a\r\n      b\r\n    title: \"x\\u200By\"\r\n  anchors:\r\n    - tool.pre_invoke\r\n  code: DENY\r\n",
	)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		f.Fatal(err)
	}
	rule := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [tool]}\nwhen: tool == \"bash\"\ncopy: {title: t}\n"
	if err := os.WriteFile(filepath.Join(dir, "policy", "A.yaml"), []byte(rule), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, meta []byte) {
		file := filepath.Join(dir, "pack.yaml")
		var out []byte
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic: %v\n%q", p, meta)
				}
			}()
			out, err = Format(file, meta)
		}()
		if err != nil {
			return
		}
		if twice, err := Format(file, out); err != nil || string(twice) != string(out) {
			t.Fatalf("not idempotent: %v\ninput:\n%q\nonce:\n%q\ntwice:\n%q", err, meta, out, twice)
		}
		if a, b := packView(t, dir, meta), packView(t, dir, out); a != b {
			t.Fatalf("the loader reads the formatted pack.yaml differently\ninput:\n%s\nformatted:\n%s\nbefore:\n%s\nafter:\n%s", meta, out, a, b)
		}
	})
}
