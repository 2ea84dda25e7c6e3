// Command host stands in for Acme's coding agent: a host with its own
// catalog (../acme.catalog.yaml, namespace acme), so its facts, anchors and
// providers are Acme's and nothing of the default catalog is in sight. It
// evaluates a short session of tool calls, pushes and answers against the
// pack in ../rules, and prints each decision and the text the agent would be
// shown.
//
// The compiled pack (package rules) and the catalog package (rules/acme)
// are regenerated with:
//
//go:generate go run ../../../cmd/oarc gen -pack ../rules -out rules
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/oarc/oarc/examples/acme/host/rules"
	"github.com/oarc/oarc/examples/acme/host/rules/acme"
	"github.com/oarc/oarc/runtime"
)

func main() { run(os.Stdout) }

// step is one occurrence of the demo.
type step struct {
	what string
	occ  acme.Occurrence
}

func run(w io.Writer) {
	// Bind the host's providers and validators once.
	ev, err := rules.New(demoEnv())
	if err != nil {
		fmt.Fprintln(w, err)
	}
	session := runtime.NewSession("devbot-1")
	var d runtime.Decision
	for _, s := range steps() {
		if err := ev.Evaluate(context.Background(), &s.occ, session, &d); err != nil {
			fmt.Fprintln(w, err)
		}
		fmt.Fprintf(w, "%-40s -> %s", s.what, d.Effect)
		if len(d.Codes) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(d.Codes, ", "))
		}
		if len(d.Monitored) > 0 {
			fmt.Fprintf(w, " [monitored: %s]", strings.Join(d.Monitored, ", "))
		}
		fmt.Fprintln(w)
		if d.Effect != runtime.Allow {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(d.Rejection(), "\n", "\n    "))
		}
	}
}

// The forge, as the toy providers see it.
var (
	protected = map[string]bool{"main": true, "release": true}
	approvals = map[string]int64{"42": 2, "43": 0}
)

// demoEnv registers the providers of Acme's functions and the validator of
// the token detector.
func demoEnv() acme.Env {
	return acme.Env{
		Providers: acme.Providers{
			AcmeBranchProtected: func(_ context.Context, _ *acme.Occurrence, branch string) (bool, error) {
				return protected[branch], nil
			},
			AcmePrHasApprovals: func(_ context.Context, _ *acme.Occurrence, pr string, n int64) (bool, error) {
				return approvals[pr] >= n, nil
			},
			AcmeCodeownerOf: func(_ context.Context, _ *acme.Occurrence, path string) (string, error) {
				if strings.HasPrefix(path, "auth/") {
					return "@acme/security", nil
				}
				return "", nil
			},
		},
		Validators: map[string]acme.Validator{
			// A toy detector of GitHub tokens in the model's answer.
			"tokens.v1": func(_ context.Context, occ *acme.Occurrence) (runtime.Detection, error) {
				var d runtime.Detection
				if i := strings.Index(occ.Content, "ghp_"); i >= 0 {
					start := int64(len([]rune(occ.Content[:i])))
					d.Hit = true
					d.Facts.Has = runtime.HasSecretMatches
					d.Facts.SecretMatches = []map[string]any{{"kind": "github_token", "start": start, "end": start + 40}}
				}
				return d, nil
			},
		},
	}
}

// agent builds the occurrences of one session the way the host's loop
// would: it keeps the state of the repository. The tools called so far,
// which the flow rule reads as acme.recent_tool_names, the engine keeps
// itself (spec 5.10).
type agent struct {
	repo acme.HostFacts
	out  []step
}

func (a *agent) tool(what, name string, args map[string]any) {
	s := step{what: what, occ: acme.Occurrence{Anchor: acme.ToolPreInvoke}}
	s.occ.Facts.Tool = name
	s.occ.Facts.ToolArgs = args
	s.occ.Facts.Acme = a.repo
	a.out = append(a.out, s)
}

func (a *agent) push(what, target string, forced bool) {
	s := step{what: what, occ: acme.Occurrence{Anchor: acme.GitPrePush}}
	s.occ.Facts.Acme = a.repo
	s.occ.Facts.Acme.PushTarget = target
	s.occ.Facts.Acme.PushForced = forced
	a.out = append(a.out, s)
}

func (a *agent) answer(what, text string) {
	a.out = append(a.out, step{what: what, occ: acme.Occurrence{Anchor: acme.ContentOutput, Content: text}})
}

func steps() []step {
	a := &agent{repo: acme.HostFacts{
		Branch:            "feature/login",
		ProtectedBranches: []string{"main", "release"},
		OpenPrs:           []string{"42"},
		CiStatus:          "passing",
	}}
	a.tool("edit auth/session.go", "edit_file", map[string]any{"path": "auth/session.go"})
	a.tool("edit README.md", "edit_file", map[string]any{"path": "README.md"})

	a.repo.RepoDirty, a.repo.DirtyFiles = true, 24
	post := step{what: "after the edits (24 dirty files)", occ: acme.Occurrence{Anchor: acme.ToolPostInvoke}}
	post.occ.Facts.Tool = "edit_file"
	post.occ.Facts.Acme = a.repo
	a.out = append(a.out, post)
	a.tool("deploy to staging", "deploy", map[string]any{"env": "staging"})
	a.repo.RepoDirty, a.repo.DirtyFiles = false, 0
	a.tool("deploy to staging (committed)", "deploy", map[string]any{"env": "staging"})

	// The same failing tests, again and again.
	for i := int64(1); i <= 5; i++ {
		a.repo.FailedTestRuns = i
		a.tool(fmt.Sprintf("run_tests (failing run %d)", i), "run_tests", map[string]any{"pkg": "./auth/..."})
	}
	a.repo.FailedTestRuns = 0

	a.push("git push origin feature/login", "feature/login", false)
	a.push("git push --force origin main", "main", true)
	a.tool("merge_pr 43", "merge_pr", map[string]any{"pr": "43"})
	a.repo.CiStatus = "pending"
	a.tool("merge_pr 42 (CI pending)", "merge_pr", map[string]any{"pr": "42"})
	a.repo.CiStatus = "passing"
	a.tool("merge_pr 42", "merge_pr", map[string]any{"pr": "42"})

	a.tool("read_env", "read_env", map[string]any{"name": "GITHUB_TOKEN"})
	a.tool("post_comment on #42", "post_comment", map[string]any{"pr": "42", "body": "Deployed."})
	a.answer("answer with a token", "Clone with ghp_0123456789abcdefghijABCDEFGHIJ012345 as the password.")
	a.answer("answer without one", "Clone with your own token as the password.")
	return a.out
}
