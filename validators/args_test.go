package validators

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/oarc/oarc/runtime"
)

const akia = "AKIAIOSFODNN7EXAMPLE"

type named string

// TestArgsFindsStringsAnywhere: a credential in any string of tool_args
// hits, at any depth, in keys as in values, in every Go type the runtime
// reads (runtime/impl/celdyn.go) and in the others a host might pass
// (named string types, []byte, other slices and maps, pointers); the
// answer carries the fact with no entries (spec 11).
func TestArgsFindsStringsAnywhere(t *testing.T) {
	s := "curl -H 'Authorization: " + akia + "'"
	p := &s
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"value", map[string]any{"cmd": s}},
		{"key", map[string]any{akia: 1}},
		{"nested", map[string]any{"a": []any{1, map[string]any{"b": []any{"x", s}}}}},
		{"[]string", map[string]any{"argv": []string{"x", s}}},
		{"map[string]string", map[string]any{"env": map[string]string{"KEY": s}}},
		{"map[string]string key", map[string]any{"env": map[string]string{akia: "v"}}},
		{"[]map[string]any", map[string]any{"l": []map[string]any{{"k": s}}}},
		{"named string", map[string]any{"n": named(s)}},
		{"[]byte", map[string]any{"raw": []byte(s)}},
		{"[]named", map[string]any{"l": []named{"x", named(s)}}},
		{"map[int]string", map[string]any{"m": map[int]string{1: s}}},
		{"map[any]any key", map[string]any{"m": map[any]any{s: 1}}},
		{"pointer", map[string]any{"p": p}},
		{"array", map[string]any{"a": [2]string{"", s}}},
	} {
		d, err := SecretsInArgs(tc.args)
		if err != nil || !d.Hit || d.Facts.Has != runtime.HasSecretMatches || len(d.Facts.SecretMatches) != 0 {
			t.Errorf("%s: %+v, %v; want a hit without entries", tc.name, d, err)
		}
	}
	d, err := PIIInArgs(map[string]any{"to": []any{"ops", "jane@example.com"}})
	if err != nil || !d.Hit || d.Facts.Has != runtime.HasPiiEntities || len(d.Facts.PiiEntities) != 0 {
		t.Errorf("PIIInArgs: %+v, %v", d, err)
	}
}

// TestArgsNoHit: numbers (json.Number too: it spells a number), bools,
// nil, empty containers and clean strings answer no hit, the fact
// supplied empty, and no error.
func TestArgsNoHit(t *testing.T) {
	card := int64(4111111111111111) // an int where int has 64 bits (truncated, yet compiled, on 32)
	var nilMap map[string]any
	var nilPtr *string
	args := map[string]any{
		"n": json.Number("4111111111111111"), "i": int(card), "f": 1.5, "b": true, "z": nil,
		"e": []any{}, "m": nilMap, "p": nilPtr, "l": []int64{4111111111111111}, "s": "ls -la", "u": []uint{1},
	}
	for _, v := range builtins {
		d, err := v.Args(args)
		if err != nil || d.Hit || d.Facts.Has == 0 {
			t.Errorf("%s: %+v, %v", v.ID, d, err)
		}
	}
	if d, err := SecretsInArgs(nil); err != nil || d.Hit {
		t.Errorf("nil args: %+v, %v", d, err)
	}
	decoded, err := runtime.DecodeToolArgs([]byte(`{"cmd": "echo hi", "n": 4111111111111111, "deep": {"l": [1, "x", {"y": null}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := PIIInArgs(decoded); err != nil || d.Hit {
		t.Errorf("decoded args: %+v, %v", d, err)
	}
}

func nest(levels int, leaf any) map[string]any {
	m := map[string]any{"leaf": leaf}
	for range levels - 1 {
		m = map[string]any{"m": m}
	}
	return m
}

// TestArgsFailClosed: arguments the walk cannot read whole are an error
// (the rule's on_error decides), never a silent "no secret": nested past
// MaxDepth, cyclic through maps, slices or pointers (also with a fan-out
// that would be exponential without the cycle check), or holding a value
// it cannot look inside. A hit read elsewhere is still the answer.
func TestArgsFailClosed(t *testing.T) {
	if d, err := SecretsInArgs(nest(MaxDepth, akia)); err != nil || !d.Hit {
		t.Errorf("%d levels: %+v, %v; want a hit", MaxDepth, d, err)
	}
	if _, err := SecretsInArgs(nest(MaxDepth+1, akia)); !errors.Is(err, ErrUnreadableArgs) {
		t.Errorf("%d levels: %v, want ErrUnreadableArgs", MaxDepth+1, err)
	}
	cyclic := map[string]any{"x": "clean"}
	cyclic["a"], cyclic["b"], cyclic["c"] = cyclic, cyclic, cyclic
	list := []any{"clean", nil, nil}
	list[1], list[2] = list, list
	var pc any
	pp := &pc
	pc = pp
	for name, v := range map[string]any{
		"map cycle": cyclic, "slice cycle": list, "pointer cycle": pp,
		"struct": struct{ S string }{"x"}, "func": func() {}, "chan": make(chan int), "time": time.Time{},
	} {
		start := time.Now()
		d, err := SecretsInArgs(map[string]any{"v": v})
		if !errors.Is(err, ErrUnreadableArgs) || d.Hit {
			t.Errorf("%s: %+v, %v; want ErrUnreadableArgs", name, d, err)
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("%s took %v", name, el)
		}
		// A credential read elsewhere is a hit whatever the order of the
		// walk: the hit is certain, the unread part could only add to it.
		d, err = SecretsInArgs(map[string]any{"v": v, "w": akia, "x": []any{v}})
		if err != nil || !d.Hit {
			t.Errorf("%s beside a key id: %+v, %v; want a hit", name, d, err)
		}
	}
	// The same map twice on different paths is no cycle.
	shared := map[string]any{"k": "clean"}
	if d, err := SecretsInArgs(map[string]any{"a": shared, "b": []any{shared, shared}}); err != nil || d.Hit {
		t.Errorf("shared map: %+v, %v", d, err)
	}
}

// TestDetectAndRegistry: the registry holds both validators, sorted, and
// Detect scans the content at a content anchor (with entries) and the
// arguments elsewhere (without).
func TestDetectAndRegistry(t *testing.T) {
	if ids := IDs(); len(ids) != 2 || ids[0] != PIIID || ids[1] != SecretsID {
		t.Fatalf("IDs() = %v", ids)
	}
	if _, ok := ByID("oarc.nope"); ok {
		t.Error("ByID found an unknown id")
	}
	v, ok := ByID(SecretsID)
	if !ok || v.ID != SecretsID {
		t.Fatal("ByID(oarc.secrets)")
	}
	args := map[string]any{"k": akia}
	d, err := v.Detect(IsContentAnchor("content.tool_result"), "id "+akia, args)
	if err != nil || !d.Hit || len(d.Facts.SecretMatches) != 1 || d.Facts.SecretMatches[0]["start"] != int64(3) {
		t.Errorf("content: %+v, %v", d, err)
	}
	d, err = v.Detect(IsContentAnchor("tool.pre_invoke"), "", args)
	if err != nil || !d.Hit || len(d.Facts.SecretMatches) != 0 {
		t.Errorf("args: %+v, %v", d, err)
	}
	p, _ := ByID(PIIID)
	if d := p.Content("mail a@b.co"); !d.Hit || d.Facts.PiiEntities[0]["kind"] != KindEmail {
		t.Errorf("pii content: %+v", d)
	}
}
