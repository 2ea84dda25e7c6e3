package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The catalog of spec 9's example, one entry a line, so that every
// position below is a line and a column of this text.
const spec9Catalog = `oar_catalog: '1.0'
host: acme
anchors:
  - {id: tool.pre_invoke, trigger_class: pre_invoke, surface: agent, planes: [block, transform], title: Before a tool runs}
  - {id: content.output, trigger_class: output, surface: agent, planes: [block, transform], title: Model output}
facts:
  - {name: repo_dirty, type: bool, description: The work tree has uncommitted changes.}
  - {name: open_prs, type: list(string), description: Open pull requests of the branch.}
functions:
  - {name: branch_protected, signature: (string) -> bool, description: The named branch is protected.}
`

// spec9Edit replaces the first occurrence of old in the example catalog.
func spec9Edit(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(spec9Catalog, old) {
		t.Fatalf("%q is not in the catalog", old)
	}
	return strings.Replace(spec9Catalog, old, new, 1)
}

// TestSpec9ExampleLoads: the catalog of spec 9 is a catalog.
func TestSpec9ExampleLoads(t *testing.T) {
	cat, diags := ParseCatalog("acme.yaml", []byte(spec9Catalog))
	if cat == nil || len(diags) != 0 {
		t.Fatalf("spec 9's example: %s", diags.Text())
	}
	if cat.Fact("acme.repo_dirty") == nil || cat.Function("acme.branch_protected") == nil || cat.Anchor("content.output") == nil {
		t.Errorf("spec 9's example lost a fact, a function or an anchor")
	}
}

