package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/internal/testset"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/runtime"
)

// testPacks are the packs guard/internal/testset is generated from: the
// rule store checks its rules against the same compilation set.
var testPacks = []string{"../../examples/mcp/stock", "../../examples/mcp/project", "../testdata/everything"}

// rulesConfig is the Config that oarc guard -rulestore's main gives: Set
// and Rules opening a rulestore.Store for the set of packs.
func rulesConfig(t *testing.T, packs []string) Config {
	t.Helper()
	set, diags := compiler.Load(packs, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	return Config{
		Set: func(o ...runtime.Option) (guard.Set, error) { return testset.Guard(lycaon.Env{}, nil, o...) },
		Rules: func(path string, warn io.Writer) (*RuleStore, error) {
			st, err := rulestore.Open(path, set, rulestore.Options{Warn: warn})
			if err != nil {
				return nil, err
			}
			rs := &RuleStore{Option: runtime.WithRuleStore(st), Close: st.Close}
			for _, tl := range st.Tools() {
				rs.Tools = append(rs.Tools, guard.Tool(tl))
			}
			return rs, nil
		},
	}
}

func (c *client) listNames(id int) []string {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/list"}`)
	r := resultOf(c.t, c.recv())
	var names []string
	for _, tl := range r["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// callText makes a tools/call and returns its result's text, isError and
// _meta["oarc/code"].
func (c *client) callText(id int, tool, args string) (string, bool, string) {
	c.t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(args)); err != nil {
		c.t.Fatal(err)
	}
	c.send(call(id, tool, b.String()))
	return c.callTextOf(id)
}

// lastRecord is the last record of id in the store file.
func lastRecord(t *testing.T, file, id string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var last map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil && r["id"] == id {
			last = r
		}
	}
	return last
}

// monitoredIn waits for the decision record of request id at
// tool.pre_invoke and returns its monitored rules.
func monitoredIn(t *testing.T, file string, id int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		f, err := os.Open(file)
		if err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var r runtime.Record
				if json.Unmarshal(sc.Bytes(), &r) == nil && string(r.Call) == itoa(id) && r.Anchor == "tool.pre_invoke" {
					f.Close()
					return r.Monitored
				}
			}
			f.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no decision record of call %d", id)
	return nil
}

const echoForce = `{"rule":{"oar":"1.0","id":"ECHO_FORCE","kind":"policy","anchor":"tool.pre_invoke","effect":"block",
	"selector":{"mcp_server_id":"everything","mcp_tool_name":"echo"},"requires":{"profiles":["tool","mcp"]},
	"when":"tool_arg_string(\"text\").contains(\"force\")","copy":{"title":"No force in echo"}},"rationale":"force broke it"}`

