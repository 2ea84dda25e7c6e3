package proxy

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
)

// The upstream's own round that a question of the proxy interrupted (its
// requestState and the client's answers to it) belongs to that call: a
// retry of another call with the proxy's requestState is no answer, and
// must not carry the upstream's state and answers of the first call to
// the upstream with another call.
func TestReviewRvXUpstreamRoundStaysWithItsCall(t *testing.T) {
	const question = "This action needs a person's approval before it runs.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	c := start(t, "-server-id", "everything")
	up := `"requestState":"up-state","inputResponses":{"up/q":{"action":"accept","content":{"x":"blue"}}}`
	c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernAsker, up))
	state := inputRequest(t, resultOf(t, c.recv()), question)
	c.send(modernCall(2, "echo", `{"path":"x"}`, modernAsker, `"requestState":"`+state+`","inputResponses":{"oarc/approve":{"action":"accept","content":{"approve":true}}}`))
	r := resultOf(t, c.recv())
	if got := strings.Join(texts(r), "|"); got != "hello from x" {
		t.Errorf("another call with the proxy's requestState: want it forwarded with no state of the first call's upstream round, got %v", r)
	}
}

// The questions that wait for their answer are bounded in bytes too, not
// only in number: each holds the call it is about and the upstream's
// round it interrupted, up to a message of -max-message each, and 1,024
// of them held whole were gigabytes.
func TestReviewRvXAskedBytesBounded(t *testing.T) {
	p := &proxy{o: options{askTimeout: time.Minute, maxMessage: DefaultMaxMessage}, asked: map[string]*askedCall{}}
	big := strings.Repeat("x", 64<<10)
	args, _ := json.Marshal(map[string]string{"path": big})
	state, _ := json.Marshal(big)
	for range maxAsked {
		params := map[string]json.RawMessage{"arguments": args, "requestState": state, "inputResponses": json.RawMessage(`{"up/q":{"action":"accept"}}`)}
		if out := p.inputRequired(&round{AskRound: guard.AskRound{Question: "q"}, elicit: true}, &guard.Call{}, "deploy", params); !strings.Contains(string(out), "input_required") {
			t.Fatalf("no question: %s", out)
		}
	}
	held := 0
	for _, a := range p.asked {
		held += len(a.call) + len(a.question) + len(a.upState) + len(a.upAnswers)
	}
	if held > 32<<20 {
		t.Errorf("the questions waiting hold %d MiB", held>>20)
	}
}

// A requestState the proxy sent and no longer waits for (used, expired
// or forgotten) is still the proxy's: it and the person's answer to the
// proxy's question are taken out of the call, never passed to the
// upstream as its own.
func TestReviewRvXStaleStateNotForwarded(t *testing.T) {
	const question = "This action needs a person's approval before it runs.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	const yes = `"inputResponses":{"oarc/approve":{"action":"accept","content":{"approve":true}}}`
	c := start(t, "-server-id", "everything")
	c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernAsker, ""))
	state := inputRequest(t, resultOf(t, c.recv()), question)
	c.send(modernCall(2, "deploy", `{"path":"prod"}`, modernAsker, `"requestState":"`+state+`",`+yes))
	if r := resultOf(t, c.recv()); strings.Join(texts(r), "|") != "hello from prod" {
		t.Fatalf("approved call: %v", r)
	}
	for i, s := range []string{state, strings.ToUpper(state)} {
		c.send(modernCall(3+i, "echo", `{"path":"x"}`, modernAsker, `"requestState":"`+s+`",`+yes))
		// (The second echo is a repeat of the first: a nudge follows.)
		if r := resultOf(t, c.recv()); len(texts(r)) == 0 || texts(r)[0] != "hello from x" {
			t.Errorf("a used requestState of the proxy's (%s): want it taken out, got %v", s, r)
		}
	}
}

// An answer that gives a name twice says both things: it is no explicit
// yes (spec 5.12), whichever a parser keeps (the proxy's keeps the last).
func TestReviewRvXAnswerWithANameTwice(t *testing.T) {
	const question = "This action needs a person's approval before it runs.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	for _, answers := range []string{
		`{"oarc/approve":{"action":"decline"},"oarc/approve":{"action":"accept","content":{"approve":true}}}`,
		`{"oarc/approve":{"action":"decline","action":"accept","content":{"approve":true}}}`,
		`{"oarc/approve":{"action":"accept","content":{"approve":false,"approve":true}}}`,
	} {
		c := start(t, "-server-id", "everything")
		c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernAsker, ""))
		state := inputRequest(t, resultOf(t, c.recv()), question)
		c.send(modernCall(2, "deploy", `{"path":"prod"}`, modernAsker, `"requestState":"`+state+`","inputResponses":`+answers))
		r := resultOf(t, c.recv())
		if meta, _ := r["_meta"].(map[string]any); r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" {
			t.Errorf("%s: want the call blocked, got %v", answers, r)
		}
	}
}
