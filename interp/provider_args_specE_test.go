package interp_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/interp"
)

// TestProviderArgsGoTypes: a host function's provider receives its
// arguments as the Go values of their catalog types (docs/hosts.md: a
// map(string, dyn) is a map[string]any, a list(map(string, dyn)) a
// []map[string]any, a list(string) a []string), as the generated code
// passes them, also when the argument is a CEL literal. The interpreter
// passed a literal's cel-go representation ([]ref.Val, map[ref.Val]ref.Val):
// a provider asserting the Go type failed, and a fixture's answer, keyed
// by the JSON of the arguments, was not found (found by
// conformance/randcat_specE_test.go).
func TestProviderArgsGoTypes(t *testing.T) {
	cat, ds := compiler.ParseCatalog("acme.catalog.yaml", []byte(`oar_catalog: '1.0'
host: acme
anchors:
  - {id: tool.pre_invoke, planes: [block]}
facts:
  - {name: m, type: 'map(string, dyn)'}
functions:
  - {name: f, signature: '(list(map(string, dyn)), map(string, dyn), list(string), int) -> bool'}
`))
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	for _, tc := range []struct {
		when string
		want []any
	}{
		{`acme.f([{"k": 1}], {"k": [1, "a", 2.5, true, null], "n": null, "o": {"p": "q"}}, ["a", "b"], 3)`,
			[]any{[]map[string]any{{"k": int64(1)}}, map[string]any{"k": []any{int64(1), "a", 2.5, true, nil}, "n": nil, "o": map[string]any{"p": "q"}}, []string{"a", "b"}, int64(3)}},
		{`acme.f([], {}, [], 0)`, []any{[]map[string]any{}, map[string]any{}, []string{}, int64(0)}},
		// A fact is passed as the host gave it.
		{`acme.f([acme.m], acme.m, ["x"], 1)`, []any{[]map[string]any{{"k": 1}}, map[string]any{"k": 1}, []string{"x"}, int64(1)}},
	} {
		set, ds := compiler.LoadRuleDoc("r.json", []byte(`{"oar":"1.0","id":"P","kind":"policy","anchor":"tool.pre_invoke","effect":"block","when":`+jsonString(tc.when)+`}`), "", compiler.Options{Catalog: cat})
		if ds.HasErrors() {
			t.Fatal(ds.Text())
		}
		e, err := interp.New(set)
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		d := e.Evaluate(&interp.Occurrence{Anchor: "tool.pre_invoke", Facts: map[string]any{"acme.m": map[string]any{"k": 1}},
			Providers: map[string]func([]any) (any, error){"acme.f": func(args []any) (any, error) { got = args; return true, nil }}}, nil)
		if d.Effect != "block" || len(d.Errors) != 0 {
			t.Errorf("%s: %+v", tc.when, d)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: the provider's arguments (-want +got):\n%s", tc.when, diff)
		}
	}
}

func jsonString(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		if r == '"' || r == '\\' {
			b = append(b, '\\')
		}
		b = append(b, string(r)...)
	}
	return string(append(b, '"'))
}

// TestProviderArgNotRead: passing a host's map to a host function reads
// none of its values (docs/cel-semantics.md, "Host values": a value is
// read where it is selected, indexed, bound, compared or tested with
// `in`), so a value no rule can read (a json.Number beyond the double
// range) inside it is no error, as in the generated code. The
// interpreter kept cel-go's runtime type guard of the call, which reads
// the map's first entry in Go's iteration order: the call was a
// no_such_overload error, or not, at random.
func TestProviderArgNotRead(t *testing.T) {
	cat, ds := compiler.ParseCatalog("acme.catalog.yaml", []byte(`oar_catalog: '1.0'
host: acme
anchors:
  - {id: tool.pre_invoke, planes: [block]}
facts:
  - {name: m, type: 'map(string, dyn)'}
  - {name: l, type: 'list(map(string, dyn))'}
functions:
  - {name: f, signature: '(map(string, dyn)) -> bool'}
  - {name: g, signature: '(list(map(string, dyn))) -> bool'}
`))
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	bad := json.Number("1e400")
	for _, when := range []string{`acme.f(acme.m)`, `acme.g(acme.l)`} {
		set, ds := compiler.LoadRuleDoc("r.json", []byte(`{"oar":"1.0","id":"P","kind":"policy","anchor":"tool.pre_invoke","effect":"block","when":`+jsonString(when)+`}`), "", compiler.Options{Catalog: cat})
		if ds.HasErrors() {
			t.Fatal(ds.Text())
		}
		e, err := interp.New(set)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			m := map[string]any{"a": bad, "b": "x", "c": bad, "d": int64(1)}
			calls := 0
			d := e.Evaluate(&interp.Occurrence{Anchor: "tool.pre_invoke", Facts: map[string]any{"acme.m": m, "acme.l": []map[string]any{m}},
				Providers: map[string]func([]any) (any, error){
					"acme.f": func(args []any) (any, error) { calls++; return true, nil },
					"acme.g": func(args []any) (any, error) { calls++; return true, nil },
				}}, nil)
			if d.Effect != "block" || len(d.Errors) != 0 || calls != 1 {
				t.Fatalf("%s: %d calls, %+v", when, calls, d)
			}
		}
	}
}
