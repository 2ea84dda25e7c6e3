package codegen

// The golden outputs of testdata/<case>: regenerate them with go generate
// (or go test ./codegen -update once they compile) and review the diff.
//go:generate go run ../cmd/oarc gen -pack testdata/basic -out testdata/basic/golden -pkg golden
//go:generate go run ../cmd/oarc ir -o testdata/basic/ir.txt testdata/basic
//go:generate go run ../cmd/oarc gen -pack testdata/state -out testdata/state/golden -pkg golden
//go:generate go run ../cmd/oarc ir -o testdata/state/ir.txt testdata/state
