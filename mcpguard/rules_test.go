package mcpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/mcpguard/internal/testrules"
	"github.com/oarc/oarc/rulestore"
	"github.com/oarc/oarc/runtime"
)

// fakeEverything is a server with server-everything's echo and a tool of
// its own named rule_status (as a rule store's tool is); calls counts the
// calls that reached it.
func fakeEverything(calls *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "everything", Version: "1"}, nil)
	for _, name := range []string{"echo", "rule_status"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: &jsonSchemaObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "from the server: " + name}}}, nil
		})
	}
	return s
}

// connectStore runs fakeEverything and a client over in-memory transports
// with the middleware on side, the guard's evaluator given the rule store
// of file and cfg.Tools its tools (unless withTools is false).
func connectStore(t *testing.T, side, file string, withTools bool, calls *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	set, diags := compiler.Load([]string{"../examples/mcp/stock", "../examples/mcp/project", "../guard/testdata/everything"}, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	st, err := rulestore.Open(file, set, rulestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	gs, err := testrules.Guard(lycaon.Env{}, nil, runtime.WithRuleStore(st))
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(gs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything", Configured: true, Enabled: true}}
	if withTools {
		for _, tl := range st.Tools() {
			cfg.Tools = append(cfg.Tools, guard.Tool(tl))
		}
	}
	srv := fakeEverything(calls)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	if side == "client" {
		client.AddSendingMiddleware(mcpguard.Client(g, cfg))
	} else {
		srv.AddReceivingMiddleware(mcpguard.Server(g, cfg))
	}
	ct, stt := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// callText calls a tool and returns its text, isError and
// _meta["oarc/code"].
func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	code, _ := res.Meta["oarc/code"].(string)
	return strings.Join(textOf(res), "|"), res.IsError, code
}

func storeStatus(t *testing.T, file, id string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	status := ""
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, `{"id":"`+id+`"`) {
			i := strings.Index(line, `"status":"`)
			status = strings.SplitN(line[i+len(`"status":"`):], `"`, 2)[0]
		}
	}
	return status
}

func echoForce(id, word string) map[string]any {
	return map[string]any{
		"rule": map[string]any{"oar": "1.0", "id": id, "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
			"selector": map[string]any{"mcp_server_id": "everything", "mcp_tool_name": "echo"},
			"requires": map[string]any{"profiles": []string{"tool", "mcp"}},
			"when":     `tool_arg_string("text").contains("` + word + `")`,
			"copy":     map[string]any{"title": "No " + word + " in echo"}},
		"rationale": word + " broke it",
	}
}

// TestMiddlewareRuleStore: Config.Tools are listed beside the server's
// (narrowed by the allowlist: rules_search, which no allow rule allows,
// is hidden and blocked; the server's own rule_status is left out) and
// answered by the guard, never by the server; rule_add writes a candidate
// that the next call sees (monitored: the call goes ahead, the trial
// counts it); a rule that does not check comes back with its
// diagnostics; KEEP_RULES, a pack rule at tool.pre_invoke, blocks a
// retirement before the handler runs; retire and list work. Both sides.
func TestMiddlewareRuleStore(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			var calls atomic.Int32
			file := filepath.Join(t.TempDir(), "rules.jsonl")
			cs := connectStore(t, side, file, true, &calls)
			if got := toolNames(t, cs); got != "echo rules_list rule_add rule_retire rule_status" {
				t.Fatalf("tools/list: %s", got)
			}
			text, isErr, _ := callText(t, cs, "rule_add", echoForce("ECHO_FORCE", "force"))
			if isErr || !strings.HasPrefix(text, "Added ECHO_FORCE as a candidate") || storeStatus(t, file, "ECHO_FORCE") != "candidate" {
				t.Fatalf("rule_add: %q %v (store: %q)", text, isErr, storeStatus(t, file, "ECHO_FORCE"))
			}
			if text, isErr, _ = callText(t, cs, "echo", map[string]any{"text": "force push"}); isErr || text != "from the server: echo" {
				t.Fatalf("a candidate must not block: %q", text)
			}
			if text, _, _ = callText(t, cs, "rule_status", map[string]any{"id": "ECHO_FORCE"}); !strings.Contains(text, "(in force, monitored)") || !strings.Contains(text, "fired in 1/5, 1 monitored firings") {
				t.Errorf("rule_status after a monitored firing: %q", text)
			}
			text, _, _ = callText(t, cs, "rule_add", map[string]any{"rule": map[string]any{"oar": "1.0", "id": "BAD_RULE", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block", "when": `tool_arg_strin("x") == "y"`}, "rationale": "r"})
			if !strings.Contains(text, "when:1:1") || !strings.Contains(text, "tool_arg_string") || storeStatus(t, file, "BAD_RULE") != "" {
				t.Errorf("a rule that does not check: %q", text)
			}
			if text, _, _ = callText(t, cs, "rules_list", nil); !strings.Contains(text, "- ECHO_FORCE (candidate, trial: 1/5 sessions, pending)") {
				t.Errorf("rules_list: %q", text)
			}
			if _, isErr, code := callText(t, cs, "rules_search", map[string]any{"query": "echo"}); !isErr || code != "NOT_ALLOWLISTED" {
				t.Errorf("rules_search is not allowlisted: %v %s", isErr, code)
			}
			callText(t, cs, "rule_add", echoForce("KEEP_ECHO", "keep"))
			if _, isErr, code := callText(t, cs, "rule_retire", map[string]any{"id": "KEEP_ECHO", "reason": "r"}); !isErr || code != "KEEP_RULES" || storeStatus(t, file, "KEEP_ECHO") != "candidate" {
				t.Errorf("KEEP_RULES must block the retirement: %v %s (store: %s)", isErr, code, storeStatus(t, file, "KEEP_ECHO"))
			}
			// KEEP_RULES reads tool_arg_string("id"), "" for a member
			// "ID": the store's tool must not read that member as the id.
			if text, _, _ = callText(t, cs, "rule_retire", map[string]any{"ID": "KEEP_ECHO", "reason": "r"}); !strings.Contains(text, "do not match the tool's schema") || storeStatus(t, file, "KEEP_ECHO") != "candidate" {
				t.Errorf("rule_retire with a member ID: %q (store: %s)", text, storeStatus(t, file, "KEEP_ECHO"))
			}
			if text, _, _ = callText(t, cs, "rule_retire", map[string]any{"id": "ECHO_FORCE", "reason": "too broad"}); !strings.HasPrefix(text, "Retired ECHO_FORCE: too broad.") || storeStatus(t, file, "ECHO_FORCE") != "retired" {
				t.Errorf("rule_retire: %q", text)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d calls reached the server; want 1 (the echo)", n)
			}
		})
	}
}

// Without Config.Tools nothing changes: the server's tools/list narrowed
// (its rule_status included) and its rule_status answered by the server.
func TestMiddlewareWithoutTools(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			var calls atomic.Int32
			cs := connectStore(t, side, filepath.Join(t.TempDir(), "rules.jsonl"), false, &calls)
			if got := toolNames(t, cs); got != "echo rule_status" {
				t.Fatalf("tools/list: %s", got)
			}
			if text, _, _ := callText(t, cs, "rule_status", map[string]any{"id": "X"}); text != "from the server: rule_status" || calls.Load() != 1 {
				t.Errorf("rule_status: %q (calls %d)", text, calls.Load())
			}
		})
	}
}

// A handler's error is the host's: isError with its text.
func TestMiddlewareToolHostError(t *testing.T) {
	var calls atomic.Int32
	set, err := testrules.Guard(lycaon.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mcpguard.Config{Server: guard.Server{ID: "everything"}, Tools: []guard.Tool{{Name: "rules_list", Schema: []byte(`{"type":"object"}`),
		Call: func(context.Context, json.RawMessage) (string, error) { return "", errors.New("disk full") }}}}
	srv := fakeEverything(&calls)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	client.AddSendingMiddleware(mcpguard.Client(g, cfg))
	ct, stt := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, _ := srv.Connect(ctx, stt, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	text, isErr, _ := callText(t, cs, "rules_list", nil)
	if !isErr || !strings.HasPrefix(text, "rules_list failed: disk full") || calls.Load() != 0 {
		t.Errorf("a host error: %q %v (calls %d)", text, isErr, calls.Load())
	}
}
