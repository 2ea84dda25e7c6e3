package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// TestAskNotPutAfterCancel: a call whose context is done (the client
// cancelled it, the server is shutting down) was still put to the person
// through ConnOptions.Ask, who saw a question about a call that would not
// run whatever they answered. No one is asked: no answer, the call is
// blocked with the rule's rejection (spec 5.12).
func TestAskNotPutAfterCancel(t *testing.T) {
	g, err := guard.New(askRedactSet{})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	c := g.NewConn(runtime.NewSession("t"), fs, guard.ConnOptions{AllInputs: true, Ask: func(context.Context, string) (bool, error) {
		asked++
		return true, nil
	}})
	ctx, cancel := context.WithCancel(context.Background())
	k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
	cancel()
	out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","text":"deploy key sk123 now"}]}`), 0, guard.FinishOptions{})
	if asked != 0 || k.Code() != "ASK_RESULTS" || strings.Contains(string(out), "sk123") {
		t.Errorf("asked %d times, code %q, out %s", asked, k.Code(), out)
	}
}

// TestAskNoWithoutRuleBlocks: an ask decision without a rule (a Set that
// is not generated code, as askRedactSet) has no rejection text: a person's
// no let the call go ahead, the guard blocking only on a rejection that
// is not empty. A no blocks, with the decision's code.
func TestAskNoWithoutRuleBlocks(t *testing.T) {
	g, err := guard.New(askRedactSet{})
	if err != nil {
		t.Fatal(err)
	}
	for _, answer := range []func(context.Context, string) (bool, error){
		func(context.Context, string) (bool, error) { return false, nil },
		func(context.Context, string) (bool, error) { return false, guard.ErrCannotAsk },
		nil,
	} {
		c := g.NewConn(runtime.NewSession("t"), fs, guard.ConnOptions{AllInputs: true, Ask: answer})
		ctx := context.Background()
		k := c.Begin(ctx, nil, "read_text_file", json.RawMessage(`{"path":"/a"}`))
		out := k.Finish(ctx, json.RawMessage(`{"content":[{"type":"text","text":"deploy key sk123 now"}]}`), 0, guard.FinishOptions{})
		if k.Code() != "ASK_RESULTS" || strings.Contains(string(out), "deploy key") {
			t.Errorf("code %q, out %s", k.Code(), out)
		}
	}
}
