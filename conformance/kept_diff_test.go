package conformance

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/long"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// The differential test of the session facts the engine keeps (spec
// 5.10): random packs whose rules read them (with thresholds that make
// them fire, block and escalate), and random sessions of calls biased to
// what the record must get right (repeats, one same code in a row, ints
// against doubles, key order, arguments without a fingerprint, other
// anchors between calls, more than 64 calls, a preset history, an
// engine-kept fact given as a fact for one step). The reference evaluator
// answers each step; the fixtures it writes are then run on both engines
// by the harness, which also compares them with each other.

var (
	keptSessions = flag.Int("kept.sessions", long.N(12, 48), "sessions per pack in TestKeptDifferential")
	keptPacks    = flag.Int("kept.packs", 4, "random packs in TestKeptDifferential")
	keptSeed     = flag.Uint64("kept.seed", 1, "seed of TestKeptDifferential (0: from the clock)")
	keptWrite    = flag.Bool("kept.write", false, "rewrite s5_eval/kept_random (a fixed sample, also run against Redis by redisstore's tests)")
)

type keptGen struct{ r *rand.Rand }

func (g *keptGen) pick(l ...string) string { return l[g.r.IntN(len(l))] }

// rules writes a random pack of rules that read engine-kept facts.
func (g *keptGen) rules(dir string) {
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte("oar: '1.0'\nname: kept-random\n"), 0o644)
	reads := []func() string{
		func() string { return fmt.Sprintf("lycaon.repeat_count >= %d", 1+g.r.IntN(4)) },
		func() string { return fmt.Sprintf("lycaon.repeat_count == %d", g.r.IntN(3)) },
		func() string { return fmt.Sprintf("lycaon.same_code_reject_run >= %d", 1+g.r.IntN(3)) },
		func() string { return fmt.Sprintf("lycaon.code_reject_total >= %d", 1+g.r.IntN(3)) },
		func() string { return fmt.Sprintf("lycaon.code_reject_total < %d", 1+g.r.IntN(3)) },
		func() string {
			return fmt.Sprintf("%q in lycaon.recent_tool_names", g.pick("read", "bash", "grep", "send"))
		},
		func() string { return fmt.Sprintf("size(lycaon.recent_tool_names) > %d", 1+g.r.IntN(70)) },
		func() string {
			return fmt.Sprintf("lycaon.recent_tool_names.exists(t, t == %q) && lycaon.repeat_count > 0", g.pick("read", "bash"))
		},
		func() string { return `tool_args_fingerprint != ""` },
		func() string { return fmt.Sprintf(`tool_args_fingerprint.startsWith(%q)`, g.pick("0", "4", "a", "f")) },
	}
	n := 3 + g.r.IntN(4)
	for i := range n {
		id := fmt.Sprintf("K%d", i)
		effect := g.pick("block", "block", "warn", "nudge")
		anchor := "tool.pre_invoke"
		if g.r.IntN(5) == 0 {
			anchor = "tool.post_invoke"
		}
		kind := g.pick("policy", "invariant")
		when := reads[g.r.IntN(len(reads))]()
		if g.r.IntN(3) == 0 {
			when += " && " + reads[g.r.IntN(len(reads))]()
		}
		var b strings.Builder
		fmt.Fprintf(&b, "oar: '1.0'\nid: %s\nkind: %s\nanchor: %s\neffect: %s\nwhen: '%s'\n", id, kind, anchor, effect, strings.ReplaceAll(when, "'", "''"))
		if strings.Contains(when, "fingerprint") {
			b.WriteString("requires: {profiles: [tool]}\n")
		}
		if g.r.IntN(3) == 0 {
			fmt.Fprintf(&b, "selector: {tool: %s}\n", g.pick("read", "bash", "[read, bash]", "grep"))
			if !strings.Contains(b.String(), "requires") {
				b.WriteString("requires: {profiles: [tool]}\n")
			}
		}
		if g.r.IntN(4) == 0 {
			b.WriteString("enforcement: monitor\n")
		}
		if g.r.IntN(4) == 0 {
			b.WriteString("on_error: fail_open\n")
		}
		if g.r.IntN(3) == 0 {
			fmt.Fprintf(&b, "flow: {sequence: [%s, %s]}\n", g.pick("read", "grep"), g.pick("bash", "send"))
			if !strings.Contains(b.String(), "requires") {
				b.WriteString("requires: {profiles: [tool]}\n")
			}
		}
		fmt.Fprintf(&b, "copy: {title: Rule %s}\n", id)
		os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(b.String()), 0o644)
	}
}

