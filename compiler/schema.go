// This file owns the JSON Schemas of oarc's documents: rule files,
// pack.yaml and host catalogs (fixtures: testkit/fixture). They are
// generated from the catalog, never written by hand: the rule schema
// enumerates the catalog's anchors, selector keys (with the type of each
// fact's values) and span facts, so that an editor using the schema flags an
// unknown anchor or selector key as the loader would. `oarc schema` prints
// them; oar.schema.json is the rule schema of the default catalog, kept up
// to date by a test. The loader validates every rule document that passed
// its own checks against the rule schema of its catalog too, as a second
// line of defence.

package compiler

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
)

// Schema is the JSON Schema (draft 2020-12) of an OAR 1.0 rule document
// checked against the default catalog: [RuleSchema] of it, as committed in
// oar.schema.json for editors that point at the repository.
//
//go:embed oar.schema.json
var Schema []byte

// SchemaDraft is the JSON Schema dialect of the generated schemas.
const SchemaDraft = "https://json-schema.org/draft/2020-12/schema"

// obj is a JSON object under construction; encoding/json sorts its keys,
// so the schemas are deterministic.
type obj = map[string]any

// RuleSchema returns the JSON Schema of a rule document checked against cat
// (nil: the default catalog).
func RuleSchema(cat *catalog.Catalog) []byte { return marshalSchema(RuleSchemaValue(cat)) }

// PackSchema returns the JSON Schema of pack.yaml for packs checked against
// cat (nil: the default catalog): deny_by_default lists its block-plane
// anchors.
func PackSchema(cat *catalog.Catalog) []byte {
	cat = orDefault(cat)
	block := []string{} // never null: a catalog may have no block-plane anchor
	for _, a := range cat.Anchors {
		if a.HasPlane("block") {
			block = append(block, a.ID)
		}
	}
	return marshalSchema(obj{
		"$schema":              SchemaDraft,
		"$id":                  "https://github.com/oarc/oarc/schema/pack.json",
		"title":                "OAR 1.0 pack.yaml",
		"description":          "The pack file of an OAR 1.0 rule pack (spec section 1), for packs checked against the catalog of host " + strconv.Quote(cat.Host) + ".",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"oar"},
		"properties": obj{
			"oar":     obj{"description": "The OAR version, the string '1.0' (quote it in YAML).", "const": "1.0"},
			"name":    obj{"description": "The pack's name (default: its directory's name); not blank.", "type": "string", "pattern": "\\S"},
			"origin":  obj{"description": "project (default) or stock: only stock packs may allow and transform.", "enum": []string{"project", "stock"}},
			"catalog": obj{"description": "The host catalog file the pack is checked against, relative to the pack.", "type": "string", "minLength": 1},
			"deny_by_default": obj{
				"description":          "A stock pack's allowlist (spec 5.8): at these anchors, what no enforced allow let through is blocked.",
				"type":                 "object",
				"additionalProperties": false,
				"required":             []string{"anchors", "code"},
				"properties": obj{
					"anchors":     obj{"type": "array", "minItems": 1, "items": obj{"enum": block}},
					"code":        obj{"type": "string", "pattern": idRE.String()},
					"enforcement": obj{"enum": []string{"enforce", "monitor"}},
					"copy":        copySchema(),
				},
			},
			"max_cost": obj{"description": "The pack's limit of a rule's estimated worst-case CEL cost (spec section 4; default 1000000; the flag -max-cost overrides it).", "type": "integer", "minimum": 1},
			"bindings": obj{
				"description": "Result bindings (spec 11): the MCP guard validates a successful result of the server's tool against the schema; mcp_schema_matched and the mcp_field_* functions read the match.",
				"type":        "array",
				"items": obj{
					"type":                 "object",
					"additionalProperties": false,
					"required":             []string{"schema"},
					"properties": obj{
						"server": obj{"description": "The server id (default: any server).", "type": "string"},
						"tool":   obj{"description": "The tool's name on the server, unqualified (default: any tool).", "type": "string"},
						"schema": obj{"description": "A JSON Schema file (draft 2020-12, self-contained), relative to the pack.", "type": "string", "minLength": 1},
					},
				},
			},
		},
	})
}

