package proxy

import (
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
