package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// TestRedactedCopyWithheld: spec 11's transform rewrites the text units
// "so no copy of a redacted string survives anywhere in the result"; a
// copy where no unit is (the result's _meta, an item's _meta, a name in
// structuredContent) reached the client beside the [REDACTED] text. Such
// a result is withheld (OAR_GUARD); without a copy it is redacted and
// passed on, and the data of an image equal to the key is no copy (not
// text, TestRedactionEveryUnit).
func TestRedactedCopyWithheld(t *testing.T) {
	for _, res := range []string{
		`{"content":[{"type":"text","text":"key ` + awsKey + `"}],"_meta":{"echo":"key ` + awsKey + `"}}`,
		`{"content":[{"type":"text","text":"key ` + awsKey + `","_meta":{"a":["` + awsKey + `"]}}]}`,
		`{"content":[{"type":"text","text":"key ` + awsKey + `"}],"structuredContent":{"` + awsKey + `":true}}`,
	} {
		c := proxyConn(newGuard(t), fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), awsKey) {
			t.Errorf("%s: code %q, out %s", res, k.Code(), out)
		}
	}
	c := proxyConn(newGuard(t), fs)
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","text":"key `+awsKey+`"},{"type":"image","data":"`+awsKey+`","mimeType":"image/png"}],"_meta":{"k":"v"}}`), 0, guard.FinishOptions{})
	if k.Code() != "" || !strings.Contains(string(out), "key [REDACTED]") {
		t.Errorf("a redacted result without copies: code %q, out %s", k.Code(), out)
	}
}

// enabledSet is a set whose one rule, at tool.pre_invoke, reads
// mcp_server_enabled_for("fs") and mcp_has_field("x") as the generated
// sets answer them (guard.ServerEnabledFor, guard.HasField with the
// evaluation's context), and blocks (NO_SERVER) when the server is not
// enabled; errs gathers the functions' errors.
type enabledSet struct{ errs *[]error }

func (enabledSet) Info() *guard.Info {
	return &guard.Info{Name: "enabled", Anchors: []guard.Anchor{guard.PreInvoke}}
}

func (s enabledSet) decide(ctx context.Context, d *runtime.Decision) {
	d.Reset()
	on, err := guard.ServerEnabledFor(ctx, "fs")
	if err != nil {
		*s.errs = append(*s.errs, err)
	}
	if _, err := guard.HasField(ctx, "x"); err != nil {
		*s.errs = append(*s.errs, err)
	}
	if !on {
		d.Effect, d.Code = runtime.Block, "NO_SERVER"
	}
}

func (s enabledSet) Evaluate(ctx context.Context, _ *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	s.decide(ctx, d)
	return nil
}

func (s enabledSet) EvaluateCheck(ctx context.Context, os []guard.Occurrence, _ *runtime.Session, ds []runtime.Decision) error {
	for i := range os {
		s.decide(ctx, &ds[i])
	}
	return nil
}

// TestCheckAnswersMCPFunctions: the MCP functions the guard answers
// (mcp_server_configured_for, mcp_server_enabled_for, and mcp_has_field
// and the mcp_field_* functions, false and zeros before the call) read
// the call from the evaluation's context; a check (Conn.Check, spec 5.11)
// put none there, so every one of them failed in a check where it
// answered for the same call alone: a rule with on_error fail_open did
// not fire. A check answers them as Begin does.
func TestCheckAnswersMCPFunctions(t *testing.T) {
	var errs []error
	g, err := guard.New(enabledSet{&errs})
	if err != nil {
		t.Fatal(err)
	}
	c := proxyConn(g, fs)
	ctx := context.Background()
	if k := c.Begin(ctx, nil, "read_text_file", nil); k.Blocked() != nil || len(errs) != 0 {
		t.Fatalf("alone: %s %v", k.Blocked(), errs)
	}
	ks := c.Check(ctx, []guard.CallSpec{{Name: "read_text_file"}, {Name: "write_file"}})
	for i, k := range ks {
		if k.Blocked() != nil {
			t.Errorf("call %d of the check: %s", i, k.Blocked())
		}
	}
	if len(errs) != 0 {
		t.Errorf("the MCP functions in a check: %v", errs)
	}
}
