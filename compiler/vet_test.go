package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// vetPack writes rules (id -> body after the header, with kind and anchor
// defaulted) into a pack and returns what Vet finds, as "CODE line:col" per
// rule file, and the text.
func vetPack(t *testing.T, rules map[string]string) ([]string, string) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	for id, body := range rules {
		doc := "oar: '1.0'\nid: " + id + "\n"
		if !strings.Contains(body, "kind:") {
			doc += "kind: policy\n"
		}
		if !strings.Contains(body, "anchor:") {
			doc += "anchor: tool.pre_invoke\n"
		}
		os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(doc+body), 0o644)
	}
	s, diags := Load([]string{dir}, Options{})
	if diags.HasErrors() {
		t.Fatalf("the pack does not load:\n%s", diags.Text())
	}
	var got []string
	ds := Vet(s)
	for _, d := range ds {
		if d.Severity != Warning {
			t.Errorf("vet reported an error: %s", d)
		}
		got = append(got, fmt.Sprintf("%s %s %d:%d", strings.TrimSuffix(filepath.Base(d.Pos.File), ".yaml"), d.Code, d.Pos.Line, d.Pos.Col))
	}
	return got, strings.ReplaceAll(ds.Text(), dir+string(filepath.Separator), "")
}

const titled = "copy: {title: T}\n"

