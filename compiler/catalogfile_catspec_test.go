package compiler

import (
	"strings"
	"testing"
)

// catspecHead is a catalog's head: version, host and one anchor.
const catspecHead = "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\n"

// TestCatalogSpec9Rejections walks spec 9's list of a catalog's own
// problems, one catalog each: every one is OAR_CATALOG at the position of
// the offending value (a missing field at its entry, a name given twice
// at its later occurrence), and nothing else is reported.
func TestCatalogSpec9Rejections(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"YAML syntax", catspecHead + "facts: [\n", ":6:1: error: YAML syntax: "},
		{"unknown top-level field", catspecHead + "tier: host\n", ":5:1: error: unknown field \"tier\" in catalog"},
		{"unknown fact field", catspecHead + "facts:\n  - {name: x, type: int, profile: tool}\n", ":6:26: error: unknown field \"profile\" in fact"},
		{"anchor without id", "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {planes: [block]}\n", ":4:5: error: anchor: missing required field id"},
		{"anchor without planes", "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: a}\n", ":4:5: error: anchor a: missing required field planes"},
		{"fact without name", catspecHead + "facts:\n  - {type: int}\n", ":6:5: error: fact: missing required field name"},
		{"fact without type", catspecHead + "facts:\n  - {name: x}\n", ":6:5: error: fact x: missing required field type"},
		{"function without name", catspecHead + "functions:\n  - {signature: (int) -> bool}\n", ":6:5: error: function: missing required field name"},
		{"function without signature", catspecHead + "functions:\n  - {name: f}\n", ":6:5: error: function f: missing required field signature"},
		{"anchor id with an upper-case letter", "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: tool.Pre, planes: [block]}\n", ":4:10: error: anchor id \"tool.Pre\" does not match"},
		{"anchor id with an empty segment", "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: 'a..b', planes: [block]}\n", ":4:10: error: anchor id \"a..b\" does not match"},
		{"anchor id starting with a digit", "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: '1a', planes: [block]}\n", ":4:10: error: anchor id \"1a\" does not match"},
		{"plane other than block, inform, transform", "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: a, planes: [block, allow]}\n", ":4:29: error: plane \"allow\" is not one of block, inform, transform"},
		{"type list(int)", catspecHead + "facts:\n  - {name: x, type: list(int)}\n", ":6:21: error: fact x: type \"list(int)\" is not one of"},
		{"type dyn", catspecHead + "facts:\n  - {name: x, type: dyn}\n", ":6:21: error: fact x: type \"dyn\" is not one of"},
		{"type nested deeper than section 3", catspecHead + "facts:\n  - {name: x, type: 'map(string, list(string))'}\n", ":6:21: error: fact x: type \"map(string, list(string))\" is not one of"},
		{"type spelt as in facts.tsv", catspecHead + "facts:\n  - {name: x, type: list<string>}\n", ":6:21: error: fact x: type \"list<string>\" is not one of"},
		{"type with a space before its parenthesis", catspecHead + "facts:\n  - {name: x, type: list (string)}\n", ":6:21: error: fact x: type \"list (string)\" is not one of"},
		{"signature without an arrow", catspecHead + "functions:\n  - {name: f, signature: (string)}\n", ":6:26: error: function f: bad signature"},
		{"signature of no argument", catspecHead + "functions:\n  - {name: f, signature: () -> bool}\n", ":6:26: error: function f: bad signature \"() -> bool\": a function takes at least one argument"},
		{"signature of an unknown type", catspecHead + "functions:\n  - {name: f, signature: (bytes) -> bool}\n", ":6:26: error: function f: unknown type \"bytes\""},
		{"host with an upper-case letter", "oar_catalog: '1.0'\nhost: Acme\nanchors:\n  - {id: a, planes: [block]}\n", ":2:7: error: host \"Acme\" does not match ^[a-z][a-z0-9_]*$"},
		{"host with a dot", "oar_catalog: '1.0'\nhost: acme.corp\nanchors:\n  - {id: a, planes: [block]}\n", ":2:7: error: host \"acme.corp\" does not match"},
		{"anchor given twice", "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: a, planes: [block]}\n  - {id: a, planes: [inform]}\n", ":5:10: error: anchor a is given twice (also at 4:10)"},
		{"fact given twice", catspecHead + "facts:\n  - {name: x, type: int}\n  - {name: x, type: int}\n", ":7:12: error: fact x is given twice (also at 6:12)"},
		{"function given twice, another signature", catspecHead + "functions:\n  - {name: f, signature: (int) -> bool}\n  - {name: f, signature: (string) -> bool}\n", ":7:12: error: function f is given twice (also at 6:12)"},
		{"function named like a fact", catspecHead + "facts:\n  - {name: x, type: int}\nfunctions:\n  - {name: x, signature: (int) -> bool}\n", ":8:12: error: function x is given twice (also as a fact at 6:12)"},
		{"core fact", catspecHead + "facts:\n  - {name: fire_count, type: int}\n", ":6:12: error: fact fire_count has the name of one of OAR's or oarc's facts or functions"},
		{"standard fact", catspecHead + "facts:\n  - {name: tool_args_fingerprint, type: string}\n", ":6:12: error: fact tool_args_fingerprint has the name of one of OAR's or oarc's facts or functions"},
		{"oarc fact", catspecHead + "facts:\n  - {name: provenance_labels, type: list(string)}\n", ":6:12: error: fact provenance_labels has the name of one of OAR's or oarc's facts or functions"},
		{"standard function as a fact", catspecHead + "facts:\n  - {name: tool_arg_int, type: int}\n", ":6:12: error: fact tool_arg_int has the name of one of OAR's or oarc's facts or functions"},
		{"standard provider", catspecHead + "functions:\n  - {name: path_outside_scope, signature: (string) -> bool}\n", ":6:12: error: function path_outside_scope has the name of one of OAR's or oarc's facts or functions"},
		{"engine-kept name of another type", catspecHead + "facts:\n  - {name: same_code_reject_run, type: double}\n", ":6:40: error: fact same_code_reject_run is a session fact the engine keeps, of type int; a catalog that declares it must give that type, not double"},
		{"engine-kept code_reject_total of another type", catspecHead + "facts:\n  - {name: code_reject_total, type: list(string)}\n", ":6:37: error: fact code_reject_total is a session fact the engine keeps, of type int; a catalog that declares it must give that type, not list(string)"},
	} {
		_, diags := ParseCatalog("c.yaml", []byte(tc.text))
		got := diags.Text()
		if !strings.HasPrefix(got, "c.yaml"+tc.want) || !strings.Contains(got, "[OAR_CATALOG]") || strings.Count(got, "error:") != 1 {
			t.Errorf("%s: want one error c.yaml%s... [OAR_CATALOG], got\n%s", tc.name, tc.want, got)
		}
	}
}

