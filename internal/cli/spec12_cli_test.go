package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpec12PromoteAndList: oarc promote STORE -pack DIR writes the
// store's active rules as formatted rule files with enforcement:
// enforce (oarc fmt -l finds nothing to change, oarc check accepts the
// pack), refuses a rule file that exists (naming it, writing nothing)
// and an id that is not active; oarc store lists every id with its
// latest status, anchor and effect, retired ones too, and a line that
// is not a record is reported as FILE:LINE: error: while the command
// succeeds.
func TestSpec12PromoteAndList(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "pack")
	os.MkdirAll(filepath.Join(pack, "policy"), 0o755)
	os.WriteFile(filepath.Join(pack, "pack.yaml"), []byte("oar: '1.0'\nname: proj\n"), 0o644)
	store := filepath.Join(dir, "rules.jsonl")
	monitor := storeRule("S12_ACT", `tool_arg_string("command").contains("x")`, map[string]any{"enforcement": "monitor"})
	cand := strings.Replace(storeRule("S12_CAND", "true", nil), `"status":"active"`, `"status":"candidate"`, 1)
	retired := strings.Replace(storeRule("S12_OLD", "true", map[string]any{"effect": "warn"}), `"status":"active"`, `"status":"retired"`, 1)
	os.WriteFile(store, []byte(monitor+cand+retired+"not a record\n"), 0o644)

	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("store", store)
	if code != 0 || !strings.Contains(errs, store+":4: error: ") {
		t.Errorf("oarc store: exit %d, stderr %q", code, errs)
	}
	for _, want := range [][]string{{"S12_ACT", "active", "tool.pre_invoke", "block"}, {"S12_CAND", "candidate"}, {"S12_OLD", "retired", "warn"}} {
		found := false
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && f[0] == want[0] {
				found = true
				for _, w := range want[1:] {
					if !strings.Contains(l, w) {
						t.Errorf("oarc store: %q lacks %q", l, w)
					}
				}
			}
		}
		if !found {
			t.Errorf("oarc store does not list %s:\n%s", want[0], out)
		}
	}

	if code, _, errs := run("promote", store, "-pack", pack, "S12_CAND"); code == 0 || !strings.Contains(errs, "S12_CAND") {
		t.Errorf("promote a candidate: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(pack, "policy", "S12_CAND.yaml")); err == nil {
		t.Errorf("a candidate was written")
	}
	if code, _, errs := run("promote", store, "-pack", pack); code != 0 {
		t.Fatalf("promote: exit %d, %s", code, errs)
	}
	file := filepath.Join(pack, "policy", "S12_ACT.yaml")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\nenforcement: enforce\n") || strings.Contains(string(text), "monitor") {
		t.Errorf("the promoted file is not enforced:\n%s", text)
	}
	if code, out, errs := run("fmt", "-l", file); code != 0 || out != "" {
		t.Errorf("oarc fmt -l on the promoted file: exit %d %q %q\n%s", code, out, errs, text)
	}
	if code, out, errs := run("check", pack); code != 0 {
		t.Errorf("oarc check of the pack with the promoted rule: exit %d\n%s%s", code, out, errs)
	}
	// Again: the file exists; nothing is written, the error names it.
	os.WriteFile(file, []byte("kept"), 0o644)
	if code, _, errs := run("promote", store, "-pack", pack); code == 0 || !strings.Contains(errs, file) {
		t.Errorf("promote over an existing file: exit %d, %s", code, errs)
	}
	if b, _ := os.ReadFile(file); string(b) != "kept" {
		t.Errorf("an existing rule file was overwritten: %q", b)
	}
}
