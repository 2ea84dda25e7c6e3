// Package edge is the edge-case pack of codegen/internal/edgecases compiled
// to Go; its test compares the generated code with cel-go.
package edge

//go:generate go run ../edgecases/gen -out rules_oarc.go
