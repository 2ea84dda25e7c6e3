// Package replicarules is the pack testdata/replicas compiled by oarc, for
// the tests that drive one session from several replicas.
package replicarules

//go:generate go tool oarc gen -pack ../../testdata/replicas -out . -pkg replicarules
