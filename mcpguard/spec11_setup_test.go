package mcpguard_test

// The spec-first tests of section 11 (MCP), written from the spec's text:
// every test runs against the three forms the spec says behave the same,
// the middleware on a client, on a server, and the proxy (proxy.Main in
// process, in front of this test binary as the upstream), with the rules
// of internal/spec11rules and spec11Server as the guarded server.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/proxy"
	"github.com/oarc/oarc/lycaon"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/mcpguard/internal/spec11rules"
	"github.com/oarc/oarc/runtime"
)

// spec11Arg, as the test binary's first argument, makes it spec11Server
// over stdio; the next argument is the file it logs the tools called to.
const spec11Arg = "oarc-spec11-server"

func serveSpec11(args []string) int {
	if len(args) != 1 && len(args) != 2 {
		fmt.Fprintln(os.Stderr, "spec11 server: want the log file [and a page size]")
		return 2
	}
	page := 0
	if len(args) == 2 {
		page, _ = strconv.Atoi(args[1])
	}
	if err := spec11ServerPaged(args[0], page).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "spec11 server:", err)
		return 1
	}
	return 0
}

// The test values: an AWS access key id, a GitHub token, an e-mail
// address and a card number that passes the Luhn check.
const (
	s11AWS   = "AKIAIOSFODNN7EXAMPLE"
	s11GH    = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	s11Mail  = "jane.doe@example.com"
	s11Card  = "4111 1111 1111 1111"
	s11Name  = "Spec-11  Server!" // normalised: spec_11_server
	s11Image = "iVBORw0KGgo="
)

// spec11Tools are the upstream's tools: every one but secret_tool is
// allowed by ALLOW_SRV.
var spec11Tools = []string{"nudge_block", "quote", "conv", "conv_warn", "extra1", "extra2", "extra3", "extra4", "extra5", "scan", "units", "probe", "echo", "warn_me", "nudge_me", "ask_me", "post_block", "rich", "weather", "weather_any", "weather_text", "fail", "rpcfail", "write", "errs", "read", "panic_me", "big", "secret_tool"}

// spec11Server is the guarded server; each call it runs appends the tool's
// name and a newline to logFile, so that a test sees what was forwarded.
func spec11Server(logFile string) *mcp.Server { return spec11ServerPaged(logFile, 0) }

// spec11ServerPaged is spec11Server with pages of tools/list of page
// tools (0: the SDK's default).
func spec11ServerPaged(logFile string, page int) *mcp.Server {
	var mu sync.Mutex
	s := mcp.NewServer(&mcp.Implementation{Name: s11Name, Version: "1"}, &mcp.ServerOptions{PageSize: page})
	s.AddResource(&mcp.Resource{URI: "file:///notes", Name: "notes"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///notes", Text: "notes " + s11Mail}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	for _, name := range spec11Tools {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: &jsonSchemaObject}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			f, err := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintln(f, name)
				f.Close()
			}
			mu.Unlock()
			var args map[string]any
			json.Unmarshal(r.Params.Arguments, &args)
			text := func(s string) *mcp.TextContent { return &mcp.TextContent{Text: s} }
			switch name {
			case "probe":
				return &mcp.CallToolResult{Content: []mcp.Content{text("probed")}}, nil
			case "echo", "conv", "conv_warn", "quote":
				// arguments: text (a string), structured (echo it in
				// structuredContent too), resource (in an embedded
				// resource too).
				t, _ := args["text"].(string)
				res := &mcp.CallToolResult{Content: []mcp.Content{text(t)}}
				if args["resource"] == true {
					res.Content = append(res.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///echo", MIMEType: "text/plain", Text: t}})
				}
				if where, ok := args["link"].(string); ok {
					// A resource link that repeats the text in one of its
					// members.
					l := &mcp.ResourceLink{URI: "file:///link", Name: "link"}
					switch where {
					case "name":
						l.Name = t
					case "title":
						l.Title = t
					case "description":
						l.Description = t
					case "uri":
						l.URI = "file:///" + t
					case "meta":
						l.Meta = mcp.Meta{"copy": t}
					}
					res.Content = append(res.Content, l)
				}
				if args["itemmeta"] == true {
					res.Content = append(res.Content, &mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png", Meta: mcp.Meta{"copy": t}})
				}
				if args["meta"] == true {
					res.Meta = mcp.Meta{"oarc/code": "FORGED", "oarc/node": "forged", "other": "kept"}
				}
				if args["structured"] == true {
					res.StructuredContent = map[string]any{"copy": t, "list": []any{t, 1}}
				}
				return res, nil
			case "units":
				// arguments: texts (the text items), resources (the texts
				// of embedded resources), structured (structuredContent,
				// as JSON).
				res := &mcp.CallToolResult{}
				for _, x := range args["texts"].([]any) {
					res.Content = append(res.Content, text(x.(string)))
				}
				if rs, ok := args["resources"].([]any); ok {
					for i, x := range rs {
						res.Content = append(res.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: fmt.Sprintf("file:///r%d", i), MIMEType: "text/plain", Text: x.(string)}})
					}
				}
				if sc, ok := args["structured"].(string); ok {
					res.StructuredContent = json.RawMessage(sc)
				}
				return res, nil
			case "rich":
				return &mcp.CallToolResult{
					Content: []mcp.Content{
						text("t1"),
						&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///r1", MIMEType: "text/plain", Text: "R1"}},
						&mcp.ImageContent{Data: []byte("PNGDATA"), MIMEType: "image/png"},
						&mcp.ResourceLink{URI: "file:///link", Name: "link"},
						text("t2"),
					},
					StructuredContent: json.RawMessage(`{"z":"s1","a":["s2",5,{"c":"s3"}],"n":true}`),
				}, nil
			case "weather":
				if args["bad"] == true {
					// structuredContent that does not validate, a first
					// text item that would.
					return &mcp.CallToolResult{
						Content:           []mcp.Content{text(`{"temp":35,"city":"Paris","hot":true}`)},
						StructuredContent: json.RawMessage(`{"temp":"hot","city":"Paris"}`),
					}, nil
				}
				return &mcp.CallToolResult{
					Content:           []mcp.Content{text("sunny")},
					StructuredContent: json.RawMessage(`{"temp":35,"city":"Paris","hot":true}`),
				}, nil
			case "weather_any", "weather_text":
				return &mcp.CallToolResult{Content: []mcp.Content{text(`{"temp":35,"city":"Paris","hot":true}`), text("second")}}, nil
			case "fail":
				return &mcp.CallToolResult{Content: []mcp.Content{text("boom")}, IsError: true}, nil
			case "rpcfail":
				code := int64(-32042)
				if c, ok := args["code"].(float64); ok {
					code = int64(c)
				}
				return nil, &jsonrpc.Error{Code: code, Message: "upstream failed"}
			case "big":
				n := 64 << 10
				if v, ok := args["size"].(float64); ok {
					n = int(v)
				}
				return &mcp.CallToolResult{Content: []mcp.Content{text(strings.Repeat("x ", n/2) + s11AWS + " " + s11Mail)}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{text(name + " ran")}}, nil
		})
	}
	return s
}

