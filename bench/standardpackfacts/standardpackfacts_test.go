package standardpackfacts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSameAsStandard keeps the pack the standard pack but for its two
// former detector rules, and its inputs the standard inputs without the
// validators' answers.
func TestSameAsStandard(t *testing.T) {
	std := filepath.Join("..", "standard-pack")
	files, err := filepath.Glob(filepath.Join(std, "policy", "*.yaml"))
	if err != nil || len(files) != 12 {
		t.Fatalf("standard pack: %d rule files, %v", len(files), err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join(packDir, "policy", name))
		if err != nil {
			t.Fatal(err)
		}
		switch name {
		case "INJECTION.yaml", "SECRET_IN_ARGS.yaml":
			// kind detector -> policy, no detector: line, nothing else.
			var kept []string
			for _, l := range strings.Split(string(want), "\n") {
				switch {
				case strings.HasPrefix(l, "detector:"):
				case l == "kind: detector":
					kept = append(kept, "kind: policy")
				default:
					kept = append(kept, l)
				}
			}
			want = []byte(strings.Join(kept, "\n"))
		}
		if string(got) != string(want) {
			t.Errorf("policy/%s differs from the standard pack's beyond the detector change:\n%s\nwant:\n%s", name, got, want)
		}
	}
	read := func(dir string) []map[string]any {
		b, err := os.ReadFile(filepath.Join(dir, "fixtures", "inputs.json"))
		if err != nil {
			t.Fatal(err)
		}
		var v []map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	want, got := read(std), read(packDir)
	for _, in := range want {
		delete(in["input"].(map[string]any), "detectors")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fixtures/inputs.json is not the standard inputs without their detectors")
	}
}
