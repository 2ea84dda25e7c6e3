package proxy

import (
	"strings"
	"testing"
)

// A tools/call whose params name the arguments otherwise ("Arguments",
// "argumentſ" with U+017F), with no "arguments" beside them: the guard
// evaluates the call without arguments, and an upstream in Go decoding
// the params with encoding/json reads them as the arguments, so the tool
// ran with arguments no rule read. Refused, as a top-level member spelt
// otherwise is (folded).
func TestReviewRvYParamsNameSpeltOtherwise(t *testing.T) {
	c := start(t, "-server-id", "fs")
	c.init()
	for i, params := range []string{
		`{"name":"read_text_file","Arguments":{"path":"/secret"}}`,
		`{"name":"read_text_file","argumentſ":{"path":"/secret"}}`,
		`{"name":"write_file","ARGUMENTS":{"path":"/o","content":"x"}}`,
	} {
		c.send(`{"jsonrpc":"2.0","id":` + string(rune('1'+i)) + `,"method":"tools/call","params":` + params + `}`)
		m := c.recv()
		if _, ok := m["error"]; !ok {
			t.Errorf("params %s: want an error, never forwarded; got %v", params, m)
		}
		if r, ok := m["result"].(map[string]any); ok && strings.Contains(strings.Join(texts(r), "|"), "hello from /") {
			t.Errorf("params %s: the upstream ran the call with arguments the guard did not read: %v", params, r)
		}
	}
	if c.written() {
		t.Error("write_file reached the upstream with arguments the guard did not read")
	}
}
