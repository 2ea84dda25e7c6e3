// Package benchinput reads the inputs of the benchmark packs
// (fixtures/inputs.json of bench/standard-pack and bench/standard-pack-facts)
// into occurrences of the default catalog, and the validators they name
// into a lycaon.Env.
package benchinput

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
)

// Input is one entry of fixtures/inputs.json, decoded just enough for the
// tests and benchmarks (the full fixture format is oarc test's).
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
		Decision     string   `json:"decision"`
		Code         string   `json:"code"`
		Codes        []string `json:"codes"`
		FailedClosed []string `json:"failed_closed"`
		Errors       int      `json:"errors"`
	} `json:"expected"`
}

// Load reads <dir>/fixtures/inputs.json and returns its entries, one
// occurrence per entry, and an Env whose validators answer as the entries
// say (every entry that names a validator must give it the same answer:
// the Env is bound once for all of them).
func Load(dir string) ([]Input, []*lycaon.Occurrence, lycaon.Env, error) {
	var env lycaon.Env
	b, err := os.ReadFile(filepath.Join(dir, "fixtures", "inputs.json"))
	if err != nil {
		return nil, nil, env, err
	}
	var ins []Input
	if err := json.Unmarshal(b, &ins); err != nil {
		return nil, nil, env, err
	}
	hits := map[string]bool{}
	var occs []*lycaon.Occurrence
	for _, in := range ins {
		a, ok := lycaon.ParseAnchor(in.Input.Anchor)
		if !ok {
			return nil, nil, env, fmt.Errorf("%s: unknown anchor %q", in.Name, in.Input.Anchor)
		}
		occ := &lycaon.Occurrence{Anchor: a}
		if err := decodeFacts(in.Input.Facts, occ); err != nil {
			return nil, nil, env, fmt.Errorf("%s: %v", in.Name, err)
		}
		for id, d := range in.Input.Detectors {
			if h, ok := hits[id]; ok && h != d.Hit {
				return nil, nil, env, fmt.Errorf("%s: validator %s answers differently from an earlier input", in.Name, id)
			}
			hits[id] = d.Hit
		}
		occs = append(occs, occ)
	}
	if len(hits) > 0 {
		env.Validators = map[string]lycaon.Validator{}
		for id, hit := range hits {
			env.Validators[id] = func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) {
				return runtime.Detection{Hit: hit}, nil
			}
		}
	}
	return ins, occs, env, nil
}

// decodeFacts sets the facts of an input through Facts.Set, converting each
// JSON value to the Go type of the fact's catalog type; host facts are the
// members of the object under the catalog's namespace.
func decodeFacts(facts map[string]json.RawMessage, occ *lycaon.Occurrence) error {
	cat := catalog.Default()
	names := make([]string, 0, len(facts))
	for n := range facts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == cat.Host {
			var host map[string]json.RawMessage
			if err := json.Unmarshal(facts[name], &host); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			for hn, raw := range host {
				if err := setFact(cat, occ, cat.Host+"."+hn, raw); err != nil {
					return err
				}
			}
			continue
		}
		if err := setFact(cat, occ, name, facts[name]); err != nil {
			return err
		}
	}
	return nil
}

func setFact(cat *catalog.Catalog, occ *lycaon.Occurrence, name string, raw json.RawMessage) error {
	f := &occ.Facts
	fact := cat.Fact(name)
	if fact == nil {
		return fmt.Errorf("%s is not a fact of the catalog", name)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	v = normalize(v)
	switch fact.Type {
	case catalog.Double:
		if i, ok := v.(int64); ok {
			v = float64(i)
		}
	case catalog.ListString:
		l, _ := v.([]any)
		ss := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("%s: element %d is not a string", name, i)
			}
			ss[i] = s
		}
		v = ss
	case catalog.ListMapStringDyn:
		l, _ := v.([]any)
		ms := make([]map[string]any, len(l))
		for i, e := range l {
			m, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: element %d is not a map", name, i)
			}
			ms[i] = m
		}
		v = ms
	}
	if fact.Kept != catalog.NotKept {
		// The engine keeps it (spec 5.10): the input replaces its value,
		// as a fixture's facts do.
		if occ.Kept == nil {
			occ.Kept = &runtime.KeptOverride{}
		}
		if !occ.Kept.Set(fact.Name, v) {
			return fmt.Errorf("%s: want %s", name, fact.Type)
		}
		return nil
	}
	return f.Set(name, v)
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
