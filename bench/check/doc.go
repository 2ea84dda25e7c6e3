// Package check measures and tests checks (spec 5.11): a model turn's
// tool calls evaluated as one check (EvaluateCheck: one read per action,
// one store update for the check) against the same calls evaluated one
// by one, with a pack that counts (TALLY), keeps the session's record
// (LOOP) and reads batch_tools (NO_SECRET_WITH_EMAIL).
package check

//go:generate go run ../../cmd/oarc gen -pack pack -out rules -pkg rules
