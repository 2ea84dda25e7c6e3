package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/validators"
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

// piiSet redacts what oarc.pii finds in a result's content, as a stock
// transform rule with `detector: oarc.pii` does.
type piiSet struct{}

func (piiSet) Info() *guard.Info {
	return &guard.Info{Name: "pii", Anchors: []guard.Anchor{guard.ToolResult}}
}

func (piiSet) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Anchor != guard.ToolResult {
		return nil
	}
	for _, m := range validators.AppendPII(nil, o.Content) {
		d.Effect, d.Code = runtime.Transform, "REDACT_PII"
		d.Redactions = append(d.Redactions, runtime.Redaction{Start: m.Start, End: m.End, Replacement: "[REDACTED]"})
	}
	return nil
}

// TestRedactedNumberWithheld: a tool of the TypeScript SDK with an
// outputSchema answers with structuredContent and, as its text, that JSON
// stringified. A card number held as a JSON number is found and redacted
// in the text, but a number is no string value, so no unit of
// structuredContent, and the copy check read only strings there: the
// card reached the client in structuredContent. Spec 11: no copy of a
// redacted string survives anywhere in the result; the result is
// withheld (OAR_GUARD), as for a copy in a member name.
func TestRedactedNumberWithheld(t *testing.T) {
	g, err := guard.New(piiSet{})
	if err != nil {
		t.Fatal(err)
	}
	const card = "4111111111111111"
	for _, res := range []string{
		`{"content":[{"type":"text","text":"{\"card\":` + card + `}"}],"structuredContent":{"card":` + card + `}}`,
		`{"content":[{"type":"text","text":"card ` + card + `"}],"structuredContent":{"cards":[1,` + card + `]}}`,
		`{"content":[{"type":"text","text":"card ` + card + `"}],"_meta":{"card":` + card + `}}`,
	} {
		c := proxyConn(g, fs)
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(ctx, json.RawMessage(res), 0, guard.FinishOptions{})
		if k.Code() != guard.CodeGuard || strings.Contains(string(out), card) {
			t.Errorf("%s: code %q, out %s", res, k.Code(), out)
		}
	}
	// A number that is not the card is no copy.
	c := proxyConn(g, fs)
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","text":"card `+card+`"}],"structuredContent":{"n":41111}}`), 0, guard.FinishOptions{})
	if k.Code() != "" || !strings.Contains(string(out), `"n":41111`) || strings.Contains(string(out), card) {
		t.Errorf("a result without a copy: code %q, out %s", k.Code(), out)
	}
}

// TestWholeRedactionNoFalseCopy: a transform that fails closed redacts
// the whole content; every line of it is then a redacted string, and a
// line that is part of the replacement ("A", "[REDACTED]" itself) is no
// copy that survived in the units: the result is redacted, not withheld.
func TestWholeRedactionNoFalseCopy(t *testing.T) {
	env := lycaon.Env{Validators: map[string]lycaon.Validator{
		"oarc.secrets": func(context.Context, *lycaon.Occurrence) (runtime.Detection, error) {
			return runtime.Detection{}, errors.New("scanner down")
		},
	}}
	set, err := testset.Guard(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		t.Fatal(err)
	}
	c := proxyConn(g, fs)
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", args(t, map[string]string{"path": "/env"}))
	out := k.Finish(ctx, textResult("A", "key="+awsKey+"\nD", "[REDACTED]"), 0, guard.FinishOptions{})
	d := decode(t, out)
	if k.Code() != "" || len(d.Content) != 3 || d.Content[0].Text != "[REDACTED]" || d.Content[1].Text != "[REDACTED]" || d.Content[2].Text != "[REDACTED]" {
		t.Errorf("code %q, out %s", k.Code(), out)
	}
}

// contentSet records the content of every content.tool_result occurrence.
type contentSet struct{ seen *[]string }

func (contentSet) Info() *guard.Info {
	return &guard.Info{Name: "content", Anchors: []guard.Anchor{guard.ToolResult}}
}

func (s contentSet) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	if o.Anchor == guard.ToolResult {
		*s.seen = append(*s.seen, o.Content)
	}
	return nil
}

// TestContentUnitOrder: spec 11's content is "its text content items, the
// text of its embedded text resources and every string value in its
// structuredContent, in that order". The guard took the items in the
// order of the content array, so a resource before a text item came
// first: a rule reading where a text begins (startsWith, an index) saw
// another content than the spec gives.
func TestContentUnitOrder(t *testing.T) {
	var seen []string
	g, err := guard.New(contentSet{&seen})
	if err != nil {
		t.Fatal(err)
	}
	c := proxyConn(g, fs)
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	k.Finish(ctx, json.RawMessage(`{"content":[{"type":"resource","resource":{"uri":"file:///r","text":"R1"}},{"type":"text","text":"T1"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///r","text":"R2"}},{"type":"text","text":"T2"}],"structuredContent":{"s":"S"}}`), 0, guard.FinishOptions{})
	if want := "T1\nT2\nR1\nR2\nS"; len(seen) != 1 || seen[0] != want {
		t.Errorf("content %q, want %q", seen, want)
	}
}

// TestRedactionUnitOrder: with the resource's text after the text items
// in the content (TestContentUnitOrder), each redaction still lands in
// the unit it was found in.
func TestRedactionUnitOrder(t *testing.T) {
	g, err := guard.New(piiSet{})
	if err != nil {
		t.Fatal(err)
	}
	c := proxyConn(g, fs)
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"resource","resource":{"uri":"file:///r","text":"to ann@example.com"}},{"type":"text","text":"hello"},{"type":"text","text":"from bob@example.org!"}]}`), 0, guard.FinishOptions{})
	d := decode(t, out)
	if k.Code() != "" || len(d.Content) != 3 || d.Content[0].Resource.Text != "to [REDACTED]" || d.Content[1].Text != "hello" || d.Content[2].Text != "from [REDACTED]!" {
		t.Errorf("code %q, out %s", k.Code(), out)
	}
}
