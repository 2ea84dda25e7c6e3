// Command oarc compiles Open Agent Rules (OAR 1.0) rule packs into Go.
//
// A pack is a directory with rules in policy/*.yaml (one rule per file,
// named after its id) and an optional pack.yaml:
//
//	oar: '1.0'
//	name: starter
//	origin: project   # or stock (needed for allow and transform effects)
//
// Every command that takes a pack also takes a single rule file.
//
// Usage:
//
//	oarc <command> [flags] [arguments]
//
// # oarc check
//
//	oarc check [-json] [-portable] [-max-cost N] PATH...
//
// Loads the packs or rule files, validates every field against the OAR 1.0
// spec and the catalog, and type-checks each `when` with cel-go. Every
// problem of every file is printed, sorted by position, as
//
//	path:line:col: error: message [CODE]
//
// (warnings say "warning:"), with the source line and a caret under the
// offending token for CEL problems. The codes (OAR_YAML, OAR_VERSION, ...,
// OAR_COST) are stable. Flags:
//
//	-json       print the diagnostics as a JSON array instead
//	-portable   every use of a host fact or function (lycaon.*) is an error
//	-max-cost N limit of a rule's estimated worst-case CEL cost (default 1000000)
//
// Exit status: 0 when there are no errors (warnings allowed), 1 when there
// are, 2 on bad usage.
//
// # oarc schema
//
//	oarc schema
//
// Prints the JSON Schema of OAR 1.0 rule documents. To get completion and
// validation in editors using yaml-language-server, save it and add
//
//	# yaml-language-server: $schema=./oar.schema.json
//
// at the top of rule files (or map policy/*.yaml to it in the editor's
// settings).
//
// # Generating code
//
// Other commands (gen, ir, test) are listed by `oarc help`. A package that
// keeps its generated rules up to date carries a line such as
//
//	//go:generate go run github.com/oarc/oarc/cmd/oarc gen ./rules
package main
