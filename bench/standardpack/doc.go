// Package standardpack is the standard benchmark pack (bench/standard-pack,
// a copy of the shared one) compiled by oarc.
package standardpack

//go:generate go run ../../cmd/oarc gen -pack ../standard-pack -out . -pkg standardpack