// TestCatalogSpec9Accepts: what spec 9 leaves allowed loads without a
// diagnostic: every type of section 3 as a fact and in a signature, types
// spelt with spaces after a comma or not, the four engine-kept names with
// their types, a host fact and function named like Painted Wolf host ones, a host
// named lycaon, and a catalog without facts or functions.
func TestCatalogSpec9Accepts(t *testing.T) {
	all := "  - {name: s, type: string}\n  - {name: i, type: int}\n  - {name: b, type: bool}\n  - {name: d, type: double}\n" +
		"  - {name: l, type: list(string)}\n  - {name: m, type: 'map(string, dyn)'}\n  - {name: lm, type: 'list(map(string, dyn))'}\n" +
		"  - {name: m2, type: 'map(string,dyn)'}\n  - {name: fruitless_search_run, type: string}\n" +
		"  - {name: repeat_count, type: int}\n  - {name: recent_tool_names, type: list(string)}\n  - {name: same_code_reject_run, type: int}\n  - {name: code_reject_total, type: int}\n"
	fns := "  - {name: f1, signature: '(string) -> list(map(string, dyn))'}\n  - {name: f4, signature: '(int, bool, double, list(string)) -> map(string, dyn)'}\n" +
		"  - {name: f5, signature: '(map(string,dyn), list(map(string,dyn)))->string'}\n  - {name: source_includes, signature: (string) -> bool}\n"
	for name, text := range map[string]string{
		"every type":             catspecHead + "facts:\n" + all + "functions:\n" + fns,
		"host lycaon":            "oar_catalog: '1.0'\nhost: lycaon\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n" + all,
		"anchors only":           catspecHead,
		"anchor ids with digits": "oar_catalog: '1.0'\nhost: acme\nanchors:\n  - {id: a.1, planes: [inform]}\n  - {id: a._, planes: [inform]}\n  - {id: a_b.c_d.e9, planes: [transform, inform, block]}\n",
	} {
		cat, diags := ParseCatalog("c.yaml", []byte(text))
		if cat == nil || len(diags) != 0 {
			t.Errorf("%s: %s", name, diags.Text())
		}
	}
}

