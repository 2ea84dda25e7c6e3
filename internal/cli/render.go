// This file owns `oarc render`.

package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/rulestore"
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
always render. A last line says how many rules were left out.

With -store FILE, the rules of that rule store (spec 12; docs/store.md)
that are in force render too, as a host with the store open renders them
(rulestore.Store.Context): active ones like compiled rules, candidates
under the provisional heading with their trial's progress "(trial: N/M
sessions)", M the -sessions threshold. The store is read, never written;
its lines that are not records and its rules that do not load are
reported on stderr, and the rest renders.`

func runRender(env *Env, args []string) int {
	fs := newFlags(env, "render", "PACK...")
	hint := fs.String("hint", "", "the task hint the rules are ranked by (default: none, every titled rule renders)")
	k := fs.Int("k", impl.DefaultContextK, "with -hint, how many ranked rules to show (global and monitored rules do not count)")
	store := fs.String("store", "", "a rule store `FILE` whose rules in force render too")
	sessions := fs.Int("sessions", rulestore.DefaultSessions, "with -store, the sessions a candidate's trial needs (its progress, N/M)")
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
	if *sessions < 1 || *sessions > rulestore.MaxSessions {
		fmt.Fprintf(env.Stderr, "oarc render: -sessions must be between 1 and %d\n", rulestore.MaxSessions)
		return ExitUsage
	}
	if missingPaths(env, "render", fs.Args()) {
		return ExitUsage
	}
	opts, ok := lf.options(env, "render")
	if !ok {
		return ExitFailure
	}
	p, set, ok := buildSet(env, fs.Args(), opts)
	if !ok {
		return ExitFailure
	}
	if *store == "" {
		fmt.Fprint(env.Stdout, impl.Render(ContextRules(p), *hint, *k))
		return ExitOK
	}
	f, err := os.Open(*store)
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc render: %v\n", err)
		return ExitFailure
	}
	defer f.Close()
	st, err := rulestore.New(*store, f, readOnly{}, set, rulestore.Options{Sessions: *sessions, Warn: env.Stderr, Check: opts})
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc render: %v\n", err)
		return ExitFailure
	}
	defer st.Close()
	fmt.Fprint(env.Stdout, st.Context(*hint, *k))
	return ExitOK
}

// readOnly is the writer of a store a command only reads: rendering
// appends nothing, and a write would be a bug, not a change of the file.
type readOnly struct{}

func (readOnly) Write([]byte) (int, error) {
	return 0, errors.New("oarc render reads the rule store and does not write it")
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
