package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
)

// TestRedactedNumberAnyNotation: a card number redacted from the text and
// held in structuredContent as a JSON number written in another notation
// (4.111111111111111e15, 4111111111111111.0, 41111111111111110e-1: a
// server not in Go, or one that writes its numbers as doubles) is the
// card, to every client that reads the number (a Go client reads
// 4111111111111111). The proxy, which reads numbers as written, forwarded
// it; the middleware on a client, which sees the number as the SDK
// re-encodes it (4111111111111111), withheld it (TestParityProxyMiddleware,
// seed 27 under OARC_LONG=1). Spec 11: no copy of a redacted string
// survives anywhere in the result: withheld in both forms (OAR_GUARD).
func TestRedactedNumberAnyNotation(t *testing.T) {
	g, err := guard.New(piiSet{})
	if err != nil {
		t.Fatal(err)
	}
	const card = "4111111111111111"
	for _, n := range []string{"4.111111111111111e15", "4111111111111111.0", "41111111111111110e-1", "4.111111111111111E+15", "0.4111111111111111e16", "4111111111111111.5", "4.1111111111111115e15", "-4.111111111111111e15"} {
		c := proxyConn(g, fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		res := `{"content":[{"type":"text","text":"card ` + card + `"}],"structuredContent":{"n":` + n + `}}`
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), n) {
			t.Errorf("%s: code %q, out %s", n, k.Code(), out)
		}
	}
	// Numbers that are not the card, in any notation, are no copies; an
	// exponent too large to expand is read as written.
	for _, n := range []string{"4.1e15", "41111e-1", "1e999999999", "41e999999999"} {
		c := proxyConn(g, fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		res := `{"content":[{"type":"text","text":"card ` + card + `"}],"structuredContent":{"n":` + n + `}}`
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != "" || !strings.Contains(string(out), `"n":`+n) || strings.Contains(string(out), card) {
			t.Errorf("%s, no copy: code %q, out %s", n, k.Code(), out)
		}
	}
}
