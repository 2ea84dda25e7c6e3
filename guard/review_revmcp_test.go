package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
)

// TestRedactedCopyInUnitWithheld: spec 11's transform writes the units
// back "so no copy of a redacted string survives anywhere in the result".
// The validator finds a key where it stands alone; a copy of the same key
// in another unit, run together with word characters (a file name
// `creds_<key>.json` beside the file's text, a structuredContent value
// `<key>X`), is no match of its own, so the unit was not rewritten and the
// key reached the client beside the [REDACTED] text. The check for copies
// looked only where no unit is. Such a result is withheld (OAR_GUARD), as
// a copy in _meta is (TestRedactedCopyWithheld).
func TestRedactedCopyInUnitWithheld(t *testing.T) {
	for _, res := range []string{
		`{"content":[{"type":"text","text":"key ` + awsKey + `"}],"structuredContent":{"k":"` + awsKey + `X"}}`,
		`{"content":[{"type":"text","text":"key ` + awsKey + `"},{"type":"text","text":"[FILE] creds_` + awsKey + `.json"}]}`,
		`{"content":[{"type":"text","text":"key ` + awsKey + `"},{"type":"resource","resource":{"uri":"file:///k","text":"old_` + awsKey + `"}}]}`,
		`{"content":[{"type":"text","text":"key ` + awsKey + ` and ` + awsKey + `_old"}]}`,
	} {
		c := proxyConn(newGuard(t), fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), awsKey) {
			t.Errorf("%s: code %q, out %s", res, k.Code(), out)
		}
	}
}
