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

// TestRedactedNumberAsADouble: a card of 19 digits redacted from the text
// and held in structuredContent as a JSON number (4111111111111111110) is
// beyond a double's precision. The proxy, reading the number as written,
// withheld the result; the middleware on a client, which sees it as the
// Go SDK decoded it (a float64, re-encoded 4111111111111111000), forwarded
// it: what the client reads is the card's value as a double
// (TestParityProxyMiddleware with such cards). A number whose value as a
// double is that of a redacted string of digits is a copy, in both forms.
func TestRedactedNumberAsADouble(t *testing.T) {
	g, err := guard.New(piiSet{})
	if err != nil {
		t.Fatal(err)
	}
	const card = "4111111111111111110"
	for _, n := range []string{card, "4111111111111111000", "4.111111111111111e18", "4111111111111111232"} {
		c := proxyConn(g, fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		res := `{"content":[{"type":"text","text":"card ` + card + `"}],"structuredContent":{"n":` + n + `}}`
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), n) {
			t.Errorf("%s: code %q, out %s", n, k.Code(), out)
		}
	}
	// Another double is no copy.
	c := proxyConn(g, fs)
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","text":"card `+card+`"}],"structuredContent":{"n":4111111111111112000}}`), 0, guard.FinishOptions{})
	if k.Code() != "" {
		t.Errorf("another double: code %q, out %s", k.Code(), out)
	}
}

// TestRedactedSpacedCardAsANumber: a card written with separators in the
// text ("4111 1111 1111 1111", "4111-1111-1111-1111", how oarc.pii finds
// it) and held in structuredContent as the number 4111111111111111 is the
// same card: the number is its digits, which a number cannot separate.
// The copy check compared the number with the text as redacted, so the
// card reached the client in both forms.
func TestRedactedSpacedCardAsANumber(t *testing.T) {
	g, err := guard.New(piiSet{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, n string }{
		{"4111 1111 1111 1111", "4111111111111111"},
		{"4111-1111-1111-1111", "4111111111111111"},
		{"4111 1111 1111 1111", "4.111111111111111e15"},
		{"4111 1111 1111 1111", "[1, 4111111111111111]"},
	} {
		conn := proxyConn(g, fs)
		ctx := context.Background()
		k := conn.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		res := `{"content":[{"type":"text","text":"card ` + c.text + `"}],"structuredContent":{"n":` + c.n + `}}`
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), "4111111111111111") || strings.Contains(string(out), c.n) {
			t.Errorf("%q beside %s: code %q, out %s", c.text, c.n, k.Code(), out)
		}
	}
	// Another number is no copy.
	conn := proxyConn(g, fs)
	ctx := context.Background()
	k := conn.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","text":"card 4111 1111 1111 1111"}],"structuredContent":{"n":4111}}`), 0, guard.FinishOptions{})
	if k.Code() != "" || !strings.Contains(string(out), `"n":4111`) {
		t.Errorf("no copy: code %q, out %s", k.Code(), out)
	}
}
