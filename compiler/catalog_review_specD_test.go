package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCatalogDuplicateAfterBadEntry: spec 9 reports every problem of a
// catalog, a name given twice at its later occurrence. An anchor entry
// whose id is well formed but whose planes are wrong still claims its id,
// so that a later entry with the same id is reported (it was not).
func TestCatalogDuplicateAfterBadEntry(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	text := "oar_catalog: '1.0'\nhost: acme\nanchors:\n" +
		"  - {id: tool.pre_invoke, planes: [shout]}\n" +
		"  - {id: tool.pre_invoke, planes: [block]}\n" +
		"  - {id: a.b}\n" +
		"  - {id: a.b, planes: [inform]}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadCatalog(file)
	got := diags.Text()
	for _, want := range []string{
		file + ":4:36: error: plane \"shout\" is not one of block, inform, transform [OAR_CATALOG]",
		file + ":5:10: error: anchor tool.pre_invoke is given twice (also at 4:10) [OAR_CATALOG]",
		file + ":6:5: error: anchor a.b: missing required field planes [OAR_CATALOG]",
		file + ":7:10: error: anchor a.b is given twice (also at 6:10) [OAR_CATALOG]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 4 {
		t.Errorf("got %d diagnostics, want 4:\n%s", n, got)
	}
}

// TestPackYAMLNamedInYAMLErrors: the YAML problems of pack.yaml (spec 1:
// pack.yaml is checked like a rule file) name pack.yaml; they said "a rule
// file holds ...".
func TestPackYAMLNamedInYAMLErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "pack.yaml:1:1: error: empty file: a pack.yaml holds one YAML document whose root is a mapping [OAR_YAML]"},
		{"oar: '1.0'\n---\nname: x\n", "pack.yaml:3:1: error: several YAML documents in one file; a pack.yaml holds exactly one [OAR_YAML]"},
		{"oar: '1.0'\nname: &n x\norigin: *n\n", "pack.yaml:3:9: error: YAML aliases (*n) are not supported in pack.yaml [OAR_YAML]"},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := LoadPack(dir, Options{})
		if got := diags.Text(); !strings.Contains(got, filepath.Join(dir, tc.want)) {
			t.Errorf("pack.yaml %q: missing %q in:\n%s", tc.text, tc.want, got)
		}
	}
}

// TestEmptySecondDocumentPosition: spec 7 points into the file; a rule
// file ending in an empty second document ("---" and nothing, or only a
// comment) was reported one line past the end of the file, not at its
// "---".
func TestEmptySecondDocumentPosition(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, tc := range []struct {
		text string
		want string
	}{
		{head + "---\n", ":6:1: error: several YAML documents"},
		{"---\n" + head + "--- # c\n# nothing\n", ":7:1: error: several YAML documents"},
		{head + "---\nx: 1\n", ":7:1: error: several YAML documents"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "A.yaml")
		if err := os.WriteFile(file, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := LoadPack(file, Options{})
		if got := diags.Text(); !strings.Contains(got, file+tc.want) {
			t.Errorf("%q: missing %q in:\n%s", tc.text, file+tc.want, got)
		}
	}
}

// TestHasOnHostFact: cel-go rejects has(lycaon.x) (it reads lycaon as a
// variable with a field x); the message said "undeclared reference to
// 'lycaon.tool_is_state' (did you mean 'lycaon.tool_is_state'?)".
func TestHasOnHostFact(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "H.yaml")
	text := "oar: '1.0'\nid: H\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: 'has(lycaon.tool_is_state) || has(lycaon.nope)'\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadPack(file, Options{})
	got := diags.Text()
	for _, want := range []string{
		file + ":6:12: error: has() cannot test the host fact lycaon.tool_is_state: it is a variable",
		file + ":6:41: error: undeclared reference to 'lycaon.nope' (did you mean 'lycaon.phase'?) [OAR_UNKNOWN_FACT]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "did you mean 'lycaon.tool_is_state'") {
		t.Errorf("suggests the name it rejects:\n%s", got)
	}
}