// TestProxyRuleStore: with -rules the proxy lists the store's tools beside
// the upstream's (narrowed by the allowlist like any tool of the server:
// rules_search, which no allow rule allows, is hidden and blocked) and
// answers them itself; a rule added through rule_add is a candidate in
// the store at once and the next call sees it monitored; a rule that does
// not check comes back with its diagnostics; list, status and retire
// work; a pack rule at tool.pre_invoke (KEEP_RULES) blocks a retirement
// before the handler runs; an upstream tool named like a store tool is
// left out and its calls never reach the upstream.
func TestProxyRuleStore(t *testing.T) {
	dir := t.TempDir()
	store, records := filepath.Join(dir, "rules.jsonl"), filepath.Join(dir, "rec.jsonl")
	c := startWith(t, rulesConfig(t, testPacks), "-server-id", "everything", "-rules", store, "-records", records)
	c.init()
	if got, want := c.listNames(1), []string{"echo", "rules_list", "rule_add", "rule_retire", "rule_status"}; !slices.Equal(got, want) {
		t.Fatalf("tools/list: %v, want %v", got, want)
	}
	if !strings.Contains(c.errs.String(), "tool rule_status is left out of tools/list") {
		t.Errorf("the shadowed upstream tool is not logged: %s", c.errs.String())
	}
	// A later page (a cursor) does not repeat the store's tools, and still
	// leaves the shadowed one out.
	c.send(`{"jsonrpc":"2.0","id":100,"method":"tools/list","params":{"cursor":"p2"}}`)
	if tools := resultOf(t, c.recv())["tools"].([]any); len(tools) != 1 || tools[0].(map[string]any)["name"] != "echo" {
		t.Errorf("tools/list, page 2: %v", tools)
	}
	// A cursor that is not a string is not a first page either (the fake
	// upstream answers it as a later page).
	c.send(`{"jsonrpc":"2.0","id":101,"method":"tools/list","params":{"cursor":7}}`)
	if tools := resultOf(t, c.recv())["tools"].([]any); len(tools) != 1 || tools[0].(map[string]any)["name"] != "echo" {
		t.Errorf("tools/list, a cursor that is not a string: %v", tools)
	}

	text, isErr, _ := c.callText(2, "rule_add", echoForce)
	if isErr || !strings.HasPrefix(text, "Added ECHO_FORCE as a candidate") {
		t.Fatalf("rule_add: %q %v", text, isErr)
	}
	if r := lastRecord(t, store, "ECHO_FORCE"); r == nil || r["status"] != "candidate" {
		t.Fatalf("the store's record: %v", r)
	}
	text, isErr, _ = c.callText(3, "echo", `{"text":"force push"}`)
	if isErr || !strings.HasPrefix(text, "hello from") {
		t.Fatalf("a monitored candidate must not block: %q", text)
	}
	if m := monitoredIn(t, records, 3); !slices.Equal(m, []string{"ECHO_FORCE"}) {
		t.Errorf("monitored in the call after rule_add: %v", m)
	}

	text, isErr, _ = c.callText(4, "rule_add", `{"rule":{"oar":"1.0","id":"BAD_RULE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","when":"tool_arg_strin(\"x\") == \"y\""},"rationale":"r"}`)
	if isErr || !strings.Contains(text, "when:1:1") || !strings.Contains(text, "tool_arg_string") || strings.HasPrefix(text, "Added") {
		t.Fatalf("rule_add of a rule that does not check: %q", text)
	}
	if r := lastRecord(t, store, "BAD_RULE"); r != nil {
		t.Fatalf("a rejected rule is in the store: %v", r)
	}

	if text, _, _ = c.callText(5, "rules_list", `{}`); !strings.Contains(text, "- ECHO_FORCE (candidate, trial: 1/5 sessions, pending): tool.pre_invoke block: No force in echo") {
		t.Errorf("rules_list: %q", text)
	}
	if text, _, _ = c.callText(6, "rule_status", `{"id":"ECHO_FORCE"}`); !strings.HasPrefix(text, "ECHO_FORCE: candidate since") || !strings.Contains(text, "(in force, monitored)") || !strings.Contains(text, "fired in 1/5") {
		t.Errorf("rule_status (the proxy's, not the upstream's): %q", text)
	}
	if text, isErr, code := c.callText(7, "rules_search", `{"query":"echo"}`); !isErr || code != "NOT_ALLOWLISTED" {
		t.Errorf("rules_search is not allowlisted: %q %v %s", text, isErr, code)
	}

	keep := strings.NewReplacer("ECHO_FORCE", "KEEP_ECHO", "force", "keep").Replace(echoForce)
	if text, _, _ = c.callText(8, "rule_add", keep); !strings.HasPrefix(text, "Added KEEP_ECHO") {
		t.Fatalf("rule_add KEEP_ECHO: %q", text)
	}
	if text, isErr, code := c.callText(9, "rule_retire", `{"id":"KEEP_ECHO","reason":"r"}`); !isErr || code != "KEEP_RULES" {
		t.Errorf("KEEP_RULES must block the retirement: %q %v %s", text, isErr, code)
	}
	if r := lastRecord(t, store, "KEEP_ECHO"); r["status"] != "candidate" {
		t.Errorf("a blocked retirement ran: %v", r)
	}
	// The rules read tool_args as written: a member named like id in
	// another case is not the id the store's tool reads, or KEEP_RULES,
	// which sees the id ECHO_FORCE, would let KEEP_ECHO be retired. The
	// guard blocks such a call before any tool reads it (guard/fold.go).
	if text, isErr, code := c.callText(90, "rule_retire", `{"id":"ECHO_FORCE","Id":"KEEP_ECHO","reason":"r"}`); !isErr || code != "OAR_GUARD" ||
		!strings.Contains(text, "differ only by case") {
		t.Errorf("rule_retire with a member Id: %q %v %s", text, isErr, code)
	}
	if r := lastRecord(t, store, "KEEP_ECHO"); r["status"] != "candidate" {
		t.Errorf("KEEP_ECHO was retired through a member Id the rules did not read: %v", r)
	}
	if text, isErr, _ = c.callText(10, "rule_retire", `{"id":"ECHO_FORCE","reason":"too broad"}`); isErr || !strings.HasPrefix(text, "Retired ECHO_FORCE: too broad.") {
		t.Errorf("rule_retire: %q", text)
	}
	if r := lastRecord(t, store, "ECHO_FORCE"); r["status"] != "retired" || r["reason"] != "too broad" {
		t.Errorf("the retired record: %v", r)
	}
	c.callText(11, "echo", `{"text":"force"}`)
	if m := monitoredIn(t, records, 11); len(m) != 0 {
		t.Errorf("a retired rule is still in force: %v", m)
	}
}

