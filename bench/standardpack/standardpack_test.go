package standardpack

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/runtime"
)

// input is one entry of fixtures/inputs.json, decoded just enough for
// these tests (the full fixture format is internal/fixture's).
type input struct {
	Name  string `json:"name"`
	Input struct {
		Anchor    string                     `json:"anchor"`
		Facts     map[string]json.RawMessage `json:"facts"`
		Detectors map[string]struct {
			Hit bool `json:"hit"`
		} `json:"detectors"`
	} `json:"input"`
	Expected struct {
		Decision string   `json:"decision"`
		Code     string   `json:"code"`
		Codes    []string `json:"codes"`
		Errors   int      `json:"errors"`
	} `json:"expected"`
}

// Inputs returns the three benchmark occurrences and an env whose
// validators answer as the fixtures say.
func loadInputs(t testing.TB) ([]input, []*runtime.Occurrence, *runtime.Env) {
	b, err := os.ReadFile(filepath.Join("..", "standard-pack", "fixtures", "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ins []input
	if err := json.Unmarshal(b, &ins); err != nil {
		t.Fatal(err)
	}
	env := &runtime.Env{Validators: map[string]runtime.Validator{}}
	var occs []*runtime.Occurrence
	for _, in := range ins {
		occ := &runtime.Occurrence{Anchor: in.Input.Anchor}
		f := &occ.Facts
		var m map[string]any
		raw, _ := json.Marshal(in.Input.Facts)
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		f.Tool = m["tool"].(string)
		f.ToolArgs = normalize(m["tool_args"]).(map[string]any)
		f.SessionPosture = m["session_posture"].(string)
		f.Principal = m["principal"].(string)
		for _, r := range m["principal_roles"].([]any) {
			f.PrincipalRoles = append(f.PrincipalRoles, r.(string))
		}
		f.ContentContainsUntrusted = m["content_contains_untrusted"].(bool)
		f.PromptInjectionScore, _ = m["prompt_injection_score"].(json.Number).Float64()
		for _, s := range m["secret_matches"].([]any) {
			f.SecretMatches = append(f.SecretMatches, normalize(s).(map[string]any))
		}
		ly := m["lycaon"].(map[string]any)
		f.Lycaon.ToolIsState = ly["tool_is_state"].(bool)
		f.Lycaon.RepeatCount, _ = ly["repeat_count"].(json.Number).Int64()
		for _, s := range ly["turn_tools"].([]any) {
			f.Lycaon.TurnTools = append(f.Lycaon.TurnTools, s.(string))
		}
		f.Lycaon.WorkersIdle = ly["workers_idle"].(bool)
		for id, d := range in.Input.Detectors {
			hit := d.Hit
			env.Validators[id] = func(context.Context, *runtime.Occurrence) (runtime.Detection, error) {
				return runtime.Detection{Hit: hit}, nil
			}
		}
		occs = append(occs, occ)
	}
	return ins, occs, env
}

func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil && !strings.ContainsAny(string(x), ".eE") {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

func TestDecisions(t *testing.T) {
	ins, occs, env := loadInputs(t)
	for i, in := range ins {
		var d runtime.Decision
		Evaluate(context.Background(), env, occs[i], NewSession(), &d)
		got := []any{d.Effect.String(), d.Code, append([]string{}, d.Codes...), len(d.Errors)}
		want := []any{in.Expected.Decision, in.Expected.Code, append([]string{}, in.Expected.Codes...), in.Expected.Errors}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", in.Name, diff)
		}
	}
}

// TestZeroAllocs is the promise of the runtime: evaluating the standard
// pack allocates nothing once the decision's buffers have grown.
func TestZeroAllocs(t *testing.T) {
	ins, occs, env := loadInputs(t)
	s := NewSession()
	for i, in := range ins {
		var d runtime.Decision
		ctx := context.Background()
		Evaluate(ctx, env, occs[i], s, &d)
		if n := testing.AllocsPerRun(200, func() { Evaluate(ctx, env, occs[i], s, &d) }); n != 0 {
			t.Errorf("%s: %v allocations per evaluation, want 0", in.Name, n)
		}
	}
}

// TestCopyMatchesShared keeps the project's copy of the standard pack equal
// to the shared one.
func TestCopyMatchesShared(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "bench", "standard-pack")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no shared checkout at %s", shared)
	}
	filepath.WalkDir(shared, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(shared, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join("..", "standard-pack", rel))
		if err != nil || string(got) != string(want) {
			t.Errorf("bench/standard-pack/%s differs from the shared copy", rel)
		}
		return nil
	})
}
