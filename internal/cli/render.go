// This file owns `oarc render`.

package cli

import (
	"fmt"

	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/runtime/impl"
)

func init() {
	register("render", &Command{Summary: "print the rules of a compilation set as Markdown for a system prompt", Help: renderHelp, Run: runRender})
}

const renderHelp = `Prints the rules of a compilation set as Markdown for an agent's system
prompt (spec 10; docs/context.md), the same text as the generated
package's Context(hint, k): enforced rules under "## Rules" in evaluation
order with their fix or instead text, monitored rules under "### Provisional
rules (under evaluation)". Rules without a copy.title are not rendered.

With -hint, the enforced rules that have a selector are ranked by how well
their tags (selector values, id) and copy text match the hint's words, and
only the first -k are shown; global rules (no selector) and monitored rules
always render. A last line says how many rules were left out.`

func runRender(env *Env, args []string) int {
	fs := newFlags(env, "render", "PACK...")
	hint := fs.String("hint", "", "the task hint the rules are ranked by (default: none, every titled rule renders)")
	k := fs.Int("k", impl.DefaultContextK, "with -hint, how many ranked rules to show (global and monitored rules do not count)")
	var lf loadFlags
	lf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(env.Stderr, "oarc render: give pack directories (one compilation set) or a rule file")
		fs.Usage()
		return ExitUsage
	}
	if *k < 1 {
		fmt.Fprintln(env.Stderr, "oarc render: -k must be at least 1")
		return ExitUsage
	}
	if missingPaths(env, "render", fs.Args()) {
		return ExitUsage
	}
	opts, ok := lf.options(env, "render")
	if !ok {
		return ExitFailure
	}
	p, _, ok := buildSet(env, fs.Args(), opts)
	if !ok {
		return ExitFailure
	}
	fmt.Fprint(env.Stdout, impl.Render(ContextRules(p), *hint, *k))
	return ExitOK
}

// ContextRules are the rules of a compiled set as the rendered context
// shows them: the titled rules in evaluation order, with the tokens the
// compiler computed. The generated package's Context holds the same data
// (codegen's packGen.context): the two render the same Markdown.
func ContextRules(p *ir.Set) []impl.ContextRule {
	var out []impl.ContextRule
	for _, e := range ir.Context(p) {
		out = append(out, impl.ContextRule{
			ID: e.ID, Title: e.Title, Fix: e.Fix, Instead: e.Instead,
			Monitor: e.Monitor, Global: e.Global, Pinned: e.Pinned,
			Tags: e.Tags, Text: e.Text,
		})
	}
	return out
}
