// Package testset is a compilation set for the guard's tests: the packs of
// examples/mcp and guard/testdata/everything, generated with -guard.
package testset

//go:generate go run ../../../cmd/oarc gen -guard -pack ../../../examples/mcp/stock -pack ../../../examples/mcp/project -pack ../../testdata/everything -out .