// TestSpec9ProblemsAtTheirPosition: every problem spec 9 lists is
// OAR_CATALOG at its line and column (spec 7: path:line:col), and the
// catalog does not load.
func TestSpec9ProblemsAtTheirPosition(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		at         string // the problem is at the first character of at (last: its last occurrence)
		last       bool
		says       string // a word of the message
	}{
		// YAML syntax: OAR_CATALOG too.
		{"duplicate key", spec9Edit(t, "host: acme\n", "host: acme\nhost: acme\n"), "host: acme", true, "host"},
		{"tab indentation", spec9Edit(t, "  - {name: repo_dirty", "\t- {name: repo_dirty"), "", false, ""},
		{"not a mapping", "- a\n- b\n", "- a", false, ""},
		// Unknown fields, at every level.
		{"unknown top field", spec9Edit(t, "host: acme\n", "host: acme\nhosts: acme\n"), "hosts", false, "hosts"},
		{"unknown anchor field", spec9Edit(t, "title: Model output}", "title: Model output, colour: red}"), "colour", false, "colour"},
		{"unknown fact field", spec9Edit(t, "type: bool,", "type: bool, tier: host,"), "tier", false, "tier"},
		{"unknown function field", spec9Edit(t, "signature: (string) -> bool,", "signature: (string) -> bool, returns: bool,"), "returns", false, "returns"},
		// Missing required fields: at the entry.
		{"anchor without id", spec9Edit(t, "{id: content.output, ", "{"), "{trigger_class: output", false, "id"},
		{"anchor without planes", spec9Edit(t, "surface: agent, planes: [block, transform], title: Model", "surface: agent, title: Model"), "{id: content.output", false, "planes"},
		{"fact without name", spec9Edit(t, "{name: open_prs, ", "{"), "{type: list", false, "name"},
		{"fact without type", spec9Edit(t, "type: list(string), ", ""), "{name: open_prs", false, "type"},
		{"function without name", spec9Edit(t, "{name: branch_protected, ", "{"), "{signature", false, "name"},
		{"function without signature", spec9Edit(t, "signature: (string) -> bool, ", ""), "{name: branch_protected", false, "signature"},
		// Bad values: at the value.
		{"anchor id upper case", spec9Edit(t, "id: content.output", "id: Content.output"), "Content.output", false, "Content.output"},
		{"anchor id empty segment", spec9Edit(t, "id: content.output", "id: content..output"), "content..output", false, ""},
		{"anchor id trailing dot", spec9Edit(t, "id: content.output", "id: content.output."), "content.output.", false, ""},
		{"anchor id leading digit", spec9Edit(t, "id: content.output", "id: 9content"), "9content", false, ""},
		{"anchor id with a dash", spec9Edit(t, "id: content.output", "id: content.out-put"), "content.out-put", false, ""},
		{"plane", spec9Edit(t, "surface: agent, planes: [block, transform], title: Model", "surface: agent, planes: [block, deny], title: Model"), "deny", false, "deny"},
		{"type", spec9Edit(t, "type: list(string)", "type: list(int)"), "list(int)", false, "list(int)"},
		{"type unknown", spec9Edit(t, "type: bool", "type: boolean"), "boolean", false, "boolean"},
		{"signature without arrow", spec9Edit(t, "(string) -> bool", "(string) bool"), "(string) bool", false, ""},
		{"signature bad argument type", spec9Edit(t, "(string) -> bool", "(strin) -> bool"), "(strin)", false, "strin"},
		{"signature bad result type", spec9Edit(t, "(string) -> bool", "(string) -> boolean"), "(string) -> boolean", false, "boolean"},
		{"signature without parentheses", spec9Edit(t, "(string) -> bool", "string -> bool"), "string -> bool", false, ""},
		{"signature trailing comma", spec9Edit(t, "(string) -> bool", "'(string,) -> bool'"), "'(string,)", false, ""},
		{"signature no result", spec9Edit(t, "(string) -> bool", "'(string) ->'"), "'(string) ->'", false, ""},
		{"host upper case", spec9Edit(t, "host: acme", "host: Acme"), "Acme", false, "Acme"},
		{"host with a dot", spec9Edit(t, "host: acme", "host: ac.me"), "ac.me", false, ""},
		{"host with a dash", spec9Edit(t, "host: acme", "host: ac-me"), "ac-me", false, ""},
		{"host leading digit", spec9Edit(t, "host: acme", "host: 1acme"), "1acme", false, ""},
		// A name given twice: at its later occurrence.
		{"anchor twice", spec9Edit(t, "id: content.output", "id: tool.pre_invoke"), "tool.pre_invoke", true, "tool.pre_invoke"},
		{"fact twice", spec9Edit(t, "name: open_prs", "name: repo_dirty"), "repo_dirty", true, "repo_dirty"},
		{"function twice", spec9Catalog + "  - {name: branch_protected, signature: (string) -> bool}\n", "branch_protected", true, "branch_protected"},
		// Redefining a core, standard or oarc name.
		{"core fact", spec9Edit(t, "name: open_prs, type: list(string)", "name: fire_count, type: int"), "fire_count", false, "fire_count"},
		{"core fact anchor", spec9Edit(t, "name: open_prs, type: list(string)", "name: anchor, type: string"), "anchor, type", false, "anchor"},
		{"standard fact", spec9Edit(t, "name: open_prs, type: list(string)", "name: tool_args, type: 'map(string, dyn)'"), "tool_args", false, "tool_args"},
		{"standard fact tool", spec9Edit(t, "name: open_prs, type: list(string)", "name: tool, type: string"), "tool, type", false, "tool"},
		{"standard function", spec9Edit(t, "name: branch_protected, signature: (string) -> bool", "name: tool_arg_string, signature: (string) -> string"), "tool_arg_string", false, "tool_arg_string"},
		{"oarc fact", spec9Edit(t, "name: open_prs, type: list(string)", "name: provenance_nodes, type: 'list(map(string, dyn))'"), "provenance_nodes", false, "provenance_nodes"},
		{"standard fact as a function", spec9Edit(t, "name: branch_protected, signature: (string) -> bool", "name: tool, signature: (string) -> bool"), "tool, signature", false, "tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join("dir", "acme.yaml")
			cat, diags := ParseCatalog(file, []byte(tc.text))
			got := diags.Text()
			if cat != nil {
				t.Errorf("loaded; diagnostics:\n%s", got)
			}
			if !diags.HasErrors() {
				t.Fatalf("no error")
			}
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				if !strings.HasSuffix(line, "[OAR_CATALOG]") && strings.Contains(line, ": error: ") {
					t.Errorf("an error that is not OAR_CATALOG: %s", line)
				}
			}
			pos := regexp.QuoteMeta(file) + `:\d+:\d+: error: `
			if tc.at != "" {
				i := strings.Index(tc.text, tc.at)
				if tc.last {
					i = strings.LastIndex(tc.text, tc.at)
				}
				line := strings.Count(tc.text[:i], "\n") + 1
				col := i - strings.LastIndex(tc.text[:i], "\n")
				pos = regexp.QuoteMeta(fmt.Sprintf("%s:%d:%d: error: ", file, line, col))
			}
			re := regexp.MustCompile(pos + `(.*)\[OAR_CATALOG\]`)
			m := re.FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("want OAR_CATALOG at %q, got:\n%s", pos, got)
			}
			if tc.says != "" && !strings.Contains(m[1], tc.says) {
				t.Errorf("the message does not name %q: %s", tc.says, m[0])
			}
		})
	}
}

