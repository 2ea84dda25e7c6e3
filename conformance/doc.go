// Package conformance holds the OAR conformance corpus (fixture files by
// spec section) and its test, which runs every fixture against the
// reference evaluator and the generated code. Run it alone with
//
//	go test ./conformance/
//
// or with `oarc test conformance`: both run it through
// testkit/harness.RunReport, each directory with a set.yaml (sets/...)
// as one compilation set of the packs it lists (docs/test.md).
package conformance
