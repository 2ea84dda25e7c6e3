// Command gensynth writes the compiled synthetic pack of -n rules into
// -out/rules_oarc.go (package: the base name of -out), or with -pack only
// the pack's YAML into -pack.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oarc/oarc/bench/synth"
)

func main() {
	n := flag.Int("n", 10, "number of rules")
	out := flag.String("out", "", "directory of the generated package")
	pack := flag.String("pack", "", "write the pack's YAML into this directory instead")
	flag.Parse()
	if err := run(*n, *out, *pack); err != nil {
		fmt.Fprintln(os.Stderr, "gensynth:", err)
		os.Exit(1)
	}
}

func run(n int, out, pack string) error {
	if pack != "" {
		return synth.WritePack(pack, n)
	}
	if out == "" {
		return fmt.Errorf("need -out or -pack")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	src, err := synth.Generate(n, filepath.Base(abs))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "rules_oarc.go"), src, 0o644)
}
