package mcpguard_test

// The two forms of the guard behave the same (spec 11): the same calls,
// answered by the same upstream with the same seeded random results, reach
// a Go SDK client through the proxy (proxy.Main in process, as the binary
// of oarc guard runs it, in front of this test binary serving the upstream
// over stdio) and through the middleware on the client and on the server,
// and the client receives the same thing from each: blocks, banners,
// notes, redactions, withheld results, errors, tools/list. The differences
// spec 11 allows are not exercised: notes go to the result in every form
// (no Config.Notes), and the middleware takes every node of the session
// as a call's inputs (Config.AllInputs), as the proxy does.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/proxy"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/mcpguard/internal/parityrules"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/testkit/long"
)

// parityArg, as the test binary's first argument, makes it the parity
// upstream (parityServer) over stdio.
const parityArg = "oarc-parity-server"

func serveParity() int {
	if err := parityServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "parity server:", err)
		return 1
	}
	return 0
}

// parityTools are the upstream's tools; hidden is allowed by no rule.
var parityTools = []string{"gen", "drop", "warn_me", "nudge_me", "ask_me", "post_block", "hidden"}

// parityServer answers every tool with parityResult of the call's seed.
func parityServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "parity", Version: "1"}, nil)
	for _, name := range parityTools {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: &jsonSchemaObject}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct {
				Seed uint64 `json:"seed"`
			}
			if err := json.Unmarshal(r.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return parityResult(a.Seed)
		})
	}
	return s
}

// Pieces of text: secrets and personal data the pack redacts, words its
// rules look for, and plain text.
const (
	parityEmail = "alice@example.com"
	parityCard  = "4111 1111 1111 1111"
	// parityCardNumber is the card's digits as a JSON number.
	parityCardNumber int64 = 4111111111111111
	// parityCard19 is a card of 19 digits, beyond a double's precision.
	parityCard19 = "4111111111111111110"
)

var parityPieces = []string{
	"plain", "some words", "", "line one\nline two", "careful now", "FORBIDDEN",
	awsKey, ghToken, parityEmail, parityCard, "key=" + awsKey + " end",
	"mail " + parityEmail + " and " + awsKey, "creds_" + awsKey + ".json",
	awsKey + "X", "4111111111111111", parityCard19,
}

// parityText is a random text: pieces joined by spaces or newlines.
func parityText(r *rand.Rand) string {
	n := 1 + r.IntN(3)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString([]string{" ", "\n", ""}[r.IntN(3)])
		}
		b.WriteString(parityPieces[r.IntN(len(parityPieces))])
	}
	return b.String()
}

// parityValue is a random JSON value for structuredContent: nested
// objects and arrays, strings and numbers, some of them secrets or a card
// number.
func parityValue(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth >= 3 && k < 4 {
		k += 4
	}
	switch k {
	case 0, 1:
		m := map[string]any{}
		for i := range 1 + r.IntN(3) {
			m[fmt.Sprintf("k%d", i)] = parityValue(r, depth+1)
		}
		return m
	case 2, 3:
		var a []any
		for range r.IntN(3) {
			a = append(a, parityValue(r, depth+1))
		}
		return a
	case 4:
		return parityCardNumber
	case 5:
		return r.IntN(1000)
	case 6:
		return r.IntN(2) == 0
	default:
		return parityText(r)
	}
}