// TestCatalogTypeSpellingFingerprint: a type spelt with or without the
// space after its comma is one type, so the two catalogs are one catalog
// to the generated code (spec 9: the fingerprint tells versions apart),
// and a fact of another type is another catalog.
func TestCatalogTypeSpellingFingerprint(t *testing.T) {
	fp := func(ty string) string {
		cat, diags := ParseCatalog("c.yaml", []byte(catspecHead+"facts:\n  - {name: m, type: '"+ty+"'}\n"))
		if diags.HasErrors() {
			t.Fatal(diags.Text())
		}
		return cat.Fingerprint()
	}
	if a, b := fp("map(string, dyn)"), fp("map(string,dyn)"); a != b {
		t.Errorf("one type, two fingerprints: %s %s", a, b)
	}
	if a, b := fp("map(string, dyn)"), fp("list(map(string, dyn))"); a == b {
		t.Errorf("two types, one fingerprint %s", a)
	}
}

// TestCatalogKeptNameAsFunction: spec 5.10's engine-kept names are facts;
// a host function of such a name is a provider (docs/session-facts.md),
// and a flow in a catalog that has it but no recent_tool_names fact is
// OAR_FLOW, not a read of the function.
func TestCatalogKeptNameAsFunction(t *testing.T) {
	cat, diags := ParseCatalog("c.yaml", []byte(catspecHead+"functions:\n  - {name: repeat_count, signature: '(string) -> int'}\n  - {name: recent_tool_names, signature: '(string) -> list(string)'}\n"))
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	if f := cat.Fact("acme.repeat_count"); f != nil {
		t.Errorf("acme.repeat_count is a fact: %+v", f)
	}
	dir := writePack(t, t.TempDir(), "oar: '1.0'\nname: p\n", map[string]string{
		"CALLS": "when: 'acme.repeat_count(\"a\") > 1'\neffect: block\n",
		"FLOW":  "flow:\n  sequence: [a, b]\neffect: block\n",
	})
	_, diags = Load([]string{dir}, Options{Catalog: cat})
	got := diags.Text()
	if !strings.Contains(got, "FLOW.yaml:6:3: error: flow reads acme.recent_tool_names, which the catalog does not declare as a list(string) fact [OAR_FLOW]") || strings.Count(got, "error:") != 1 {
		t.Errorf("want one OAR_FLOW at FLOW's sequence, got\n%s", got)
	}
}

// TestCatalogTypeSpaceBeforeComma: `oarc schema catalog` admits spaces on
// either side of a type's comma (`map(string , dyn)`), and
// docs/choices-frontend.md says spaces around `,` are ignored; oarc check
// rejected a space before it, so a catalog the schema accepts did not
// load.
func TestCatalogTypeSpaceBeforeComma(t *testing.T) {
	text := catspecHead + "facts:\n  - {name: m, type: 'map(string , dyn)'}\n  - {name: lm, type: 'list(map( string ,dyn ))'}\n" +
		"functions:\n  - {name: f, signature: '(map(string ,dyn) , int) -> list(map(string\t, dyn))'}\n"
	cat, diags := ParseCatalog("c.yaml", []byte(text))
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	if got := cat.Fact("acme.m").Type.String(); got != "map(string, dyn)" {
		t.Errorf("acme.m is %s", got)
	}
	if got := cat.Fact("acme.lm").Type.String(); got != "list(map(string, dyn))" {
		t.Errorf("acme.lm is %s", got)
	}
}
