// Package synth generates synthetic OAR packs of N rules for the scaling
// benchmarks, and compiles them with oarc's own pipeline (compiler.LoadPack,
// compiler.Build, codegen.Generate) into packages of the bound API (New,
// Evaluator) over the default catalog's lycaon.Occurrence.
//
// A pack of N rules spreads them over four anchors (80% at tool.pre_invoke)
// and over many tools. Every rule selects on `tool`; exactly ten rules at
// tool.pre_invoke can match the tool of [Occurrence] ("bash"), whatever N,
// so the work a perfect compiler does for that occurrence does not grow
// with N. Conditions mix string and int comparisons, tool_arg_string with
// startsWith and contains, tool_arg_int, and list membership. On the
// benchmark occurrence one of the ten rules fires (a warn), none blocks.
//
// The packages n10, n100 and n1000 are generated from these packs and
// committed; n10000 is generated on demand by bench/scaling.sh (see
// BENCHMARKS.md).
package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/lycaon"
)

// Anchor is the anchor the benchmark occurrence is at, and Tool its tool.
const (
	Anchor = "tool.pre_invoke"
	Tool   = "bash"
	// NoRulesAnchor is an anchor no rule of any pack is at.
	NoRulesAnchor = lycaon.ContentOutput
	// Matching is how many rules can match the benchmark occurrence.
	Matching = 10
)

var otherAnchors = []string{"tool.post_invoke", "tool.handler", "coordinator.pre_invoke"}

// Rules returns the rule files of the pack of n rules (n >= Matching), by
// file name.
func Rules(n int) map[string]string {
	if n < Matching {
		panic("synth: fewer rules than matching rules")
	}
	files := map[string]string{}
	tools := max(1, (n-Matching)/5) // about five rules per other tool
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("R%05d", i)
		anchor := Anchor
		var sel string
		if i < Matching {
			// The ten rules that can match: bash alone, or bash in a
			// list.
			if i%2 == 0 {
				sel = Tool
			} else {
				sel = fmt.Sprintf("[%s, tool_%04d]", Tool, i%tools)
			}
		} else {
			if i%5 == 4 {
				anchor = otherAnchors[i%len(otherAnchors)]
			}
			t := (i * 7919) % tools // scatter rules over tools
			if i%3 == 0 {
				sel = fmt.Sprintf("[tool_%04d, tool_%04d]", t, (t+1)%tools)
			} else {
				sel = fmt.Sprintf("tool_%04d", t)
			}
		}
		effect := [...]string{"block", "warn", "block", "nudge", "block"}[i%5]
		kind := [...]string{"schema", "policy", "invariant", "policy"}[i%4]
		when, profiles := condition(i)
		if i == Matching-1 {
			// The one rule that fires on the benchmark occurrence.
			when, profiles, effect = `tool_arg_string("command").startsWith("rm ")`, "[tool]", "warn"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "oar: '1.0'\nid: %s\nkind: %s\nanchor: %s\n", id, kind, anchor)
		fmt.Fprintf(&b, "selector:\n  tool: %s\n", sel)
		fmt.Fprintf(&b, "requires:\n  profiles: %s\n", profiles)
		fmt.Fprintf(&b, "when: '%s'\n", strings.ReplaceAll(when, "'", "''"))
		fmt.Fprintf(&b, "effect: %s\ncopy:\n  title: 'Synthetic rule %d'\n", effect, i)
		files[id+".yaml"] = b.String()
	}
	return files
}

// condition returns the `when` of rule i and its required profiles. None
// holds on the benchmark occurrence.
func condition(i int) (string, string) {
	switch i % 6 {
	case 0:
		return fmt.Sprintf(`tool_arg_string("command").startsWith("shutdown -h %d")`, i), "[tool]"
	case 1:
		return fmt.Sprintf(`tool_arg_string("path").contains("/secret/%d/")`, i), "[tool]"
	case 2:
		return fmt.Sprintf(`session_posture == "posture_%d" && lycaon.fruitless_search_run > %d`, i, 3+i%7), "[session, tool]"
	case 3:
		return fmt.Sprintf(`!("role_%d" in principal_roles) && principal == "agent:%d"`, i, i), "[session, tool]"
	case 4:
		return fmt.Sprintf(`tool_arg_int("timeout") > %d || size(tool_arg_string("command")) > %d`, 3600+i, 4096+i), "[tool]"
	default:
		return fmt.Sprintf(`"tool_%d" in lycaon.turn_tools && tool_arg_string("command").contains("--force-%d")`, i, i), "[tool]"
	}
}

// WritePack writes the pack of n rules into dir/policy.
func WritePack(dir string, n int) error {
	pol := filepath.Join(dir, "policy")
	if err := os.MkdirAll(pol, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(fmt.Sprintf("oar: '1.0'\nname: synth%d\n", n)), 0o644); err != nil {
		return err
	}
	for name, text := range Rules(n) {
		if err := os.WriteFile(filepath.Join(pol, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Load writes the pack of n rules into a temporary directory and loads it.
func Load(n int) (*compiler.Set, error) {
	dir, err := os.MkdirTemp("", "synth")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := WritePack(dir, n); err != nil {
		return nil, err
	}
	p, diags := compiler.LoadPack(dir, compiler.Options{})
	if diags.HasErrors() {
		return nil, fmt.Errorf("synth: pack of %d rules: %s", n, diags.Text())
	}
	return p, nil
}

// Generate returns the Go source of the compiled pack of n rules in
// package pkg.
func Generate(n int, pkg string) ([]byte, error) {
	p, err := Load(n)
	if err != nil {
		return nil, err
	}
	return codegen.Generate(compiler.Build(p), codegen.Options{Package: pkg})
}

// Occurrence returns the benchmark occurrence: a bash call at
// tool.pre_invoke on which exactly one rule (R00009, a warn) fires.
func Occurrence() *lycaon.Occurrence {
	occ := &lycaon.Occurrence{Anchor: lycaon.ToolPreInvoke}
	f := &occ.Facts
	f.Tool = Tool
	f.ToolArgs = map[string]any{"command": "rm build/out.o", "timeout": int64(30)}
	f.SessionPosture = "build"
	f.Principal = "agent:builder-7"
	f.PrincipalRoles = []string{"developer", "reader"}
	f.Lycaon.FruitlessSearchRun = 1
	f.Lycaon.TurnTools = []string{"read", "grep", "bash"}
	return occ
}

// NoMatchOccurrence is the benchmark occurrence with a tool no rule
// selects: the anchor's rules are dispatched, none is called.
func NoMatchOccurrence() *lycaon.Occurrence {
	occ := Occurrence()
	occ.Facts.Tool = "no_such_tool"
	return occ
}

// NoRulesOccurrence is the benchmark occurrence at an anchor without rules.
func NoRulesOccurrence() *lycaon.Occurrence {
	occ := Occurrence()
	occ.Anchor = NoRulesAnchor
	return occ
}
