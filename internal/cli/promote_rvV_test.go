package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storeRule is an active store record of the promote tests: a block
// rule at tool.pre_invoke with the given id, when and members merged
// into its document.
func storeRule(id, when string, extra map[string]any) string {
	doc := map[string]any{"oar": "1.0", "id": id, "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
		"selector": map[string]any{"tool": "bash"}, "requires": map[string]any{"profiles": []string{"tool"}},
		"when": when, "copy": map[string]any{"title": "Rule " + id, "fix": "Do it otherwise."}}
	for k, v := range extra {
		doc[k] = v
	}
	b, _ := json.Marshal(doc)
	return fmt.Sprintf(`{"id":%q,"created_at":"2026-05-01T10:00:00Z","status":"active","rule":%s}`, id, b) + "\n"
}

// TestReviewRvVPromoteChecks: oarc promote checks the rule files it is
// about to write exactly as oarc check will check the pack with them
// (the pack, the -with packs of its compilation set, and the rules
// written together): a record edited by hand, or a catalog that changed
// since the rule was added, is refused with every diagnostic, and nothing
// at all is written. Before, promote wrote whatever the record held.
func TestReviewRvVPromoteChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pack/pack.yaml", "oar: '1.0'\nname: project\norigin: project\n")
	write("pack/policy/KEPT.yaml", "oar: '1.0'\nid: KEPT\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n")
	write("other/pack.yaml", "oar: '1.0'\nname: other\norigin: project\n")
	write("other/policy/TAKEN.yaml", "oar: '1.0'\nid: TAKEN\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n")
	write("stock/pack.yaml", "oar: '1.0'\nname: stock\norigin: stock\n")
	write("stock/policy/S.yaml", "oar: '1.0'\nid: S\nkind: policy\nanchor: tool.pre_invoke\neffect: warn\n")
	write("rules.jsonl", strings.Join([]string{
		storeRule("GOOD", `tool_arg_string("command").contains("push --force")`, nil),
		storeRule("BAD_FACT", `lycaon.tool_is_sate`, nil),
		storeRule("ALLOW_IT", `true`, map[string]any{"effect": "allow"}),
		storeRule("BAD_ANCHOR", `true`, map[string]any{"anchor": "tool.pre_invok"}),
		storeRule("TAKEN", `true`, nil),
		storeRule("KEPT_REF", `fire_count_of("KEPT") > 0`, nil),
		storeRule("OTHER_REF", `fire_count_of("TAKEN") > 0`, nil),
		storeRule("PAIR_A", `fire_count_of("PAIR_B") > 0`, nil),
		storeRule("PAIR_B", `true`, nil),
	}, ""))

	tests := []struct {
		name   string
		args   []string
		code   int
		files  []string // the rule files of pack/policy afterwards
		stderr []string // substrings
	}{
		{"a rule that checks", []string{"GOOD"}, 0, []string{"GOOD.yaml", "KEPT.yaml"}, nil},
		{"an unknown fact", []string{"GOOD", "BAD_FACT"}, 1, []string{"KEPT.yaml"}, []string{
			"pack/policy/BAD_FACT.yaml:", "[OAR_UNKNOWN_FACT]",
			"oarc promote: rule BAD_FACT does not check in pack " + filepath.Join(dir, "pack") + ": nothing was written"}},
		{"a project effect limit", []string{"ALLOW_IT"}, 1, []string{"KEPT.yaml"}, []string{
			"pack/policy/ALLOW_IT.yaml:", "[OAR_EFFECT]", "rule ALLOW_IT does not check"}},
		{"an anchor the catalog does not have", []string{"BAD_ANCHOR"}, 1, []string{"KEPT.yaml"}, []string{
			"[OAR_ANCHOR]", "rule BAD_ANCHOR does not check"}},
		{"every diagnostic of every rule", []string{"BAD_FACT", "ALLOW_IT", "GOOD"}, 1, []string{"KEPT.yaml"}, []string{
			"[OAR_UNKNOWN_FACT]", "[OAR_EFFECT]", "rule BAD_FACT does not check", "rule ALLOW_IT does not check"}},
		{"a rule of the pack is named", []string{"KEPT_REF"}, 0, []string{"KEPT.yaml", "KEPT_REF.yaml"}, nil},
		{"a rule of another pack, not given", []string{"OTHER_REF"}, 1, []string{"KEPT.yaml"}, []string{
			"[OAR_REF]", "rule OTHER_REF does not check"}},
		{"a rule of a -with pack", []string{"-with", "other", "OTHER_REF"}, 0, []string{"KEPT.yaml", "OTHER_REF.yaml"}, nil},
		{"an id of a -with pack", []string{"-with", "other", "TAKEN"}, 1, []string{"KEPT.yaml"}, []string{
			"duplicate rule id TAKEN", "[OAR_ID]", "TAKEN does not check"}},
		{"a rule written with it is named", []string{"PAIR_A", "PAIR_B"}, 0, []string{"KEPT.yaml", "PAIR_A.yaml", "PAIR_B.yaml"}, nil},
		{"a rule not written is not named", []string{"PAIR_A"}, 1, []string{"KEPT.yaml"}, []string{"[OAR_REF]", "rule PAIR_A does not check"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Each case starts from the pack as written above.
			files, _ := filepath.Glob(filepath.Join(dir, "pack", "policy", "*"))
			for _, f := range files {
				if filepath.Base(f) != "KEPT.yaml" {
					os.Remove(f)
				}
			}
			t.Chdir(dir)
			args := append([]string{"promote", "rules.jsonl", "-pack", filepath.Join(dir, "pack")}, tc.args...)
			code, out, errs := run(args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errs)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
			var got []string
			entries, _ := os.ReadDir(filepath.Join(dir, "pack", "policy"))
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if !slices.Equal(got, tc.files) {
				t.Errorf("pack/policy holds %v, want %v\nstderr: %s", got, tc.files, errs)
			}
			if code == 0 {
				if c, o, e := run("check", filepath.Join(dir, "pack")); c != 0 && !slices.Contains(tc.args, "-with") {
					t.Errorf("oarc check of the pack written: %d\n%s%s", c, o, e)
				}
			}
		})
	}

	// Into a stock pack: the store's rules are a project's (spec 12).
	t.Chdir(dir)
	code, _, errs := run("promote", "rules.jsonl", "-pack", "stock", "GOOD")
	if code != 1 || !strings.Contains(errs, "stock") {
		t.Errorf("into a stock pack: %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "stock", "policy", "GOOD.yaml")); err == nil {
		t.Error("written into a stock pack")
	}
}
