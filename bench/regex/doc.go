// Package regex benchmarks the matchers oarc gen emits for the constant
// patterns of `matches` (codegen/internal/redfa) against Go's regexp, on
// the patterns of the examples and the standard pack (testdata/patterns.txt)
// and on inputs of 100 B, 4 KB and 64 KB (testdata/commands-*.txt: shell
// commands, their output, JSON tool arguments and log lines, matching none
// of the patterns; the benchmark also puts a match at the end of each).
// See BENCHMARKS.md.
package regex

//go:generate go run ./internal/gencorpus -out testdata
//go:generate go run ../../codegen/internal/redfa/genmatch -patterns testdata/patterns.txt -pkg regex -out matchers_gen.go
