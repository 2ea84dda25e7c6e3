package proxy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/runtime"
)

// modernAsker is the _meta of a client of MCP 2026-07-28 that declares
// the elicitation capability on its request (it sends no initialize).
const modernAsker = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

// modernCall is a tools/call of a 2026-07-28 client, with more members of
// params (a retry's requestState and inputResponses) when extra is not "".
func modernCall(id int, name, args, meta, extra string) string {
	b, _ := json.Marshal(id)
	if extra != "" {
		extra = "," + extra
	}
	return `{"jsonrpc":"2.0","id":` + string(b) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + meta + extra + `}}`
}

// inputRequest checks that r sends the proxy's question back (resultType
// input_required, one elicitation/create under oarc/approve with the
// question and a schema of one boolean) and returns its requestState.
func inputRequest(t *testing.T, r map[string]any, question string) string {
	t.Helper()
	reqs, _ := r["inputRequests"].(map[string]any)
	q, _ := reqs["oarc/approve"].(map[string]any)
	params, _ := q["params"].(map[string]any)
	schema, _ := params["requestedSchema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	approve, _ := props["approve"].(map[string]any)
	state, _ := r["requestState"].(string)
	if r["resultType"] != "input_required" || len(reqs) != 1 || q["method"] != "elicitation/create" ||
		params["message"] != question || len(props) != 1 || approve["type"] != "boolean" || len(state) < 32 || r["isError"] == true {
		t.Fatalf("want the question sent back in the result, got %v", r)
	}
	return state
}

// A client of MCP 2026-07-28 sends no initialize and accepts no request of
// the server while it waits for a result (multi round-trip requests,
// SEP-2322), so the proxy never asked it: every call an ask rule holds
// was blocked with the rejection that says no one could be asked, even
// from a client that declared the elicitation capability in the request's
// _meta. The question now goes back in the result (resultType
// input_required, elicitation/create under inputRequests, a requestState)
// and the retried call carries the answer; the call is forwarded, without
// the proxy's requestState and answer, only on an explicit yes to that
// question about that call, once, in time.
func TestProxyAskModern(t *testing.T) {
	const rejection = "A person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	const question = "This action needs a person's approval before it runs.\n" + rejection
	const unasked = "This action needs a person's approval, and no person could be asked; it is blocked.\n" + rejection
	const yes = `"inputResponses":{"oarc/approve":{"action":"accept","content":{"approve":true}}}`
	blocked := func(t *testing.T, r map[string]any, want string) {
		t.Helper()
		meta, _ := r["_meta"].(map[string]any)
		if r["isError"] != true || meta["oarc/code"] != "ASK_DEPLOY" || strings.Join(texts(r), "|") != want || r["resultType"] != "complete" {
			t.Errorf("want the block %q, got %v", want, r)
		}
	}
	retry := func(state, answers string) string {
		b, _ := json.Marshal(state)
		if answers == "" {
			return `"requestState":` + string(b)
		}
		return `"requestState":` + string(b) + `,` + answers
	}
	for _, tc := range []struct {
		name    string
		answers string // the retry's inputResponses ("": none)
		want    string // "": forwarded
	}{
		{"yes", yes, ""},
		{"no", `"inputResponses":{"oarc/approve":{"action":"accept","content":{"approve":false}}}`, rejection},
		{"declines", `"inputResponses":{"oarc/approve":{"action":"decline"}}`, rejection},
		{"approve spelt otherwise", `"inputResponses":{"oarc/approve":{"action":"accept","content":{"Approve":true}}}`, rejection},
		{"another key", `"inputResponses":{"approve":{"action":"accept","content":{"approve":true}}}`, rejection},
		{"no answer", "", rejection},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := start(t, "-server-id", "everything")
			c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernAsker, ""))
			state := inputRequest(t, resultOf(t, c.recv()), question)
			c.send(modernCall(2, "deploy", `{"path":"prod"}`, modernAsker, retry(state, tc.answers)))
			m := c.recv()
			r := resultOf(t, m)
			if m["id"] != float64(2) {
				t.Fatalf("want the retry's result, got %v", m)
			}
			if tc.want != "" {
				blocked(t, r, tc.want)
				return
			}
			if r["isError"] == true || strings.Join(texts(r), "|") != "hello from prod" || r["resultType"] != "complete" {
				t.Fatalf("approved call: want it forwarded without the proxy's requestState and answer, got %v", r)
			}
			// The answer counted once: the same state again is no
			// answer, and the call is asked about afresh.
			c.send(modernCall(3, "deploy", `{"path":"prod"}`, modernAsker, retry(state, tc.answers)))
			if again := inputRequest(t, resultOf(t, c.recv()), question); again == state {
				t.Errorf("a requestState used twice")
			}
		})
	}

	t.Run("another call", func(t *testing.T) {
		// The yes to a question about deploying prod does not deploy
		// staging.
		c := start(t, "-server-id", "everything")
		c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernAsker, ""))
		state := inputRequest(t, resultOf(t, c.recv()), question)
		c.send(modernCall(2, "deploy", `{"path":"staging"}`, modernAsker, retry(state, yes)))
		blocked(t, resultOf(t, c.recv()), rejection)
		// Nor is it good for prod any more.
		c.send(modernCall(3, "deploy", `{"path":"prod"}`, modernAsker, retry(state, yes)))
		inputRequest(t, resultOf(t, c.recv()), question)
	})

	t.Run("too late", func(t *testing.T) {
		c := start(t, "-server-id", "everything", "-ask-timeout", "100ms")
		c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernAsker, ""))
		state := inputRequest(t, resultOf(t, c.recv()), question)
		time.Sleep(250 * time.Millisecond)
		c.send(modernCall(2, "deploy", `{"path":"prod"}`, modernAsker, retry(state, yes)))
		blocked(t, resultOf(t, c.recv()), rejection)
	})

	t.Run("without the capability", func(t *testing.T) {
		c := start(t, "-server-id", "everything")
		c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernMeta, ""))
		blocked(t, resultOf(t, c.recv()), unasked)
	})

	t.Run("the upstream's own round", func(t *testing.T) {
		// The upstream answers the approved call with a question of its
		// own; the client's retry with the upstream's state is a new call,
		// asked about again, and the yes to that brings the upstream its
		// state and the client's answer to its question.
		c := start(t, "-server-id", "everything")
		c.send(modernCall(1, "deploy", `{"path":"/mrtr"}`, modernAsker, ""))
		state := inputRequest(t, resultOf(t, c.recv()), question)
		c.send(modernCall(2, "deploy", `{"path":"/mrtr"}`, modernAsker, retry(state, yes)))
		r := resultOf(t, c.recv())
		if r["resultType"] != "input_required" || r["requestState"] != "up-state" {
			t.Fatalf("want the upstream's question, got %v", r)
		}
		up := `"inputResponses":{"up/q":{"action":"accept","content":{"x":"blue"}}}`
		c.send(modernCall(3, "deploy", `{"path":"/mrtr"}`, modernAsker, retry("up-state", up)))
		state2 := inputRequest(t, resultOf(t, c.recv()), question)
		c.send(modernCall(4, "deploy", `{"path":"/mrtr"}`, modernAsker, retry(state2, yes)))
		// (The upstream's retry is a call of its own, so the nudge of a
		// repeated call fires: docs/mcp.md.)
		r = resultOf(t, c.recv())
		if got := texts(r); len(got) == 0 || got[0] != `the upstream got {"up/q":{"action":"accept","content":{"x":"blue"}}}` || r["isError"] == true {
			t.Errorf("want the upstream's round completed with its state and the client's answer, got %v", r)
		}
	})
}