// parityResult is the upstream's answer for seed: a JSON-RPC error, or a
// result with text items, embedded resources before and after them,
// images, blobs and links, structuredContent and isError, biased to hold
// secrets and personal data, split across units too.
func parityResult(seed uint64) (*mcp.CallToolResult, error) {
	r := rand.New(rand.NewPCG(seed, 0x9a21))
	switch r.IntN(24) {
	case 0, 1:
		return nil, &jsonrpc.Error{Code: []int64{-32602, -32000, 7}[r.IntN(3)], Message: parityText(r)}
	case 2:
		// An error of the handler's own, without a JSON-RPC code.
		return nil, errors.New(parityText(r))
	}
	res := &mcp.CallToolResult{IsError: r.IntN(8) == 0}
	split := r.IntN(5) == 0
	for range r.IntN(5) {
		switch k := r.IntN(10); {
		case k < 5:
			c := &mcp.TextContent{Text: parityText(r)}
			if r.IntN(8) == 0 {
				c.Meta = mcp.Meta{"m": parityText(r)}
			}
			res.Content = append(res.Content, c)
		case k < 7:
			res.Content = append(res.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///r", MIMEType: "text/plain", Text: parityText(r)}})
		case k == 7:
			res.Content = append(res.Content, &mcp.ImageContent{Data: []byte("iVBORw0KGgo="), MIMEType: "image/png"})
		case k == 8:
			res.Content = append(res.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b", MIMEType: "application/octet-stream", Blob: []byte("blob")}})
		default:
			res.Content = append(res.Content, &mcp.ResourceLink{URI: "file:///l", Name: "l", Description: parityText(r)})
		}
	}
	if split {
		// A secret split across two units.
		res.Content = append(res.Content, &mcp.TextContent{Text: "x " + awsKey[:10]}, &mcp.TextContent{Text: awsKey[10:] + " y"})
	}
	switch k := r.IntN(6); {
	case k == 0:
		// As written by a server that is not in Go: members out of
		// order, the card number as a JSON number in another notation.
		res.StructuredContent = json.RawMessage(fmt.Sprintf(`{"z":%q,"a":%s}`, parityText(r), []string{"4.111111111111111e15", "4111111111111111.0", "41111111111111110e-1", "4111111111111111", parityCard19}[r.IntN(5)]))
	case k < 4:
		res.StructuredContent = parityValue(r, 0)
		if _, ok := res.StructuredContent.(map[string]any); !ok {
			res.StructuredContent = map[string]any{"v": res.StructuredContent}
		}
	}
	if r.IntN(8) == 0 {
		res.Meta = mcp.Meta{"note": parityText(r)}
	}
	return res, nil
}

// parityForm is one form of the guard, a client connected through it.
type parityForm struct {
	name string
	cs   *mcp.ClientSession
	// asked counts the questions put to the person.
	asked *atomic.Int32
}

// parityAsker is the person of a form: asked the question of ASK_PRE, it
// approves every other time (the first, the third, ...), so that the forms,
// given the same calls, get the same answers.
type parityAsker struct{ n atomic.Int32 }

func (a *parityAsker) ask(question string) (bool, error) {
	if question != parityQuestion {
		return false, fmt.Errorf("asked %q, want %q", question, parityQuestion)
	}
	return a.n.Add(1)%2 == 1, nil
}

func (a *parityAsker) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	yes, err := a.ask(req.Params.Message)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": yes}}, nil
}

// parityQuestion is the question of ASK_PRE.
const parityQuestion = "This action needs a person's approval before it runs.\nA person approves this call\nFix: Say why it is needed.\nCode: ASK_PRE"

func parityCfg() mcpguard.Config {
	return mcpguard.Config{
		Server:    guard.Server{ID: "parity", Origin: "parity", Configured: true, Enabled: true},
		Profiles:  runtime.ProfileSession | runtime.ProfileProvenance,
		AllInputs: true,
	}
}

func parityGuard(t *testing.T) *guard.Guard {
	t.Helper()
	set, err := parityrules.Guard(lycaon.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(set)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// parityMiddleware connects a client to parityServer in memory, the
// middleware on side.
func parityMiddleware(t *testing.T, side, version string) parityForm {
	t.Helper()
	srv := parityServer()
	a := &parityAsker{}
	opts := &mcp.ClientOptions{ElicitationHandler: a.elicit}
	if side == "client" {
		opts = nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts)
	if side == "client" {
		// Sending middleware asks the host (Config.Ask): the client's
		// own elicitation handler is for its servers' questions.
		cfg := parityCfg()
		cfg.Ask = func(_ context.Context, q string) (bool, error) { return a.ask(q) }
		client.AddSendingMiddleware(mcpguard.Client(parityGuard(t), cfg))
	} else {
		srv.AddReceivingMiddleware(mcpguard.Server(parityGuard(t), parityCfg()))
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return parityForm{"middleware on the " + side, cs, &a.n}
}

// parityProxy runs the proxy in process (its Main, with the set as the
// binary of oarc guard binds it) in front of this test binary as the
// parity upstream, and connects a client to it.
func parityProxy(t *testing.T, version string) parityForm {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errs := &strings.Builder{}
	done := make(chan int, 1)
	go func() {
		code := proxy.Main([]string{"-server-id", "parity", "-quiet", "--", self, parityArg}, inR, outW, errs, proxy.Config{
			Set: func(opts ...runtime.Option) (guard.Set, error) {
				return parityrules.Guard(lycaon.Env{}, nil, opts...)
			},
		})
		outW.Close()
		done <- code
	}()
	a := &parityAsker{}
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: a.elicit})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to the proxy: %v\n%s", err, errs.String())
	}
	t.Cleanup(func() {
		cs.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not exit after its input closed")
		}
	})
	return parityForm{"proxy", cs, &a.n}
}

