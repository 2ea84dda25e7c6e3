package rulestore_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/rulestore"
)

// baseSet loads the compilation set the test host runs.
func baseSet(t testing.TB) *compiler.Set {
	t.Helper()
	set, ds := compiler.Load([]string{"testdata/packs/base"}, compiler.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	return set
}

// ruleJSON reads a rule file as the JSON document a draft carries.
func ruleJSON(t testing.TB, file string) json.RawMessage {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// extraRules are the ids and documents of the extra pack, by id.
func extraRules(t testing.TB) (ids []string, docs map[string]json.RawMessage) {
	t.Helper()
	files, _ := filepath.Glob("testdata/packs/extra/policy/*.yaml")
	docs = map[string]json.RawMessage{}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".yaml")
		ids = append(ids, id)
		docs[id] = ruleJSON(t, f)
	}
	sort.Strings(ids)
	return ids, docs
}

// openTemp opens a store in a new temporary file.
func openTemp(t testing.TB, set *compiler.Set, opts rulestore.Options) (*rulestore.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rules.jsonl")
	s, err := rulestore.Open(path, set, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}
