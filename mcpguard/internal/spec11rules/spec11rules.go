// Package spec11rules is the compilation set of the spec-first tests of
// section 11 (mcpguard's spec11_*_test.go): rules that report, one warning
// each, the facts the guard gives at each of its three anchors, blocks
// before and after the call, an ask, a nudge, provenance, result bindings,
// and the secrets and personal-data transforms, generated with -guard.
package spec11rules

//go:generate go tool oarc gen -guard -pack pack -out .
