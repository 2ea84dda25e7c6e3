// This file owns the JSON Schema of OAR 1.0 rule documents: the embedded
// schema (printed by `oarc schema` for editors) and its use as a second line
// of defence behind the hand-written checks.

package compiler

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
)

// Schema is the JSON Schema (draft 2020-12) of an OAR 1.0 rule document.
//
//go:embed oar.schema.json
var Schema []byte

var (
	schemaOnce sync.Once
	schemaVal  *jsonschema.Schema
	schemaErr  error
)

func compiledSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(Schema)))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("oar.schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schemaVal, schemaErr = c.Compile("oar.schema.json")
	})
	return schemaVal, schemaErr
}

// schemaCheck validates a rule document that passed every hand-written
// check against the schema, and reports what the schema still rejects (a
// disagreement between the two is a bug, but the user sees a positioned
// diagnostic rather than nothing).
func (c *fileCtx) schemaCheck(root *yaml.Node) {
	sch, err := compiledSchema()
	if err != nil {
		c.errorf(root, CodeYAML, "internal error: schema: %v", err)
		return
	}
	verr, ok := sch.Validate(nodeValue(root)).(*jsonschema.ValidationError)
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

// nodeValue converts a YAML node (without aliases, which the loader
// rejects) into the JSON-like value jsonschema validates.
func nodeValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := m[k]; !dup {
				m[k] = nodeValue(n.Content[i+1])
			}
		}
		return m
	case yaml.SequenceNode:
		l := []any{}
		for _, e := range n.Content {
			l = append(l, nodeValue(e))
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