// TestProxyRuleStoreHostError: a handler's error is the host's (the
// store could not be written): the call is answered with isError and the
// error's text, evaluated after the call like an upstream's failure, and
// never forwarded.
func TestProxyRuleStoreHostError(t *testing.T) {
	cfg := rulesConfig(t, testPacks)
	open := cfg.Rules
	cfg.Rules = func(path string, warn io.Writer) (*RuleStore, error) {
		rs, err := open(path, warn)
		if err == nil {
			rs.Tools[len(rs.Tools)-1].Call = func(context.Context, json.RawMessage) (string, error) {
				return "", errors.New("rules.jsonl: no space left on device")
			}
		}
		return rs, err
	}
	c := startWith(t, cfg, "-server-id", "everything", "-rules", filepath.Join(t.TempDir(), "rules.jsonl"))
	c.init()
	text, isErr, _ := c.callText(1, "rule_status", `{"id":"X"}`)
	// TOOL_FAILED (a nudge at tool.post_invoke on an isError result) sees
	// it as it sees an upstream's failure.
	if !isErr || text != "rule_status failed: rules.jsonl: no space left on device|The tool call failed\nFix: Read the error before retrying.\nCode: TOOL_FAILED" {
		t.Errorf("a host error: %q %v", text, isErr)
	}
}

// TestProxyWithoutRules: without -rules nothing changes: tools/list is the
// upstream's narrowed (its rule_status included, no store tools) and a
// call of rule_status reaches the upstream.
func TestProxyWithoutRules(t *testing.T) {
	c := startWith(t, rulesConfig(t, testPacks), "-server-id", "everything")
	c.init()
	if got, want := c.listNames(1), []string{"echo", "rule_status"}; !slices.Equal(got, want) {
		t.Fatalf("tools/list: %v, want %v", got, want)
	}
	if text, _, _ := c.callText(2, "rule_status", `{"path":"/x"}`); text != "hello from /x" {
		t.Errorf("rule_status without -rules goes upstream: %q", text)
	}
}

// A proxy built without rule store support refuses -rules; a store of
// another compilation set stops the proxy before it serves.
func TestProxyRulesUsage(t *testing.T) {
	var out, errb strings.Builder
	cfg := Config{Set: func(o ...runtime.Option) (guard.Set, error) { return testset.Guard(lycaon.Env{}, nil, o...) }}
	if code := Main([]string{"-rules", "x.jsonl", "--", "true"}, strings.NewReader(""), &out, &errb, cfg); code != 2 || !strings.Contains(errb.String(), "without rule store support") {
		t.Errorf("-rules without support: %d %s", code, errb.String())
	}
	errb.Reset()
	other := rulesConfig(t, testPacks[:1])
	if code := Main([]string{"-rules", filepath.Join(t.TempDir(), "r.jsonl"), "--", "true"}, strings.NewReader(""), &out, &errb, other); code != 1 || !strings.Contains(errb.String(), "-rules") {
		t.Errorf("a store of another set: %d %s", code, errb.String())
	}
}
