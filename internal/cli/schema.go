// This file owns `oarc schema`.

package cli

import (
	"fmt"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/testkit/fixture"
)

func init() {
	register("schema", &Command{Summary: "print the JSON Schema of rule files, pack.yaml, fixtures or catalogs", Help: schemaHelp, Run: runSchema})
}

const schemaHelp = `Prints a JSON Schema (draft 2020-12), generated from the catalog (-catalog,
default the embedded Painted Wolf catalog):

    rule     a rule file (the default): the catalog's anchors, selector keys
             with the type of their values, span facts, so that an editor
             flags an unknown anchor or selector key
    pack     pack.yaml: deny_by_default lists the block-plane anchors
    fixture  a fixture file: anchors, fact names and their JSON types (host
             facts flat or nested), providers
    catalog  a host catalog file (the same whatever -catalog says)

For yaml-language-server, save the rule schema and put

    # yaml-language-server: $schema=./oar.schema.json

at the top of rule files, or map policy/*.yaml to it in the editor.`

func runSchema(env *Env, args []string) int {
	fs := newFlags(env, "schema", "[rule|pack|fixture|catalog]")
	catalogFile := fs.String("catalog", "", "the host catalog file the schema is generated from (default: the embedded Painted Wolf catalog)")
	pos, code := parseAnywhere(fs, args)
	if code >= 0 {
		return code
	}
	what := "rule"
	switch len(pos) {
	case 0:
	case 1:
		what = pos[0]
	default:
		fmt.Fprintln(env.Stderr, "oarc schema: takes at most one argument: rule, pack, fixture or catalog")
		return ExitUsage
	}
	switch what {
	case "rule", "pack", "fixture", "catalog":
	default:
		fmt.Fprintf(env.Stderr, "oarc schema: %q is not one of rule, pack, fixture, catalog\n", what)
		return ExitUsage
	}
	// The catalog schema is the same whatever -catalog says: it is what a
	// broken catalog is fixed against, so the catalog is not loaded for it.
	opts, ok := compiler.Options{}, true
	if *catalogFile != "" && what != "catalog" {
		lf := loadFlags{catalog: *catalogFile}
		if opts, ok = lf.options(env, "schema"); !ok {
			return ExitFailure
		}
	}
	g := map[string]func() []byte{
		"rule":    func() []byte { return compiler.RuleSchema(opts.Catalog) },
		"pack":    func() []byte { return compiler.PackSchema(opts.Catalog) },
		"fixture": func() []byte { return fixture.Schema(opts.Catalog) },
		"catalog": compiler.CatalogSchema,
	}[what]
	env.Stdout.Write(g())
	return ExitOK
}
