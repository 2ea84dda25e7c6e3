package cli

// Spec-first tests of spec 10, "Decision records": the digest is the
// sha256 of the compilation set's rule sources, in the generated code, and
// "covers, in a documented stable framing, every rule file and pack.yaml
// of the set (by path and content) and the catalog's fingerprint".

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler/catalog"
)

var digestConst = regexp.MustCompile(`(?m)^const Digest = "(sha256:[0-9a-f]{64})"$`)

// genDigest compiles the packs (oarc gen, extra flags first) and returns
// the generated Digest.
func genDigest(t *testing.T, args ...string) string {
	t.Helper()
	out := t.TempDir()
	code, _, errs := run(append([]string{"gen", "-out", out}, args...)...)
	if code != 0 {
		t.Fatalf("gen %q: exit %d, stderr %s", args, code, errs)
	}
	src, err := os.ReadFile(filepath.Join(out, GenFileName))
	if err != nil {
		t.Fatal(err)
	}
	m := digestConst.FindSubmatch(src)
	if m == nil {
		t.Fatalf("gen %q: no Digest constant in the generated code", args)
	}
	return string(m[1])
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// flipByte changes one byte of the file: the last letter of its first
// occurrence of old.
func flipByte(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != len(new) || !strings.Contains(string(b), old) {
		t.Fatalf("%s: cannot replace %q by %q", file, old, new)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSpec10DigestCoversRuleSources(t *testing.T) {
	base := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "rank")
		copyTree(t, spec10Rank, dir)
		return dir
	}
	d0 := genDigest(t, "-pack", base(t))
	if again := genDigest(t, "-pack", base(t)); again != d0 {
		t.Fatalf("the same sources in another place give another digest: %s, %s", d0, again)
	}
	if rel := genDigest(t, "-pack", spec10Rank); rel != d0 {
		t.Errorf("a relative pack path gives another digest than an absolute one: %s, %s", rel, d0)
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		same   bool
	}{
		{"one byte of a rule's copy", func(t *testing.T, dir string) {
			flipByte(t, filepath.Join(dir, "policy", "A_TAG.yaml"), "gate", "gatE")
		}, false},
		{"one byte of a rule's selector", func(t *testing.T, dir string) {
			flipByte(t, filepath.Join(dir, "policy", "C_BOTH.yaml"), "bash]", "basH]")
		}, false},
		{"one byte of an untitled rule", func(t *testing.T, dir string) {
			flipByte(t, filepath.Join(dir, "policy", "U_UNTITLED.yaml"), "else", "elsE")
		}, false},
		{"a comment in a rule file", func(t *testing.T, dir string) {
			f := filepath.Join(dir, "policy", "Z_SCHEMA.yaml")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, append(b, "# a comment\n"...), 0o644)
		}, false},
		{"one byte of pack.yaml", func(t *testing.T, dir string) {
			f := filepath.Join(dir, "pack.yaml")
			b, _ := os.ReadFile(f)
			os.WriteFile(f, append(b, "#\n"...), 0o644)
		}, false},
		{"a rule file's path (.yaml to .yml)", func(t *testing.T, dir string) {
			os.Rename(filepath.Join(dir, "policy", "A_TAG.yaml"), filepath.Join(dir, "policy", "A_TAG.yml"))
		}, false},
		{"a rule removed", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "policy", "U_UNTITLED.yaml"))
		}, false},
		{"unrelated files", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("# notes\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "policy", "notes.txt"), []byte("not a rule\n"), 0o644)
			os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755)
			os.WriteFile(filepath.Join(dir, "fixtures", "f.json"), []byte(`{"name": "f"}`), 0o644)
			os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
			os.WriteFile(filepath.Join(dir, "docs", "X.yaml"), []byte("oar: '1.0'\n"), 0o644)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := base(t)
			tc.change(t, dir)
			d := genDigest(t, "-pack", dir)
			if tc.same && d != d0 {
				t.Errorf("digest changed: %s, was %s", d, d0)
			}
			if !tc.same && d == d0 {
				t.Errorf("digest unchanged: %s", d)
			}
		})
	}
}

