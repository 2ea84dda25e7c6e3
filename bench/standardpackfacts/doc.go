// Package standardpackfacts is the standard benchmark pack with its two
// detector rules reading their facts from the occurrence
// (bench/standard-pack-facts) compiled by oarc.
package standardpackfacts

//go:generate go run ../../cmd/oarc gen -pack ../standard-pack-facts -out . -pkg standardpackfacts
