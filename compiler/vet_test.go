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
// defaulted; "pack.yaml" -> the pack file) into a pack and returns what Vet finds, as "CODE line:col" per
// rule file, and the text.
func vetPack(t *testing.T, rules map[string]string) ([]string, string) {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "policy"), 0o755)
	for id, body := range rules {
		if id == "pack.yaml" {
			os.WriteFile(filepath.Join(dir, id), []byte(body), 0o644)
			continue
		}
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

// stockPack is the pack.yaml of a stock pack, which may allow.
const stockPack = "oar: '1.0'\nname: stock\norigin: stock\n"

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
			name:  "url matched as text",
			rules: map[string]string{"R": "effect: block\nselector: {tool: http_fetch}\nrequires: {profiles: [tool]}\nwhen: tool_arg_string(\"url\").startsWith(\"https://api.example.com\")\n" + titled},
			want:  []string{"R OAR_VET_URL_PREFIX 8:7"},
			text:  []string{"also admits https://api.example.com.evil.io/ and https://api.example.com@evil.io/", `compare url_host(tool_arg_string("url")) == "api.example.com"`},
		},
		{
			name:  "url regexp and contains",
			rules: map[string]string{"R": "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_string(\"u\").matches(\"^https://files\\\\.corp\\\\.example/\") || tool_arg_string(\"u\").contains(\"http://x.io\")\n" + titled},
			want:  []string{"R OAR_VET_URL_PREFIX 7:7"},
			text:  []string{`"files.corp.example"`},
		},
		{
			name:  "url_host is fine, and so is a scheme alone",
			rules: map[string]string{"R": "effect: block\nrequires: {profiles: [tool]}\nwhen: url_host(tool_arg_string(\"u\")) == \"api.example.com\" && tool_arg_string(\"u\").startsWith(\"http://\")\n" + titled},
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
			// A newcomer's "warn from the third write on": the rule's own
			// counter only counts its own firings, so it stays 0 and the
			// rule was dead, without a word from vet.
			name:  "own counter above zero",
			rules: map[string]string{"R": "effect: warn\nselector: {tool: write}\nrequires: {profiles: [tool]}\nwhen: fire_count >= 2\n" + titled},
			want:  []string{"R OAR_VET_NEVER 8:7"},
			text:  []string{"R can never fire: it needs `fire_count >= 2`, but its own fire_count is 0 in a new session until it fires", `fire_count_of("OTHER_ID")`},
		},
		{
			name:  "own breaker pinned to one",
			rules: map[string]string{"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool == \"x\" && breaker_count == 1\n" + titled},
			want:  []string{"R OAR_VET_NEVER 7:22"},
			text:  []string{"its own breaker_count is 0"},
		},
		{
			name: "own counter below a bound is fine, and so is another rule's",
			rules: map[string]string{
				"R": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool == \"x\" && fire_count < 2 && breaker_count == 0\n" + titled,
				"S": "effect: warn\nwhen: fire_count_of(\"R\") >= 2\n" + titled,
			},
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
			// Without within the window is the record's 64 entries (spec
			// 5.4): a flow of 65 steps never holds either.
			name:  "flow longer than the record",
			rules: map[string]string{"R": "effect: block\nflow: {sequence: [" + strings.Repeat("a, ", 64) + "b]}\n" + titled},
			want:  []string{"R OAR_VET_NEVER 6:7"},
			text:  []string{"its flow has 65 steps but looks at only the last 64 tool calls (the session keeps 64)"},
		},
		{
			name:  "flow as long as the record",
			rules: map[string]string{"R": "effect: block\nflow: {sequence: [" + strings.Repeat("a, ", 63) + "b]}\n" + titled},
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
			want:  []string{"R OAR_VET_MISSING_ARG 7:7", "R OAR_VET_DYN_COMPARE 7:23"},
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
			rules: map[string]string{"R": "effect: warn\non_error: fail_open\nrequires: {profiles: [tool]}\nwhen: tool_args.count > \"5\" || tool_args.n < 3 || tool_args.b >= true || tool_args.x == null || tool_args.l.exists(e, e > 1.5)\n" + titled},
		},
		{
			name:  "argument selected in a rule that fails closed",
			rules: map[string]string{"R": "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_args.amount > 500 || tool_args.amount < 0\n" + titled},
			// One warning per argument, at the first read.
			want: []string{"R OAR_VET_MISSING_ARG 7:7"},
			text: []string{"`tool_args.amount` is an error when the call has no argument \"amount\", and R fails closed: it fires (block) on every call without it; test it first, `has(tool_args.amount) && ...`, or read it with tool_arg_string(\"amount\") (or tool_arg_int, tool_arg_bool)",
				"   |       ^"},
		},
		{
			name: "argument selection guarded",
			rules: map[string]string{
				"A_AND":         "effect: block\nrequires: {profiles: [tool]}\nwhen: has(tool_args.a) && tool_args.a > 5\n" + titled,
				"B_AND_AFTER":   "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_args.a > 5 && has(tool_args.a)\n" + titled,
				"C_CHAIN":       "effect: block\nrequires: {profiles: [tool]}\nwhen: has(tool_args.a) && tool == \"x\" && (tool_args.a > 5 || size(tool_args.a) > 2)\n" + titled,
				"D_TERNARY":     "effect: block\nrequires: {profiles: [tool]}\nwhen: 'has(tool_args.a) ? tool_args.a > 5 : false'\n" + titled,
				"E_TERNARY_NOT": "effect: block\nrequires: {profiles: [tool]}\nwhen: '!has(tool_args.a) ? false : tool_args.a > 5'\n" + titled,
				"F_OR_NOT":      "effect: block\nrequires: {profiles: [tool]}\nwhen: '!has(tool_args.a) || tool_args.a > 5'\n" + titled,
				"G_IN":          "effect: block\nrequires: {profiles: [tool]}\nwhen: '\"file-path\" in tool_args && tool_args[\"file-path\"] == \"x\"'\n" + titled,
				"H_BOTH":        "effect: block\nrequires: {profiles: [tool]}\nwhen: has(tool_args.a) && has(tool_args.b) && tool_args.a == tool_args.b\n" + titled,
				"I_OPEN":        "effect: block\non_error: fail_open\nrequires: {profiles: [tool]}\nwhen: tool_args.a > 5\n" + titled,
				// An allow that fired only by failing closed allows nothing.
				"pack.yaml":       stockPack,
				"J_ALLOW":         "effect: allow\nrequires: {profiles: [tool]}\nwhen: tool_args.amount <= 100\n",
				"K_COMPREHENSION": "effect: block\nrequires: {profiles: [tool]}\nwhen: '[{\"x\": 1}].exists(tool_args, tool_args.x == 1) && tool_args.exists(k, k == \"a\")'\n" + titled,
				"L_HAS_ONLY":      "effect: block\nrequires: {profiles: [tool]}\nwhen: has(tool_args.a)\n" + titled,
			},
		},
		{
			name: "argument selection not guarded",
			rules: map[string]string{
				"A_OTHER_KEY":    "effect: block\nrequires: {profiles: [tool]}\nwhen: has(tool_args.b) && tool_args.a > 5\n" + titled,
				"B_OR":           "effect: block\nrequires: {profiles: [tool]}\nwhen: has(tool_args.a) || tool_args.a > 5\n" + titled,
				"C_WRONG_BRANCH": "effect: block\nrequires: {profiles: [tool]}\nwhen: 'has(tool_args.a) ? false : tool_args.a > 5'\n" + titled,
				"D_INDEX":        "effect: warn\nrequires: {profiles: [tool]}\nwhen: 'tool_args[\"file-path\"] == \"x\"'\n" + titled,
				"E_NESTED_HAS":   "effect: nudge\nrequires: {profiles: [tool]}\nwhen: has(tool_args.a.b)\n",
				"F_MONITOR":      "effect: block\nenforcement: monitor\nrequires: {profiles: [tool]}\nwhen: tool_args.a > 5\n",
				"G_NOT_HAS_AND":  "effect: block\nrequires: {profiles: [tool]}\nwhen: '!has(tool_args.a) && tool_args.a > 5'\n" + titled,
			},
			want: []string{"A_OTHER_KEY OAR_VET_MISSING_ARG 7:27", "B_OR OAR_VET_MISSING_ARG 7:27", "C_WRONG_BRANCH OAR_VET_MISSING_ARG 7:35",
				"D_INDEX OAR_VET_MISSING_ARG 7:8", "E_NESTED_HAS OAR_VET_MISSING_ARG 7:11", "F_MONITOR OAR_VET_MISSING_ARG 8:7", "G_NOT_HAS_AND OAR_VET_MISSING_ARG 7:29"},
			text: []string{"`tool_args[\"file-path\"]` is an error when the call has no argument \"file-path\"", "test it first, `\"file-path\" in tool_args && ...`",
				"F_MONITOR fails closed: it fires (monitored block) on every call without it", "E_NESTED_HAS fails closed: it fires (nudge)"},
		},
		{
			name: "tool_arg_int compared with a bound a fraction gets past",
			rules: map[string]string{
				"A_ABOVE":    "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"amount\") > 500\n" + titled,
				"B_MIRRORED": "effect: warn\nrequires: {profiles: [tool]}\nwhen: tool == \"pay\" && 500 <= tool_arg_int(\"amount\")\n" + titled,
				"C_NEGATED":  "effect: block\nrequires: {profiles: [tool]}\nwhen: '!(tool_arg_int(\"n\") < 10)'\n" + titled,
				"pack.yaml":  stockPack,
				"D_ALLOW":    "effect: allow\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"cents\") <= 5000\n",
				"E_NOT_ZERO": "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"n\") != 0\n" + titled,
				"F_NEGATIVE": "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"delta\") < -100\n" + titled,
			},
			want: []string{"A_ABOVE OAR_VET_ARG_INT 7:7", "B_MIRRORED OAR_VET_ARG_INT 7:24", "C_NEGATED OAR_VET_ARG_INT 7:10",
				"D_ALLOW OAR_VET_ARG_INT 7:7", "E_NOT_ZERO OAR_VET_ARG_INT 7:7", "F_NEGATIVE OAR_VET_ARG_INT 7:7"},
			text: []string{
				"tool_arg_int(\"amount\") is 0 when the argument is a number with a fraction, so `tool_arg_int(\"amount\") > 500` is false for 500.5 where it should be true, and A_ABOVE lets a call with {\"amount\": 500.5} through; compare the number itself, `tool_args.amount > 500`, which compares ints and doubles alike (test has(tool_args.amount) first",
				"`500 <= tool_arg_int(\"amount\")` is false for 500.5 where it should be true", "compare the number itself, `tool_args.amount >= 500`",
				// Under the negation, the comparison being true lets the call through.
				"`tool_arg_int(\"n\") < 10` is true for 10.5 where it should be false, and C_NEGATED lets a call with {\"n\": 10.5} through",
				"`tool_arg_int(\"cents\") <= 5000` is true for 5000.5 where it should be false, and D_ALLOW lets a call with {\"cents\": 5000.5} through",
				"`tool_arg_int(\"n\") != 0` is false for 0.5 where it should be true",
				"`tool_arg_int(\"delta\") < -100` is false for -100.5 where it should be true",
			},
		},
		{
			name: "tool_arg_int comparisons a fraction does not get past",
			rules: map[string]string{
				// A fraction reads 0, which fires these: more blocks, not fewer.
				"A_BELOW":         "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"n\") < 500\n" + titled,
				"B_EQUALS":        "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"n\") == 5 || tool_arg_int(\"m\") == 0\n" + titled,
				"pack.yaml":       stockPack,
				"C_ALLOW_GUARDED": "effect: allow\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"cents\") > 0 && tool_arg_int(\"cents\") <= 5000\n",
				"D_ALLOW_ABOVE":   "effect: allow\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"cents\") >= 100\n",
				// Where the comparison sits inside a function, which way it
				// goes is not known.
				"E_UNKNOWN": "effect: block\nrequires: {profiles: [tool]}\nwhen: '[tool_arg_int(\"n\") > 5].exists(x, x)'\n" + titled,
				"F_ARITH":   "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_int(\"n\") + 1 > 500\n" + titled,
			},
		},
		{
			name: "tool_arg_string compared with a number",
			rules: map[string]string{
				"A_EQ":       "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_string(\"port\") == \"22\"\n" + titled,
				"B_ORDER":    "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_string(\"n\") > \"5\"\n" + titled,
				"pack.yaml":  stockPack,
				"C_IN":       "effect: allow\nrequires: {profiles: [tool]}\nwhen: tool_arg_string(\"level\") in [\"low\", \"1.5\"]\n",
				"D_MIRRORED": "effect: warn\nrequires: {profiles: [tool]}\nwhen: '\"-1e3\" != tool_arg_string(\"x\")'\n" + titled,
				"E_WORDS":    "effect: block\nrequires: {profiles: [tool]}\nwhen: tool_arg_string(\"mode\") == \"fast\" || tool_arg_string(\"v\") == \"v1.2\" || tool_arg_string(\"zip\") == \"007\" || tool_arg_string(\"e\") == \"\"\n" + titled,
			},
			want: []string{"A_EQ OAR_VET_ARG_STRING 7:7", "B_ORDER OAR_VET_ARG_STRING 7:7", "C_IN OAR_VET_ARG_STRING 7:7", "D_MIRRORED OAR_VET_ARG_STRING 7:8"},
			text: []string{
				"`tool_arg_string(\"port\") == \"22\"` compares the argument \"port\" with a number written as a string, but tool_arg_string(\"port\") is \"\" when the host sends it as a JSON number ({\"port\": 22}), so the rule then judges \"\" instead; if it may be a number, read it with string(tool_args.port), which is \"22\" for 22 and for \"22\" alike (test has(tool_args.port) first: a missing argument is then an error)",
				"if it may be a number, compare it as a number, double(tool_args.n), which reads 5 and \"5\" alike (strings order by their bytes: \"10\" < \"9\")",
				"({\"level\": 1.5}), so the rule then judges \"\" instead; if it may be a number, read it with string(tool_args.level), which is \"1.5\" for 1.5 and for \"1.5\" alike",
				// string(-1e3) is "-1000".
				"({\"x\": -1e3}), so the rule then judges \"\" instead; if it may be a number, compare it as a number, double(tool_args.x), which reads -1e3 and \"-1e3\" alike (test",
			},
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
		{"examples/policies/rate-limit"}, {"examples/policies/business-hours"}, {"examples/policies/content-secrets"},
		{"examples/policies/write-roots"}, {"examples/approvals"},
	}
	loose := map[string]bool{"conformance/sets/device/stock": true}
	// SELF reads its own fire_count >= 1: its fixture starts the session
	// with SELF's counters set (spec 8 "counters"); vet says it can never
	// fire in a new session, and that is so.
	ownCounter := map[string]string{"conformance/s5_eval/packs/counters": "SELF"}
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
				if id := ownCounter[set[0]]; id != "" && d.Code == CodeVetNever && strings.HasSuffix(filepath.ToSlash(d.Pos.File), "/policy/"+id+".yaml") && strings.Contains(d.Message, "its own fire_count is 0 in a new session") {
					continue
				}
				t.Errorf("%s", d)
			}
		})
	}
}
