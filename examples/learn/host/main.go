// Command host runs seed 001's loop (spec 12) with a scripted agent: the
// agent fails (a force push overwrites a colleague's work), writes a rule
// about the failure for itself through the rule store's tools, sees it in
// its rules as provisional, runs with it on trial over several sessions
// (it fires, monitored, never blocking) until the trial says it is ready;
// a person promotes it and it blocks; `oarc promote` writes it into the
// pack of learned rules, and after a rebuild the compiled rule blocks and
// the store skips its own. It prints the transcript.
//
//	go run ./examples/learn/host [-root examples/learn] [-dir DIR]
//
// The rule store and the decision records are written into DIR (default:
// a temporary directory). The two compiled sets, before and after the
// promotion, are generated with:
//
//go:generate go run ../../../cmd/oarc gen -pack ../pack -out rules -pkg rules
//go:generate go run ../../../cmd/oarc gen -pack ../pack -pack ../learned -out promoted -pkg promoted
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/examples/learn/host/promoted"
	"github.com/oarc/oarc/examples/learn/host/rules"
	"github.com/oarc/oarc/internal/cli"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/runtime"
)

func main() {
	root := flag.String("root", "examples/learn", "the example's directory (its pack and learned directories)")
	dir := flag.String("dir", "", "where the rule store and the decision records are written (default: a temporary directory)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "learn")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	if err := run(os.Stdout, *root, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "learn:", err)
		os.Exit(1)
	}
}

// clock is the example's clock: a second per reading, from a fixed time,
// for the store's records and the decision records alike, so that the
// transcript is the same on every run.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// recorder stamps decision records with the example's clock.
type recorder struct {
	r     *runtime.JSONLRecorder
	clock *clock
}

func (r recorder) Record(rec *runtime.Record) {
	rec.Time = r.clock.now()
	r.r.Record(rec)
}

// evaluator is what the host evaluates calls with: the compiled set
// before or after the rebuild.
type evaluator interface {
	Evaluate(ctx context.Context, occ *lycaon.Occurrence, s *runtime.Session, d *runtime.Decision) error
}

// host is the agent's host: its evaluator, its rule store and the agent's
// tools, and the transcript.
type host struct {
	w     io.Writer
	ev    evaluator
	store *rulestore.Store
	tools map[string]rulestore.Tool
	sess  *runtime.Session
}

func (h *host) say(format string, args ...any) { fmt.Fprintf(h.w, format+"\n", args...) }

// indent prints text under a speaker, indented ("": no speaker).
func (h *host) indent(who, text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if i == 0 && who != "" {
			fmt.Fprintf(h.w, "%-7s %s\n", who+">", l)
		} else {
			fmt.Fprintf(h.w, "        %s\n", l)
		}
	}
}

func (h *host) useStore(s *rulestore.Store) {
	h.store = s
	h.tools = map[string]rulestore.Tool{}
	for _, t := range s.Tools() {
		h.tools[t.Name] = t
	}
}

// session starts a session and shows the agent its rules.
func (h *host) session(n int, what string) {
	h.sess = runtime.NewSession(fmt.Sprintf("session-%d", n))
	h.say("\n== Session %d: %s", n, what)
}

// context prints the rules the agent's system prompt carries.
func (h *host) context() {
	h.indent("prompt", h.store.Context("", 0))
}

// bash is one tool call of the agent: the host evaluates it and, when it
// is not blocked, runs it (here: prints its scripted result).
func (h *host) bash(command, result string) *runtime.Decision {
	args := map[string]any{"command": command}
	b, _ := json.Marshal(args)
	h.indent("agent", "bash "+string(b))
	var d runtime.Decision
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke, Facts: lycaon.Facts{Tool: "bash", ToolArgs: args}}
	if err := h.ev.Evaluate(context.Background(), occ, h.sess, &d); err != nil {
		h.say("host>   error: %v", err)
		return &d
	}
	verdict := d.Effect.String()
	if d.Code != "" {
		verdict += " by " + d.Code + " (" + d.Rule.Pack + ")"
	}
	if len(d.Monitored) > 0 {
		verdict += ", monitored: " + strings.Join(d.Monitored, ", ")
	}
	h.indent("host", verdict)
	switch {
	case d.Effect == runtime.Block:
		h.indent("tool", d.Rejection())
	default:
		h.indent("tool", result)
		if n := d.Notes(); n != "" {
			h.indent("note", n)
		}
	}
	return &d
}

