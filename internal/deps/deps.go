//go:build tools

// Package deps pins modules the project uses before code imports them.
package deps

import (
	_ "cel.dev/cel-go/cel"
	_ "cel.dev/cel-go/ext"
	_ "github.com/dave/jennifer/jen"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/tools/imports"
)
