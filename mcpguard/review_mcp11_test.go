package mcpguard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
)

// A call whose arguments are null is evaluated with tool_args = {} (spec
// 11: absent or null, an empty map); the tool handler behind receiving
// middleware got the null, which MCP's schema does not allow and a
// handler may read otherwise than {}. It gets what the rules read, as
// the proxy forwards it (TestProxyNullArgumentsForwardedAsEvaluated).
func TestServerNullArgumentsAsEvaluated(t *testing.T) {
	g, err := guard.New(pathBlock{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "fs", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "read", InputSchema: &jsonSchemaObject}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = append(got, string(req.Params.Arguments))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read"}}}, nil
	})
	srv.AddReceivingMiddleware(mcpguard.Server(g, mcpguard.Config{Server: guard.Server{ID: "fs", Configured: true, Enabled: true}}))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: json.RawMessage(`null`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "{}" {
		t.Errorf("the handler got arguments %q, want {} (result %q)", got, textOf(res))
	}
}

// TestE2EProxyKeyFilesRedacted: the proxy in front of server-filesystem,
// reading files that hold a private key beside text that shares a line
// with it: a PGP key export (the public block, then the private one, both
// with the header "Version: GnuPG v1"), and a script holding an OpenSSH
// key whose last line is "==" beside a test `a == b`. The copy check
// searched each line of the redacted key on its own, found it in the
// rest of the file, and withheld the result (OAR_GUARD); the key is
// redacted and the rest of the file reaches the client.
func TestE2EProxyKeyFilesRedacted(t *testing.T) {
	e := need(t)
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	const pgpPriv = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v1\n\nlQOYBFsecretbody0123456789\n=sec1\n-----END PGP PRIVATE KEY BLOCK-----"
	const sshPriv = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n==\n-----END OPENSSH PRIVATE KEY-----"
	files := map[string]string{
		"keys.asc":  "-----BEGIN PGP PUBLIC KEY BLOCK-----\nVersion: GnuPG v1\n\nmQENBFpublic\n=pub1\n-----END PGP PUBLIC KEY BLOCK-----\n" + pgpPriv + "\n",
		"deploy.sh": "#!/bin/sh\n[ \"$a\" == \"$b\" ] && exit 0\ncat > id <<K\n" + sshPriv + "\nK\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := goClient(t, e.guarded([]string{"-server-id", "fs"}, e.filesystem(dir)), nil, nil)
	for name, key := range map[string]string{"keys.asc": pgpPriv, "deploy.sh": sshPriv} {
		res, all := callTool(t, cs, "read_text_file", map[string]any{"path": filepath.Join(dir, name)})
		want := strings.Replace(files[name], key, "[REDACTED]", 1)
		if res.IsError || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != want {
			t.Errorf("%s: want %q redacted, got %s", name, want, all)
		}
		if strings.Contains(all, "secretbody") || strings.Contains(all, "b3BlbnNzaC1rZXkt") {
			t.Errorf("%s: a key reached the client: %s", name, all)
		}
	}
}