// CatalogSchema returns the JSON Schema of a host catalog file (spec
// section 9).
func CatalogSchema() []byte {
	typ := typePattern()
	str := obj{"type": "string"}
	return marshalSchema(obj{
		"$schema":              SchemaDraft,
		"$id":                  "https://github.com/oarc/oarc/schema/catalog.json",
		"title":                "oarc host catalog",
		"description":          "A host's anchors, facts and functions (spec section 9). Names must not be OAR's or oarc's own; oarc check reports that and names given twice.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"oar_catalog", "host", "anchors"},
		"properties": obj{
			"oar_catalog": obj{"description": "The catalog format version, the string '1.0'.", "const": "1.0"},
			"host":        obj{"description": "The namespace of the host's facts and functions (acme: acme.repo_dirty).", "type": "string", "pattern": hostRE.String()},
			"anchors": obj{"type": "array", "items": obj{
				"type": "object", "additionalProperties": false, "required": []string{"id", "planes"},
				"properties": obj{
					"id":            obj{"type": "string", "pattern": anchorIDRE.String()},
					"trigger_class": str, "surface": str, "title": str, "fires_when": str,
					"planes": obj{"type": "array", "minItems": 1, "uniqueItems": true, "items": obj{"enum": planes}},
				},
			}},
			"facts": obj{"type": "array", "items": obj{
				"type": "object", "additionalProperties": false, "required": []string{"name", "type"},
				"properties": obj{
					"name":        obj{"type": "string", "pattern": catNameRE.String()},
					"type":        obj{"type": "string", "pattern": "^\\s*" + typ + "\\s*$"},
					"description": str,
				},
			}},
			"functions": obj{"type": "array", "items": obj{
				"type": "object", "additionalProperties": false, "required": []string{"name", "signature"},
				"properties": obj{
					"name":        obj{"type": "string", "pattern": catNameRE.String()},
					"signature":   obj{"type": "string", "pattern": "^\\s*\\(\\s*" + typ + "(\\s*,\\s*" + typ + ")*\\s*\\)\\s*->\\s*" + typ + "\\s*$"},
					"description": str,
				},
			}},
		},
	})
}

// typePattern matches a catalog type as ParseType reads it.
func typePattern() string {
	sp := "\\s*"
	return "(string|int|bool|double|list\\(" + sp + "string" + sp + "\\)|map\\(" + sp + "string" + sp + "," + sp + "dyn" + sp + "\\)|list\\(" + sp + "map\\(" + sp + "string" + sp + "," + sp + "dyn" + sp + "\\)" + sp + "\\))"
}

func orDefault(cat *catalog.Catalog) *catalog.Catalog {
	if cat == nil {
		return catalog.Default()
	}
	return cat
}

func marshalSchema(v any) []byte {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic("compiler: schema: " + err.Error())
	}
	return append(out, '\n')
}

func copySchema() obj {
	props := obj{}
	for _, k := range copyFields {
		props[k] = obj{"type": "string"}
	}
	props["title"] = obj{"type": "string", "description": "The rejection's first line, and the rule's line in a rendered prompt."}
	return obj{"type": "object", "additionalProperties": false, "properties": props}
}

// doubleLimit is (2^54-1)*2^970, half an ulp past the largest float64:
// a JSON number reads as a finite double when its magnitude is below it.
var doubleLimit = new(big.Int).Lsh(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 54), big.NewInt(1)), 970).String()

// JSONType is the JSON Schema of a JSON value of catalog type t (a fact's
// value in a fixture, a provider's answer).
func JSONType(t catalog.Type) map[string]any {
	switch t {
	case catalog.String:
		return obj{"type": "string"}
	case catalog.Int:
		// JSON Schema's integer has no size: an int is 64 bits.
		return obj{"type": "integer", "minimum": int64(math.MinInt64), "maximum": int64(math.MaxInt64)}
	case catalog.Bool:
		return obj{"type": "boolean"}
	case catalog.Double:
		// A number a float64 holds once rounded: below half an ulp past
		// the largest float64 ((2^54-1)*2^970) in magnitude.
		return obj{"type": "number", "exclusiveMinimum": json.Number("-" + doubleLimit), "exclusiveMaximum": json.Number(doubleLimit)}
	case catalog.ListString:
		return obj{"type": "array", "items": obj{"type": "string"}}
	case catalog.MapStringDyn:
		return obj{"type": "object"}
	case catalog.ListMapStringDyn:
		return obj{"type": "array", "items": obj{"type": "object"}}
	}
	return obj{}
}

