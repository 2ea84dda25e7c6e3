// Package parityrules is the compilation set of the differential test of
// the two forms of the guard (mcpguard's parity_test.go): a pack with rules
// at tool.pre_invoke, tool.post_invoke and content.tool_result, generated
// with -guard.
package parityrules

//go:generate go tool oarc gen -guard -pack pack -out .