// s11Form is one form of the guard with a client connected through it.
type s11Form struct {
	name string
	cs   *mcp.ClientSession
	log  string // the upstream's log of the tools it ran
	// records is the proxy's -records file ("" for the middleware).
	records string
	// notes are the notes handed to the host (middleware with Notes).
	notes *s11Notes
}

type s11Notes struct {
	mu  sync.Mutex
	got []string
}

func (n *s11Notes) add(_ context.Context, s string) {
	n.mu.Lock()
	n.got = append(n.got, s)
	n.mu.Unlock()
}

func (n *s11Notes) all() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.got, "\n")
}

// ran is the tools the upstream ran, in order.
func (f *s11Form) ran(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(f.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// s11Opts are the options of a form.
type s11Opts struct {
	// approve answers elicitations (nil: the client declares no
	// elicitation capability, and the client middleware has no Ask).
	approve *bool
	// notes hands the middleware's notes to the host.
	notes bool
	// trust is the trust tier of the server's results.
	trust string
	// set wraps the generated set.
	set func(guard.Set) guard.Set
	// proxyFlags are more flags for the proxy.
	proxyFlags []string
	// version is the protocol version the client asks for ("": the SDK's).
	version string
	// asked counts the questions put to the person.
	asked *atomic.Int32
	// page is the upstream's page size of tools/list.
	page int
	// questions receives the elicitations the client gets.
	questions chan *mcp.ElicitParams
	// answer, when set, is the client's answer to an elicitation
	// (approve must be set too, to declare the capability).
	answer *mcp.ElicitResult
}

func s11Set(t testing.TB, o s11Opts, opts ...runtime.Option) guard.Set {
	set, err := spec11rules.Guard(lycaon.Env{}, nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if o.set != nil {
		set = o.set(set)
	}
	return set
}

func s11Cfg(o s11Opts) mcpguard.Config {
	return mcpguard.Config{
		Server:    guard.Server{ID: "srv", Origin: "srv", TrustTier: o.trust, Configured: true, Enabled: true},
		Profiles:  runtime.ProfileSession | runtime.ProfileProvenance,
		AllInputs: true,
	}
}

func s11ClientOpts(o s11Opts) *mcp.ClientOptions {
	if o.approve == nil {
		return nil
	}
	yes := *o.approve
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if o.asked != nil {
			o.asked.Add(1)
		}
		if o.questions != nil {
			o.questions <- req.Params
		}
		if o.answer != nil {
			return o.answer, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": yes}}, nil
	}}
}

// s11Forms runs f against each form, at the SDK's latest protocol version
// and at 2025-06-18 (with initialize), unless o names a version.
func s11Forms(t *testing.T, o s11Opts, f func(t *testing.T, form *s11Form)) {
	versions := []string{"", "2025-06-18"}
	if o.version != "" {
		versions = []string{o.version}
	}
	for _, v := range versions {
		for _, side := range []string{"client", "server", "proxy"} {
			name := side
			if v != "" && len(versions) > 1 {
				name += "@" + v
			}
			t.Run(name, func(t *testing.T) {
				o := o
				o.version = v
				var form *s11Form
				if side == "proxy" {
					form = s11Proxy(t, o)
				} else {
					form = s11Middleware(t, side, o)
				}
				f(t, form)
			})
		}
	}
}

func s11Middleware(t *testing.T, side string, o s11Opts) *s11Form {
	t.Helper()
	form := &s11Form{name: "middleware on the " + side, log: filepath.Join(t.TempDir(), "ran")}
	g, err := guard.New(s11Set(t, o))
	if err != nil {
		t.Fatal(err)
	}
	cfg := s11Cfg(o)
	if o.notes {
		form.notes = &s11Notes{}
		cfg.Notes = form.notes.add
	}
	srv := spec11ServerPaged(form.log, o.page)
	copts := s11ClientOpts(o)
	if side == "client" {
		if o.approve != nil {
			yes := *o.approve
			cfg.Ask = func(context.Context, string) (bool, error) {
				if o.asked != nil {
					o.asked.Add(1)
				}
				return yes, nil
			}
		}
		copts = nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, copts)
	if side == "client" {
		client.AddSendingMiddleware(mcpguard.Client(g, cfg))
	} else {
		srv.AddReceivingMiddleware(mcpguard.Server(g, cfg))
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sopts *mcp.ClientSessionOptions
	if o.version != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: o.version}
	}
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	form.cs = cs
	return form
}

func s11Proxy(t *testing.T, o s11Opts) *s11Form {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	form := &s11Form{name: "proxy", log: filepath.Join(dir, "ran"), records: filepath.Join(dir, "records.jsonl")}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errs := &lockedBuilder{}
	done := make(chan int, 1)
	flags := []string{"-quiet", "-records", form.records}
	if o.trust != "" {
		flags = append(flags, "-trust", o.trust)
	}
	flags = append(flags, o.proxyFlags...)
	if !hasFlag(flags, "-server-id") {
		flags = append(flags, "-server-id", "srv")
	} else if i := indexOf(flags, "-server-id"); flags[i+1] == "" {
		flags = append(flags[:i], flags[i+2:]...) // the default: the upstream's name
	}
	args := append(flags, "--", self, spec11Arg, form.log, strconv.Itoa(o.page))
	go func() {
		code := proxy.Main(args, inR, outW, errs, proxy.Config{
			Set: func(opts ...runtime.Option) (guard.Set, error) {
				return s11Set(t, o, opts...), nil
			},
		})
		outW.Close()
		done <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, s11ClientOpts(o))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sopts *mcp.ClientSessionOptions
	if o.version != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: o.version}
	}
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, sopts)
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
	form.cs = cs
	return form
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func hasFlag(flags []string, name string) bool { return indexOf(flags, name) >= 0 }

