// Package oarc is the root of the oarc module: a compiler from Open Agent
// Rules packs to Go. See README.md, cmd/oarc and DESIGN.md.
package oarc

//go:generate go run ./internal/cmd/genfacts -out runtime/facts_gen.go
