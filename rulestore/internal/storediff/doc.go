// Package storediff holds the compiled sets of the rule store's
// differential test: base (the set a host runs) and full (base with the
// extra rules compiled), both generated from rulestore/testdata/packs.
// The test runs full against base with the extra rules in a store, and
// hostile (base with rules over one hostile tool argument) against base
// with those rules in a store.
package storediff

//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -out base -pkg base
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -pack ../../testdata/packs/extra -out full -pkg full
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -pack ../../testdata/packs/hostile -out hostile -pkg hostile