func indexOf(flags []string, name string) int {
	for i, f := range flags {
		if f == name {
			return i
		}
	}
	return -1
}

// call calls a tool and returns the result (nil on a JSON-RPC error), the
// result as JSON (what the client received), and the error.
func (f *s11Form) call(t *testing.T, name string, args any) (*mcp.CallToolResult, string, error) {
	t.Helper()
	return f.callWithin(t, 20*time.Second, name, args)
}

// callWithin is call with the call's context ending after d.
func (f *s11Form) callWithin(t *testing.T, d time.Duration, name string, args any) (*mcp.CallToolResult, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, "", err
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		t.Fatal(merr)
	}
	return res, string(b), nil
}

// mustCall is call for a call that must get a result.
func (f *s11Form) mustCall(t *testing.T, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, js, err := f.call(t, name, args)
	if err != nil {
		t.Fatalf("%s: calling %s: %v", f.name, name, err)
	}
	return res, js
}

// texts are the text items of a result.
func texts(r *mcp.CallToolResult) []string {
	var out []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

// wantBlock checks that res is the block spec 11 fixes: isError, one text
// item holding the rejection, ending "Code: <ID>", and _meta "oarc/code".
func wantBlock(t *testing.T, f *s11Form, res *mcp.CallToolResult, code string) {
	t.Helper()
	if res == nil {
		t.Fatalf("%s: no result, want the block %s", f.name, code)
	}
	js, _ := json.Marshal(res)
	if !res.IsError {
		t.Errorf("%s: block %s without isError: %s", f.name, code, js)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: block %s with %d content items, want one: %s", f.name, code, len(res.Content), js)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: block %s whose item is no text: %s", f.name, code, js)
	}
	if !strings.HasSuffix(tc.Text, "Code: "+code) {
		t.Errorf("%s: rejection %q does not end with Code: %s", f.name, tc.Text, code)
	}
	if got := res.Meta["oarc/code"]; got != code {
		t.Errorf("%s: _meta oarc/code = %v, want %s (%s)", f.name, got, code, js)
	}
}

// records reads the proxy's decision records.
func (f *s11Form) recordsRead(t *testing.T) []map[string]any {
	t.Helper()
	fh, err := os.Open(f.records)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []map[string]any
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("record %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}