// A requestState the proxy never sent is the upstream's: it passes, with
// the inputResponses, even one that names the proxy's own question.
func TestProxyAskModernForeignState(t *testing.T) {
	c := start(t, "-server-id", "everything")
	c.send(modernCall(1, "echo", `{"path":"x"}`, modernAsker, `"requestState":"0123456789abcdef0123456789abcdef","inputResponses":{"oarc/approve":{"action":"accept","content":{"approve":true}}}`))
	r := resultOf(t, c.recv())
	if got := strings.Join(texts(r), "|"); !strings.Contains(got, "with a requestState 0123456789abcdef0123456789abcdef") {
		t.Errorf("a requestState the proxy never sent is the upstream's, passed on: got %v", r)
	}
}

// The round whose question goes back in the result is only a preview:
// the call is one action, and its occurrence is the retry that brings the
// answer. The approved call reads no earlier identical call (the nudge of
// a repeated call, which the example pack's REPEAT_NUDGE gives, does not
// fire: the "yes" case above), and only the retry has a decision record.
func TestProxyAskModernOneRecord(t *testing.T) {
	records := filepath.Join(t.TempDir(), "rec.jsonl")
	c := start(t, "-server-id", "everything", "-records", records)
	c.send(modernCall(1, "deploy", `{"path":"prod"}`, modernAsker, ""))
	state := inputRequest(t, resultOf(t, c.recv()), "This action needs a person's approval before it runs.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY")
	c.send(modernCall(2, "deploy", `{"path":"prod"}`, modernAsker, `"requestState":"`+state+`","inputResponses":{"oarc/approve":{"action":"accept","content":{"approve":true}}}`))
	if r := resultOf(t, c.recv()); r["isError"] == true {
		t.Fatalf("approved call: %v", r)
	}
	// A third call whose record comes after the others': once it is
	// there, every record of the first two is too.
	c.send(modernCall(3, "echo", `{"path":"x"}`, modernMeta, ""))
	c.recv()
	monitoredIn(t, records, 3)
	b, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for line := range strings.Lines(string(b)) {
		var r runtime.Record
		if json.Unmarshal([]byte(line), &r) == nil && r.Anchor == "tool.pre_invoke" {
			calls = append(calls, string(r.Call)+" "+r.Decision)
		}
	}
	if !slices.Equal(calls, []string{"2 ask", "3 allow"}) {
		t.Errorf("decision records at tool.pre_invoke: want the retry's and the third call's, got %v", calls)
	}
}