func TestVet(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules map[string]string
		want  []string
		// text are substrings of the rendered warnings.
		text []string
	}{
		{
			name:  "selector contradicts when",
			rules: map[string]string{"R": "effect: block\nselector: {tool: bash}\nrequires: {profiles: [tool]}\nwhen: tool == \"read\"\n" + titled},
			want:  []string{"R OAR_VET_NEVER 8:7"},
			text:  []string{`R can never fire: selector tool: "bash" and ` + "`tool == \"read\"`" + ` cannot both hold`, "   |       ^"},
		},
		{
			name:  "selector list contradicts in",
			rules: map[string]string{"R": "effect: warn\nselector: {tool: [bash, sh]}\nrequires: {profiles: [tool]}\nwhen: tool in [\"read\", \"write\"] && size(tool_args) > 0\n" + titled},
			want:  []string{"R OAR_VET_NEVER 8:7"},
		},
		{
			name:  "selector agrees with when",
			rules: map[string]string{"R": "effect: warn\nselector: {tool: [bash, read]}\nrequires: {profiles: [tool]}\nwhen: tool == \"read\"\n" + titled},
		},
		{
			name:  "two equalities",
			rules: map[string]string{"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool == \"a\" && tool == \"b\"\n" + titled},
			want:  []string{"R OAR_VET_NEVER 7:7"},
			text:  []string{"`tool == \"a\"` and `tool == \"b\"` cannot both hold"},
		},
		{
			name:  "equalities under or are fine",
			rules: map[string]string{"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool == \"a\" || tool == \"b\"\n" + titled},
		},
		{
			name:  "when folds to false",
			rules: map[string]string{"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: 'tool_arg_string(\"x\") == \"y\" && size(\"abc\") > 5'\n" + titled},
			want:  []string{"R OAR_VET_NEVER 7:39"},
			text:  []string{"`size(\"abc\") > 5` is false whatever the facts"},
		},
		{
			name:  "constant false",
			rules: map[string]string{"R": "effect: warn\nwhen: 'false'\n" + titled},
			want:  []string{"R OAR_VET_NEVER 6:8"},
			text:  []string{"R can never fire: its when is false whatever the facts"},
		},
		{
			name:  "folds to false under the selector",
			rules: map[string]string{"R": "effect: warn\nselector: {tool: [bash, sh]}\nrequires: {profiles: [tool]}\nwhen: tool.startsWith(\"x\") || tool_args.size() < 0 && tool == \"zsh\"\n" + titled},
			want:  []string{"R OAR_VET_NEVER 8:7"},
			text:  []string{`is false for each tool in ["bash", "sh"]`},
		},
		{
			name:  "constant error",
			rules: map[string]string{"R": "effect: warn\nwhen: '1 / 0 > 1'\n" + titled},
			want:  []string{"R OAR_VET_NEVER 6:8"},
			text:  []string{"it fails on every evaluation", "division by zero", "fails closed"},
		},
		{
			name:  "bool fact and its negation",
			rules: map[string]string{"R": "effect: warn\nwhen: lycaon.tool_is_state && !lycaon.tool_is_state\n" + titled},
			want:  []string{"R OAR_VET_NEVER 6:7"},
		},
		{
			name:  "empty int interval",
			rules: map[string]string{"R": "effect: warn\nwhen: lycaon.repeat_count > 3 && lycaon.repeat_count < 2\n" + titled},
			want:  []string{"R OAR_VET_NEVER 6:7"},
			text:  []string{"no int satisfies `lycaon.repeat_count > 3` and `lycaon.repeat_count < 2`"},
		},
		{
			name:  "int interval with a point",
			rules: map[string]string{"R": "effect: warn\nwhen: lycaon.repeat_count > 3 && lycaon.repeat_count < 5\n" + titled},
		},
		{
			name:  "selector on the wrong anchor",
			rules: map[string]string{"R": "effect: warn\nwhen: anchor == \"tool.post_invoke\"\n" + titled},
			want:  []string{"R OAR_VET_NEVER 6:7"},
		},
		{
			name:  "comprehension variable named like a fact",
			rules: map[string]string{"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool == \"a\" && [\"b\"].exists(tool, tool == \"b\")\n" + titled},
		},
		{
			name:  "flow longer than its window",
			rules: map[string]string{"R": "effect: block\nflow: {sequence: [a, b, c], within: 2}\n" + titled},
			want:  []string{"R OAR_VET_NEVER 6:7"},
			text:  []string{"its flow has 3 steps but looks at only the last 2 tool calls"},
		},
		{
			name: "shadowed by a block without when",
			rules: map[string]string{
				"A_GATE":  "effect: block\nselector: {tool: [bash, sh]}\nrequires: {profiles: [tool]}\n" + titled,
				"B_LATER": "effect: warn\nselector: {tool: bash}\nrequires: {profiles: [tool]}\nwhen: size(tool_arg_string(\"command\")) > 10\n" + titled,
				"C_WHEN":  "effect: warn\non_error: fail_open\nrequires: {profiles: [tool]}\nwhen: tool == \"sh\" && size(tool_args) > 1\n" + titled,
				// Failing closed, it fires on an error before its when.
				"C_WHEN_CLOSED": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool == \"sh\" && size(tool_args) > 1\n" + titled,
				"D_OTHER":       "effect: warn\nselector: {tool: [bash, zsh]}\nrequires: {profiles: [tool]}\n" + titled,
				"E_ANCHOR":      "anchor: tool.post_invoke\neffect: warn\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n" + titled,
			},
			want: []string{"B_LATER OAR_VET_UNREACHABLE 6:1", "C_WHEN OAR_VET_UNREACHABLE 8:1"},
			text: []string{"B_LATER is never reached: A_GATE, evaluated before it at tool.pre_invoke, blocks first whenever this rule could fire (a selector that covers this rule's and it has no when)"},
		},
		{
			name: "shadowed by a block whose when always holds there",
			rules: map[string]string{
				"A_GATE":  "effect: block\nselector: {tool: bash}\nrequires: {profiles: [tool]}\nwhen: tool == \"bash\" || tool_args.size() > 0\n" + titled,
				"B_LATER": "effect: block\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n" + titled,
			},
			want: []string{"B_LATER OAR_VET_UNREACHABLE 6:1"},
			text: []string{"its when holds whenever this rule could fire"},
		},
		{
			name: "not shadowed",
			rules: map[string]string{
				// A warn, a monitored block, a fail-open block with a
				// profile, a block with a flow, a later block, a block
				// whose when depends on the occurrence, a detector.
				"A_WARN":    "effect: warn\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n" + titled,
				"B_MONITOR": "effect: block\nenforcement: monitor\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n",
				"C_OPEN":    "effect: block\non_error: fail_open\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n" + titled,
				"D_FLOW":    "effect: block\nselector: {tool: bash}\nrequires: {profiles: [tool]}\nflow: {sequence: [read]}\n" + titled,
				"E_WHEN":    "effect: block\nselector: {tool: bash}\nrequires: {profiles: [tool]}\nwhen: size(tool_args) > 1\n" + titled,
				"F_DET":     "kind: detector\ndetector: d.v1\neffect: block\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n" + titled,
				"Z_LAST":    "kind: schema\neffect: block\nselector: {tool: sh}\nrequires: {profiles: [tool]}\n" + titled,
				"Y_TARGET":  "effect: warn\nselector: {tool: bash}\nrequires: {profiles: [tool]}\n" + titled,
			},
		},
		{
			name: "list selectors cover",
			rules: map[string]string{
				"A_GATE":  "effect: block\nselector: {principal_roles: [intern, guest]}\nrequires: {profiles: [session]}\n" + titled,
				"B_SUB":   "effect: warn\nselector: {principal_roles: guest, tool: bash}\nrequires: {profiles: [session, tool]}\n" + titled,
				"C_OTHER": "effect: warn\nselector: {principal_roles: admin}\nrequires: {profiles: [session]}\n" + titled,
			},
			want: []string{"B_SUB OAR_VET_UNREACHABLE 6:1"},
		},
		{
			name:  "dyn ordered against null",
			rules: map[string]string{"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool_args.count > null\n" + titled},
			want:  []string{"R OAR_VET_DYN_COMPARE 7:23"},
			text:  []string{"`tool_args.count > null` fails at run time whatever the host sends: tool_args.count holds any JSON value (null, bool, number, string, list or map) and null is null"},
		},
		{
			name:  "dyn of a string ordered against an int",
			rules: map[string]string{"R": "effect: warn\non_error: fail_open\nrequires: {profiles: [tool]}\nwhen: dyn(tool) < 3\n" + titled},
			want:  []string{"R OAR_VET_DYN_COMPARE 8:17"},
			text:  []string{"dyn(tool) holds a dyn of string and 3 is an int", "fails open: it never fires"},
		},
		{
			// A JSON string makes each of these succeed: not reported.
			name:  "dyn comparisons some JSON value passes",
			rules: map[string]string{"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool_args.count > \"5\" || tool_args.n < 3 || tool_args.b >= true || tool_args.x == null || tool_args.l.exists(e, e > 1.5)\n" + titled},
		},
		{
			name:  "no title",
			rules: map[string]string{"B": "effect: block\nwhen: lycaon.repeat_count > 1\n", "W": "effect: warn\ncopy: {fix: F}\n", "M": "effect: block\nenforcement: monitor\n", "N": "effect: nudge\n"},
			want:  []string{"B OAR_VET_NO_TITLE 5:1", "W OAR_VET_NO_TITLE 6:1"},
			text:  []string{"B is an enforced block but has no copy:", "W is an enforced warn but has no copy.title:"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, text := vetPack(t, tc.rules)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, text)
			}
			for _, s := range tc.text {
				if !strings.Contains(text, s) {
					t.Errorf("missing %q in\n%s", s, text)
				}
			}
		})
	}
}

