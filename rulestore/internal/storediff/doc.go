// Package storediff holds the compiled sets of the rule store's
// differential test: base (the set a host runs) and full (base with the
// extra rules compiled), both generated from rulestore/testdata/packs.
// The test runs full against base with the extra rules in a store, and
// hostile (base with rules over one hostile tool argument) against base
// with those rules in a store; hostilelazy and baselazy are the same with
// pii_entities read lazily. hostargs is a set of a host catalog whose
// functions take lists and maps.
package storediff

//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -out base -pkg base
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -pack ../../testdata/packs/extra -out full -pkg full
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -pack ../../testdata/packs/hostile -out hostile -pkg hostile
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -lazy pii_entities -out baselazy -pkg baselazy
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/base -pack ../../testdata/packs/hostile -lazy pii_entities -out hostilelazy -pkg hostilelazy
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/askbase -pack ../../testdata/packs/askmon -out askbase -pkg askbase
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/askbase -pack ../../testdata/packs/askmon -pack ../../testdata/packs/askextra -out askfull -pkg askfull
//go:generate go run ../../../cmd/oarc gen -pack ../../testdata/packs/hostargs -out hostargs -pkg hostargs