// TestCatalogMacroNamedFunction: a host function all/exists/exists_one/
// filter of two arguments, or map of two or three, cannot be called: the
// parser expands acme.all(a, b) as CEL's all macro over acme, and the
// rule fails with "argument must be a simple name". Spec 9 accepts the
// catalog, so it loads, with a warning at the signature (there was none);
// with another number of arguments the name is fine.
func TestCatalogMacroNamedFunction(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	text := "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: t, planes: [block]}\nfunctions:\n" +
		"  - {name: all, signature: '(string, string) -> bool'}\n" +
		"  - {name: map, signature: '(string, string, string) -> bool'}\n" +
		"  - {name: exists, signature: '(string) -> bool'}\n" +
		"  - {name: filter, signature: '(int) -> bool'}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadCatalog(file)
	if diags.HasErrors() {
		t.Errorf("spec 9 accepts the catalog:\n%s", diags.Text())
	}
	got := diags.Text()
	for _, want := range []string{
		file + ":6:28: warning: function all takes 2 arguments, so a call acme.all(..) is CEL's all macro",
		file + ":7:28: warning: function map takes 3 arguments, so a call acme.map(..) is CEL's map macro",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 2 {
		t.Errorf("got %d diagnostics, want 2:\n%s", n, got)
	}
}

// TestYAMLParserErrorLine: yaml.v3 gives a parser error (as opposed to a
// scanner error) the 0-based number of its line; the diagnostic pointed
// one line too early, at a line with nothing wrong on it.
func TestYAMLParserErrorLine(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, tc := range []struct{ tail, want string }{
		{"copy: {title: x\n", ":6:1: error: YAML syntax: did not find expected ',' or '}' [OAR_YAML]"},
		{"selector:\n  tool: [a,\n  b\ncopy: {}\n", ":7:1: error: YAML syntax: did not find expected ',' or ']' [OAR_YAML]"},
		{"copy: !foo!bar x\n", ":6:1: error: YAML syntax: found undefined tag handle [OAR_YAML]"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "A.yaml")
		if err := os.WriteFile(file, []byte(head+tc.tail), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := LoadPack(file, Options{})
		if got := diags.Text(); !strings.Contains(got, file+tc.want) {
			t.Errorf("%q: missing %q in:\n%s", tc.tail, file+tc.want, got)
		}
	}
}

// TestSelectorKeyIsFunction: a selector key naming a function said
// "is not a fact (did you mean "tool_arg_string"?)", suggesting the name
// it rejected.
func TestSelectorKeyIsFunction(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "A.yaml")
	text := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nselector: {tool_arg_string: x}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadPack(file, Options{})
	want := file + ":6:12: error: selector key \"tool_arg_string\" is not a fact; tool_arg_string is a function (call it in when) [OAR_SELECTOR]\n"
	if got := diags.Text(); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestSelectorIntOutOfRange: an int selector value beyond int64 said
// "value must be an integer (or a list of them), got an integer".
func TestSelectorIntOutOfRange(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "A.yaml")
	text := "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\neffect: block\nrequires: {profiles: [content-safety]}\nselector: {content_length: [1, 9223372036854775808]}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadPack(file, Options{})
	want := file + ":7:32: error: selector content_length: 9223372036854775808 is outside the range of CEL's int (64-bit signed) [OAR_SELECTOR]\n"
	if got := diags.Text(); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestCROnlyLineBreaks: YAML breaks lines at CR as well as LF and CR LF.
// In a file with CR-only line breaks, a CEL problem in a block scalar was
// reported without its source line, at the wrong place.
func TestCROnlyLineBreaks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "A.yaml")
	text := "oar: '1.0'\rid: A\rkind: policy\ranchor: tool.pre_invoke\reffect: block\rwhen: |\r  true &&\r   nope\r"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadPack(file, Options{})
	want := file + ":8:4: error: undeclared reference to 'nope' [OAR_UNKNOWN_FACT]\n   |    nope\n   |    ^\n"
	if got := diags.Text(); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestSchemasOfSparseCatalogs: spec 9 accepts a catalog without a
// block-plane anchor, or without anchors; the pack schema's
// deny_by_default anchors (and the rule schema's anchor) were "enum":
// null, which is not a JSON Schema.
func TestSchemasOfSparseCatalogs(t *testing.T) {
	for _, text := range []string{
		"oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: out, planes: [transform]}\n",
		"oar_catalog: '1.0'\nhost: acme\nanchors: []\n",
	} {
		cat, diags := ParseCatalog("c.yaml", []byte(text))
		if cat == nil || diags.HasErrors() {
			t.Fatalf("%q: %s", text, diags.Text())
		}
		if _, err := CompileSchema(PackSchema(cat)); err != nil {
			t.Errorf("%q: pack schema: %v", text, err)
		}
		if _, err := CompileSchema(RuleSchema(cat)); err != nil {
			t.Errorf("%q: rule schema: %v", text, err)
		}
	}
}

// TestTransformNotAMapping: spec 7's OAR_FIELD_TYPE is a wrong YAML type;
// flow, on_fire, copy, requires and selector that are not mappings give
// it, and transform gave OAR_TRANSFORM.
func TestTransformNotAMapping(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte("oar: '1.0'\norigin: stock\n"), 0o644)
	file := filepath.Join(dir, "policy", "A.yaml")
	text := "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\neffect: transform\ntransform: [pii_entities]\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadPack(dir, Options{})
	want := file + ":6:12: error: transform must be a mapping with redact and replacement, got a list [OAR_FIELD_TYPE]\n"
	if got := diags.Text(); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestRecordWithoutToolPreInvoke: the engine records the session's calls
// at tool.pre_invoke (spec 5.10). With a host catalog that has no such
// anchor, a flow never held and a kept fact read its zero value: the rule
// silently never fired. A flow is now OAR_FLOW, a kept fact a warning.
func TestRecordWithoutToolPreInvoke(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"c.yaml":           "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: call, planes: [block]}\nfacts:\n  - {name: recent_tool_names, type: list(string)}\n  - {name: repeat_count, type: int}\n",
		"pk/pack.yaml":     "oar: '1.0'\ncatalog: ../c.yaml\n",
		"pk/policy/F.yaml": "oar: '1.0'\nid: F\nkind: policy\nanchor: call\neffect: block\nflow: {sequence: [read_secret, http]}\n",
		"pk/policy/G.yaml": "oar: '1.0'\nid: G\nkind: policy\nanchor: call\neffect: block\nwhen: acme.repeat_count > 2\n",
		"pk/policy/H.yaml": "oar: '1.0'\nid: H\nkind: policy\nanchor: call\neffect: block\nwhen: calls_within(60) > 5\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, diags := LoadPack(filepath.Join(dir, "pk"), Options{})
	got := diags.Text()
	for _, want := range []string{
		filepath.Join(dir, "pk/policy/F.yaml") + ":6:7: error: flow matches the tool calls the engine records at tool.pre_invoke, which the catalog does not have: the flow could never hold [OAR_FLOW]",
		filepath.Join(dir, "pk/policy/G.yaml") + ":6:7: warning: acme.repeat_count is kept from the tool calls the engine records at tool.pre_invoke, which the catalog does not have: it always reads as its zero value [OAR_REF]",
		filepath.Join(dir, "pk/policy/H.yaml") + ":6:7: warning: calls_within is kept from the tool calls the engine records at tool.pre_invoke, which the catalog does not have: it always counts 0 [OAR_REF]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestSelectorKeyPrefixOfFact: a newcomer's selector key mcp_tool (for
// mcp_tool_name) is too far from the fact by edit distance for a
// suggestion, and the error said only "is not a fact": a key that begins
// exactly one selectable fact's name, word by word, suggests it.
func TestSelectorKeyPrefixOfFact(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "A.yaml")
	text := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [mcp]}\nselector: {mcp_tool: move_file}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadPack(file, Options{})
	want := file + ":7:12: error: selector key \"mcp_tool\" is not a fact (did you mean \"mcp_tool_name\"?) [OAR_SELECTOR]\n"
	if got := diags.Text(); got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

// TestCatalogPlaneGivenTwice: spec 9 refuses a name given twice at its
// later occurrence; a plane listed twice in one anchor is refused the same
// way (it changed the catalog's fingerprint and nothing else).
func TestCatalogPlaneGivenTwice(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	text := "oar_catalog: '1.0'\nhost: acme\nanchors:\n" +
		"  - {id: tool.pre_invoke, planes: [block, inform, block]}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := LoadCatalog(file)
	want := file + ":4:51: error: anchor tool.pre_invoke: plane block is given twice [OAR_CATALOG]\n"
	if got := diags.Text(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
