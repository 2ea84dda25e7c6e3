package oarc

import (
	"embed"
	"strings"
)

// RuntimeSource is the source of the packages generated code links (the
// runtime, runtime/impl, the default catalog's package), of the test
// runner's protocol (testkit/wire) and of the MCP guard's proxy (guard,
// guard/proxy, guard/schema, validators), so that `oarc test` and `oarc
// guard` can build generated code from an installed binary, anywhere, with
// no checkout and no network: they import only the standard library and
// each other (guard/schema, which only a set with result bindings links,
// also the JSON Schema library; go.sum has its hashes).
//
//go:embed go.mod go.sum runtime/*.go runtime/impl/*.go runtime/impl/*.s lycaon/*.go testkit/wire/*.go guard/*.go guard/internal/jsonscan/*.go guard/proxy/*.go guard/schema/*.go validators/*.go
var RuntimeSource embed.FS

// IsBuildSource reports whether the file at path p of [RuntimeSource] is
// one a build of generated code needs: Go source that is not a test, or
// assembly (runtime/impl's prefix search on amd64).
func IsBuildSource(p string) bool {
	return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, ".s")
}