// args are the arguments of a call: from a small pool, so that calls
// repeat, with forms that share a fingerprint and ones that have none.
func (g *keptGen) args() (any, map[string]any) {
	switch g.r.IntN(9) {
	case 0:
		return nil, nil
	case 1:
		return map[string]any{"n": 1}, map[string]any{"n": int64(1)}
	case 2:
		return map[string]any{"n": 1.0}, map[string]any{"n": 1.0}
	case 3:
		return map[string]any{"a": "x", "b": 2}, map[string]any{"a": "x", "b": int64(2)}
	case 4:
		return map[string]any{"b": 2, "a": "x"}, map[string]any{"b": int64(2), "a": "x"}
	case 5:
		// Nested past the runtime's depth limit: no fingerprint.
		var deep any = []any{}
		for range 1001 {
			deep = []any{deep}
		}
		return map[string]any{"deep": deep}, map[string]any{"deep": deep}
	case 6:
		return map[string]any{"q": g.pick("x", "y")}, nil
	}
	return map[string]any{"p": g.pick("TODO", "FIXME")}, nil
}

func TestKeptDifferential(t *testing.T) {
	seed := *keptSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (-kept.seed)", seed)
	root := t.TempDir()
	if *keptWrite {
		root = filepath.Join("s5_eval", "kept_random")
		os.RemoveAll(root)
	}
	g := &keptGen{r: rand.New(rand.NewPCG(seed, 11))}
	steps, fired := 0, map[string]int{}
	for p := range *keptPacks {
		dir := filepath.Join(root, fmt.Sprintf("p%d", p))
		if *keptWrite && p > 0 {
			break // the committed sample is one pack
		}
		g.rules(dir)
		set, diags := compiler.LoadPack(dir, compiler.Options{})
		if diags.HasErrors() {
			t.Fatalf("generated pack %s does not load:\n%s", dir, diags.Text())
		}
		ref, err := reference.New(set)
		if err != nil {
			t.Fatal(err)
		}
		var fixtures []map[string]any
		for s := range *keptSessions {
			sess := reference.NewSession()
			var jsteps []map[string]any
			n := 2 + g.r.IntN(12)
			if g.r.IntN(6) == 0 {
				n = 66 + g.r.IntN(10) // past the 64 names the record keeps
			}
			for i := range n {
				tool := g.pick("read", "read", "bash", "grep", "send")
				jargs, args := g.args()
				anchor := "tool.pre_invoke"
				if g.r.IntN(6) == 0 {
					anchor = g.pick("tool.post_invoke", "content.output")
				}
				facts := map[string]any{"tool": tool}
				jfacts := map[string]any{"tool": tool}
				if jargs != nil {
					jfacts["tool_args"] = jargs
					facts["tool_args"] = args
					if args == nil {
						facts["tool_args"] = jargs
					}
				}
				req := &wire.Request{Anchor: anchor, Facts: facts}
				jin := map[string]any{"anchor": anchor, "facts": jfacts}
				if i == 0 && g.r.IntN(3) == 0 {
					var hist []wire.HistoryCall
					var jhist []map[string]any
					for range 1 + g.r.IntN(5) {
						c := wire.HistoryCall{Tool: g.pick("read", "bash"), Code: g.pick("", "", "K0", "K1")}
						jc := map[string]any{"tool": c.Tool}
						if c.Code != "" {
							jc["code"] = c.Code
						}
						hist, jhist = append(hist, c), append(jhist, jc)
					}
					req.History, jin["history"] = hist, jhist
				}
				if g.r.IntN(15) == 0 {
					req.Kept = map[string]any{"repeat_count": int64(5)}
					jfacts["lycaon.repeat_count"] = 5
				}
				resp := ref.Evaluate(req, sess)
				for _, c := range resp.Codes {
					fired[c]++
				}
				exp := map[string]any{"decision": resp.Effect, "code": resp.Code, "codes": resp.Codes, "monitored": resp.Monitored,
					"failed_closed": resp.FailedClosed, "errors": len(resp.Errors)}
				if len(resp.Errors) == 0 {
					// With an error, the texts say why in the engine's own
					// words; the harness compares the rest of them.
					exp["rejection"], exp["banner"], exp["notes"] = resp.Rejection, resp.Banner, resp.Notes
				}
				jsteps = append(jsteps, map[string]any{"input": jin, "expected": exp})
				steps++
			}
			fixtures = append(fixtures, map[string]any{"name": fmt.Sprintf("session-%d", s), "steps": jsteps})
		}
		b, _ := json.Marshal(fixtures)
		os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "fixtures", "random.json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if *keptWrite {
		t.Logf("wrote %s", root)
		return
	}
	rep := harness.RunReport([]string{root}, harness.Options{Engines: harness.Both})
	failed := 0
	for _, r := range rep.Results {
		if r.Status != harness.Pass {
			failed++
			if failed <= 5 {
				t.Errorf("%s %s:\n%s", r.File, r.Name, strings.Join(r.Messages, "\n"))
			}
		}
	}
	t.Logf("%d packs, %d sessions, %d steps, %d failed; firings by rule %v", *keptPacks, len(rep.Results), steps, failed, fired)
	if steps < 100 || len(fired) == 0 {
		t.Errorf("the generator made %d steps and fired %v: too little to compare", steps, fired)
	}
}
