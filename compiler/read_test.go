package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const okRule = "oar: '1.0'\nid: %s\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"

func ruleText(id string) string { return strings.Replace(okRule, "%s", id, 1) }

// padTo pads a rule document with a trailing comment to exactly n bytes.
func padTo(doc string, n int) string {
	return doc + "#" + strings.Repeat("x", n-len(doc)-2) + "\n"
}

// wantDiag is a diagnostic expected at a file (no line: the file itself).
type wantDiag struct {
	file, code, msg string // msg: a substring of the message
}

func checkDiags(t *testing.T, diags Diagnostics, want []wantDiag) {
	t.Helper()
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%s", len(diags), len(want), diags.Text())
	}
	for i, w := range want {
		d := diags[i]
		if d.Pos != (Pos{File: w.file}) || d.Code != w.code || !strings.Contains(d.Message, w.msg) {
			t.Errorf("diagnostic %d: got %s, want %s: ...%s... [%s]", i, d, w.file, w.msg, w.code)
		}
	}
}

// loadWithin loads paths and fails the test if that blocks.
func loadWithin(t *testing.T, paths ...string) (*Set, Diagnostics) {
	t.Helper()
	type result struct {
		p *Set
		d Diagnostics
	}
	r := withDeadline(t, 10*time.Second, func() result {
		if len(paths) == 1 {
			p, d := LoadPack(paths[0], Options{})
			return result{p, d}
		}
		p, d := Load(paths, Options{})
		return result{p, d}
	})
	return r.p, r.d
}

// TestFileSizeLimit checks the 1 MiB limit of rule files and pack.yaml: a
// file of exactly the limit loads, one byte more is an error at the file.
func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy")
	os.MkdirAll(pol, 0o755)
	os.WriteFile(filepath.Join(pol, "EXACT.yaml"), []byte(padTo(ruleText("EXACT"), maxFileSize)), 0o644)
	os.WriteFile(filepath.Join(pol, "BIG.yaml"), []byte(padTo(ruleText("BIG"), maxFileSize+1)), 0o644)
	os.WriteFile(filepath.Join(dir, "pack.yaml"), []byte(padTo("oar: '1.0'\n", maxFileSize+1)), 0o644)
	pk, diags := loadWithin(t, dir)
	checkDiags(t, diags, []wantDiag{
		{filepath.Join(dir, "pack.yaml"), CodeYAML, "larger than the limit of 1 MiB"},
		{filepath.Join(pol, "BIG.yaml"), CodeYAML, "larger than the limit of 1 MiB"},
	})
	if len(pk.Rules) != 1 || pk.Rules[0].ID != "EXACT" {
		t.Errorf("rules: %+v", pk.Rules)
	}
	// The same for a rule file named on its own.
	_, diags = loadWithin(t, filepath.Join(pol, "BIG.yaml"))
	checkDiags(t, diags, []wantDiag{
		{filepath.Join(dir, "pack.yaml"), CodeYAML, "larger than the limit of 1 MiB"},
		{filepath.Join(pol, "BIG.yaml"), CodeYAML, "larger than the limit of 1 MiB"},
	})
}