// The digest of a set of two packs does not depend on the order the packs
// are given, and moving a rule from one pack to the other changes it.
func TestSpec10DigestTwoPacks(t *testing.T) {
	root := t.TempDir()
	one, two := filepath.Join(root, "one"), filepath.Join(root, "two")
	copyTree(t, spec10Rank, one)
	os.WriteFile(filepath.Join(one, "pack.yaml"), []byte("oar: '1.0'\nname: one\n"), 0o644)
	os.MkdirAll(filepath.Join(two, "policy"), 0o755)
	os.WriteFile(filepath.Join(two, "pack.yaml"), []byte("oar: '1.0'\nname: two\n"), 0o644)
	os.Rename(filepath.Join(one, "policy", "B_TEXT.yaml"), filepath.Join(two, "policy", "B_TEXT.yaml"))
	ab := genDigest(t, "-pack", one, "-pack", two)
	ba := genDigest(t, "-pack", two, "-pack", one)
	if ab != ba {
		t.Errorf("pack order changes the digest: %s, %s", ab, ba)
	}
	os.Rename(filepath.Join(one, "policy", "C_BOTH.yaml"), filepath.Join(two, "policy", "C_BOTH.yaml"))
	if moved := genDigest(t, "-pack", one, "-pack", two); moved == ab {
		t.Errorf("moving a rule to the other pack left the digest as it was: %s", moved)
	}
	// The second pack's pack.yaml is covered too.
	os.WriteFile(filepath.Join(two, "pack.yaml"), []byte("oar: '1.0'\nname: two\n#\n"), 0o644)
	if d := genDigest(t, "-pack", one, "-pack", two); d == ab {
		t.Errorf("a change to the second pack's pack.yaml left the digest as it was")
	}
}

// A single rule file is a set of its own and has a digest of its content.
func TestSpec10DigestRuleFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "A_TAG.yaml")
	b, err := os.ReadFile(filepath.Join(spec10Rank, "policy", "A_TAG.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(f, b, 0o644)
	d0 := genDigest(t, "-pack", f)
	flipByte(t, f, "gate", "gatE")
	if d := genDigest(t, "-pack", f); d == d0 {
		t.Errorf("a one-byte change of a rule file given alone left the digest as it was")
	}
}

const spec10Catalog = `oar_catalog: '1.0'
host: acme
anchors:
  - {id: tool.pre_invoke, trigger_class: pre_invoke, surface: agent, planes: [block, transform], title: Before a tool runs}
  - {id: content.output, trigger_class: output, surface: agent, planes: [block, transform], title: Model output}
facts:
  - {name: repo_dirty, type: bool, description: The work tree has uncommitted changes.}
  - {name: level, type: string, description: A level.}
functions:
  - {name: branch_protected, signature: (string) -> bool, description: The named branch is protected.}
`

// The catalog's fingerprint is in the digest: a catalog that differs in
// what it declares gives another digest.
func TestSpec10DigestCoversCatalog(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "pack")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "policy", "DIRTY.yaml"), []byte("oar: '1.0'\nid: DIRTY\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\nwhen: acme.repo_dirty\ncopy: {title: Dirty tree}\n"), 0o644)
	cat := filepath.Join(dir, "acme.yaml")
	os.WriteFile(cat, []byte(spec10Catalog), 0o644)
	d0 := genDigest(t, "-catalog", cat, "-catalog-pkg", "example.com/acme", "-pack", pack)
	if again := genDigest(t, "-catalog", cat, "-catalog-pkg", "example.com/acme", "-pack", pack); again != d0 {
		t.Fatalf("one catalog, two digests: %s, %s", d0, again)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"an anchor's planes", "planes: [block, transform], title: Model", "planes: [block, inform   ], title: Model"},
		{"a fact's type", "name: level, type: string", "name: level, type: int   "},
		{"a function's signature", "(string) -> bool", "(string) -> int "},
		{"an anchor's id", "id: content.output", "id: content.outpuT"[:len("id: content.output")-1] + "s"},
		{"a fact's name", "name: repo_dirty", "name: repo_dirtz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.old) != len(tc.new) {
				t.Fatalf("%q and %q differ in length", tc.old, tc.new)
			}
			c := filepath.Join(t.TempDir(), "acme.yaml")
			os.WriteFile(c, []byte(strings.Replace(spec10Catalog, tc.old, tc.new, 1)), 0o644)
			if tc.name == "a fact's name" {
				// The rule reads repo_dirty: keep it declared.
				os.WriteFile(c, []byte(strings.Replace(spec10Catalog, "facts:\n", "facts:\n  - {name: repo_dirtz, type: bool}\n", 1)), 0o644)
			}
			if d := genDigest(t, "-catalog", c, "-catalog-pkg", "example.com/acme", "-pack", pack); d == d0 {
				t.Errorf("the catalog changed (%s) and the digest did not", tc.name)
			}
		})
	}
	// The embedded default catalog is another catalog than acme's.
	os.WriteFile(filepath.Join(pack, "policy", "DIRTY.yaml"), []byte("oar: '1.0'\nid: DIRTY\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: Dirty tree}\n"), 0o644)
	withAcme := genDigest(t, "-catalog", cat, "-catalog-pkg", "example.com/acme", "-pack", pack)
	if def := genDigest(t, "-pack", pack); def == withAcme {
		t.Errorf("the default catalog and acme's give one digest: %s", def)
	}
}

