package proxy

import (
	"encoding/json"
	"strings"
	"testing"
)

// modernMeta is the _meta a client of MCP 2026-07-28 puts on every
// request (the MCP Python SDK's Client, which probes server/discover and
// never sends initialize to a server of that version).
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// MCP 2026-07-28 makes resultType a required member of every result
// ("Servers implementing this protocol version MUST include this field"),
// and the MCP Python SDK's Client rejects a CallToolResult without it
// (a pydantic ValidationError: "CallToolResult.resultType Field
// required"). The results the proxy makes itself (a block, a refusal
// before the server id is known) had none, so a Python agent saw an
// exception instead of the rule's rejection. A request of an earlier
// version still gets the result as before.
func TestProxyModernResultType(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"move_file","arguments":{"source":"/a","destination":"/b"},` + modernMeta + `}}`)
	r := resultOf(t, c.recv())
	if r["isError"] != true || r["resultType"] != "complete" {
		t.Errorf("a block in a 2026-07-28 session: want isError and resultType complete, got %v", r)
	}
	// Withheld after the call (a result that is no CallToolResult):
	// the rejection is the proxy's too.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/not-a-result"},` + modernMeta + `}}`)
	r = resultOf(t, c.recv())
	if r["isError"] != true || r["resultType"] != "complete" {
		t.Errorf("a result withheld in a 2026-07-28 session: want isError and resultType complete, got %v", r)
	}
	c.send(call(2, "move_file", `{"source":"/a","destination":"/b"}`))
	r = resultOf(t, c.recv())
	if _, ok := r["resultType"]; ok || r["isError"] != true {
		t.Errorf("a block in a session of an earlier version: want it as before, got %v", r)
	}

	// Without -server-id and without initialize (a 2026-07-28 client does
	// not send one), a call is refused with a result: typed too.
	d := start(t)
	d.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/x"},` + modernMeta + `}}`)
	r = resultOf(t, d.recv())
	if r["isError"] != true || r["resultType"] != "complete" {
		t.Errorf("a refusal in a 2026-07-28 session: want isError and resultType complete, got %v", r)
	}
}

// A request the upstream does not answer within -timeout gets the proxy's
// error, and the proxy stops waiting; MCP says the sender that times out
// a request "SHOULD issue a cancellation notification for that request
// and stop waiting". Without it the upstream went on with a tool call
// the client was told had failed (a write the agent then retries), its
// result dropped. The proxy now cancels it upstream, under the id the
// upstream knows it by.
func TestProxyTimeoutCancelsUpstream(t *testing.T) {
	// -timeout also bounds initialize, which waits for the fake upstream
	// (this test binary, a race binary under -race) to start: 300ms was
	// too short for that on a loaded machine under .ci/run.
	c := start(t, "-server-id", "fs", "-timeout", "2s")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/cancel"}`))
	if m := c.recv(); m["id"] != float64(1) || m["error"] == nil {
		t.Fatalf("want the timeout error of id 1, got %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"x/cancels"}`)
	m := c.recv()
	r := resultOf(t, m)
	if r["target"] != true || r["others"] != float64(0) {
		t.Errorf("the upstream's cancellations after the timeout: want the call's and no other, got %v", r)
	}
}

// The proxy refuses task-augmented tools/call (a task's result would
// reach the client unevaluated), yet it relayed the upstream's
// capabilities.tasks.requests.tools.call, by which a server of MCP
// 2025-11-25 tells clients they may augment calls with a task
// (server-everything declares it, and the MCP Python SDK's experimental
// call_tool_as_task reads it): a client that took the proxy at its word
// got -32602 for every such call. The capability is left out of the
// initialize result; the rest of tasks (list, cancel) passes.
func TestProxyTasksCapabilityWithheld(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r := resultOf(t, c.recv())
	caps, _ := r["capabilities"].(map[string]any)
	tasks, _ := caps["tasks"].(map[string]any)
	if caps["tools"] == nil || tasks == nil || tasks["list"] == nil || tasks["cancel"] == nil {
		t.Fatalf("want the other capabilities relayed, got %v", caps)
	}
	if reqs, ok := tasks["requests"].(map[string]any); ok && reqs["tools"] != nil {
		t.Errorf("the proxy declares task-augmented tools/call, which it refuses: %v", caps)
	}
	if r["protocolVersion"] != "2025-11-25" {
		t.Errorf("initialize result: %v", r)
	}
}

// A server of MCP's tasks extension may answer a plain tools/call with a
// task (resultType "task", a task id) whose result the client then fetches
// by the task id, a request the guard does not evaluate. The guard took
// such an answer for a successful call with no content and relayed it,
// task id and all, so the tool's output would reach the client
// unevaluated. A result whose resultType the guard does not know
// (anything but complete and input_required) is withheld with OAR_GUARD.
func TestProxyTaskResultWithheld(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/task"}`))
	raw := c.recvRaw()
	if strings.Contains(raw, awsKey) || strings.Contains(raw, "taskId") {
		t.Fatalf("the task reached the client: %s", raw)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, m)
	if r["isError"] != true || r["_meta"].(map[string]any)["oarc/code"] != "OAR_GUARD" {
		t.Errorf("want the call blocked with OAR_GUARD, got %v", r)
	}
}
