package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "BAD.yaml")
	os.WriteFile(bad, []byte("oar: 1.0\nid: BAD\nkind: policy\nanchor: tool.pre_invoke\neffect: block\n"), 0o644)
	warn := filepath.Join(dir, "WARN.yaml")
	os.WriteFile(warn, []byte("oar: '1.0'\nid: WARN\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nrequires: {profiles: [mcp]}\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"no args", nil, 2, "", "usage: oarc"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"help", []string{"help"}, 0, "check", ""},
		{"check without paths", []string{"check"}, 2, "", "give at least one"},
		{"check bad flag", []string{"check", "-nope", "x"}, 2, "", "flag provided but not defined"},
		{"check starter", []string{"check", "../../examples/starter"}, 0, "", ""},
		{"check error", []string{"check", bad}, 1, "BAD.yaml:1:6: error: oar must be the string '1.0'", ""},
		{"check warning only", []string{"check", warn}, 0, "warning: profile mcp", ""},
		{"check missing path", []string{"check", filepath.Join(dir, "nope")}, 2, "", "nope: no such file or directory"},
		{"schema", []string{"schema"}, 0, `"$schema"`, ""},
		{"schema of nothing", []string{"schema", "x"}, 2, "", `"x" is not one of rule, pack, fixture, catalog`},
		{"schema with args", []string{"schema", "rule", "pack"}, 2, "", "takes at most one argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("Run(%q) = %d\nstdout: %s\nstderr: %s\nwant %d, stdout ~ %q, stderr ~ %q", tc.args, code, out, errs, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// jsonLines decodes JSON Lines output into one map per record.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		recs = append(recs, m)
	}
	return recs
}

// TestCheckJSON pins the shape of check -json (docs/json.md): a diagnostic
// record per problem, a summary record last, each with type and version.
func TestCheckJSON(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "X.yaml")
	os.WriteFile(f, []byte("oar: '1.0'\nid: X\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: 'lycaon.tool_is_sate'\n"), 0o644)
	code, out, _ := run("check", "-json", f)
	if code != 1 {
		t.Fatalf("code %d", code)
	}
	recs := jsonLines(t, out)
	want := []map[string]any{
		{"type": "diagnostic", "version": 1.0, "pos": map[string]any{"file": f, "line": 6.0, "col": 8.0}, "severity": "error", "code": "OAR_UNKNOWN_FACT",
			"message": "undeclared reference to 'lycaon.tool_is_sate' (did you mean 'lycaon.tool_is_state'?)", "source": "when: 'lycaon.tool_is_sate'"},
		{"type": "summary", "version": 1.0, "command": "check", "errors": 1.0, "warnings": 0.0, "strict": false, "vet": false, "exit": 1.0},
	}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A clean run prints the summary alone.
	code, out, _ = run("check", "-json", "../../examples/starter")
	if code != 0 || len(jsonLines(t, out)) != 1 || !strings.Contains(out, `"type":"summary","version":1,"command":"check","errors":0,"warnings":0`) {
		t.Errorf("clean -json: %d %q", code, out)
	}
}

func TestCheckFlags(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "X.yaml")
	os.WriteFile(f, []byte("oar: '1.0'\nid: X\nkind: policy\nanchor: tool.pre_invoke\neffect: block\nwhen: 'lycaon.repeat_count > 1'\n"), 0o644)
	if code, out, _ := run("check", "-portable", f); code != 1 || !strings.Contains(out, "not portable") {
		t.Errorf("-portable: %d %s", code, out)
	}
	if code, out, _ := run("check", "-max-cost", "1", f); code != 1 || !strings.Contains(out, "OAR_COST") {
		t.Errorf("-max-cost: %d %s", code, out)
	}
	if code, _, _ := run("check", "-max-cost", "0", f); code != 2 {
		t.Errorf("-max-cost 0: %d", code)
	}
}
