package proxy

import (
	"strings"
	"testing"
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
