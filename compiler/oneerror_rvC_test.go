package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneErrorPerMisspelling: a misspelt field is one error, the unknown
// field with its did-you-mean, not also the field it was meant to be
// reported missing, nor the profile checks of a requires that could not
// be read.
func TestOneErrorPerMisspelling(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\n"
	for _, c := range []struct{ doc, want string }{
		{doc: head + "efect: block\n", want: "5:1 OAR_UNKNOWN_FIELD"},
		{doc: "oars: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n", want: "1:1 OAR_UNKNOWN_FIELD"},
		{doc: head + "effect: block\nflow: {sequense: [a]}\n", want: "6:8 OAR_UNKNOWN_FIELD"},
		{doc: head + "effect: transform\ntransform: {redcat: [secret_matches]}\nrequires: {profiles: [content-safety]}\n", want: "6:13 OAR_UNKNOWN_FIELD"},
		{doc: head + "effect: block\nrequires: {profile: [tool]}\nwhen: tool == ''\n", want: "6:12 OAR_UNKNOWN_FIELD"},
		{doc: head + "effect: block\nrequires: {profiles: [Tool]}\nwhen: tool == ''\n", want: "6:23 OAR_VALUE"},
	} {
		_, diags := LoadRuleDoc("f.yaml", []byte(c.doc), "stock", Options{})
		if len(diags) != 1 || diagAt(diags[0]) != c.want {
			t.Errorf("%s: want one error %s\n%s", c.doc, c.want, diags.Text())
		}
	}
	dir := t.TempDir()
	cat := filepath.Join(dir, "c.yaml")
	os.WriteFile(cat, []byte("oar_catalog: '1.0'\nhots: acme\nanchors:\n  - {id: tool.pre_invoke, planes: [block]}\nfacts:\n  - {name: x, typ: int}\n"), 0o644)
	_, diags := LoadCatalog(cat)
	if len(diags) != 2 || diagAt(diags[0]) != "2:1 OAR_CATALOG" || diagAt(diags[1]) != "6:15 OAR_CATALOG" {
		t.Errorf("catalog: want the two unknown fields only\n%s", diags.Text())
	}
}

func diagAt(d Diagnostic) string {
	return itoa(d.Pos.Line) + ":" + itoa(d.Pos.Col) + " " + d.Code
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestDidYouMeanPrefix: a field written as the start of a longer one
// (transform's replace for replacement) is suggested as that field, not
// as a nearer but unrelated one (redact).
func TestDidYouMeanPrefix(t *testing.T) {
	doc := "oar: '1.0'\nid: A\nkind: policy\nanchor: content.output\neffect: transform\nrequires: {profiles: [content-safety]}\ntransform: {redact: [secret_matches], replace: X}\n"
	_, diags := LoadRuleDoc("f.yaml", []byte(doc), "stock", Options{})
	if len(diags) != 1 || !strings.Contains(diags[0].Message, `did you mean "replacement"?`) {
		t.Errorf("want one error suggesting replacement\n%s", diags.Text())
	}
}

// TestResetNotAnID: an on_fire.reset entry whose rule part is not an id
// is one OAR_REF error, not also the schema's pattern mismatch.
func TestResetNotAnID(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, c := range []struct{ reset, hint string }{
		{reset: "[a]", hint: `did you mean "A"?`},
		{reset: "[.fire]", hint: "not a rule id"},
		{reset: "['A .fire']", hint: "not a rule id"},
	} {
		_, diags := LoadRuleDoc("f.yaml", []byte(head+"on_fire: {reset: "+c.reset+"}\n"), "stock", Options{})
		if len(diags) != 1 || diags[0].Code != CodeRef || !strings.Contains(diags[0].Message, c.hint) {
			t.Errorf("%s: want one OAR_REF error saying %q\n%s", c.reset, c.hint, diags.Text())
		}
	}
}

// TestUnknownNamespaceCall: a call in a namespace CEL does not know
// (foo.bar(1), the sets extension's sets.contains) is one error at the
// name, not also the function alone nor a type error on cel-go's
// !error! type.
func TestUnknownNamespaceCall(t *testing.T) {
	head := "oar: '1.0'\nid: A\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	for _, c := range []struct{ when, name string }{
		{when: "foo.bar(1)", name: "foo.bar"},
		{when: "sets.contains([1], [1])", name: "sets.contains"},
		{when: "true && sets.intersects([1], [2])", name: "sets.intersects"},
	} {
		_, diags := LoadRuleDoc("f.yaml", []byte(head+"when: '"+c.when+"'\n"), "stock", Options{})
		if len(diags) != 1 || diags[0].Code != CodeUnknownFact || !strings.Contains(diags[0].Message, "'"+c.name+"'") {
			t.Errorf("%s: want one OAR_UNKNOWN_FACT naming %s\n%s", c.when, c.name, diags.Text())
		}
	}
}
