// Package oarc is the root of the oarc module: a compiler from Open Agent
// Rules packs to Go. See README.md, cmd/oarc and DESIGN.md.
package oarc

// The default catalog's package, which hosts of the Painted Wolf catalog
// import (and generated packages compiled against it).
//go:generate go run ./cmd/oarc gen -catalog-out lycaon
