package mcpguard_test

// End to end: the guard (the proxy `oarc guard` builds, and the middleware
// on a client and on a server) in front of the real MCP servers
// @modelcontextprotocol/server-filesystem and server-everything, driven by
// the Go SDK's client and by the TypeScript SDK's client. The npm packages
// are installed, pinned, in OARC_NPM_DIR (default
// $XDG_CACHE_HOME/oarc-npm, else ~/.cache/oarc-npm) by .ci/run; without
// node or the packages these tests skip with the reason, unless
// OARC_MCP_E2E=1 (set by .ci/run) makes them required.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/mcpguard/internal/testrules"
	"github.com/oarc/oarc/runtime"
)

// The pinned versions .ci/run installs (npm view shows them current).
const (
	VersionServerFilesystem = "2026.8.31"
	VersionServerEverything = "2026.8.31"
	VersionSDK              = "1.32.2"
)

// bridgeArg, as the test binary's first argument, makes it the bridge.
const bridgeArg = "oarc-e2e-bridge"

const ghToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

func TestMain(m *testing.M) {
	// The TypeScript client starts its server with a minimal environment,
	// so the bridge is asked for by its first argument.
	if len(os.Args) > 1 && os.Args[1] == bridgeArg {
		os.Exit(bridge(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == deployArg {
		os.Exit(serveDeploy())
	}
	if len(os.Args) > 1 && os.Args[1] == parityArg {
		os.Exit(serveParity())
	}
	if len(os.Args) > 1 && os.Args[1] == spec11RawArg {
		os.Exit(serveSpec11Raw(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == spec11Arg {
		os.Exit(serveSpec11(os.Args[2:]))
	}
	code := m.Run()
	if e2eSetup.dir != "" {
		os.RemoveAll(e2eSetup.dir)
	}
	if rulesProxy.bin != "" {
		os.RemoveAll(filepath.Dir(rulesProxy.bin))
	}
	os.Exit(code)
}

// e2e is what the tests need: node, the packages, oarc and the proxy.
type e2e struct {
	node, modules, proxy string
}

var e2eSetup struct {
	once sync.Once
	e    *e2e
	dir  string
	err  error
}

// NPMDir is where the npm packages are: OARC_NPM_DIR, else
// $XDG_CACHE_HOME/oarc-npm, else ~/.cache/oarc-npm.
func NPMDir() string {
	if d := os.Getenv("OARC_NPM_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "oarc-npm")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "oarc-npm")
}

// need returns the end-to-end setup, or skips (fails under
// OARC_MCP_E2E=1) with the reason it is missing.
func need(t testing.TB) *e2e {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("OARC_MCP_E2E") == "1" {
			t.Fatalf("OARC_MCP_E2E=1 but %s", msg)
		}
		t.Skipf("skipping the end-to-end test: %s (.ci/run installs them; set OARC_MCP_E2E=1 to require them)", msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	modules := filepath.Join(NPMDir(), "node_modules")
	for _, p := range []struct{ pkg, version string }{
		{"@modelcontextprotocol/server-filesystem", VersionServerFilesystem},
		{"@modelcontextprotocol/server-everything", VersionServerEverything},
		{"@modelcontextprotocol/sdk", VersionSDK},
	} {
		data, err := os.ReadFile(filepath.Join(modules, p.pkg, "package.json"))
		var pj struct{ Version string }
		if err != nil || json.Unmarshal(data, &pj) != nil {
			missing("%s is not installed in %s", p.pkg, NPMDir())
		}
		if pj.Version != p.version {
			missing("%s is %s in %s, not the pinned %s", p.pkg, pj.Version, NPMDir(), p.version)
		}
	}
	e2eSetup.once.Do(func() {
		if bin := os.Getenv("OARC_GUARD_BIN"); bin != "" {
			// A proxy built beforehand (benchmark runs).
			e2eSetup.e = &e2e{node: node, modules: modules, proxy: bin}
			return
		}
		dir, err := os.MkdirTemp("", "oarc-e2e-")
		if err != nil {
			e2eSetup.err = err
			return
		}
		e2eSetup.dir = dir
		root, _ := filepath.Abs("..")
		oarc := filepath.Join(dir, "oarc")
		b := exec.Command("go", "build", "-o", oarc, "./cmd/oarc")
		b.Dir = root
		if out, err := b.CombinedOutput(); err != nil {
			e2eSetup.err = fmt.Errorf("building oarc: %v\n%s", err, out)
			return
		}
		proxy := filepath.Join(dir, "guard")
		g := exec.Command(oarc, "guard", "-pack", "examples/mcp/stock", "-pack", "examples/mcp/project", "-pack", "guard/testdata/everything", "-o", proxy)
		g.Dir = root
		if out, err := g.CombinedOutput(); err != nil {
			e2eSetup.err = fmt.Errorf("oarc guard: %v\n%s", err, out)
			return
		}
		e2eSetup.e = &e2e{node: node, modules: modules, proxy: proxy}
	})
	if e2eSetup.err != nil {
		t.Fatal(e2eSetup.err)
	}
	return e2eSetup.e
}

func (e *e2e) filesystem(dir string) []string {
	return []string{e.node, filepath.Join(e.modules, "@modelcontextprotocol/server-filesystem/dist/index.js"), dir}
}

func (e *e2e) everything() []string {
	return []string{e.node, filepath.Join(e.modules, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"}
}

// guarded is the proxy's command line in front of server.
func (e *e2e) guarded(flags []string, server []string) []string {
	return append(append(append([]string{e.proxy}, flags...), "--"), server...)
}

// workDir makes a directory with notes.txt holding three secrets.
func workDir(t *testing.T) string {
	dir := t.TempDir()
	// The server resolves symlinks: give it the real path.
	dir, _ = filepath.EvalSymlinks(dir)
	notes := "AWS_ACCESS_KEY_ID=" + awsKey + "\ntoken: " + ghToken + "\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\nthe end\n"
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(notes), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goClient connects the Go SDK's client to the command line, with the
// middleware when mw is not nil.
func goClient(t testing.TB, argv []string, mw mcp.Middleware, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "oarc-e2e-go", Version: "1"}, opts)
	if mw != nil {
		c.AddSendingMiddleware(mw)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %v: %v", argv, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	all, _ := json.Marshal(res)
	return res, string(all)
}

func toolNames(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	l, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range l.Tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, " ")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// checkSecrets fails when a secret of notes.txt survives in a result.
func checkSecrets(t *testing.T, all string) {
	t.Helper()
	for _, s := range []string{awsKey, ghToken, "b3BlbnNzaC1rZXktdjEAAAAA", "BEGIN OPENSSH"} {
		if strings.Contains(all, s) {
			t.Errorf("%q reached the client: %s", s, all)
		}
	}
}

const fsAllowed = "read_text_file read_multiple_files write_file create_directory list_directory list_directory_with_sizes directory_tree search_files get_file_info list_allowed_directories"

// The proxy in front of server-filesystem, driven by the Go SDK's client.
func TestE2EProxyFilesystemGo(t *testing.T) {
	e := need(t)
	dir := workDir(t)
	records := filepath.Join(t.TempDir(), "records.jsonl")
	cs := goClient(t, e.guarded([]string{"-server-id", "fs", "-trust", "untrusted", "-records", records}, e.filesystem(dir)), nil, nil)

	if got := toolNames(t, cs); got != fsAllowed {
		t.Errorf("tools/list not narrowed: %s", got)
	}
	res, all := callTool(t, cs, "move_file", map[string]any{"source": filepath.Join(dir, "notes.txt"), "destination": filepath.Join(dir, "moved.txt")})
	if res.Meta["oarc/code"] != "NOT_ALLOWLISTED" || exists(filepath.Join(dir, "moved.txt")) || !exists(filepath.Join(dir, "notes.txt")) {
		t.Errorf("move_file: %s", all)
	}
	res, all = callTool(t, cs, "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	checkSecrets(t, all)
	if res.IsError || !strings.Contains(all, `"structuredContent":{"content":"AWS_ACCESS_KEY_ID=[REDACTED]\ntoken: [REDACTED]\n[REDACTED]\nthe end\n"}`) || res.Meta["oarc/node"] != "r1" {
		t.Errorf("read: %s", all)
	}
	res, all = callTool(t, cs, "write_file", map[string]any{"path": filepath.Join(dir, "out.txt"), "content": "x"})
	if res.Meta["oarc/code"] != "UNTRUSTED_WRITE" || exists(filepath.Join(dir, "out.txt")) {
		t.Errorf("write after an untrusted read: %s (written: %v)", all, exists(filepath.Join(dir, "out.txt")))
	}
	res, all = callTool(t, cs, "directory_tree", map[string]any{"path": dir})
	if n := len(res.Content); n < 2 || !strings.HasSuffix(res.Content[n-1].(*mcp.TextContent).Text, "Code: TREE_WARN") {
		t.Errorf("warn banner: %s", all)
	}
	callTool(t, cs, "list_directory", map[string]any{"path": dir})
	res, all = callTool(t, cs, "list_directory", map[string]any{"path": dir})
	if n := len(res.Content); n < 2 || !strings.HasSuffix(res.Content[n-1].(*mcp.TextContent).Text, "Code: REPEAT_NUDGE") {
		t.Errorf("nudge note: %s", all)
	}
	// A server error (isError) is mcp_error_code tool_error at
	// tool.post_invoke.
	res, all = callTool(t, cs, "read_text_file", map[string]any{"path": filepath.Join(dir, "missing.txt")})
	if n := len(res.Content); !res.IsError || !strings.HasSuffix(res.Content[n-1].(*mcp.TextContent).Text, "Code: TOOL_FAILED") {
		t.Errorf("tool error: %s", all)
	}
	cs.Close()

	// A fresh session: the same write is allowed, and reaches the server.
	cs = goClient(t, e.guarded([]string{"-server-id", "fs", "-trust", "untrusted"}, e.filesystem(dir)), nil, nil)
	res, all = callTool(t, cs, "write_file", map[string]any{"path": filepath.Join(dir, "out.txt"), "content": "x"})
	if res.IsError || !exists(filepath.Join(dir, "out.txt")) {
		t.Errorf("write in a fresh session: %s", all)
	}

	// Decision records: one per occurrence, call = the JSON-RPC id.
	data, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	var post int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			Call   json.RawMessage `json:"call"`
			Anchor string          `json:"anchor"`
			Code   string          `json:"code"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || len(r.Call) == 0 {
			t.Fatalf("record %s: %v", line, err)
		}
		if r.Anchor == "tool.post_invoke" && r.Code == "TOOL_FAILED" {
			post++
		}
	}
	if post != 1 {
		t.Errorf("records: %d TOOL_FAILED at tool.post_invoke\n%s", post, data)
	}
}

// The proxy in front of server-everything: non-tool traffic (resources,
// prompts, progress) passes, a binding reads a structured result,
// secrets in an echo are redacted.
func TestE2EProxyEverythingGo(t *testing.T) {
	e := need(t)
	var progress sync.WaitGroup
	progress.Add(3)
	var mu sync.Mutex
	seen := 0
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		if seen < 3 {
			progress.Done()
		}
		seen++
	}}
	cs := goClient(t, e.guarded([]string{"-server-id", "everything"}, e.everything()), nil, opts)
	ctx := context.Background()
	if got := toolNames(t, cs); !strings.Contains(got, "echo") || strings.Contains(got, "trigger-sampling-request") || strings.Contains(got, "get-tiny-image") {
		t.Errorf("tools/list: %s", got)
	}
	rs, err := cs.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) == 0 {
		t.Fatalf("resources/list: %v %v", err, rs)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: rs.Resources[0].URI})
	if err != nil || len(rr.Contents) == 0 {
		t.Fatalf("resources/read: %v", err)
	}
	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(ps.Prompts) == 0 {
		t.Fatalf("prompts/list: %v", err)
	}
	res, all := callTool(t, cs, "echo", map[string]any{"message": "my token is " + ghToken})
	if strings.Contains(all, ghToken) || !strings.Contains(all, "[REDACTED]") || res.IsError {
		t.Errorf("echo: %s", all)
	}
	res, all = callTool(t, cs, "get-structured-content", map[string]any{"location": "New York"})
	if n := len(res.Content); !strings.HasSuffix(res.Content[n-1].(*mcp.TextContent).Text, "Code: HOT_WEATHER") {
		t.Errorf("binding: %s", all)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 1, "steps": 3}}
	p.SetProgressToken("tok-1")
	if res, err := cs.CallTool(cctx, p); err != nil || res.IsError {
		t.Fatalf("long-running operation: %v %+v", err, res)
	}
	done := make(chan struct{})
	go func() { progress.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Errorf("progress notifications: %d of 3", seen)
	}
}

// Killing the upstream mid-call gives the client an error, not a hang.
func TestE2EProxyUpstreamKilled(t *testing.T) {
	e := need(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	server := append([]string{"sh", "-c", `echo $$ > "$0"; exec "$@"`, pidFile}, e.everything()...)
	cs := goClient(t, e.guarded([]string{"-server-id", "everything"}, server), nil, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 60, "steps": 2}})
		errc <- err
	}()
	time.Sleep(time.Second)
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the call succeeded after its server was killed")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the client hangs after the upstream was killed")
	}
}

// The middleware on the Go SDK's client, in front of server-filesystem.
func TestE2EMiddlewareClientFilesystem(t *testing.T) {
	e := need(t)
	dir := workDir(t)
	set, err := testrules.Guard(lycaon.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	cfg := mcpguard.Config{
		Server:   guard.Server{ID: "fs", TrustTier: "untrusted", Configured: true, Enabled: true},
		Profiles: runtime.ProfileProvenance,
		Notes:    func(_ context.Context, n string) { notes = append(notes, n) },
	}
	cs := goClient(t, e.filesystem(dir), mcpguard.Client(g, cfg), nil)
	if got := toolNames(t, cs); got != fsAllowed {
		t.Errorf("tools/list: %s", got)
	}
	res, all := callTool(t, cs, "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	checkSecrets(t, all)
	node, _ := res.Meta["oarc/node"].(string)
	res, all = callTool(t, cs, "move_file", map[string]any{"source": filepath.Join(dir, "notes.txt"), "destination": filepath.Join(dir, "moved.txt")})
	if res.Meta["oarc/code"] != "NOT_ALLOWLISTED" || exists(filepath.Join(dir, "moved.txt")) {
		t.Errorf("move_file: %s", all)
	}
	ctx, cancel := context.WithTimeout(guard.WithInputs(context.Background(), node), 30*time.Second)
	defer cancel()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": filepath.Join(dir, "out.txt"), "content": "x"}})
	if err != nil || res.Meta["oarc/code"] != "UNTRUSTED_WRITE" || exists(filepath.Join(dir, "out.txt")) {
		t.Errorf("write fed by an untrusted read: %v %+v", err, res)
	}
	// A write that does not depend on the read goes ahead.
	res, all = callTool(t, cs, "write_file", map[string]any{"path": filepath.Join(dir, "out.txt"), "content": "y"})
	if res.IsError || !exists(filepath.Join(dir, "out.txt")) {
		t.Errorf("independent write: %s", all)
	}
	callTool(t, cs, "list_directory", map[string]any{"path": dir})
	callTool(t, cs, "list_directory", map[string]any{"path": dir})
	if len(notes) != 1 || !strings.HasSuffix(notes[0], "Code: REPEAT_NUDGE") {
		t.Errorf("notes: %q", notes)
	}
}

// tsClient runs the TypeScript SDK's client against argv with steps and
// returns one outcome per step.
func (e *e2e) tsClient(t *testing.T, argv []string, steps []map[string]any, env ...string) []map[string]any {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "tsclient.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// Node resolves the SDK from the script's directory.
	if err := os.WriteFile(filepath.Join(dir, "tsclient.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(argv)
	s, _ := json.Marshal(steps)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.node, filepath.Join(dir, "tsclient.mjs"), string(a), string(s))
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s\n%s", err, out, stderr.String())
	}
	var outcomes []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("TypeScript client output %q: %v", sc.Bytes(), err)
		}
		outcomes = append(outcomes, m)
	}
	if len(outcomes) != len(steps) {
		t.Fatalf("%d outcomes for %d steps:\n%s\n%s", len(outcomes), len(steps), out, stderr.String())
	}
	return outcomes
}

func okOf(t *testing.T, m map[string]any) (map[string]any, string) {
	t.Helper()
	r, _ := m["ok"].(map[string]any)
	b, _ := json.Marshal(m)
	if r == nil {
		t.Fatalf("step failed: %s", b)
	}
	return r, string(b)
}

func metaOf(r map[string]any, k string) any {
	m, _ := r["_meta"].(map[string]any)
	return m[k]
}

// fsSteps is the TypeScript client's session against a guarded
// filesystem server, with what each step must show.
func fsSteps(dir string) []map[string]any {
	return []map[string]any{
		{"op": "listTools"},
		{"op": "callTool", "name": "move_file", "arguments": map[string]any{"source": filepath.Join(dir, "notes.txt"), "destination": filepath.Join(dir, "moved.txt")}},
		{"op": "callTool", "name": "read_text_file", "arguments": map[string]any{"path": filepath.Join(dir, "notes.txt")}},
		{"op": "callTool", "name": "write_file", "arguments": map[string]any{"path": filepath.Join(dir, "out.txt"), "content": "x"}},
		{"op": "callTool", "name": "directory_tree", "arguments": map[string]any{"path": dir}},
	}
}

func checkFSOutcomes(t *testing.T, dir string, out []map[string]any) {
	t.Helper()
	r, all := okOf(t, out[0])
	var names []string
	for _, tl := range r["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	// A Go SDK server lists its tools sorted by name.
	want := strings.Fields(fsAllowed)
	sort.Strings(names)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools/list: %s", all)
	}
	r, all = okOf(t, out[1])
	if metaOf(r, "oarc/code") != "NOT_ALLOWLISTED" || exists(filepath.Join(dir, "moved.txt")) {
		t.Errorf("move_file: %s", all)
	}
	r, all = okOf(t, out[2])
	checkSecrets(t, all)
	if !strings.Contains(all, `"structuredContent":{"content":"AWS_ACCESS_KEY_ID=[REDACTED]`) || metaOf(r, "oarc/node") == nil {
		t.Errorf("read: %s", all)
	}
	r, all = okOf(t, out[3])
	if metaOf(r, "oarc/code") != "UNTRUSTED_WRITE" || exists(filepath.Join(dir, "out.txt")) {
		t.Errorf("write after an untrusted read: %s", all)
	}
	_, all = okOf(t, out[4])
	if !strings.Contains(all, `Code: TREE_WARN`) {
		t.Errorf("warn: %s", all)
	}
}

// The proxy, driven by the TypeScript SDK's client (a client no one here
// wrote), in front of server-filesystem and server-everything.
func TestE2EProxyTypeScript(t *testing.T) {
	e := need(t)
	dir := workDir(t)
	out := e.tsClient(t, e.guarded([]string{"-server-id", "fs", "-trust", "untrusted"}, e.filesystem(dir)), fsSteps(dir))
	checkFSOutcomes(t, dir, out)

	out = e.tsClient(t, e.guarded([]string{"-server-id", "everything"}, e.everything()), []map[string]any{
		{"op": "listResources"},
		{"op": "listPrompts"},
		{"op": "callTool", "name": "trigger-long-running-operation", "arguments": map[string]any{"duration": 1, "steps": 3}, "progress": true},
		{"op": "callTool", "name": "echo", "arguments": map[string]any{"message": "key " + awsKey}},
		{"op": "callTool", "name": "get-tiny-image", "arguments": map[string]any{}},
		// The key again, run into a file name where the validator does
		// not match it: the redacted string would survive in the unit.
		{"op": "callTool", "name": "echo", "arguments": map[string]any{"message": "key " + awsKey + " from backup_" + awsKey + ".csv"}},
	})
	if r, all := okOf(t, out[0]); len(r["resources"].([]any)) == 0 {
		t.Errorf("resources: %s", all)
	}
	if r, all := okOf(t, out[1]); len(r["prompts"].([]any)) == 0 {
		t.Errorf("prompts: %s", all)
	}
	// The server may send its last progress notification after its
	// result, which the TypeScript client then ignores: at least two of
	// the three arrive before it.
	if r, all := okOf(t, out[2]); r["progress"] == nil || r["progress"].(float64) < 2 {
		t.Errorf("progress: %s", all)
	}
	if _, all := okOf(t, out[3]); strings.Contains(all, awsKey) || !strings.Contains(all, "[REDACTED]") {
		t.Errorf("echo: %s", all)
	}
	if r, all := okOf(t, out[4]); metaOf(r, "oarc/code") != "NOT_ALLOWLISTED" {
		t.Errorf("get-tiny-image: %s", all)
	}
	if r, all := okOf(t, out[5]); strings.Contains(all, awsKey) || metaOf(r, "oarc/code") != guard.CodeGuard {
		t.Errorf("echo with a copy of the key the validator does not match: %s", all)
	}
}

// The middleware on a Go SDK server (a bridge that serves the tools of
// server-filesystem), driven by the TypeScript SDK's client.
func TestE2EMiddlewareServerTypeScript(t *testing.T) {
	e := need(t)
	dir := workDir(t)
	bridgeCmd := append([]string{os.Args[0], bridgeArg, "--"}, e.filesystem(dir)...)
	out := e.tsClient(t, bridgeCmd, fsSteps(dir))
	checkFSOutcomes(t, dir, out)
}

// bridge is an MCP server written with the Go SDK that serves the tools
// of the upstream given after "--" through the server-side middleware
// (the calls it receives), with the guard of testrules; the server id is
// fs and results are untrusted.
func bridge(args []string) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "bridge: -- COMMAND [ARG...]")
		return 2
	}
	ctx := context.Background()
	up := mcp.NewClient(&mcp.Implementation{Name: "oarc-bridge", Version: "1"}, nil)
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stderr = os.Stderr
	ucs, err := up.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
		return 1
	}
	tools, err := ucs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
		return 1
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "oarc-bridge", Version: "1"}, nil)
	for _, tl := range tools.Tools {
		srv.AddTool(tl, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return ucs.CallTool(ctx, &mcp.CallToolParams{Name: r.Params.Name, Arguments: json.RawMessage(r.Params.Arguments)})
		})
	}
	set, err := testrules.Guard(lycaon.Env{}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
		return 1
	}
	g, err := guard.New(set)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
		return 1
	}
	srv.AddReceivingMiddleware(mcpguard.Server(g, mcpguard.Config{
		Server:    guard.Server{ID: "fs", TrustTier: "untrusted", Configured: true, Enabled: true},
		Profiles:  runtime.ProfileProvenance,
		AllInputs: true,
	}))
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
		return 1
	}
	return 0
}

// rulesProxy is a proxy of the same set built with oarc guard -rulestore
// (the oarc module of this checkout), built once.
var rulesProxy struct {
	once sync.Once
	bin  string
	err  error
}

// TestE2EProxyRuleStore: the proxy built with -rulestore, given -rules, in
// front of server-everything and driven by the Go SDK's client: the
// store's tools are listed beside the server's, a rule added with
// rule_add is in force at once (the next echo fires it, monitored: the
// call goes ahead), and rule_status shows its trial.
func TestE2EProxyRuleStore(t *testing.T) {
	e := need(t)
	rulesProxy.once.Do(func() {
		dir, err := os.MkdirTemp("", "oarc-e2e-rules-")
		if err != nil {
			rulesProxy.err = err
			return
		}
		root, _ := filepath.Abs("..")
		rulesProxy.bin = filepath.Join(dir, "guard-rules")
		g := exec.Command("go", "run", "./cmd/oarc", "guard", "-rulestore", ".", "-pack", "examples/mcp/stock", "-pack", "examples/mcp/project", "-pack", "guard/testdata/everything", "-o", rulesProxy.bin)
		g.Dir = root
		if out, err := g.CombinedOutput(); err != nil {
			rulesProxy.err = fmt.Errorf("oarc guard -rulestore: %v\n%s", err, out)
		}
	})
	if rulesProxy.err != nil {
		t.Fatal(rulesProxy.err)
	}
	store := filepath.Join(t.TempDir(), "rules.jsonl")
	argv := append([]string{rulesProxy.bin, "-server-id", "everything", "-rules", store, "--"}, e.everything()...)
	cs := goClient(t, argv, nil, nil)
	if got := toolNames(t, cs); !strings.Contains(got, "echo") || !strings.HasSuffix(got, "rules_list rule_add rule_retire rule_status") {
		t.Fatalf("tools/list: %s", got)
	}
	res, all := callTool(t, cs, "rule_add", map[string]any{
		"rule": map[string]any{"oar": "1.0", "id": "ECHO_HELLO", "kind": "policy", "anchor": "tool.pre_invoke", "effect": "block",
			"selector": map[string]any{"mcp_server_id": "everything", "mcp_tool_name": "echo"},
			"requires": map[string]any{"profiles": []string{"tool", "mcp"}},
			"when":     `tool_arg_string("message").contains("hello")`},
		"rationale": "an example",
	})
	if res.IsError || !strings.Contains(all, "Added ECHO_HELLO as a candidate") {
		t.Fatalf("rule_add: %s", all)
	}
	if res, all = callTool(t, cs, "echo", map[string]any{"message": "hello"}); res.IsError || !strings.Contains(all, "hello") {
		t.Fatalf("echo under a candidate: %s", all)
	}
	if _, all = callTool(t, cs, "rule_status", map[string]any{"id": "ECHO_HELLO"}); !strings.Contains(all, "fired in 1/5, 1 monitored firings") {
		t.Errorf("rule_status: %s", all)
	}
}