// TestVetRepoPacks: the packs of the examples and the benchmarks have no
// vet warnings; the conformance and code generator packs, which test
// evaluation and not copy, only lack titles (they really do).
func TestVetRepoPacks(t *testing.T) {
	root := filepath.Join("..")
	sets := [][]string{
		{"examples/starter"}, {"examples/acme/rules"}, {"examples/stock", "examples/starter"},
		{"examples/dataflow/payments", "examples/dataflow/project"},
		{"bench/standard-pack"}, {"bench/standard-pack-facts"},
	}
	loose := map[string]bool{"conformance/sets/device/stock": true}
	sets = append(sets, []string{"conformance/sets/device/stock", "conformance/sets/device/project"})
	for _, glob := range []string{"conformance/*/packs/*", "codegen/testdata/*"} {
		dirs, _ := filepath.Glob(filepath.Join(root, glob, "policy"))
		for _, d := range dirs {
			rel, _ := filepath.Rel(root, filepath.Dir(d))
			sets = append(sets, []string{rel})
			loose[rel] = true
		}
	}
	for _, set := range sets {
		t.Run(strings.Join(set, "+"), func(t *testing.T) {
			var dirs []string
			for _, d := range set {
				dirs = append(dirs, filepath.Join(root, d))
			}
			s, diags := Load(dirs, Options{})
			if diags.HasErrors() {
				t.Fatal(diags.Text())
			}
			for _, d := range Vet(s) {
				if loose[set[0]] && d.Code == CodeVetNoTitle {
					continue
				}
				t.Errorf("%s", d)
			}
		})
	}
}
