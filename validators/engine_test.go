package validators

import (
	"strings"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/reference"
	"github.com/oarc/oarc/testkit/wire"
)

// TestInAPack: the validators' answers, given to the engine for the rules
// of testdata/pack (the reference engine, which the generated code is
// held to), redact exactly the credentials and personal data of a tool
// result written after multi-byte and invalid UTF-8 (so a byte span would
// cut the wrong text), and block a call whose arguments hold a key id.
func TestInAPack(t *testing.T) {
	set, diags := compiler.LoadPack("testdata/pack", compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	eng, err := reference.New(set)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(id string, contentAnchor bool, content string, args map[string]any) wire.Detector {
		v, _ := ByID(id)
		d, err := v.Detect(contentAnchor, content, args)
		if err != nil {
			t.Fatal(err)
		}
		return wire.Detector{Hit: d.Hit, Facts: d.Facts}
	}

	content := "日本語 \xff\xfe result: AKIAIOSFODNN7EXAMPLE, mail 🙂 jane@example.com\n" +
		"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQ\n-----END EC PRIVATE KEY-----\ncard 4111 1111 1111 1111 ok"
	want := "日本語 \xff\xfe result: [SECRET], mail 🙂 [PII]\n[SECRET]\ncard [PII] ok"
	req := &wire.Request{
		Anchor:  "content.tool_result",
		Facts:   map[string]any{"tool": "bash"},
		Content: content,
		Detectors: map[string]wire.Detector{
			SecretsID: answer(SecretsID, IsContentAnchor("content.tool_result"), content, nil),
			PIIID:     answer(PIIID, true, content, nil),
		},
	}
	resp := eng.Evaluate(req, nil)
	if resp.Effect != "transform" || resp.Content != want || len(resp.Errors) != 0 {
		t.Errorf("tool result: %s %q %v\nwant transform %q", resp.Effect, resp.Content, resp.Errors, want)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"cmd": "ls", "env": map[string]any{"list": []any{"x", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"}}}, "block"},
		{map[string]any{"cmd": "ls -la", "n": 4}, "allow"},
	} {
		req := &wire.Request{
			Anchor:    "tool.pre_invoke",
			Facts:     map[string]any{"tool": "bash", "tool_args": tc.args},
			Profiles:  runtime.ProfileSet(0),
			Detectors: map[string]wire.Detector{SecretsID: answer(SecretsID, IsContentAnchor("tool.pre_invoke"), "", tc.args)},
		}
		resp := eng.Evaluate(req, nil)
		if resp.Effect != tc.want || (tc.want == "block" && !strings.Contains(resp.Rejection, "Code: SECRET_IN_ARGS")) {
			t.Errorf("args %v: %s %q, want %s", tc.args, resp.Effect, resp.Rejection, tc.want)
		}
	}
}
