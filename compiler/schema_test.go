package compiler

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
)

// TestSchemaFile: oar.schema.json is the rule schema of the default
// catalog (go test ./compiler -run TestSchemaFile -update rewrites it).
func TestSchemaFile(t *testing.T) {
	want := RuleSchema(nil)
	if *update {
		if err := os.WriteFile("oar.schema.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(Schema, want) {
		t.Errorf("oar.schema.json is stale: run go test ./compiler -run TestSchemaFile -update")
	}
}

// yamlJSON reads a YAML file as the JSON value it denotes.
func yamlJSON(t *testing.T, file string) any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return NodeValue(doc.Content[0])
}

func compile(t *testing.T, doc []byte) *jsonschema.Schema {
	t.Helper()
	compiledMu.Lock()
	defer compiledMu.Unlock()
	if s, ok := compiled[string(doc)]; ok {
		return s
	}
	s, err := CompileSchema(doc)
	if err != nil {
		t.Fatal(err)
	}
	compiled[string(doc)] = s
	return s
}

// compiled caches the schemas compile compiled, by their text: the tests
// validate hundreds of files against a handful of schemas.
var (
	compiledMu sync.Mutex
	compiled   = map[string]*jsonschema.Schema{}
)

// TestSchemasAcceptTheRepo validates every rule file, pack.yaml and catalog
// file of the repository that loads without errors against the schema of
// its catalog, and checks that rule files the loader rejects for what a
// schema describes (an unknown field, anchor or selector key, a bad enum
// value) are rejected by the schema too.
func TestSchemasAcceptTheRepo(t *testing.T) {
	files := repoYAML(t)
	checked := 0
	for _, file := range files {
		cat, packFile := catalogFor(t, file)
		if IsPackFile(file) {
			if _, diags := Load([]string{filepath.Dir(file)}, Options{}); hasCodeAt(diags, file) {
				continue
			}
			if err := compile(t, PackSchema(cat)).Validate(yamlJSON(t, file)); err != nil {
				t.Errorf("%s: %v", file, err)
			}
			checked++
			continue
		}
		_, all := LoadFile(file, Options{})
		var diags Diagnostics
		for _, d := range all {
			if sameFile(d.Pos.File, file) {
				diags = append(diags, d)
			}
		}
		if all.HasErrors() {
			if !diags.HasErrors() || !schemaCodes(diags) {
				continue
			}
			if err := compile(t, RuleSchema(cat)).Validate(yamlJSONOrNil(file)); err == nil {
				t.Errorf("%s: the loader rejects it (%s) but the schema accepts it", file, strings.Join(diags.Codes(), " "))
			}
			continue
		}
		_ = packFile
		if err := compile(t, RuleSchema(cat)).Validate(yamlJSON(t, file)); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		checked++
	}
	catalogs, _ := filepath.Glob("../examples/*/*.catalog.yaml")
	more, _ := filepath.Glob("testdata/*/*.yaml")
	catalogs = append(catalogs, "testdata/catalog_ok.catalog.yaml")
	for _, f := range more {
		if b, _ := os.ReadFile(f); bytes.HasPrefix(b, []byte("oar_catalog")) || bytes.Contains(b, []byte("\noar_catalog")) {
			catalogs = append(catalogs, f)
		}
	}
	for _, file := range catalogs {
		if cat, _ := LoadCatalog(file); cat == nil {
			continue
		}
		if err := compile(t, CatalogSchema()).Validate(yamlJSON(t, file)); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		checked++
	}
	if checked < 150 {
		t.Errorf("only %d files checked", checked)
	}
}

func yamlJSONOrNil(file string) any {
	b, _ := os.ReadFile(file)
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	return NodeValue(doc.Content[0])
}

