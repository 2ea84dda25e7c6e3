// Package testrules is the compilation set of the middleware's tests: the
// packs of examples/mcp and guard/testdata/everything, generated with
// -guard.
package testrules

//go:generate go tool oarc gen -guard -pack ../../../examples/mcp/stock -pack ../../../examples/mcp/project -pack ../../../guard/testdata/everything -out .