// The questions sent back and never answered are bounded: the oldest is
// forgotten (its answer is then none, and the call is asked about again),
// the newest still counts.
func TestProxyAskModernBounded(t *testing.T) {
	c := start(t, "-server-id", "everything")
	const question = "This action needs a person's approval before it runs.\nA person approves every deploy\nFix: Say what the deploy changes.\nCode: ASK_DEPLOY"
	yes := `"inputResponses":{"oarc/approve":{"action":"accept","content":{"approve":true}}}`
	var first, last string
	for i := range maxAsked + 1 {
		c.send(modernCall(i, "deploy", `{"path":"prod"}`, modernAsker, ""))
		last = inputRequest(t, resultOf(t, c.recv()), question)
		if i == 0 {
			first = last
		}
	}
	c.send(modernCall(-1, "deploy", `{"path":"prod"}`, modernAsker, `"requestState":"`+first+`",`+yes))
	inputRequest(t, resultOf(t, c.recv()), question)
	c.send(modernCall(-2, "deploy", `{"path":"prod"}`, modernAsker, `"requestState":"`+last+`",`+yes))
	if r := resultOf(t, c.recv()); r["isError"] == true || strings.Join(texts(r), "|") != "hello from prod" {
		t.Errorf("the newest question's answer: want the call forwarded, got %v", r)
	}
}

// A preview is not observed by the rule store's trials either: a
// candidate that fires on a call of a 2026-07-28 client (previewed, then
// evaluated) has one monitored firing, not two.
func TestProxyAskModernTrialOnce(t *testing.T) {
	store := filepath.Join(t.TempDir(), "rules.jsonl")
	c := startWith(t, rulesConfig(t, testPacks), "-server-id", "everything", "-rules", store)
	c.init()
	if text, _, _ := c.callText(1, "rule_add", echoForce); !strings.HasPrefix(text, "Added ECHO_FORCE") {
		t.Fatalf("rule_add: %q", text)
	}
	c.send(modernCall(2, "echo", `{"text":"force push"}`, modernAsker, ""))
	if r := resultOf(t, c.recv()); r["isError"] == true {
		t.Fatalf("a monitored candidate must not block: %v", r)
	}
	if text, _, _ := c.callText(3, "rule_status", `{"id":"ECHO_FORCE"}`); !strings.Contains(text, "fired in 1/5, 1 monitored firings") {
		t.Errorf("rule_status: want one monitored firing, got %q", text)
	}
}