// TestSpec9EveryProblemReported: spec 7 reports every load problem, not
// only the first: a catalog with three problems has three diagnostics.
func TestSpec9EveryProblemReported(t *testing.T) {
	text := spec9Edit(t, "host: acme", "host: Acme")
	text = strings.Replace(text, "type: bool", "type: boolean", 1)
	text = strings.Replace(text, "(string) -> bool", "(string) bool", 1)
	_, diags := ParseCatalog("c.yaml", []byte(text))
	got := diags.Text()
	for _, at := range []string{"c.yaml:2:7:", "c.yaml:7:30:", "c.yaml:10:41:"} {
		if !strings.Contains(got, at) {
			t.Errorf("no problem at %s in:\n%s", at, got)
		}
	}
}

// TestSpec9FingerprintParts: the fingerprint lets a pack compiled
// against another version of the catalog fail to compile in the host.
// What a compiled pack reads or checks against must change it: the host
// name (the namespace of its facts), a fact's type, a function's
// signature, an anchor's planes (they decide which effects a rule may
// have there), an anchor, fact or function more or less.
func TestSpec9FingerprintParts(t *testing.T) {
	fp := func(text string) string {
		t.Helper()
		cat, diags := ParseCatalog("c.yaml", []byte(text))
		if cat == nil {
			t.Fatalf("%s", diags.Text())
		}
		return cat.Fingerprint()
	}
	base := fp(spec9Catalog)
	for _, tc := range []struct{ name, old, new string }{
		{"host", "host: acme", "host: acme2"},
		{"fact type", "type: bool", "type: int"},
		{"fact name", "name: repo_dirty", "name: repo_clean"},
		{"function signature result", "(string) -> bool", "(string) -> int"},
		{"function signature argument", "(string) -> bool", "(int) -> bool"},
		{"function signature arity", "(string) -> bool", "'(string, string) -> bool'"},
		{"function name", "name: branch_protected", "name: branch_guarded"},
		{"anchor planes", "planes: [block, transform], title: Model", "planes: [block], title: Model"},
		{"anchor planes added", "planes: [block, transform], title: Model", "planes: [block, inform, transform], title: Model"},
		{"anchor id", "id: content.output", "id: content.outcome"},
		{"anchor removed", "  - {id: content.output, trigger_class: output, surface: agent, planes: [block, transform], title: Model output}\n", ""},
		{"fact added", "functions:\n", "  - {name: extra, type: string}\nfunctions:\n"},
	} {
		if got := fp(spec9Edit(t, tc.old, tc.new)); got == base {
			t.Errorf("%s changed: the fingerprint stays %s", tc.name, got)
		}
	}
	// What no generated code reads (docs/hosts.md, "The fingerprint"):
	// an anchor's trigger class, surface and title, a description, a
	// comment, the layout. A host that only re-words its catalog does not
	// break the packs compiled against it.
	for _, tc := range []struct{ name, old, new string }{
		{"a comment", "host: acme\n", "host: acme # the namespace\n"},
		{"anchor trigger class", "trigger_class: output", "trigger_class: input"},
		{"anchor surface", "surface: agent, planes: [block, transform], title: Model", "surface: model, planes: [block, transform], title: Model"},
		{"anchor title", "title: Model output", "title: What the model wrote"},
		{"fact description", "The work tree has uncommitted changes.", "Uncommitted changes."},
		{"block layout", "facts:\n  - {name: repo_dirty, type: bool, description: The work tree has uncommitted changes.}\n",
			"facts:\n  - name: repo_dirty\n    type: bool\n    description: The work tree has uncommitted changes.\n"},
	} {
		if got := fp(spec9Edit(t, tc.old, tc.new)); got != base {
			t.Errorf("%s: the fingerprint changed (%s, was %s) for the same catalog", tc.name, got, base)
		}
	}
}

