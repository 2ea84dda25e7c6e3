// Package rules is the compilation set of the example host: the packs of
// examples/mcp, generated with -guard.
package rules

//go:generate go tool oarc gen -guard -pack ../../../../examples/mcp/stock -pack ../../../../examples/mcp/project -out .
