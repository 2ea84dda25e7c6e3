// This file owns differential testing: random expressions, batched as the
// rules of a few packs (each rule warn + fail_open, so that its outcome
// reads off the decision: in codes when true, in errors when it failed),
// evaluated over random facts by the generated code and by the reference.

package difftest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// DiffOptions configures a differential run.
type DiffOptions struct {
	Seed        int64
	Expressions int // number of generated expressions
	PackSize    int // rules per generated pack
	FactSets    int // fact sets each pack is evaluated with
}

// Mismatch is one (expression, facts) case where the engines disagree.
type Mismatch struct {
	Rule      string
	When      string
	Facts     string
	Reference string
	Generated string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("when: %s\nfacts: %s\nreference: %s\ngenerated: %s", m.When, m.Facts, m.Reference, m.Generated)
}

// DiffReport is the outcome of a differential run.
type DiffReport struct {
	Rules      int            // expressions that loaded
	Rejected   int            // expressions the compiler rejected (cost, unsupported)
	RejectedBy map[string]int // by diagnostic code
	Cases      int            // (expression, facts) pairs compared
	True       int
	False      int
	Errors     int // cases where both engines reported an error
	Mismatches []Mismatch
}

// DiffPack is a generated pack ready to run: the loaded pack and each rule's
// expression by id.
type DiffPack struct {
	Pack  *compiler.Pack
	Whens map[string]string
	ref   *reference.Engine
}

// BuildDiffPacks generates expressions and loads them as packs, dropping
// expressions the compiler rejects.
func BuildDiffPacks(g *Gen, n, packSize int) ([]*DiffPack, int, error) {
	packs, rejected, _, err := buildDiffPacks(g, n, packSize)
	return packs, rejected, err
}

func buildDiffPacks(g *Gen, n, packSize int) ([]*DiffPack, int, map[string]int, error) {
	codes := map[string]int{}
	dir, err := os.MkdirTemp("", "oarc-diff-")
	if err != nil {
		return nil, 0, nil, err
	}
	defer os.RemoveAll(dir)
	var packs []*DiffPack
	rejected := 0
	for start := 0; start < n; start += packSize {
		pdir := filepath.Join(dir, fmt.Sprintf("pack%d", start/packSize))
		if err := os.MkdirAll(filepath.Join(pdir, "policy"), 0o755); err != nil {
			return nil, 0, nil, err
		}
		whens := map[string]string{}
		for i := start; i < min(n, start+packSize); i++ {
			id := fmt.Sprintf("R%06d", i)
			when, profiles := g.When()
			whens[id] = when
			q, _ := json.Marshal(when)
			doc := fmt.Sprintf("oar: '1.0'\nid: %s\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\non_error: fail_open\nwhen: %s\n", id, q)
			if len(profiles) > 0 {
				doc += fmt.Sprintf("requires:\n  profiles: [%s]\n", strings.Join(profiles, ", "))
			}
			if err := os.WriteFile(filepath.Join(pdir, "policy", id+".yaml"), []byte(doc), 0o644); err != nil {
				return nil, 0, nil, err
			}
		}
		p, diags := compiler.LoadPack(pdir, compiler.Options{})
		if diags.HasErrors() {
			for _, d := range diags {
				if d.Severity == compiler.Error {
					if os.Remove(d.Pos.File) == nil {
						rejected++
						codes[d.Code]++
					}
				}
			}
			p, diags = compiler.LoadPack(pdir, compiler.Options{})
			if diags.HasErrors() {
				return nil, 0, nil, fmt.Errorf("generated pack does not load after dropping rejected rules:\n%s", diags.Text())
			}
		}
		for id := range whens {
			if !harness.HasRule(p, id) {
				delete(whens, id)
			}
		}
		ref, err := reference.New(p)
		if err != nil {
			return nil, 0, nil, err
		}
		packs = append(packs, &DiffPack{Pack: p, Whens: whens, ref: ref})
	}
	return packs, rejected, codes, nil
}

// Differential runs a seeded differential test.
func Differential(o DiffOptions) (*DiffReport, error) {
	g := NewGen(o.Seed)
	packs, rejected, codes, err := buildDiffPacks(g, o.Expressions, o.PackSize)
	if err != nil {
		return nil, err
	}
	var irs []*ir.Pack
	for _, p := range packs {
		irs = append(irs, compiler.Build(p.Pack))
	}
	runner, err := harness.Build(irs)
	if err != nil {
		return nil, err
	}
	defer runner.Close()
	rep := &DiffReport{Rejected: rejected, RejectedBy: codes}
	for _, p := range packs {
		rep.Rules += len(p.Pack.Rules)
	}
	for k := 0; k < o.FactSets; k++ {
		facts := g.Facts()
		for i, p := range packs {
			if err := CompareFacts(runner, i, p, facts, rep); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// CompareFacts evaluates one fact set with both engines and adds the
// per-rule outcomes to rep.
func CompareFacts(runner *harness.Runner, index int, p *DiffPack, facts runtime.Facts, rep *DiffReport) error {
	req := &wire.Request{Pack: index, Anchor: "tool.pre_invoke", Facts: facts}
	gen, err := runner.Do(req)
	if err != nil {
		return err
	}
	ref := p.ref.Evaluate(req, nil)
	ro, gn := outcomes(ref), outcomes(gen)
	for _, r := range p.Pack.Rules {
		a, b := ro[r.ID], gn[r.ID]
		if a.kind == "" {
			a.kind = "false"
		}
		if b.kind == "" {
			b.kind = "false"
		}
		rep.Cases++
		switch {
		case a.kind != b.kind:
			rep.Mismatches = append(rep.Mismatches, Mismatch{Rule: r.ID, When: r.When, Facts: ShowFacts(facts), Reference: a.String(), Generated: b.String()})
		case a.kind == "true":
			rep.True++
		case a.kind == "false":
			rep.False++
		default:
			rep.Errors++
		}
	}
	return nil
}

type outcome struct{ kind, msg string }

func (o outcome) String() string {
	if o.msg != "" {
		return o.kind + " (" + o.msg + ")"
	}
	return o.kind
}

func outcomes(r wire.Response) map[string]outcome {
	m := map[string]outcome{}
	for _, c := range r.Codes {
		m[c] = outcome{kind: "true"}
	}
	for _, e := range r.Errors {
		m[e.Rule] = outcome{kind: "error:" + e.Kind, msg: e.Message}
	}
	return m
}

// ShowFacts prints the facts the generator sets, with Go quoting so that
// invalid UTF-8 and NaN are visible.
func ShowFacts(f runtime.Facts) string {
	var parts []string
	add := func(name string) {
		v, _ := f.Get(name)
		parts = append(parts, fmt.Sprintf("%s=%#v", name, v))
	}
	for _, n := range []string{"lycaon.repeat_count", "lycaon.active_worker_count", "content_length", "lycaon.last_assistant", "lycaon.phase", "tool",
		"lycaon.workers_idle", "lycaon.tool_is_state", "prompt_injection_score", "jailbreak_score", "lycaon.turn_tools", "principal_roles", "tool_args", "secret_matches"} {
		add(n)
	}
	return strings.Join(parts, " ")
}