// tool is a call of one of the store's tools by the agent.
func (h *host) tool(name, args string) string {
	var compact bytes.Buffer
	json.Compact(&compact, []byte(args))
	h.indent("agent", name+" "+compact.String())
	out, err := h.tools[name].Call(context.Background(), json.RawMessage(args))
	if err != nil {
		out = "error: " + err.Error()
	}
	h.indent("tool", out)
	return out
}

// The rule the agent writes: first with a mistake, then corrected.
const (
	ruleWithTypo = `{"rule": {"oar": "1.0", "id": "FORCE_PUSH_LEASE", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
  "selector": {"tool": "bash"}, "requires": {"profiles": ["tool"]},
  "when": "tool_arg_string(\"command\").matches(\"git push.*(--force|-f)( |$)\") && !tool_args.command.contain(\"--force-with-lease\")",
  "copy": {"title": "Force push without a lease", "fix": "Use git push --force-with-lease: it refuses to overwrite commits you have not fetched."}},
 "rationale": "A force push overwrote three commits Dana had pushed to main.",
 "source": "session-1: git push --force origin main", "tags": ["git", "force"]}`
	ruleFixed = `{"rule": {"oar": "1.0", "id": "FORCE_PUSH_LEASE", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
  "selector": {"tool": "bash"}, "requires": {"profiles": ["tool"]},
  "when": "tool_arg_string(\"command\").matches(\"git push.*(--force|-f)( |$)\")",
  "copy": {"title": "Force push without a lease", "fix": "Use git push --force-with-lease: it refuses to overwrite commits you have not fetched."}},
 "rationale": "A force push overwrote three commits Dana had pushed to main.",
 "source": "session-1: git push --force origin main", "tags": ["git", "force"]}`
)

// pushed is what a forced push of branch prints.
func pushed(branch string) string {
	return "+ 1a2b3c4...9f8e7d6 " + branch + " -> " + branch + " (forced update)"
}

