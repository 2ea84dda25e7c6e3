package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// askRedactSet asks a person about every tool result and redacts the
// secret in it, as a project pack's ask beside a stock pack's transform
// decides (spec 5.6, 5.12): the decision is ask, with the redactions.
type askRedactSet struct{}

func (askRedactSet) Info() *guard.Info {
	return &guard.Info{Name: "askredact", Anchors: []guard.Anchor{guard.PreInvoke, guard.ToolResult}}
}

func (askRedactSet) Evaluate(_ context.Context, o *guard.Occurrence, _ *runtime.Session, d *runtime.Decision) error {
	d.Reset()
	d.Content = o.Content
	if o.Anchor != guard.ToolResult {
		return nil
	}
	i := strings.Index(o.Content, "sk123")
	if i < 0 {
		return nil
	}
	start := int64(utf8.RuneCountInString(o.Content[:i]))
	d.Effect, d.Code = runtime.Ask, "ASK_RESULTS"
	d.Redactions = []runtime.Redaction{{Start: start, End: start + 5, Replacement: "[KEY]"}}
	d.Content = o.Content[:i] + "[KEY]" + o.Content[i+5:]
	return nil
}

// TestApprovedAskKeepsRedaction: a tool result whose decision was ask
// (a rule asked, another redacted a secret) went to the client as the
// server sent it once the person approved: the ask lifted the
// redaction, though an ask grants nothing (spec 5.12). It goes redacted.
func TestApprovedAskKeepsRedaction(t *testing.T) {
	g, err := guard.New(askRedactSet{})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	c := g.NewConn(runtime.NewSession("t"), fs, guard.ConnOptions{AllInputs: true, Ask: func(context.Context, string) (bool, error) {
		asked++
		return true, nil
	}})
	ctx := context.Background()
	k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","text":"deploy key sk123 now"}]}`), 0, guard.FinishOptions{})
	if asked != 1 || k.Code() != "" || strings.Contains(string(out), "sk123") || !strings.Contains(string(out), "deploy key [KEY] now") {
		t.Errorf("asked %d times, code %q, out %s", asked, k.Code(), out)
	}
}
