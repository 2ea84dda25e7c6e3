// Command host is an agent host in miniature that calls the tools of an
// MCP filesystem server through the guard, with the Go SDK's client and
// the middleware of package mcpguard: the rules of examples/mcp (a stock
// allowlist with secret redaction, a project pack with a provenance rule,
// a loop breaker and guidance), compiled into ./rules with
// `oarc gen -guard`.
//
//	go run ./examples/host [-trust untrusted] DIR -- npx -y @modelcontextprotocol/server-filesystem DIR
//
// It plays a short scripted agent turn against DIR: list the tools, read
// DIR/notes.txt, try a tool that is not on the allowlist, then write
// DIR/out.txt with what it read (the write depends on the read: the host
// names the read's provenance node as the write's input). Each call and
// what the agent gets back is printed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/mcpguard/examples/host/rules"
	"github.com/oarc/oarc/runtime"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	fs.SetOutput(stderr)
	trust := fs.String("trust", "trusted", "the trust tier of the server's results")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	if len(rest) < 3 || rest[1] != "--" {
		fmt.Fprintln(stderr, "usage: host [-trust TIER] DIR -- COMMAND [ARG...]")
		return 2
	}
	dir, server := rest[0], rest[2:]

	// The rules: the generated set, bound with no host providers (the
	// guard answers the MCP functions, the built-in validator finds
	// secrets), as the guard drives it.
	set, err := rules.Guard(lycaon.Env{}, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	g, err := guard.New(set)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	var notes []string
	client := mcp.NewClient(&mcp.Implementation{Name: "oarc-example-host", Version: "1"}, nil)
	client.AddSendingMiddleware(mcpguard.Client(g, mcpguard.Config{
		Server:   guard.Server{ID: "fs", Origin: "fs", TrustTier: *trust, Configured: true, Enabled: true},
		Profiles: runtime.ProfileProvenance,
		// Notes go to the agent's next prompt as a user-role note.
		Notes: func(_ context.Context, n string) { notes = append(notes, n) },
	}))
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(server[0], server[1:]...)}, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	fmt.Fprintf(stdout, "tools/list: %s\n", strings.Join(names, " "))

	call := func(ctx context.Context, name string, args map[string]any) *mcp.CallToolResult {
		a, _ := json.Marshal(args)
		fmt.Fprintf(stdout, "-> %s %s\n", name, a)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			fmt.Fprintf(stdout, "<- error: %v\n", err)
			return nil
		}
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				fmt.Fprintf(stdout, "<- %s\n", indent(t.Text))
			}
		}
		if res.StructuredContent != nil {
			s, _ := json.Marshal(res.StructuredContent)
			fmt.Fprintf(stdout, "<- structuredContent %s\n", s)
		}
		if len(res.Meta) > 0 {
			m, _ := json.Marshal(res.Meta)
			fmt.Fprintf(stdout, "<- _meta %s\n", m)
		}
		return res
	}

	read := call(ctx, "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	call(ctx, "move_file", map[string]any{"source": filepath.Join(dir, "notes.txt"), "destination": filepath.Join(dir, "moved.txt")})
	// The model saw the read's result when it proposed the write: the
	// result's provenance node is the write's input.
	wctx := ctx
	if read != nil {
		if node, ok := read.Meta["oarc/node"].(string); ok {
			wctx = guard.WithInputs(ctx, node)
		}
	}
	call(wctx, "write_file", map[string]any{"path": filepath.Join(dir, "out.txt"), "content": "summary of notes.txt\n"})
	call(ctx, "list_directory", map[string]any{"path": dir})
	call(ctx, "list_directory", map[string]any{"path": dir})
	for _, n := range notes {
		fmt.Fprintf(stdout, "note for the next prompt: %s\n", indent(n))
	}
	return 0
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n   ") }
