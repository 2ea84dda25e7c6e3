package standardpack

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oarc/oarc/runtime"
)

// Input is one entry of fixtures/inputs.json of the standard pack, decoded
// just enough for the tests and benchmarks (the full fixture format is
// internal/fixture's).
type Input struct {
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

// LoadInputs reads <dir>/fixtures/inputs.json (dir is the standard pack,
// bench/standard-pack) and returns its entries, one occurrence per entry
// and an env whose validators answer as the fixtures say.
func LoadInputs(dir string) ([]Input, []*runtime.Occurrence, *runtime.Env, error) {
	b, err := os.ReadFile(filepath.Join(dir, "fixtures", "inputs.json"))
	if err != nil {
		return nil, nil, nil, err
	}
	var ins []Input
	if err := json.Unmarshal(b, &ins); err != nil {
		return nil, nil, nil, err
	}
	env := &runtime.Env{Validators: map[string]runtime.Validator{}}
	var occs []*runtime.Occurrence
	for _, in := range ins {
		occ := &runtime.Occurrence{Anchor: in.Input.Anchor}
		if err := decodeFacts(in.Input.Facts, &occ.Facts); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %v", in.Name, err)
		}
		for id, d := range in.Input.Detectors {
			hit := d.Hit
			env.Validators[id] = func(context.Context, *runtime.Occurrence) (runtime.Detection, error) {
				return runtime.Detection{Hit: hit}, nil
			}
		}
		occs = append(occs, occ)
	}
	return ins, occs, env, nil
}

// decodeFacts fills f from the JSON facts of an input (the facts the
// standard inputs carry).
func decodeFacts(facts map[string]json.RawMessage, f *runtime.Facts) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unexpected facts: %v", r)
		}
	}()
	raw, err := json.Marshal(facts)
	if err != nil {
		return err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return err
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
	return nil
}

// normalize turns JSON numbers into int64 (integers) or float64.
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
