package oarc

import "embed"

// RuntimeSource is the source of the packages generated code links (the
// runtime, runtime/impl, the default catalog's package) and of the test
// runner's protocol (testkit/wire), so that `oarc test` can build generated
// code from an installed binary, anywhere, with no checkout and no network:
// they import only the standard library and each other.
//
//go:embed go.mod runtime/*.go runtime/impl/*.go lycaon/*.go testkit/wire/*.go
var RuntimeSource embed.FS
