package proxy

import "testing"

// A tools/call with "arguments": null is evaluated with tool_args = {}
// (spec 11: absent or null, an empty map), and was forwarded with null,
// which MCP's schema does not allow (arguments is an object, or absent):
// a server reads it its own way (the TypeScript SDK's refuses the call),
// not necessarily as the {} the rules read. The proxy forwards what it evaluated, {}; absent
// arguments, which MCP allows, stay absent.
func TestProxyNullArgumentsForwardedAsEvaluated(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	for i, tc := range []struct{ params, want string }{
		{`{"name":"read_text_file","arguments":null}`, "arguments {}"},
		{`{"name":"read_text_file"}`, "arguments absent"},
		{`{"name":"read_text_file","arguments":{}}`, "arguments {}"},
	} {
		c.send(`{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":` + tc.params + `}`)
		r := resultOf(t, c.recv())
		if got := texts(r); len(got) == 0 || got[0] != tc.want {
			t.Errorf("params %s: the upstream got %q, want %q", tc.params, got, tc.want)
		}
	}
}
