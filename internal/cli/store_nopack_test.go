package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStorePromoteWithoutPackSaysSo: a person who runs oarc store STORE
// -promote ID without the -pack of a host whose pack names its own
// catalog gets the store checked against the embedded catalog alone, so
// the candidate's host fact is unknown. Before, the error said only
// "undeclared reference to 'garden'" and "it no longer checks", which
// sent a newcomer looking for a changed catalog; it now says that no
// -pack was given. With -pack the promotion succeeds.
func TestStorePromoteWithoutPackSaysSo(t *testing.T) {
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
	write("garden.catalog.yaml", "oar_catalog: '1.0'\nhost: garden\nanchors:\n  - {id: tool.pre_invoke, trigger_class: pre_invoke, surface: agent, planes: [block]}\nfacts:\n  - {name: zone, type: string}\n")
	write("pack/pack.yaml", "oar: '1.0'\nname: garden\ncatalog: ../garden.catalog.yaml\n")
	write("pack/policy/.keep", "")
	store := filepath.Join(dir, "rules.jsonl")
	rec := strings.Replace(storeRule("WEEDS", `garden.zone == "weeds"`, nil), `"status":"active"`, `"status":"candidate"`, 1)
	write("rules.jsonl", rec)

	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(args, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, _, errs := run("store", store, "-promote", "WEEDS")
	if code == 0 {
		t.Fatalf("promote without -pack: exit 0, want a failure (the rule does not check against the embedded catalog)")
	}
	if !strings.Contains(errs, "no -pack") {
		t.Errorf("promote without -pack: stderr does not say that no -pack was given:\n%s", errs)
	}
	if code, out, errs := run("store", store, "-promote", "WEEDS", "-pack", filepath.Join(dir, "pack")); code != 0 || !strings.Contains(out, "WEEDS\tactive") {
		t.Errorf("promote with -pack: exit %d, stdout %q, stderr %s", code, out, errs)
	}
}
