package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
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
