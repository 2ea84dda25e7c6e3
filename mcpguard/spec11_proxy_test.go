package mcpguard_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/proxy"
	"github.com/oarc/oarc/runtime"
)

// Spec 11, Occurrences: without -server-id the proxy's server id is the
// upstream's serverInfo.name, lowercased, each run of characters other
// than a-z0-9 one "_", no "_" at either end ("Spec-11  Server!" is
// spec_11_server). So tool = mcp_spec_11_server_probe, which ALLOW_SRV
// (mcp_server_id: srv) does not allow. Sessions and records: -records
// appends one record per occurrence, each with "call" holding the
// JSON-RPC request id, and the fields of section 10.
func TestSpec11ProxyDefaultServerIDAndRecords(t *testing.T) {
	// A client of 2025-06-18: one of 2026-07-28 sends no initialize, and
	// without -server-id its calls are blocked (docs/mcp.md).
	f := s11Proxy(t, s11Opts{proxyFlags: []string{"-server-id", ""}, version: "2025-06-18"})
	res, _ := f.mustCall(t, "probe", map[string]any{"k": "v"})
	wantBlock(t, f, res, "S11_NOT_ALLOWED")
	if got := f.ran(t); len(got) != 0 {
		t.Errorf("ran %q", got)
	}
	recs := f.recordsWait(t, 1)
	if len(recs) != 1 {
		t.Fatalf("%d records, want one (tool.pre_invoke): %v", len(recs), recs)
	}
	r := recs[0]
	if r["tool"] != "mcp_spec_11_server_probe" || r["anchor"] != "tool.pre_invoke" || r["decision"] != "block" || r["code"] != "S11_NOT_ALLOWED" {
		t.Errorf("record %v", r)
	}
	if r["call"] == nil || fmt.Sprint(r["call"]) == "" {
		t.Errorf("record without the JSON-RPC request id in call: %v", r)
	}
	for _, k := range []string{"time", "pack", "digest", "session", "codes"} {
		if _, ok := r[k]; !ok {
			t.Errorf("record without %s: %v", k, r)
		}
	}
}

// Records of an allowed call: one per anchor evaluated, in order, all
// with the call's id.
func TestSpec11ProxyRecordsPerAnchor(t *testing.T) {
	f := s11Proxy(t, s11Opts{})
	f.mustCall(t, "probe", map[string]any{"k": "v"})
	recs := f.recordsWait(t, 3)
	var anchors []string
	for _, r := range recs {
		anchors = append(anchors, fmt.Sprint(r["anchor"]))
		if r["tool"] != "mcp_srv_probe" || r["call"] == nil || fmt.Sprint(r["call"]) != fmt.Sprint(recs[0]["call"]) {
			t.Errorf("record %v", r)
		}
	}
	if strings.Join(anchors, " ") != "tool.pre_invoke tool.post_invoke content.tool_result" {
		t.Errorf("records at %q", anchors)
	}
}

// A result larger than -max-message never reaches the client, not even
// cut short: the call gets an error or a block, and the key at its end,
// which a transform would have redacted, is not in what the client got.
func TestSpec11ProxyOversizedResult(t *testing.T) {
	f := s11Proxy(t, s11Opts{proxyFlags: []string{"-max-message", "32768"}})
	res, js, err := f.call(t, "big", nil)
	if err == nil && !res.IsError {
		t.Fatalf("an oversized result reached the client: %.200s", js)
	}
	if strings.Contains(js, "xxxxxxxx") || strings.Contains(js, s11AWS) {
		t.Errorf("part of the oversized result reached the client: %.300s", js)
	}
	// The session goes on.
	res, js = f.mustCall(t, "warn_me", nil)
	if res.IsError {
		t.Errorf("after the oversized result: %s", js)
	}
}

// recordsWait reads the records once n are written (they are written
// after the answer), or after a second.
func (f *s11Form) recordsWait(t *testing.T, n int) []map[string]any {
	t.Helper()
	recs := f.recordsRead(t)
	for i := 0; i < 50 && len(recs) < n; i++ {
		time.Sleep(20 * time.Millisecond)
		recs = f.recordsRead(t)
	}
	return recs
}

// Spec 11, Sessions: -session ID names the proxy's session (its records
// carry it); by default each proxy has a fresh random id.
func TestSpec11ProxySessionID(t *testing.T) {
	f := s11Proxy(t, s11Opts{proxyFlags: []string{"-session", "abc-1"}})
	f.mustCall(t, "warn_me", nil)
	recs := f.recordsWait(t, 1)
	if len(recs) == 0 || recs[0]["session"] != "abc-1" {
		t.Errorf("records %v, want session abc-1", recs)
	}
	var ids []any
	for range 2 {
		f := s11Proxy(t, s11Opts{})
		f.mustCall(t, "warn_me", nil)
		recs := f.recordsWait(t, 1)
		if len(recs) == 0 || recs[0]["session"] == nil || recs[0]["session"] == "" {
			t.Fatalf("records %v, want a session id", recs)
		}
		ids = append(ids, recs[0]["session"])
	}
	if ids[0] == ids[1] {
		t.Errorf("two proxies share the session id %v", ids[0])
	}
}

// Spec 11, The proxy: BIN -help lists its flags, the ones spec 11 names
// among them.
func TestSpec11ProxyHelp(t *testing.T) {
	var out, errs strings.Builder
	proxy.Main([]string{"-help"}, strings.NewReader(""), &out, &errs, proxy.Config{
		Set: func(opts ...runtime.Option) (guard.Set, error) { return s11Set(t, s11Opts{}, opts...), nil },
	})
	help := out.String() + errs.String()
	for _, flag := range []string{"-server-id", "-origin", "-trust", "-label", "-session", "-redis", "-records"} {
		if !strings.Contains(help, flag) {
			t.Errorf("-help does not list %s:\n%s", flag, help)
		}
	}
}
