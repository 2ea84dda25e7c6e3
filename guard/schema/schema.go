// Package schema compiles the JSON Schemas of result bindings (spec 11)
// for the MCP guard, with the JSON Schema library the compiler checks them
// with (github.com/santhosh-tekuri/jsonschema/v6). It is a package of its
// own so that a guard whose set has no bindings does not link the library:
// the code `oarc gen -guard` writes imports it only for a set with
// bindings.
package schema

import (
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles a binding's schema (draft 2020-12 unless it says
// otherwise) into a validator of JSON values decoded with json.Number
// numbers. The schema must be self-contained: nothing is loaded.
func Compile(url string, doc []byte) (func(v any) bool, error) {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(doc)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	u := "oarc:///" + url
	if err := c.AddResource(u, v); err != nil {
		return nil, err
	}
	sch, err := c.Compile(u)
	if err != nil {
		return nil, err
	}
	return func(v any) bool { return sch.Validate(v) == nil }, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("a binding's schema must be self-contained: cannot load " + url)
}