func run(w io.Writer, root, dir string) error {
	clk := &clock{t: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	storePath := filepath.Join(dir, "rules.jsonl")
	logPath := filepath.Join(dir, "decisions.jsonl")
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	rec := recorder{runtime.NewJSONLRecorder(logFile), clk}
	opts := rulestore.Options{Now: clk.now, Warn: w}

	// The host runs the project's pack, compiled, with a rule store
	// checked against the same set.
	before, ds := compiler.Load([]string{filepath.Join(root, "pack")}, compiler.Options{})
	if ds.HasErrors() {
		return errors.New(ds.Text())
	}
	store, err := rulestore.Open(storePath, before, opts)
	if err != nil {
		return err
	}
	ev, err := rules.New(lycaon.Env{}, runtime.WithRuleStore(store), runtime.WithRecorder(rec))
	if err != nil {
		return fmt.Errorf("the compiled set and the store's differ (run go generate): %v", err)
	}
	h := &host{w: w, ev: ev}
	h.useStore(store)

	h.session(1, "the agent fails")
	h.context()
	h.bash("git push --force origin main", pushed("main"))
	h.indent("user", "You overwrote the three commits Dana pushed to main this morning!")
	h.tool(rulestore.ToolSearch, `{"query": "git push force"}`)
	h.tool(rulestore.ToolAdd, ruleWithTypo)
	h.tool(rulestore.ToolAdd, ruleFixed)
	h.context()

	// Sessions 2 to 6: the rule is on trial. It fires, monitored, when the
	// agent forgets; it never blocks.
	for n := 2; n <= 6; n++ {
		h.session(n, "the rule on trial")
		h.context()
		branch := fmt.Sprintf("feature-%d", n)
		h.bash("git fetch origin", "From github.com:acme/app")
		h.bash("git rebase origin/main", "Successfully rebased and updated refs/heads/"+branch+".")
		if n%2 == 0 {
			h.bash("git push --force origin "+branch, pushed(branch))
		} else {
			h.bash("git push -f origin "+branch, pushed(branch))
		}
	}
	h.say("\n== Between sessions: the trial is over")
	h.tool(rulestore.ToolStatus, `{"id": "FORCE_PUSH_LEASE"}`)
	h.indent("person", "promote FORCE_PUSH_LEASE (its trial is ready)")
	if _, err := store.Promote("FORCE_PUSH_LEASE"); err != nil {
		return err
	}

	h.session(7, "the store's rule is enforced")
	h.context()
	h.bash("git fetch origin", "From github.com:acme/app")
	h.bash("git rebase origin/main", "Successfully rebased and updated refs/heads/feature-7.")
	h.bash("git push --force origin feature-7", pushed("feature-7"))
	h.bash("git push --force-with-lease origin feature-7", pushed("feature-7"))

	// The rule moves to the compiled fast path: oarc promote writes it
	// into the pack of learned rules, and the host is rebuilt (here: the
	// package generated from both packs, which go generate keeps equal to
	// what oarc promote writes; checked below).
	h.say("\n== Between sessions: oarc promote, go generate, a rebuild")
	learned := filepath.Join(dir, "learned")
	if err := os.MkdirAll(learned, 0o755); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(root, "learned", "pack.yaml"), filepath.Join(learned, "pack.yaml")); err != nil {
		return err
	}
	var out, errs bytes.Buffer
	h.indent("$", "oarc promote rules.jsonl -pack learned")
	code := cli.Run([]string{"promote", storePath, "-pack", learned}, nil, &out, &errs)
	h.indent("", strings.ReplaceAll(out.String()+errs.String(), dir+string(filepath.Separator), ""))
	if code != 0 {
		return fmt.Errorf("oarc promote exited %d", code)
	}
	file := filepath.Join("policy", "FORCE_PUSH_LEASE.yaml")
	written, err := os.ReadFile(filepath.Join(learned, file))
	if err != nil {
		return err
	}
	h.indent("", string(written))
	committed, err := os.ReadFile(filepath.Join(root, "learned", file))
	if err != nil || !bytes.Equal(written, committed) {
		return fmt.Errorf("%s is not what oarc promote writes: copy it from %s and run go generate", filepath.Join(root, "learned", file), filepath.Join(learned, file))
	}
	after, ds := compiler.Load([]string{filepath.Join(root, "pack"), learned}, compiler.Options{})
	if ds.HasErrors() {
		return errors.New(ds.Text())
	}
	if after.Digest != promoted.Digest {
		return errors.New("the promoted package is stale: run go generate ./examples/learn/host")
	}
	store.Close()
	store, err = rulestore.Open(storePath, after, opts)
	if err != nil {
		return err
	}
	defer store.Close()
	ev2, err := promoted.New(lycaon.Env{}, runtime.WithRuleStore(store), runtime.WithRecorder(rec))
	if err != nil {
		return err
	}
	h.ev = ev2
	h.useStore(store)

	h.session(8, "the compiled rule")
	h.context()
	h.bash("git fetch origin", "From github.com:acme/app")
	h.bash("git rebase origin/main", "Successfully rebased and updated refs/heads/feature-8.")
	h.bash("git push --force-with-lease origin feature-8", pushed("feature-8"))
	h.bash("git push -f origin main", pushed("main"))
	h.tool(rulestore.ToolStatus, `{"id": "FORCE_PUSH_LEASE"}`)

	h.say("\n== The store, the records and the rule's effect")
	out.Reset()
	errs.Reset()
	cli.Run([]string{"store", storePath}, nil, &out, &errs)
	h.indent("$", "oarc store rules.jsonl")
	h.indent("", out.String()+errs.String())
	logFile.Sync()
	logs, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer logs.Close()
	effects, _, err := store.Effectiveness(logs)
	if err != nil {
		return err
	}
	for _, e := range effects {
		h.indent("effect", fmt.Sprintf("%s at %s: fired in %d of %d calls before it was active (%.0f%%), in %d of %d after (%.0f%%)",
			e.ID, e.Anchor, e.Before.Firings, e.Before.Occurrences, 100*e.Before.Of(), e.After.Firings, e.After.Occurrences, 100*e.After.Of()))
	}
	out.Reset()
	errs.Reset()
	cli.Run([]string{"stats", logPath}, nil, &out, &errs)
	h.indent("$", "oarc stats decisions.jsonl")
	h.indent("", out.String()+errs.String())
	return nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
