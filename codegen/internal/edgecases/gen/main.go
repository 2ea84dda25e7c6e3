// Command gen compiles the edge-case expressions into the package
// codegen/internal/edge. Run it with go generate in that package.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/codegen/internal/edgecases"
)

func main() {
	out := flag.String("out", "rules_oarc.go", "output file")
	flag.Parse()
	src, err := edgecases.Generate()
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "edgecases:", err)
		os.Exit(1)
	}
	_ = codegen.RuntimePath
}
