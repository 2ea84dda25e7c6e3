package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oarc/oarc/testkit/long"
)

// The test binary is also a fake MCP server for the proxies the tests
// build: with OARC_CLI_FAKE_MCP set it serves stdin and stdout.
func TestMain(m *testing.M) {
	if os.Getenv("OARC_CLI_FAKE_MCP") != "" {
		fakeMCP(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeMCP answers initialize, lists one tool, echo, and answers its calls
// with "echoed".
func fakeMCP(in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		res := `{}`
		switch m.Method {
		case "initialize":
			res = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"everything","version":"1"}}`
		case "tools/list":
			res = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			res = `{"content":[{"type":"text","text":"echoed"}]}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, res)
	}
}

var guardTestPacks = []string{"-pack", "../../examples/mcp/stock", "-pack", "../../examples/mcp/project", "-pack", "../../guard/testdata/everything"}

// TestGuardRuleStore: oarc guard -rulestore builds a proxy that takes
// -rules: the packs are embedded and load at start with the digest of the
// compiled set (else runtime.WithRuleStore refuses the store), the
// store's tools are listed beside the upstream's and rule_add writes a
// candidate. A proxy built without it refuses -rules. The sizes of both
// binaries are logged (docs/mcp.md quotes them).
func TestGuardRuleStore(t *testing.T) {
	long.Require(t, "builds two proxies with the go command")
	dir := t.TempDir()
	plain, withRules := filepath.Join(dir, "plain"), filepath.Join(dir, "rules")
	if code, _, errs := run(append(append([]string{"guard"}, guardTestPacks...), "-o", plain)...); code != ExitOK {
		t.Fatalf("oarc guard: %d\n%s", code, errs)
	}
	if code, _, errs := run(append(append([]string{"guard", "-rulestore", "../.."}, guardTestPacks...), "-o", withRules)...); code != ExitOK {
		t.Fatalf("oarc guard -rulestore: %d\n%s", code, errs)
	}
	for _, b := range []string{plain, withRules} {
		if st, err := os.Stat(b); err == nil {
			t.Logf("%s: %d bytes", filepath.Base(b), st.Size())
		}
	}
	store := filepath.Join(dir, "rules.jsonl")
	out, err := exec.Command(plain, "-rules", store, "--", "true").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "without rule store support") {
		t.Errorf("a proxy without -rulestore given -rules: %v\n%s", err, out)
	}

	cmd := exec.Command(withRules, "-server-id", "everything", "-rules", store, "--", os.Args[0])
	cmd.Env = append(os.Environ(), "OARC_CLI_FAKE_MCP=1")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rule_add","arguments":{"rule":{"oar":"1.0","id":"ECHO_FORCE","kind":"policy","anchor":"tool.pre_invoke","effect":"block","selector":{"mcp_tool_name":"echo"},"requires":{"profiles":["tool","mcp"]},"when":"tool_arg_string(\"text\").contains(\"force\")"},"rationale":"r"}}}`,
	}, "\n") + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("the proxy: %v\n%s", err, stderr.String())
	}
	answers := map[float64]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(string(stdout)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		id, _ := m["id"].(float64)
		answers[id], _ = m["result"].(map[string]any)
	}
	var names []string
	for _, tl := range answers[1]["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	if strings.Join(names, " ") != "echo rules_list rule_add rule_retire rule_status" {
		t.Errorf("tools/list: %v", names)
	}
	text, _ := json.Marshal(answers[2])
	if !strings.Contains(string(text), "Added ECHO_FORCE as a candidate") {
		t.Errorf("rule_add: %s\n%s", text, stderr.String())
	}
	data, _ := os.ReadFile(store)
	if !strings.Contains(string(data), `"id":"ECHO_FORCE"`) || !strings.Contains(string(data), `"status":"candidate"`) {
		t.Errorf("the store: %s", data)
	}

	// A host catalog named by pack.yaml (../acme.catalog.yaml, outside the
	// pack) is embedded too: the proxy loads the set with the compiled
	// digest, or it would refuse the store and exit 1.
	acme := filepath.Join(dir, "acme")
	if code, _, errs := run("guard", "-rulestore", "../..", "-pack", "../../examples/acme/rules", "-o", acme); code != ExitOK {
		t.Fatalf("oarc guard -rulestore (acme): %d\n%s", code, errs)
	}
	cmd = exec.Command(acme, "-rules", filepath.Join(dir, "acme.jsonl"), "--", os.Args[0])
	cmd.Env = append(os.Environ(), "OARC_CLI_FAKE_MCP=1")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `"name":"rule_add"`) {
		t.Errorf("the acme proxy with -rules: %v\n%s", err, out)
	}
}

// TestGuardRuleStoreUsage: -rulestore needs pack directories (a proxy
// embeds them) and the oarc module's directory; both are refused before
// anything is built.
func TestGuardRuleStoreUsage(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := run("guard", "-rulestore", "../..", "-pack", "../../guard/testdata/everything/policy/KEEP_RULES.yaml", "-o", filepath.Join(dir, "g"))
	if code != ExitUsage || !strings.Contains(errs, "is a rule file; give pack directories") {
		t.Errorf("a rule file: %d %s", code, errs)
	}
	code, _, errs = run(append(append([]string{"guard", "-rulestore", dir}, guardTestPacks...), "-o", filepath.Join(dir, "g"))...)
	if code != ExitFailure || !strings.Contains(errs, "not the oarc module") {
		t.Errorf("not the oarc module: %d %s", code, errs)
	}
}
