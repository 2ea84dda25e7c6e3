// This file owns `oarc schema`.

package cli

import (
	"fmt"

	"github.com/oarc/oarc/compiler"
)

func init() {
	register("schema", &Command{Summary: "print the JSON Schema of OAR 1.0 rule documents", Run: runSchema})
}

func runSchema(env *Env, args []string) int {
	fs := newFlags(env, "schema", "")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() != 0 {
		fmt.Fprintln(env.Stderr, "oarc schema: takes no arguments")
		return ExitUsage
	}
	env.Stdout.Write(compiler.Schema)
	return ExitOK
}
