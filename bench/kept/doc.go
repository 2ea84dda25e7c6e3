// Package kept measures what the session facts the engine keeps (spec
// 5.10) cost an occurrence: a pack that reads one (repeat_count: the
// arguments' fingerprint, one read and one update of the session's record
// per tool.pre_invoke occurrence) against the same shape of pack that reads
// none (which records nothing), and against SHA-256 of the arguments'
// canonical JSON alone.
package kept

//go:generate go run ../../cmd/oarc gen -pack packs/reads -out reads -pkg reads
//go:generate go run ../../cmd/oarc gen -pack packs/plain -out plain -pkg plain