// A result binding's schema (spec 11) decides what mcp_schema_matched and
// the mcp_field_* functions answer, so it is one of the set's rule
// sources: a change to it changes what the rules decide, and the digest
// that tells versions of the rules apart (spec 10) must change with it.
func TestSpec10DigestCoversBindingSchemas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bound")
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.MkdirAll(filepath.Join(dir, "schemas"), 0o755)
	os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte("oar: '1.0'\nname: bound\nbindings:\n  - {server: files, schema: schemas/r.json}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "schemas", "r.json"), []byte(`{"type": "object", "required": ["path"]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "policy", "R.yaml"), []byte("oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: R}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("notes\n"), 0o644)
	d0 := genDigest(t, "-pack", dir)
	// An unrelated file still changes nothing.
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("other notes\n"), 0o644)
	if d := genDigest(t, "-pack", dir); d != d0 {
		t.Errorf("an unrelated file changed the digest")
	}
	// One byte of the schema: results that matched no longer do.
	flipByte(t, filepath.Join(dir, "schemas", "r.json"), `"path"`, `"patH"`)
	if d := genDigest(t, "-pack", dir); d == d0 {
		t.Errorf("a binding's schema changed and the digest did not: %s", d)
	}
}

// A rule file given alone inside a pack's policy/ takes its pack.yaml's
// origin, catalog and bindings (docs/choices-frontend.md): that pack.yaml
// is then a file of the set, and the digest covers it (spec 10: "every
// rule file and pack.yaml of the set").
func TestSpec10DigestRuleFileInPack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bound")
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.MkdirAll(filepath.Join(dir, "schemas"), 0o755)
	pack := filepath.Join(dir, "pack.yaml")
	os.WriteFile(pack, []byte("oar: '1.0'\nname: bound\nbindings:\n  - {server: files, schema: schemas/r.json}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "schemas", "r.json"), []byte(`{"type": "object"}`), 0o644)
	rule := filepath.Join(dir, "policy", "R.yaml")
	os.WriteFile(rule, []byte("oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: R}\n"), 0o644)
	d0 := genDigest(t, "-pack", rule)
	// The binding now applies to the results of another server.
	flipByte(t, pack, "server: files", "server: filez")
	if d := genDigest(t, "-pack", rule); d == d0 {
		t.Errorf("the pack.yaml a rule file given alone takes its bindings from changed, and the digest did not")
	}
}

// The framing docs/stats.md documents ("The digest"), computed here from
// the files, gives the generated Digest: the framing is the documented one.
func TestSpec10DigestFramingAsDocumented(t *testing.T) {
	frame := func(entries map[string][]byte, schemas map[string][]byte) string {
		h := sha256.New()
		h.Write([]byte("oarc-digest-v1\n"))
		write := func(m map[string][]byte) {
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(h, "%s\n%d\n%s\n", n, len(m[n]), m[n])
			}
		}
		write(entries)
		if len(schemas) > 0 {
			h.Write([]byte("bindings\n"))
			write(schemas)
		}
		fmt.Fprintf(h, "catalog %s\n", catalog.Default().Fingerprint())
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The rank pack: its pack.yaml and rule files under the pack's name.
	entries := map[string][]byte{"rank/pack.yaml": read(filepath.Join(spec10Rank, "pack.yaml"))}
	files, _ := filepath.Glob(filepath.Join(spec10Rank, "policy", "*.yaml"))
	for _, f := range files {
		entries["rank/policy/"+filepath.Base(f)] = read(f)
	}
	if got, want := genDigest(t, "-pack", spec10Rank), frame(entries, nil); got != want {
		t.Errorf("rank: generated %s, documented framing %s", got, want)
	}
	// A pack with a binding: its schema after the bindings line; a rule
	// file given alone: NAME is its stem, its pack's pack.yaml a source.
	dir := filepath.Join(t.TempDir(), "dirname")
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.MkdirAll(filepath.Join(dir, "schemas"), 0o755)
	pack := []byte("oar: '1.0'\nname: bound\nbindings:\n  - {server: files, schema: schemas/r.json}\n  - {tool: x, schema: schemas/r.json}\n")
	schema := []byte(`{"type": "object"}`)
	rule := []byte("oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\ncopy: {title: R}\n")
	os.WriteFile(filepath.Join(dir, "pack.yaml"), pack, 0o644)
	os.WriteFile(filepath.Join(dir, "schemas", "r.json"), schema, 0o644)
	os.WriteFile(filepath.Join(dir, "policy", "R.yaml"), rule, 0o644)
	want := frame(map[string][]byte{"bound/pack.yaml": pack, "bound/policy/R.yaml": rule}, map[string][]byte{"bound/schemas/r.json": schema})
	if got := genDigest(t, "-pack", dir); got != want {
		t.Errorf("bound: generated %s, documented framing %s", got, want)
	}
	want = frame(map[string][]byte{"R/pack.yaml": pack, "R/R.yaml": rule}, map[string][]byte{"R/schemas/r.json": schema})
	if got := genDigest(t, "-pack", filepath.Join(dir, "policy", "R.yaml")); got != want {
		t.Errorf("R.yaml alone: generated %s, documented framing %s", got, want)
	}
}