// schemaCodes reports whether the diagnostics are all of the kinds a schema
// describes, so that the schema must reject the file too.
func schemaCodes(ds Diagnostics) bool {
	for _, d := range ds {
		if d.Severity != Error {
			continue
		}
		switch d.Code {
		case CodeUnknownField, CodeKind, CodeAnchor:
		case CodeSelector:
			if !strings.Contains(d.Message, "is not a fact") {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func hasCodeAt(ds Diagnostics, file string) bool {
	for _, d := range ds {
		if d.Severity == Error && sameFile(d.Pos.File, file) {
			return true
		}
	}
	return false
}

// catalogFor is the catalog of the pack a file belongs to.
func catalogFor(t *testing.T, file string) (*catalog.Catalog, string) {
	t.Helper()
	dir := filepath.Dir(file)
	if filepath.Base(dir) == "policy" {
		dir = filepath.Dir(dir)
	}
	pf := filepath.Join(dir, "pack.yaml")
	b, err := os.ReadFile(pf)
	if err != nil {
		return nil, ""
	}
	var pk struct{ Catalog string }
	if yaml.Unmarshal(b, &pk) != nil || pk.Catalog == "" {
		return nil, pf
	}
	cat, diags := LoadCatalog(filepath.Join(dir, pk.Catalog))
	if cat == nil {
		_ = diags
		return nil, pf
	}
	return cat, pf
}

// TestSchemasReject: what the loader rejects by name or value, the schemas
// reject at the same place, with the keyword an editor reports.
func TestSchemasReject(t *testing.T) {
	const rule = "oar: '1.0'\nid: R\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"
	acme, diags := LoadCatalog("../examples/acme/acme.catalog.yaml")
	if acme == nil {
		t.Fatal(diags.Text())
	}
	for _, tc := range []struct {
		name   string
		schema []byte
		doc    string
		at     string // the instance location of the error
	}{
		{"rule unknown field", RuleSchema(nil), rule + "severity: high\n", "/severity"},
		{"rule bad anchor", RuleSchema(nil), strings.Replace(rule, "tool.pre_invoke", "tool.pre_invok", 1), "/anchor"},
		{"rule anchor of another catalog", RuleSchema(acme), strings.Replace(rule, "tool.pre_invoke", "session.start", 1), "/anchor"},
		{"rule bad selector key", RuleSchema(nil), rule + "selector: {toool: bash}\n", "/selector/toool"},
		{"rule bare host fact as selector key", RuleSchema(nil), rule + "selector: {tool_is_state: true}\n", "/selector/tool_is_state"},
		{"rule host fact of another catalog", RuleSchema(acme), rule + "selector: {lycaon.phase: x}\n", "/selector/lycaon.phase"},
		{"rule selector value type", RuleSchema(nil), rule + "selector: {lycaon.repeat_count: many}\n", "/selector/lycaon.repeat_count"},
		{"rule empty selector list", RuleSchema(nil), rule + "selector: {tool: []}\n", "/selector/tool"},
		{"rule bad kind", RuleSchema(nil), strings.Replace(rule, "kind: policy", "kind: rule", 1), "/kind"},
		{"rule bad effect", RuleSchema(nil), strings.Replace(rule, "effect: block", "effect: deny", 1), "/effect"},
		{"rule bad enforcement", RuleSchema(nil), rule + "enforcement: audit\n", "/enforcement"},
		{"rule bad on_error", RuleSchema(nil), rule + "on_error: ignore\n", "/on_error"},
		{"rule bad profile", RuleSchema(nil), rule + "requires: {profiles: [net]}\n", "/requires/profiles/0"},
		{"rule unknown copy field", RuleSchema(nil), rule + "copy: {titel: T}\n", "/copy/titel"},
		{"rule oar as a number", RuleSchema(nil), strings.Replace(rule, "'1.0'", "1.0", 1), "/oar"},
		{"rule id", RuleSchema(nil), strings.Replace(rule, "id: R", "id: r-1", 1), "/id"},
		{"rule redact a non-span fact", RuleSchema(nil), strings.Replace(rule, "effect: block", "effect: transform", 1) + "transform: {redact: [tool]}\n", "/transform/redact/0"},
		{"pack unknown field", PackSchema(nil), "oar: '1.0'\nowner: me\n", "/owner"},
		{"pack bad origin", PackSchema(nil), "oar: '1.0'\norigin: vendor\n", "/origin"},
		{"pack blank name", PackSchema(nil), "oar: '1.0'\nname: '  '\n", "/name"},
		{"pack deny on an inform anchor", PackSchema(nil), "oar: '1.0'\norigin: stock\ndeny_by_default: {anchors: [compose.done], code: NO}\n", "/deny_by_default/anchors/0"},
		{"catalog unknown field", CatalogSchema(), "oar_catalog: '1.0'\nhost: acme\nanchors: []\nversion: 2\n", "/version"},
		{"catalog bad plane", CatalogSchema(), "oar_catalog: '1.0'\nhost: acme\nanchors: [{id: a.b, planes: [deny]}]\n", "/anchors/0/planes/0"},
		{"catalog plane twice", CatalogSchema(), "oar_catalog: '1.0'\nhost: acme\nanchors: [{id: a.b, planes: [block, block]}]\n", "/anchors/0/planes"},
		{"catalog bad type", CatalogSchema(), "oar_catalog: '1.0'\nhost: acme\nanchors: []\nfacts: [{name: n, type: list(int)}]\n", "/facts/0/type"},
		{"catalog bad signature", CatalogSchema(), "oar_catalog: '1.0'\nhost: acme\nanchors: []\nfunctions: [{name: f, signature: 'string -> bool'}]\n", "/functions/0/signature"},
		{"catalog bad host", CatalogSchema(), "oar_catalog: '1.0'\nhost: Acme\nanchors: []\n", "/host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.doc), &doc); err != nil {
				t.Fatal(err)
			}
			err := compile(t, tc.schema).Validate(NodeValue(doc.Content[0]))
			verr, ok := err.(*jsonschema.ValidationError)
			if !ok {
				t.Fatalf("accepted (%v)", err)
			}
			var at []string
			for _, l := range leaves(verr) {
				loc := "/" + strings.Join(l.InstanceLocation, "/")
				if ap, ok := l.ErrorKind.(*kind.AdditionalProperties); ok {
					for _, p := range ap.Properties {
						at = append(at, strings.TrimSuffix(loc, "/")+"/"+p)
					}
					continue
				}
				at = append(at, loc)
			}
			found := false
			for _, a := range at {
				found = found || a == tc.at
			}
			if !found {
				t.Errorf("errors at %q, want one at %s:\n%v", at, tc.at, err)
			}
		})
	}
}