// TestSpec9CatalogFlagOverridesPackYAML: -catalog (Options.Catalog)
// overrides the catalog: of pack.yaml, for one pack and for a set whose
// packs name different catalogs (which is OAR_CATALOG without it).
func TestSpec9CatalogFlagOverridesPackYAML(t *testing.T) {
	root := t.TempDir()
	shop := strings.Replace(spec9Catalog, "host: acme", "host: shop", 1)
	if err := os.WriteFile(filepath.Join(root, "acme.yaml"), []byte(spec9Catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "shop.yaml"), []byte(shop), 0o644); err != nil {
		t.Fatal(err)
	}
	a := writePack(t, filepath.Join(root, "a"), "oar: '1.0'\nname: a\ncatalog: ../acme.yaml\n", map[string]string{"RA": "effect: block\nwhen: shop.repo_dirty\n"})
	b := writePack(t, filepath.Join(root, "b"), "oar: '1.0'\nname: b\ncatalog: ../shop.yaml\n", map[string]string{"RB": "effect: block\nwhen: shop.branch_protected(\"main\")\n"})

	// Without the flag: pack a reads its own catalog, where shop. is
	// unknown; the set of a and b names two catalogs.
	if _, diags := Load([]string{a}, Options{}); !strings.Contains(diags.Text(), "[OAR_UNKNOWN_FACT]") {
		t.Errorf("pack a against acme.yaml: want OAR_UNKNOWN_FACT for shop.repo_dirty:\n%s", diags.Text())
	}
	if set, diags := Load([]string{b}, Options{}); set == nil || diags.HasErrors() || set.Catalog.Host != "shop" {
		t.Errorf("pack b against shop.yaml:\n%s", diags.Text())
	}
	_, diags := Load([]string{a, b}, Options{})
	if want := filepath.Join(b, "pack.yaml") + ":3:10: error: "; !strings.Contains(diags.Text(), want) || !strings.Contains(diags.Text(), "[OAR_CATALOG]") {
		t.Errorf("a set naming two catalogs: want OAR_CATALOG at %s in:\n%s", want, diags.Text())
	}

	// With the flag: both packs are checked against it.
	cat, cdiags := LoadCatalog(filepath.Join(root, "shop.yaml"))
	if cat == nil {
		t.Fatal(cdiags.Text())
	}
	set, diags := Load([]string{a, b}, Options{Catalog: cat})
	if set == nil || diags.HasErrors() {
		t.Fatalf("-catalog shop.yaml over a and b:\n%s", diags.Text())
	}
	if set.Catalog.Fingerprint() != cat.Fingerprint() {
		t.Errorf("the set's catalog is not the flag's")
	}
	acme, _ := LoadCatalog(filepath.Join(root, "acme.yaml"))
	if _, diags := Load([]string{b}, Options{Catalog: acme}); !strings.Contains(diags.Text(), "[OAR_UNKNOWN_FACT]") {
		t.Errorf("pack b with -catalog acme.yaml: want OAR_UNKNOWN_FACT for shop.branch_protected:\n%s", diags.Text())
	}
}

// TestSpec9YAMLErrorColumn: a YAML syntax error is OAR_CATALOG at the
// column of the offending character (spec 9: every problem, YAML syntax
// included, at its position), which yaml.v3's message does not say.
// Before, every scanner error was at column 1 of its line.
func TestSpec9YAMLErrorColumn(t *testing.T) {
	for _, tc := range []struct{ text, at string }{
		{"oar_catalog: '1.0'\nhost: acme: x\n", "2:11"},
		{"oar_catalog: '1.0'\nhost: 'acme\n", "2:7"},
		{"oar_catalog: '1.0'\nhost: \"acme\n", "2:7"},
		{"oar_catalog: '1.0'\nhost: acme\nfacts:\n  - {name: x, type: @bool}\n", "4:21"},
		{"oar_catalog: '1.0'\nhost: acme\nfacts:\n  - name: x\n    type: bool: int\n", "5:15"},
		{"oar_catalog: '1.0'\nhost: é: x\n", "2:8"},
		{"oar_catalog: '1.0'\nhost: acme\nanchors: [{id: a, planes: [block]}]]\n", "3:10"},
	} {
		_, diags := ParseCatalog("c.yaml", []byte(tc.text))
		got := diags.Text()
		re := regexp.MustCompile(`^c\.yaml:(\d+):(\d+): error: .*\[OAR_CATALOG\]`)
		m := re.FindStringSubmatch(got)
		if m == nil {
			t.Errorf("%q: want one OAR_CATALOG error with a position, got:\n%s", tc.text, got)
			continue
		}
		if tc.at != "" && m[1]+":"+m[2] != tc.at {
			t.Errorf("%q: at %s:%s, want %s:\n%s", tc.text, m[1], m[2], tc.at, got)
		}
	}
}

// TestYAMLErrorColumnInRuleFiles: the same for rule files (spec 7: every
// problem at path:line:col), and only where a character causes the
// error: an unclosed flow collection stays at the start of its line.
func TestYAMLErrorColumnInRuleFiles(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, tc := range []struct{ tail, want string }{
		{"when: tool == 'a': b\n", "a.yaml:6:18: error: YAML syntax: mapping values are not allowed in this context [OAR_YAML]"},
		{"copy: {title: `x`}\n", "a.yaml:6:15: error: YAML syntax: found character that cannot start any token [OAR_YAML]"},
		{"copy:\n  title: \"a \\q\"\n", "a.yaml:7:13: error: YAML syntax: found unknown escape character [OAR_YAML]"},
		{"copy: {title: x\n", "a.yaml:6:1: error: YAML syntax: did not find expected ',' or '}' [OAR_YAML]"},
	} {
		got := YAMLDiagnostics("a.yaml", []byte(head+tc.tail)).Text()
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: want %q in:\n%s", tc.tail, tc.want, got)
		}
	}
}

