package proxy

import (
	"strings"
	"testing"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// Rules that name a server (a selector on mcp_server_id: fs) apply to
// none of the calls of a proxy that took its server id from the
// upstream's serverInfo.name (fake_fs_server): an operator who forgot
// -server-id saw every such block let through, and nothing on stderr but
// the id. The proxy says which ids the rules name and that -server-id is
// needed.
func TestProxyServerIDNotNamedByRules(t *testing.T) {
	set := &blocklist{tool: "mcp_fs_write_file"}
	cfg := Config{Set: func(...runtime.Option) (guard.Set, error) { return set, nil }, ServerIDs: []string{"fs"}}
	c := startWith(t, cfg)
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/a"}`))
	c.callTextOf(1)
	errs := c.errs.String()
	if !strings.Contains(errs, "server id fake_fs_server") || !strings.Contains(errs, "name the server id fs") || !strings.Contains(errs, "-server-id") {
		t.Fatalf("stderr does not say that the rules name another server id:\n%s", errs)
	}

	// The id the rules name, learnt or given: nothing to say.
	for _, ids := range [][]string{{"fake_fs_server"}, nil} {
		cfg.ServerIDs = ids
		c := startWith(t, cfg)
		c.init()
		c.send(call(1, "read_text_file", `{"path":"/a"}`))
		c.callTextOf(1)
		if errs := c.errs.String(); strings.Contains(errs, "name the server id") {
			t.Fatalf("rules naming %v: stderr warns:\n%s", ids, errs)
		}
	}
	cfg.ServerIDs = []string{"fs"}
	c = startWith(t, cfg, "-server-id", "other")
	c.init()
	c.send(call(1, "read_text_file", `{"path":"/a"}`))
	c.callTextOf(1)
	if errs := c.errs.String(); !strings.Contains(errs, "name the server id fs") {
		t.Fatalf("-server-id other, rules naming fs: stderr does not warn:\n%s", errs)
	}
}