// parityOutcome is what the client received for a call, as JSON.
func parityOutcome(res *mcp.CallToolResult, err error) string {
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return fmt.Sprintf("JSON-RPC error %d: %s", je.Code, je.Message)
		}
		return "error: " + err.Error()
	}
	if res.Meta != nil {
		// From MCP 2026-07-28 the Go SDK's server names itself in the
		// _meta of every result it sends (SEP-2575, a should), the
		// results the middleware on it makes too; the proxy and the
		// middleware on a client do not name the upstream in the results
		// they make (docs/mcp.md).
		delete(res.Meta, "io.modelcontextprotocol/serverInfo")
	}
	b, _ := json.Marshal(res)
	return string(b)
}

func parityList(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	l, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(l.Tools)
	return string(b)
}

// TestParityProxyMiddleware sends a seeded random sequence of calls
// through the three guards, each with a session of its own, and compares
// what the client receives. OARC_LONG=1 runs more sequences.
func TestParityProxyMiddleware(t *testing.T) {
	runs, calls := long.N(4, 40), 40
	for run := range runs {
		seed := uint64(run) + 1
		// The client's protocol: one before multi round-trip requests,
		// and the latest (no initialize; questions go back in results).
		version := []string{"2025-06-18", ""}[run%2]
		t.Run(fmt.Sprintf("seed=%d,version=%s", seed, version), func(t *testing.T) {
			forms := []parityForm{parityProxy(t, version), parityMiddleware(t, "client", version), parityMiddleware(t, "server", version)}
			lists := make([]string, len(forms))
			for i, f := range forms {
				lists[i] = parityList(t, f.cs)
			}
			for i := 1; i < len(forms); i++ {
				if lists[i] != lists[0] {
					t.Fatalf("tools/list: %s gives\n%s\n%s gives\n%s", forms[0].name, lists[0], forms[i].name, lists[i])
				}
			}
			stats := map[string]int{}
			defer func() { t.Logf("outcomes: %v", stats) }()
			r := rand.New(rand.NewPCG(seed, 0x51ed))
			for c := range calls {
				tool := parityTools[r.IntN(len(parityTools))]
				if r.IntN(2) == 0 {
					tool = "gen"
				}
				args := map[string]any{"seed": r.Uint64() >> 12}
				got := make([]string, len(forms))
				for i, f := range forms {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
					cancel()
					got[i] = parityOutcome(res, err)
				}
				stats[parityKind(got[0])]++
				for i := 1; i < len(forms); i++ {
					if n, n0 := forms[i].asked.Load(), forms[0].asked.Load(); n != n0 {
						t.Errorf("call %d, %s: %s asked %d times so far, %s %d times", c, tool, forms[0].name, n0, forms[i].name, n)
					}
					if got[i] != got[0] {
						up, uerr := parityResult(args["seed"].(uint64))
						t.Errorf("call %d, %s %v (upstream: %s):\n%s gives\n%s\n%s gives\n%s", c, tool, args, parityOutcome(up, uerr), forms[0].name, got[0], forms[i].name, got[i])
					}
				}
			}
		})
	}
}

// parityKind sorts an outcome for the test's log: its code, an error, or
// what a forwarded result holds.
func parityKind(out string) string {
	if strings.HasPrefix(out, "JSON-RPC error") || strings.HasPrefix(out, "error") {
		return "error"
	}
	var r struct {
		Meta map[string]any `json:"_meta"`
	}
	json.Unmarshal([]byte(out), &r)
	if c, ok := r.Meta["oarc/code"].(string); ok {
		return c
	}
	switch {
	case strings.Contains(out, "[REDACTED]") || strings.Contains(out, "[PII]"):
		return "redacted"
	case strings.Contains(out, `"isError":true`):
		return "isError"
	}
	return "forwarded"
}
