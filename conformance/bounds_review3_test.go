package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/oarc/oarc/testkit/harness"
	"github.com/oarc/oarc/testkit/wire"
)

// The generated code keeps an anchor's counter reads, validator answers
// and enforced firings in arrays of its state of the anchor, bounded at
// 64, 16 and 32 (codegen's maxSnapBuf, maxDetBuf, maxFiredBuf), and the
// rest in slices. conformance/s5_eval/packs/buffers runs one past each
// bound with counters that all move alike; these packs run one under,
// at and one over each bound, with counters and validator answers that
// differ from one rule to the next (a counter or an answer read from
// another's place changes the codes), over several steps and in checks.

// boundsRule writes one rule file.
func boundsRule(t *testing.T, dir, id, anchor, effect, when, kind, extra string) {
	t.Helper()
	src := fmt.Sprintf("oar: '1.0'\nid: %s\nkind: %s\nanchor: %s\neffect: %s\nwhen: '%s'\n%s", id, kind, anchor, effect, when, extra)
	if err := os.WriteFile(filepath.Join(dir, "policy", id+".yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// boundsExpected is the expectation of a step whose enforced firings
// are fired, all of one effect.
func boundsExpected(effect string, fired []string) map[string]any {
	exp := map[string]any{"decision": "allow", "codes": append([]string{}, fired...), "errors": 0}
	if len(fired) > 0 {
		exp["decision"], exp["code"] = effect, fired[0]
	}
	return exp
}

// boundsPack writes a pack with n firings at tool.pre_invoke, c counters
// at tool.post_invoke and v validators at tool.handler, and its fixtures.
func boundsPack(t *testing.T, root string, n, c, v int) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprintf("bounds%d", n))
	for _, d := range []string{"policy", "fixtures"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(fmt.Sprintf("oar: '1.0'\nname: bounds%d\norigin: project\n", n)), 0o644); err != nil {
		t.Fatal(err)
	}
	var fixtures []map[string]any
	// Counted rules: rule k fires while its fire count is under k%m+1, so
	// that after a few steps every counter has its own value.
	counted := func(prefix, anchor, effect, phase string, count, m, steps, per int) {
		ids := make([]string, count)
		for k := range ids {
			ids[k] = fmt.Sprintf("%s%02d", prefix, k+1)
			boundsRule(t, dir, ids[k], anchor, effect, fmt.Sprintf(`lycaon.phase == "%s" && fire_count < %d && %d > 0`, phase, (k+1)%m+1, k+1), "policy", "")
		}
		fire := map[string]int{}
		var plain, check []map[string]any
		for range steps {
			var fired []string
			for k, id := range ids {
				if fire[id] < (k+1)%m+1 {
					fired = append(fired, id)
				}
			}
			in := map[string]any{"anchor": anchor, "facts": map[string]any{"lycaon": map[string]any{"phase": phase}}}
			exp := boundsExpected(effect, fired)
			if per == 1 {
				plain = append(plain, map[string]any{"input": in, "expected": exp})
			} else {
				check = append(check, map[string]any{"check": []any{in, in}, "expected": []any{exp, exp}})
			}
			for _, id := range fired {
				fire[id] += per
			}
		}
		fixtures = append(fixtures, map[string]any{"name": fmt.Sprintf("%s-%d-by-%d", prefix, count, per), "steps": slices.Concat(plain, check)})
	}
	counted("W", "tool.pre_invoke", "warn", "f", n, 3, 4, 1)
	counted("K", "tool.pre_invoke", "warn", "k", n, 3, 3, 2) // checks of two actions
	counted("C", "tool.post_invoke", "nudge", "c", c, 4, 5, 1)
	// Validators: rule k's validator answers a score over the rule's
	// threshold for one k in three, a different third in each fixture.
	for k := 1; k <= v; k++ {
		boundsRule(t, dir, fmt.Sprintf("V%02d", k), "tool.handler", "warn", fmt.Sprintf(`lycaon.phase == "d" && prompt_injection_score > 0.5 && %d > 0`, k),
			"detector", fmt.Sprintf("detector: v%02d.v1\nrequires:\n  profiles: [content-safety]\n", k))
	}
	for third := range 3 {
		dets := map[string]any{}
		var fired []string
		for k := 1; k <= v; k++ {
			score := 0.1
			if (k+third)%3 == 0 {
				score = 0.9
				fired = append(fired, fmt.Sprintf("V%02d", k))
			}
			dets[fmt.Sprintf("v%02d.v1", k)] = map[string]any{"hit": true, "facts": map[string]any{"prompt_injection_score": score}}
		}
		fixtures = append(fixtures, map[string]any{"name": fmt.Sprintf("V-%d-%d", v, third),
			"input":    map[string]any{"anchor": "tool.handler", "facts": map[string]any{"lycaon": map[string]any{"phase": "d"}}, "detectors": dets},
			"expected": boundsExpected("warn", fired)})
	}
	data, err := json.MarshalIndent(fixtures, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "bounds.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStateBounds runs the packs one under, at and one over each bound
// on both engines.
func TestStateBounds(t *testing.T) {
	root := t.TempDir()
	for d := -1; d <= 1; d++ {
		boundsPack(t, root, 32+d, 64+d, 16+d)
	}
	results := harness.Run([]string{root}, harness.Options{Engines: harness.Both})
	if len(results) != 3*6 {
		t.Errorf("ran %d fixtures, want %d", len(results), 3*6)
	}
	for _, r := range results {
		if r.Status != harness.Pass || r.Got["reference"] == nil || r.Got["generated"] == nil {
			t.Errorf("%s %s %s:\n%s", r.Status, r.File, r.Name, strings.Join(r.Messages, "\n"))
		}
	}
}

// TestStateBoundsRandom: random packs of about as many rules as the
// bounds at one anchor (mixed effects, monitored rules, on_error,
// increments and resets of other rules' counters, rules that read other
// rules' counters and the engine-kept facts, errors that fail closed or
// open, deny by default), over steps and checks of one session: the two
// engines give the same decisions. The fixtures' expectations are
// placeholders: only the engines' agreement is checked.
func TestStateBoundsRandom(t *testing.T) {
	root := t.TempDir()
	sizes := []int{31, 32, 33, 63, 64, 65, 70}
	for i, size := range sizes {
		randomBoundsPack(t, root, int64(i+1), size)
	}
	results := harness.Run([]string{root}, harness.Options{Engines: harness.Both})
	if len(results) != len(sizes) {
		t.Fatalf("ran %d fixtures, want %d", len(results), len(sizes))
	}
	for _, r := range results {
		if r.Status == harness.Invalid {
			t.Errorf("%s %s: invalid: %s", r.File, r.Name, strings.Join(r.Messages, "\n"))
			continue
		}
		ref, ok1 := r.Got["reference"].([]wire.Response)
		gen, ok2 := r.Got["generated"].([]wire.Response)
		// One answer per step, and per action of a check step.
		if !ok1 || !ok2 || len(ref) < 12 || len(gen) != len(ref) {
			t.Errorf("%s %s: not every step answered by both engines: %s", r.File, r.Name, strings.Join(r.Messages, "\n"))
			continue
		}
		for i := range ref {
			if d := harness.Disagree(ref[i], gen[i]); d != "" {
				t.Errorf("%s answer %d: the engines disagree on %s\n  reference: %s\n  generated: %s", r.File, i, d, harness.Show(ref[i]), harness.Show(gen[i]))
			}
		}
	}
}

// randomBoundsPack writes a random stock pack of size rules at
// tool.pre_invoke and a fixture of 12 steps.
func randomBoundsPack(t *testing.T, root string, seed int64, size int) {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	dir := filepath.Join(root, fmt.Sprintf("random%d", seed))
	for _, d := range []string{"policy", "fixtures"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pack := fmt.Sprintf("oar: '1.0'\nname: random%d\norigin: stock\n", seed)
	if r.Intn(2) == 0 {
		pack += "deny_by_default:\n  anchors: [tool.pre_invoke]\n  code: NOT_LISTED\n"
		if r.Intn(3) == 0 {
			pack += "  enforcement: monitor\n"
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(pack), 0o644); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, size)
	for k := range ids {
		ids[k] = fmt.Sprintf("R%02d", k+1)
	}
	for k, id := range ids {
		conds := []string{`lycaon.phase == "p"`}
		for range 1 + r.Intn(2) {
			switch c := r.Float64(); {
			case c < .3:
				conds = append(conds, fmt.Sprintf("fire_count < %d", 1+r.Intn(4)))
			case c < .45:
				conds = append(conds, fmt.Sprintf("breaker_count < %d", 1+r.Intn(3)))
			case c < .65:
				conds = append(conds, fmt.Sprintf(`fire_count_of("%s") %% %d == %d`, ids[r.Intn(size)], 2+r.Intn(2), r.Intn(2)))
			case c < .72:
				conds = append(conds, fmt.Sprintf("lycaon.repeat_count < %d", 1+r.Intn(3)))
			case c < .78:
				conds = append(conds, fmt.Sprintf("lycaon.same_code_reject_run < %d", 1+r.Intn(2)))
			case c < .84:
				conds = append(conds, fmt.Sprintf(`tool != "t%d"`, r.Intn(3)))
			case c < .9:
				// An error (division by zero) for the tool "err".
				conds = append(conds, `(tool != "err" || 1 / (fire_count - fire_count) > 0)`)
			default:
				conds = append(conds, fmt.Sprintf("size(lycaon.recent_tool_names) %% %d != 0", 2+r.Intn(3)))
			}
		}
		effect := "block"
		if e := r.Intn(400); e < 396 {
			effect = []string{"warn", "nudge", "allow"}[e%3]
		}
		extra := "requires:\n  profiles: [tool]\n"
		if r.Intn(5) == 0 {
			extra += "enforcement: monitor\n"
		}
		if r.Intn(10) < 3 {
			extra += "on_error: fail_open\n"
		}
		inc := r.Intn(10) < 3
		var resets []string
		if r.Intn(10) < 3 {
			for range r.Intn(3) {
				resets = append(resets, ids[r.Intn(size)]+[]string{"", ".breaker"}[r.Intn(2)])
			}
			slices.Sort(resets)
			resets = slices.Compact(resets)
		}
		if inc || len(resets) > 0 {
			extra += "on_fire:\n"
			if inc {
				extra += "  increment: [breaker]\n"
			}
			if len(resets) > 0 {
				extra += "  reset: [" + strings.Join(resets, ", ") + "]\n"
			}
		}
		boundsRule(t, dir, id, "tool.pre_invoke", effect, strings.Join(conds, " && ")+fmt.Sprintf(" && %d > 0", k+1), "policy", extra)
	}
	var steps []map[string]any
	for range 12 {
		in := func() map[string]any {
			return map[string]any{"anchor": "tool.pre_invoke", "facts": map[string]any{"tool": []string{"t0", "t1", "t2", "err"}[r.Intn(4)],
				"tool_args": map[string]any{"a": r.Intn(2)}, "lycaon": map[string]any{"phase": "p"}}}
		}
		if r.Intn(10) < 3 {
			n := 2 + r.Intn(2)
			var ins, exps []any
			for range n {
				ins, exps = append(ins, in()), append(exps, map[string]any{"decision": "allow"})
			}
			steps = append(steps, map[string]any{"check": ins, "expected": exps})
		} else {
			steps = append(steps, map[string]any{"input": in(), "expected": map[string]any{"decision": "allow"}})
		}
	}
	data, err := json.MarshalIndent([]any{map[string]any{"name": "random", "steps": steps}}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixtures", "random.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