// TestSpec9FlowNeedsRecentToolNames: flow reads <host>.recent_tool_names,
// which a catalog must declare as a list(string) fact for its packs to
// use flow, else OAR_FLOW; the catalog's host name is read where the spec
// says lycaon, and the bare name of a host fact is unknown.
func TestSpec9FlowNeedsRecentToolNames(t *testing.T) {
	rule := "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nflow:\n  sequence: [a, b]\n"
	for _, tc := range []struct {
		name, facts, code string
	}{
		{"declared", "  - {name: recent_tool_names, type: list(string)}\n", ""},
		{"absent", "", "OAR_FLOW"},
		// The catalog itself is refused (the engine keeps the fact, of
		// that type): stricter than OAR_FLOW at the rule.
		{"another type", "  - {name: recent_tool_names, type: string}\n", "OAR_CATALOG"},
	} {
		dir := t.TempDir()
		cat := strings.Replace(spec9Catalog, "facts:\n", "facts:\n"+tc.facts, 1)
		if err := os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(cat), 0o644); err != nil {
			t.Fatal(err)
		}
		pack := writePack(t, filepath.Join(dir, "p"), "oar: '1.0'\nname: p\ncatalog: ../acme.yaml\n", nil)
		if err := os.WriteFile(filepath.Join(pack, "policy", "R.yaml"), []byte(rule), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := Load([]string{pack}, Options{})
		got := diags.Text()
		switch {
		case tc.code == "" && diags.HasErrors():
			t.Errorf("%s: %s", tc.name, got)
		case tc.code != "" && (!strings.Contains(got, "error: ") || !strings.Contains(got, "["+tc.code+"]")):
			t.Errorf("%s: want %s in:\n%s", tc.name, tc.code, got)
		}
	}
	// The host's namespace, not lycaon's.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(spec9Catalog), 0o644)
	pack := writePack(t, filepath.Join(dir, "p"), "oar: '1.0'\nname: p\ncatalog: ../acme.yaml\n", map[string]string{
		"OK":   "effect: block\nwhen: acme.repo_dirty && size(acme.open_prs) > 0 && acme.branch_protected('main')\n",
		"BARE": "effect: block\nwhen: repo_dirty\n",
		"LYC":  "effect: block\nwhen: lycaon.repeat_count > 1\n",
	})
	_, diags := Load([]string{pack}, Options{})
	got := diags.Text()
	if strings.Contains(got, "OK.yaml") {
		t.Errorf("acme's facts and function: %s", got)
	}
	if !strings.Contains(got, "BARE.yaml:6:7: error: ") || !strings.Contains(got, "acme.repo_dirty") {
		t.Errorf("the bare name of a host fact: want OAR_UNKNOWN_FACT suggesting acme.repo_dirty in:\n%s", got)
	}
	if !strings.Contains(got, "LYC.yaml:6:7: error: ") || !strings.Contains(got, "[OAR_UNKNOWN_FACT]") {
		t.Errorf("lycaon's fact under acme's catalog: want OAR_UNKNOWN_FACT in:\n%s", got)
	}
}

// TestYAMLErrorOnALaterLine: yaml.v3 names the line where the scalar or
// context it was scanning starts; the character that causes the error
// may be on a later line, where it is reported.
func TestYAMLErrorOnALaterLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"oar_catalog: '1.0'\nhost: acme\nanchors:\n  - id: a\n  \tplanes: [block]\n", "c.yaml:5:3: error: YAML syntax: found a tab character that violates indentation [OAR_CATALOG]"},
		{"oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: a, planes: [block]}\n  - id: \"b\\x\"\n", "c.yaml:5:12: error: YAML syntax: did not find expected hexdecimal number [OAR_CATALOG]"},
		{"oar_catalog: '1.0'\nhost: \"acme\n  more\\q\"\n", "c.yaml:3:7: error: YAML syntax: found unknown escape character [OAR_CATALOG]"},
	} {
		_, diags := ParseCatalog("c.yaml", []byte(tc.text))
		if got := diags.Text(); !strings.Contains(got, tc.want) {
			t.Errorf("%q: want %q in:\n%s", tc.text, tc.want, got)
		}
	}
}
