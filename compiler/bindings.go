// This file owns result bindings (spec 11): pack.yaml's `bindings:`, a
// list of {server, tool, schema} whose schema is a JSON Schema (draft
// 2020-12) file relative to the pack, checked at load.

package compiler

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// Binding is a result binding of a pack: results of tool Tool of server
// Server ("" matches any) are validated against the schema.
type Binding struct {
	Server, Tool string
	// Path is the schema file as pack.yaml names it, with forward slashes.
	Path string
	// Schema is the schema file's content.
	Schema []byte
	Pos    Pos
}

var bindingFields = []string{"server", "tool", "schema"}

// readBindings reads pack.yaml's bindings (node n) of the pack file file.
// Every problem of a binding is OAR_VALUE at it (spec 11).
func (l *packLoader) readBindings(c *fileCtx, n *yaml.Node, file string) {
	if n.Kind != yaml.SequenceNode {
		c.errorf(n, CodeFieldType, "bindings must be a list of {server, tool, schema}, got %s", kindName(n))
		return
	}
	for i, e := range n.Content {
		if e.Kind != yaml.MappingNode {
			c.errorf(e, CodeValue, "bindings[%d] must be a mapping {server, tool, schema}, got %s", i, kindName(e))
			continue
		}
		b := Binding{Pos: c.src.pos(e)}
		ok := true
		seen := map[string]bool{}
		for j := 0; j+1 < len(e.Content); j += 2 {
			k, v := e.Content[j], e.Content[j+1]
			if k.Kind != yaml.ScalarNode || !contains(bindingFields, k.Value) {
				c.errorf(k, CodeValue, "bindings[%d]: unknown key %q (a binding has server, tool and schema)", i, k.Value)
				ok = false
				continue
			}
			if seen[k.Value] {
				continue
			}
			seen[k.Value] = true
			s, good := c.str(v, "bindings["+fmt.Sprint(i)+"]."+k.Value)
			if !good {
				ok = false
				continue
			}
			switch k.Value {
			case "server":
				b.Server = s
			case "tool":
				b.Tool = s
			case "schema":
				b.Path = s
			}
		}
		if !seen["schema"] {
			c.errorf(e, CodeValue, "bindings[%d]: missing schema (a JSON Schema file relative to the pack)", i)
			continue
		}
		if !ok {
			continue
		}
		if b.Path == "" || filepath.IsAbs(b.Path) {
			c.errorf(e, CodeValue, "bindings[%d]: schema %q must be a file relative to the pack", i, b.Path)
			continue
		}
		path := filepath.Join(filepath.Dir(file), filepath.FromSlash(b.Path))
		data, err := readRegular(path)
		if err != nil {
			c.errorf(e, CodeValue, "bindings[%d]: cannot read the schema %s: %v", i, b.Path, err)
			continue
		}
		if err := CheckBindingSchema(b.Path, data); err != nil {
			c.errorf(e, CodeValue, "bindings[%d]: the schema %s is not a valid JSON Schema: %s", i, b.Path, oneLine(err.Error()))
			continue
		}
		b.Path = filepath.ToSlash(b.Path)
		b.Schema = data
		l.pack.Bindings = append(l.pack.Bindings, b)
	}
}

// CheckBindingSchema compiles a binding's schema (JSON, draft 2020-12 by
// default) as the guard will: self-contained, a $ref to another document
// is an error (the guard loads nothing at run time).
func CheckBindingSchema(url string, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	u := "oarc:///" + url
	if err := c.AddResource(u, v); err != nil {
		return err
	}
	_, err = c.Compile(u)
	return err
}

// noLoader refuses every document a schema refers to.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("a binding's schema must be self-contained: cannot load " + url)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