// RuleSchemaValue is [RuleSchema] as a value, for schemas that embed it
// (fixtures carry rules).
func RuleSchemaValue(cat *catalog.Catalog) map[string]any {
	cat = orDefault(cat)
	anchors := []string{} // never null: a catalog may list no anchors
	for _, a := range cat.Anchors {
		anchors = append(anchors, a.ID)
	}
	selector := obj{}
	var spans []string
	for _, f := range cat.Facts {
		if f.Span() {
			spans = append(spans, f.CELName)
		}
		if !f.Type.Selectable() {
			continue
		}
		elem := f.Type
		if elem == catalog.ListString {
			elem = catalog.String
		}
		one := JSONType(elem)
		selector[f.CELName] = obj{
			"description": strings.TrimSpace(fmt.Sprintf("%s (%s). %s", f.CELName, f.Type, f.Description)),
			"anyOf":       []any{one, obj{"type": "array", "minItems": 1, "items": one}},
		}
	}
	return obj{
		"$schema":              SchemaDraft,
		"$id":                  "https://github.com/oarc/oarc/schema/rule.json",
		"title":                "OAR 1.0 rule document",
		"description":          "One Open Agent Rules (OAR) 1.0 rule, as oarc accepts it, for the catalog of host " + strconv.Quote(cat.Host) + " (generated from it by oarc schema). Beyond the schema, oarc check checks the id against the file name, the CEL of when, profiles and references.",
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"oar", "id", "kind", "anchor", "effect"},
		"properties": obj{
			"oar":    obj{"description": "The OAR version, the string '1.0' (quote it in YAML).", "const": "1.0"},
			"id":     obj{"description": "SCREAMING_SNAKE id; equals the file stem.", "type": "string", "pattern": idRE.String()},
			"kind":   obj{"description": "Evaluation rank: schema, policy, invariant, detector.", "enum": kinds},
			"anchor": obj{"description": "A lifecycle anchor of the catalog, e.g. tool.pre_invoke.", "enum": anchors},
			"effect": obj{"description": "What a firing rule does; allow and transform need origin: stock; ask (a person approves first) and block need a block-plane anchor.", "enum": effects},
			"selector": obj{
				"description":          "Fact name (CEL spelling) -> value or non-empty list of values; clauses AND. Facts of type string, int, bool or list(string).",
				"type":                 "object",
				"additionalProperties": false,
				"properties":           selector,
			},
			"requires": obj{
				"type":                 "object",
				"additionalProperties": false,
				"properties": obj{
					"profiles": obj{"type": "array", "uniqueItems": true, "items": obj{"enum": catalog.Profiles}},
				},
			},
			"when": obj{"description": "CEL condition of type bool.", "type": "string"},
			"flow": obj{
				"type":                 "object",
				"additionalProperties": false,
				"required":             []string{"sequence"},
				"properties": obj{
					"sequence": obj{"type": "array", "minItems": 1, "items": obj{"anyOf": []any{
						obj{"type": "string"},
						obj{"type": "array", "minItems": 1, "items": obj{"type": "string"}},
					}}},
					"within":     obj{"type": "integer", "minimum": 1, "maximum": MaxFlowWithin},
					"contiguous": obj{"type": "boolean"},
				},
			},
			"enforcement": obj{"enum": []string{"enforce", "monitor"}},
			"on_error":    obj{"enum": []string{"fail_closed", "fail_open"}},
			"copy":        copySchema(),
			"on_fire": obj{
				"type":                 "object",
				"additionalProperties": false,
				"properties": obj{
					"increment": obj{"type": "array", "items": obj{"enum": counters}},
					"reset":     obj{"type": "array", "items": obj{"type": "string", "pattern": "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*(\\.(fire|breaker))?$"}},
				},
			},
			"detector": obj{"description": "Validator id (kind: detector only).", "type": "string", "pattern": detectorRE.String()},
			"transform": obj{
				"type":                 "object",
				"additionalProperties": false,
				"required":             []string{"redact"},
				"properties": obj{
					"redact":      obj{"type": "array", "minItems": 1, "items": obj{"enum": spans}},
					"replacement": obj{"type": "string"},
				},
			},
		},
		"allOf": []any{
			obj{
				"if":   obj{"properties": obj{"kind": obj{"const": "detector"}}, "required": []string{"kind"}},
				"then": obj{"required": []string{"detector"}},
				"else": obj{"not": obj{"required": []string{"detector"}}},
			},
			obj{
				"if":   obj{"properties": obj{"effect": obj{"const": "transform"}}, "required": []string{"effect"}},
				"then": obj{"required": []string{"transform"}},
				"else": obj{"not": obj{"required": []string{"transform"}}},
			},
		},
	}
}

