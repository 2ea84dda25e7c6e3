package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTestCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	fixtures := `[
 {"name": "fires", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block", "when": "lycaon.repeat_count > 1"},
  "input": {"anchor": "tool.pre_invoke", "facts": {"lycaon": {"repeat_count": 2}}}, "expected": {"decision": "block", "code": "R"}},
 {"name": "wrong", "rule": {"oar": "1.0", "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block"},
  "input": {"anchor": "tool.pre_invoke"}, "expected": {"decision": "allow"}},
 {"name": "invalid", "input": {"anchor": "tool.pre_invoke", "facts": {"nope": 1}}, "expected": {"decision": "allow"}},
 {"name": "rejected", "rule": {"oar": 1.0, "id": "R", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block"}, "expected": {"error": "OAR_VERSION"}}
]`
	if err := os.WriteFile(file, []byte(fixtures), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{"reference", "generated", "both"} {
		t.Run(engine, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run([]string{"test", "-engine", engine, file}, nil, &out, &errb)
			if code != ExitFailure {
				t.Errorf("exit code %d, want %d; stderr: %s", code, ExitFailure, errb.String())
			}
			text := out.String()
			if !strings.HasSuffix(text, "2 passed, 2 failed\n") {
				t.Errorf("summary line missing:\n%s", text)
			}
			if !strings.Contains(text, `fixture "wrong"`) || !strings.Contains(text, `fixture "invalid"`) || strings.Contains(text, `fixture "fires"`) {
				t.Errorf("failure lines:\n%s", text)
			}
		})
	}
	t.Run("run filter and json", func(t *testing.T) {
		var out, errb bytes.Buffer
		code := Run([]string{"test", "-json", "-run", "^fires$", file}, nil, &out, &errb)
		if code != ExitOK {
			t.Fatalf("exit code %d; stdout %s stderr %s", code, out.String(), errb.String())
		}
		var r struct {
			Type, Name, File, Status string
			Version                  int
			Got                      map[string]struct {
				Decision string `json:"decision"`
			}
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], `{"type":"summary","version":1,"command":"test","passed":1,"failed":0`) {
			t.Fatalf("want a fixture record and a summary record: %s", out.String())
		}
		if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		if r.Type != "fixture" || r.Version != 1 {
			t.Errorf("envelope: %+v", r)
		}
		if r.Name != "fires" || r.Status != "pass" || r.Got["reference"].Decision != "block" || r.Got["generated"].Decision != "block" {
			t.Errorf("result: %+v", r)
		}
	})
	t.Run("usage", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := Run([]string{"test", "-engine", "cel", file}, nil, &out, &errb); code != ExitUsage {
			t.Errorf("exit code %d, want %d", code, ExitUsage)
		}
	})
}