var compiledSchemas sync.Map // *catalog.Catalog -> *schemaEntry

type schemaEntry struct {
	once sync.Once
	sch  *jsonschema.Schema
	err  error
}

// CompileSchema compiles a generated schema with the validator the loader
// uses.
func CompileSchema(doc []byte) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(doc)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", v); err != nil {
		return nil, err
	}
	return c.Compile("schema.json")
}

// ruleSchemaOf is the compiled rule schema of a catalog, built once.
func ruleSchemaOf(cat *catalog.Catalog) (*jsonschema.Schema, error) {
	cat = orDefault(cat)
	v, _ := compiledSchemas.LoadOrStore(cat, &schemaEntry{})
	cs := v.(*schemaEntry)
	cs.once.Do(func() { cs.sch, cs.err = CompileSchema(RuleSchema(cat)) })
	return cs.sch, cs.err
}

// schemaCheck validates a rule document that passed every hand-written
// check against the schema, and reports what the schema still rejects (a
// disagreement between the two is a bug, but the user sees a positioned
// diagnostic rather than nothing).
func (c *fileCtx) schemaCheck(root *yaml.Node) {
	sch, err := ruleSchemaOf(c.l.cat)
	if err != nil {
		c.errorf(root, CodeYAML, "internal error: schema: %v", err)
		return
	}
	verr, ok := sch.Validate(NodeValue(root)).(*jsonschema.ValidationError)
	if !ok {
		return
	}
	for _, leaf := range leaves(verr) {
		n := locate(root, leaf.InstanceLocation)
		code := CodeFieldType
		switch k := leaf.ErrorKind.(type) {
		case *kind.AdditionalProperties:
			code = CodeUnknownField
		case *kind.Required:
			code = CodeMissingField
		case *kind.Enum, *kind.Const, *kind.Pattern, *kind.Minimum, *kind.MinItems, *kind.UniqueItems:
			code = CodeValue
		default:
			_ = k
		}
		at := "/" + strings.Join(leaf.InstanceLocation, "/")
		c.errorf(n, code, "schema: %s: %s", at, schemaMessage(leaf))
	}
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// locate finds the node at a JSON pointer path, or the deepest node on it.
func locate(n *yaml.Node, path []string) *yaml.Node {
	for _, p := range path {
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == p {
					n, found = n.Content[i+1], true
					break
				}
			}
			if !found {
				return n
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n
			}
			n = n.Content[i]
		default:
			return n
		}
	}
	return n
}

// NodeValue converts a YAML node (without aliases, which the loader
// rejects) into the JSON-like value jsonschema validates: what the YAML
// document is as JSON.
func NodeValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := m[k]; !dup {
				m[k] = NodeValue(n.Content[i+1])
			}
		}
		return m
	case yaml.SequenceNode:
		l := []any{}
		for _, e := range n.Content {
			l = append(l, NodeValue(e))
		}
		return l
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int":
			var v int64
			if n.Decode(&v) == nil {
				return json.Number(strconv.FormatInt(v, 10))
			}
		case "!!float":
			var v float64
			if n.Decode(&v) == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
				return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
			}
		case "!!bool":
			var v bool
			if n.Decode(&v) == nil {
				return v
			}
		case "!!null":
			return nil
		}
		return n.Value
	}
	return fmt.Sprint(n.Value)
}

// schemaMessage is the last line of jsonschema's rendering of one leaf
// error ("- at '/x': message"), without the location prefix.
func schemaMessage(e *jsonschema.ValidationError) string {
	lines := strings.Split(strings.TrimSpace(e.Error()), "\n")
	last := lines[len(lines)-1]
	if i := strings.Index(last, "': "); i >= 0 {
		return last[i+3:]
	}
	return last
}

// compiledSchema is the compiled rule schema of the default catalog.
func compiledSchema() (*jsonschema.Schema, error) { return ruleSchemaOf(nil) }

// nodeValue is [NodeValue].
func nodeValue(n *yaml.Node) any { return NodeValue(n) }
