package mcpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/mcpguard"
	"github.com/oarc/oarc/runtime"
)

const s11Key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtest\n-----END RSA PRIVATE KEY-----"

// unitsOf is what the client got of the units tool: its text items, its
// resources' texts, and structuredContent as JSON.
func unitsOf(res *mcp.CallToolResult) (txt, resources []string, structured string) {
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			txt = append(txt, c.Text)
		case *mcp.EmbeddedResource:
			resources = append(resources, c.Resource.Text)
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		structured = string(b)
	}
	return
}

// Spec 5.6 and 11: spans are in code points of the joined content, and a
// transform writes each unit back where it came from: a secret after
// characters of several bytes (and of two UTF-16 units), in the second
// text item, in a resource, and in structuredContent, is replaced exactly
// where it stands, the text around it kept.
func TestSpec11TransformCodePoints(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		args := map[string]any{
			"texts":      []any{"😀é€ first", "ñ😀 " + s11AWS + " ü"},
			"resources":  []any{"𝄞 mail " + s11Mail + " 😀"},
			"structured": `{"a":"é😀","b":["x` + "€" + `", "card ` + s11Card + ` ok"]}`,
		}
		res, js := f.mustCall(t, "units", args)
		if res.IsError {
			t.Fatalf("%s: %s", f.name, js)
		}
		txt, rs, sc := unitsOf(res)
		if !reflect.DeepEqual(txt, []string{"😀é€ first", "ñ😀 [REDACTED] ü"}) {
			t.Errorf("%s: text items %q", f.name, txt)
		}
		if !reflect.DeepEqual(rs, []string{"𝄞 mail [PII] 😀"}) {
			t.Errorf("%s: resources %q", f.name, rs)
		}
		if sc != `{"a":"é😀","b":["x€","card [PII] ok"]}` {
			t.Errorf("%s: structuredContent %s", f.name, sc)
		}
	})
}

// Spec 11: a span crossing a unit boundary is cut at it, each part
// replaced in its own unit; no part of the key survives. Here a private
// key block begins at the end of one text item and ends in the next.
func TestSpec11SpanAcrossUnits(t *testing.T) {
	lines := strings.SplitN(s11Key, "\n", 2)
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "units", map[string]any{"texts": []any{"before " + lines[0], lines[1] + " after"}})
		if strings.Contains(js, "PRIVATE KEY") || strings.Contains(js, "MIIEow") {
			t.Fatalf("%s: part of the key survived: %s", f.name, js)
		}
		if res.IsError {
			t.Fatalf("%s: %s", f.name, js)
		}
		txt, _, _ := unitsOf(res)
		if len(txt) < 2 || txt[0] != "before [REDACTED]" || txt[1] != "[REDACTED] after" {
			t.Errorf("%s: text items %q", f.name, txt)
		}
	})
}

// Spec 11: no copy of a redacted string survives anywhere: a card number
// held as a JSON number in structuredContent, beside its text, is no
// unit; it must not reach the client.
func TestSpec11RedactedNumber(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		_, js := f.mustCall(t, "units", map[string]any{"texts": []any{`{"card":4111111111111111}`}, "structured": `{"card":4111111111111111}`})
		if strings.Contains(js, "4111111111111111") || strings.Contains(js, "4.111111111111111e") {
			t.Errorf("%s: the card survived: %s", f.name, js)
		}
	})
}

// Spec 11: a warn decision appends the banner to the result, but a
// blocked result is the rejection alone: one text item (post_block warns
// before the call and is blocked after it).
func TestSpec11BlockKeepsOneItem(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, _ := f.mustCall(t, "post_block", nil)
		wantBlock(t, f, res, "S11_POST_BLOCK")
	})
}

// Spec 5.12: a later block wins over an ask: the call is blocked with the
// block's code, and the person is not asked.
func TestSpec11BlockBeatsAsk(t *testing.T) {
	var asked atomic.Int32
	yes := true
	o := s11Opts{approve: &yes, asked: &asked}
	s11Forms(t, o, func(t *testing.T, f *s11Form) {
		asked.Store(0)
		res, _ := f.mustCall(t, "ask_me", map[string]any{"path": "/etc/shadow"})
		wantBlock(t, f, res, "S11_ETC")
		if n := asked.Load(); n != 0 {
			t.Errorf("%s: asked %d times for a call a rule blocks", f.name, n)
		}
		if got := f.ran(t); len(got) != 0 {
			t.Errorf("%s: ran %q", f.name, got)
		}
	})
}

// Spec 5.12 at the version before 2026-07-28 (elicitation during the
// call) too.
func TestSpec11AskOlderVersion(t *testing.T) {
	yes, no := true, false
	for _, approve := range []*bool{&yes, &no, nil} {
		s11Forms(t, s11Opts{approve: approve, version: "2025-06-18"}, func(t *testing.T, f *s11Form) {
			res, js := f.mustCall(t, "ask_me", nil)
			ran := f.ran(t)
			if approve != nil && *approve {
				if res.IsError || len(ran) != 1 {
					t.Errorf("%s: approved: %s, ran %q", f.name, js, ran)
				}
				return
			}
			wantBlock(t, f, res, "S11_ASK")
			if len(ran) != 0 {
				t.Errorf("%s: ran %q", f.name, ran)
			}
		})
	}
}

// Spec 11, Sessions: one MCP session is one oarc session. Two clients of
// one server with the middleware: the untrusted result one read does not
// make the other's write depend on it.
func TestSpec11SessionsApart(t *testing.T) {
	g, err := guard.New(s11Set(t, s11Opts{}))
	if err != nil {
		t.Fatal(err)
	}
	log := t.TempDir() + "/ran"
	srv := spec11Server(log)
	srv.AddReceivingMiddleware(mcpguard.Server(g, s11Cfg(s11Opts{trust: "untrusted"})))
	ctx := context.Background()
	connect := func() *s11Form {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); ss.Wait() })
		return &s11Form{name: "server", cs: cs, log: log}
	}
	a, b := connect(), connect()
	a.mustCall(t, "read", nil)
	res, _ := a.mustCall(t, "write", nil)
	wantBlock(t, a, res, "S11_UNTRUSTED")
	res, js := b.mustCall(t, "write", nil)
	if res.IsError {
		t.Errorf("the other session's write was blocked: %s", js)
	}
}

// Spec 11: everything the upstream offers other than tools (resources,
// prompts) passes through the proxy unchanged.
func TestSpec11ProxyResourcesAndPrompts(t *testing.T) {
	f := s11Proxy(t, s11Opts{})
	ctx := context.Background()
	rr, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///notes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].Text != "notes "+s11Mail {
		t.Errorf("resources/read: %+v", rr.Contents)
	}
	pr, err := f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "hello" {
		t.Errorf("prompts/get: %+v", pr.Messages)
	}
}

// Spec 11: structuredContent's string values are units wherever they
// are: at the top level too (a string or an array where MCP has an
// object), so a key there does not reach the client.
func TestSpec11StructuredNotAnObject(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		for _, sc := range []string{`"` + s11AWS + `"`, `["a","` + s11AWS + `"]`} {
			_, js, err := f.call(t, "units", map[string]any{"texts": []any{"x"}, "structured": sc})
			if err != nil {
				continue // refused: nothing reached the client
			}
			if strings.Contains(js, s11AWS) {
				t.Errorf("%s: structuredContent %s: the key survived: %s", f.name, sc, js)
			}
		}
	})
}

// Spec 11: a JSON-RPC error no rule blocks reaches the client as an error
// (mcp_error_code is its code, which S11_POST_RPCERR blocks only for
// -32042).
func TestSpec11RPCErrorPassesThrough(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js, err := f.call(t, "rpcfail", map[string]any{"code": -32000})
		if err == nil {
			t.Fatalf("%s: a JSON-RPC error became a result: %s (%+v)", f.name, js, res)
		}
		if !strings.Contains(err.Error(), "upstream failed") {
			t.Errorf("%s: error %v", f.name, err)
		}
	})
}

// Spec 11: tool_args is a map: arguments that are no JSON object cannot
// be read as one, and the guard never forwards a call it could not
// evaluate. Arguments whose names differ only by case are blocked too
// (docs/mcp.md): a Go server would read one the rules did not.
func TestSpec11UnreadableArguments(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		for _, args := range []any{json.RawMessage(`[1]`), json.RawMessage(`"x"`), json.RawMessage(`{"path":"/ok","PATH":"/etc/x"}`), json.RawMessage(`{"PATH":"/etc/x","path":"/ok"}`)} {
			res, js, err := f.call(t, "echo", args)
			if err == nil && !res.IsError {
				t.Errorf("%s: arguments %s: forwarded: %s", f.name, args, js)
			}
		}
		if got := f.ran(t); len(got) != 0 {
			t.Errorf("%s: ran %q", f.name, got)
		}
	})
}

// Spec 11: the tool name is forwarded unchanged and tool = mcp_S_T with T
// as the server names it (no normalisation of T).
func TestSpec11ProxyToolNameAsIs(t *testing.T) {
	f := s11Proxy(t, s11Opts{})
	res, _ := f.mustCall(t, "Weird.Name-1", nil)
	wantBlock(t, f, res, "S11_NOT_ALLOWED")
	recs := f.recordsWait(t, 1)
	if len(recs) != 1 || recs[0]["tool"] != "mcp_srv_Weird.Name-1" {
		t.Errorf("records %v", recs)
	}
}

// Spec 11, Provenance: a failed or withheld call records nothing. With
// untrusted results, a write after calls that were blocked before the
// call, withheld after it (at tool.post_invoke, at content.tool_result,
// for a copy of a redacted key), failed (isError, a JSON-RPC error, a
// panic of the engine) sees
// no untrusted input; after one forwarded result it does.
func TestSpec11WithheldRecordsNothing(t *testing.T) {
	o := s11Opts{trust: "untrusted", set: func(s guard.Set) guard.Set { return failingSet{s, true, 0} }}
	s11Forms(t, o, func(t *testing.T, f *s11Form) {
		f.mustCall(t, "secret_tool", nil)
		f.mustCall(t, "post_block", nil)
		f.mustCall(t, "echo", map[string]any{"text": "FORBIDDEN"})
		f.mustCall(t, "echo", map[string]any{"text": s11AWS, "link": "name"})
		f.mustCall(t, "fail", nil)
		f.call(t, "rpcfail", map[string]any{"code": -32000})
		f.mustCall(t, "panic_me", nil)
		res, js := f.mustCall(t, "write", nil)
		if res.IsError {
			t.Fatalf("%s: a write after only failed or withheld calls was blocked: %s", f.name, js)
		}
		f.mustCall(t, "read", nil)
		res, _ = f.mustCall(t, "write", nil)
		wantBlock(t, f, res, "S11_UNTRUSTED")
	})
}

// Spec 11, Result bindings: the functions are answered at
// content.tool_result too; structuredContent, when present, is what is
// validated (the first text item only when there is none): a
// structuredContent that does not validate matches nothing, whatever the
// text item holds.
func TestSpec11BindingsMore(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		_, js := f.mustCall(t, "weather", nil)
		if !strings.Contains(js, "Code: S11_BOUND_CONTENT") {
			t.Errorf("%s: bindings not answered at content.tool_result: %s", f.name, js)
		}
		_, js = f.mustCall(t, "weather", map[string]any{"bad": true})
		if strings.Contains(js, "S11_BOUND") {
			t.Errorf("%s: a structuredContent that does not validate matched (the text item was validated instead): %s", f.name, js)
		}
	})
}

// Spec 11, Tool lists: the listing is narrowed on every page of a
// paginated tools/list, and every allowed tool is on one of them.
func TestSpec11ToolListPages(t *testing.T) {
	s11Forms(t, s11Opts{page: 4}, func(t *testing.T, f *s11Form) {
		var names []string
		for tool, err := range f.cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			names = append(names, tool.Name)
		}
		want := s11Listed()
		slices.Sort(names)
		slices.Sort(want)
		if !reflect.DeepEqual(names, want) {
			t.Errorf("%s: tools/list pages = %q, want %q", f.name, names, want)
		}
	})
}

// Spec 5.12 via 11: the guard asks through elicitation/create with the
// question (built like a rejection, ending Code: <ID>, saying approval is
// needed) and a schema of one boolean approve; a client that cannot be
// asked gets a rejection that says approval was needed.
func TestSpec11AskQuestion(t *testing.T) {
	yes := true
	for _, side := range []string{"server", "proxy"} {
		for _, v := range []string{"2025-06-18", ""} {
			t.Run(side+"@"+v, func(t *testing.T) {
				q := make(chan *mcp.ElicitParams, 4)
				o := s11Opts{approve: &yes, questions: q, version: v}
				var f *s11Form
				if side == "proxy" {
					f = s11Proxy(t, o)
				} else {
					f = s11Middleware(t, side, o)
				}
				res, js := f.mustCall(t, "ask_me", nil)
				if res.IsError {
					t.Fatalf("%s: %s", f.name, js)
				}
				var p *mcp.ElicitParams
				select {
				case p = <-q:
				default:
					t.Fatalf("%s: no elicitation", f.name)
				}
				if !strings.HasSuffix(p.Message, "Code: S11_ASK") || !strings.Contains(strings.ToLower(p.Message), "approv") {
					t.Errorf("%s: question %q", f.name, p.Message)
				}
				b, _ := json.Marshal(p.RequestedSchema)
				var sch struct {
					Type       string                    `json:"type"`
					Properties map[string]map[string]any `json:"properties"`
				}
				json.Unmarshal(b, &sch)
				if sch.Type != "object" || len(sch.Properties) != 1 || sch.Properties["approve"]["type"] != "boolean" {
					t.Errorf("%s: requestedSchema %s, want one boolean approve", f.name, b)
				}
			})
		}
	}
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, _ := f.mustCall(t, "ask_me", nil)
		wantBlock(t, f, res, "S11_ASK")
		if !strings.Contains(strings.ToLower(texts(res)[0]), "approv") {
			t.Errorf("%s: the rejection does not say approval was needed: %q", f.name, texts(res)[0])
		}
	})
}

// Spec 5.12: anything but an explicit yes blocks: the host's Ask failing
// or panicking blocks the call (with the ask rule's code, or OAR_GUARD),
// never forwards it.
func TestSpec11AskHostFails(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		for name, ask := range map[string]func(context.Context, string) (bool, error){
			"error":        func(context.Context, string) (bool, error) { return true, errors.New("no person") },
			"cannot ask":   func(context.Context, string) (bool, error) { return true, guard.ErrCannotAsk },
			"panic":        func(context.Context, string) (bool, error) { panic("ask") },
			"context done": func(ctx context.Context, _ string) (bool, error) { return true, context.Canceled },
		} {
			t.Run(side+"/"+name, func(t *testing.T) {
				g, err := guard.New(s11Set(t, s11Opts{}))
				if err != nil {
					t.Fatal(err)
				}
				cfg := s11Cfg(s11Opts{})
				cfg.Ask = ask
				log := t.TempDir() + "/ran"
				srv := spec11Server(log)
				client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
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
				cs, err := client.Connect(ctx, ct, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { cs.Close(); ss.Wait() }()
				f := &s11Form{name: side + " " + name, cs: cs, log: log}
				res, js, err := f.call(t, "ask_me", nil)
				if err == nil && !res.IsError {
					t.Errorf("%s: forwarded: %s", f.name, js)
				}
				if got := f.ran(t); len(got) != 0 {
					t.Errorf("%s: ran %q", f.name, got)
				}
			})
		}
	}
}

// Spec 11, Built-in validators: at an anchor without content, oarc.secrets
// hits on a credential in a string value anywhere in tool_args (each
// kind the spec lists), oarc.pii on an e-mail address or a card number
// of 13 to 19 digits (spaces or dashes between groups) that passes the
// Luhn check; numbers are not scanned.
func TestSpec11ValidatorsOnArguments(t *testing.T) {
	const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----"
	cases := []struct {
		args any
		code string // "" : forwarded
	}{
		{map[string]any{"a": "AKIAABCDEFGHIJKLMNOP"}, "S11_ARG_SECRET"},
		{map[string]any{"a": map[string]any{"b": []any{"x", "ASIAABCDEFGHIJKLMNOP"}}}, "S11_ARG_SECRET"},
		{map[string]any{"a": "ghp_" + strings.Repeat("a1", 18)}, "S11_ARG_SECRET"},
		{map[string]any{"a": "gho_" + strings.Repeat("B2", 18)}, "S11_ARG_SECRET"},
		{map[string]any{"a": "ghu_" + strings.Repeat("c", 36)}, "S11_ARG_SECRET"},
		{map[string]any{"a": "ghs_" + strings.Repeat("7", 36)}, "S11_ARG_SECRET"},
		{map[string]any{"a": "ghr_" + strings.Repeat("Z", 36)}, "S11_ARG_SECRET"},
		{map[string]any{"a": "github_pat_11ABCDEFG_xyz"}, "S11_ARG_SECRET"},
		{map[string]any{"a": "x " + pem + " y"}, "S11_ARG_SECRET"},
		{map[string]any{"a": "xoxb-123-abc"}, "S11_ARG_SECRET"},
		{map[string]any{"a": "xoxp-1"}, "S11_ARG_SECRET"},
		{map[string]any{"a": "sk_live_abc123"}, "S11_ARG_SECRET"},
		{map[string]any{"a": []any{1, true, "mail " + s11Mail}}, "S11_ARG_PII"},
		{map[string]any{"a": "4111-1111-1111-1111"}, "S11_ARG_PII"},
		{map[string]any{"a": "4111111111111111"}, "S11_ARG_PII"},
		{map[string]any{"a": "card 378282246310005 amex"}, "S11_ARG_PII"},
		{map[string]any{"a": "4111 1111 1111 1112"}, ""},            // fails the Luhn check
		{map[string]any{"a": "AKIAABCDEFGHIJKLMNO"}, ""},            // 15 after AKIA
		{map[string]any{"a": "ghp_" + strings.Repeat("a", 35)}, ""}, // 35 after ghp_
		// Spec 11 names string values; oarc scans names too (a key
		// pasted as a name leaks as well: docs/validators.md).
		{map[string]any{"AKIAABCDEFGHIJKLMNOP": "key in a name"}, "S11_ARG_SECRET"},
		{map[string]any{"a": int64(4111111111111111)}, ""}, // a number is no string
	}
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		runs := 0
		for _, c := range cases {
			res, js := f.mustCall(t, "scan", c.args)
			if c.code == "" {
				runs++
				if res.IsError {
					t.Errorf("%s: arguments %v: blocked: %s", f.name, c.args, js)
				}
				continue
			}
			if !res.IsError || res.Meta["oarc/code"] != c.code {
				t.Errorf("%s: arguments %v: want %s: %s", f.name, c.args, c.code, js)
			}
		}
		if got := f.ran(t); len(got) != runs {
			t.Errorf("%s: the upstream ran %d calls, want %d", f.name, len(got), runs)
		}
	})
}

// Spec 11, Built-in validators in content: each match is a span of
// exactly what the spec says: the longest run of letters and digits
// after sk_live_, of letters, digits and - after a Slack prefix, of
// letters, digits and _ after github_pat_, and a private-key block
// through its END line.
func TestSpec11ValidatorSpans(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a sk_live_abc123_xyz b", "a [REDACTED]_xyz b"},
		{"a xoxb-123-abc_def b", "a [REDACTED]_def b"},
		{"a github_pat_11AB_cd-ef b", "a [REDACTED]-ef b"},
		{"a ghp_" + strings.Repeat("x", 36) + " b", "a [REDACTED] b"},
		{"a AKIAABCDEFGHIJKLMNOP b", "a [REDACTED] b"},
		// "Through the end of its END line": the marker line as PEM
		// writes it, which ends with its last - (docs/validators.md).
		{"x\n-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY----- tail\nnext", "x\n[REDACTED] tail\nnext"},
		{"x\n-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\nnext", "x\n[REDACTED]\nnext"},
		{"mail " + s11Mail + ", card 4111-1111-1111-1111.", "mail [PII], card [PII]."},
	}
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		for _, c := range cases {
			res, js := f.mustCall(t, "echo", map[string]any{"text": c.in})
			if ts := texts(res); res.IsError || len(ts) == 0 || ts[0] != c.want {
				t.Errorf("%s: %q: got %s, want %q", f.name, c.in, js, c.want)
			}
		}
	})
}

// Spec 11, Provenance: for the middleware, a call's inputs are the node
// ids the host attaches to the call's context (without Config.AllInputs):
// a write whose context names no node does not depend on the untrusted
// result; one that names the result's node does.
func TestSpec11InputsFromContext(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			g, err := guard.New(s11Set(t, s11Opts{}))
			if err != nil {
				t.Fatal(err)
			}
			cfg := s11Cfg(s11Opts{trust: "untrusted"})
			cfg.AllInputs = false
			log := t.TempDir() + "/ran"
			srv := spec11Server(log)
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
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
			cs, err := client.Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { cs.Close(); ss.Wait() }()
			read, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read"})
			if err != nil {
				t.Fatal(err)
			}
			node, _ := read.Meta["oarc/node"].(string)
			if node == "" {
				t.Fatalf("no node: %+v", read)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write"})
			if err != nil || res.IsError {
				t.Errorf("a write with no inputs was blocked: %v %+v", err, res)
			}
			if side == "server" {
				return // the client's context does not reach the server's middleware
			}
			res, err = cs.CallTool(guard.WithInputs(ctx, node), &mcp.CallToolParams{Name: "write"})
			if err != nil {
				t.Fatal(err)
			}
			f := &s11Form{name: side}
			wantBlock(t, f, res, "S11_UNTRUSTED")
		})
	}
}

// Spec 11: the whole result is evaluated, however large: a key and an
// address at the end of 8 MiB of text are redacted (or the result
// withheld), never passed on because the scan stopped early.
func TestSpec11LargeResultScannedWhole(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		// The call's deadline is far: scanning 8 MiB under the race
		// detector on a loaded machine took more than call's 20 s, and
		// the rules that had not finished failed closed (the whole text
		// redacted, "[PII]"), 3 runs of the test in 18 so.
		res, js, err := f.callWithin(t, 3*time.Minute, "big", map[string]any{"size": 8 << 20})
		if err != nil {
			return // refused: nothing reached the client
		}
		if strings.Contains(js, s11AWS) || strings.Contains(js, s11Mail) {
			t.Errorf("%s: the key at the end of a large result survived", f.name)
		}
		if got := texts(res); !res.IsError && (len(got) == 0 || !strings.HasSuffix(got[0], "[REDACTED] [PII]")) {
			tail := strings.Join(got, "|")
			tail = tail[max(0, len(tail)-100):]
			t.Errorf("%s: a result ending %q (%d items): %.300s", f.name, tail, len(got), js)
		}
	})
}

// Spec 5.11 through the middleware's checks: every action of a check
// reads the session as before the check (a write beside an untrusted read
// in the same check does not depend on it) and batch_tools (extra2 is
// blocked beside extra1, S11_BATCH); a blocked action does not block its
// siblings; after the check, its updates are in the session.
func TestSpec11Check(t *testing.T) {
	g, err := guard.New(s11Set(t, s11Opts{}))
	if err != nil {
		t.Fatal(err)
	}
	ch := mcpguard.NewChecker(g, s11Cfg(s11Opts{trust: "untrusted"}))
	log := t.TempDir() + "/ran"
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	client.AddSendingMiddleware(ch.Middleware())
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := spec11Server(log).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	f := &s11Form{name: "check", cs: cs, log: log}
	res, errs := ch.CallTools(ctx, cs, []*mcp.CallToolParams{{Name: "read"}, {Name: "extra2"}, {Name: "write"}, {Name: "extra1"}})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if res[0].IsError || res[2].IsError || res[3].IsError {
		t.Errorf("read, write, extra1: %+v %+v %+v", res[0], res[2], res[3])
	}
	wantBlock(t, f, res[1], "S11_BATCH")
	if got := f.ran(t); !reflect.DeepEqual(got, []string{"read", "write", "extra1"}) {
		t.Errorf("ran %q", got)
	}
	// Alone, extra2 is allowed; a write now reads the untrusted result.
	r, js := f.mustCall(t, "extra2", nil)
	if r.IsError {
		t.Errorf("extra2 alone: %s", js)
	}
	r, _ = f.mustCall(t, "write", nil)
	wantBlock(t, f, r, "S11_UNTRUSTED")
}

// Spec 5.12: the guard goes ahead only on an explicit yes: an accept
// whose approve is a string, absent, or false, and a decline or cancel
// with approve true, all block.
func TestSpec11AskOnlyExplicitYes(t *testing.T) {
	yes := true
	for name, a := range map[string]*mcp.ElicitResult{
		"approve string": {Action: "accept", Content: map[string]any{"approve": "true"}},
		"approve absent": {Action: "accept", Content: map[string]any{}},
		"approve 1":      {Action: "accept", Content: map[string]any{"approve": 1}},
		"decline":        {Action: "decline", Content: map[string]any{"approve": true}},
		"cancel":         {Action: "cancel", Content: map[string]any{"approve": true}},
		"Approve":        {Action: "accept", Content: map[string]any{"Approve": true}},
	} {
		t.Run(name, func(t *testing.T) {
			for _, v := range []string{"2025-06-18", ""} {
				for _, side := range []string{"server", "proxy"} {
					o := s11Opts{approve: &yes, answer: a, version: v}
					var f *s11Form
					if side == "proxy" {
						f = s11Proxy(t, o)
					} else {
						f = s11Middleware(t, side, o)
					}
					res, js, err := f.call(t, "ask_me", nil)
					if err == nil && !res.IsError {
						t.Errorf("%s@%s: %s: forwarded: %s", f.name, v, name, js)
					}
					if got := f.ran(t); len(got) != 0 {
						t.Errorf("%s@%s: %s: ran %q", f.name, v, name, got)
					}
				}
			}
		})
	}
}

// Spec 5.11 through the middleware: sessions are scoped to the tenant.
// Two MCP sessions given one oarc session id in one store, in two
// tenants: the untrusted result one read is never an input of the
// other's write (with Config.AllInputs the middleware reads the chain's
// end from the session), while a second MCP session of the same tenant
// shares it.
func TestSpec11TenantsApart(t *testing.T) {
	store := runtime.NewMemStore(0)
	g, err := guard.New(s11Set(t, s11Opts{}))
	if err != nil {
		t.Fatal(err)
	}
	log := t.TempDir() + "/ran"
	ctx := context.Background()
	connect := func(tenant string) *s11Form {
		cfg := s11Cfg(s11Opts{trust: "untrusted"})
		cfg.Session = func(mcp.Session) *runtime.Session {
			return runtime.NewStoreSession(store, "one-id", runtime.WithTenant(tenant))
		}
		srv := spec11Server(log)
		srv.AddReceivingMiddleware(mcpguard.Server(g, cfg))
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); ss.Wait() })
		return &s11Form{name: "tenant " + tenant, cs: cs, log: log}
	}
	a, b, a2 := connect("a"), connect("b"), connect("a")
	a.mustCall(t, "read", nil)
	// A MemStore keeps one session: tenant b's session in it is refused
	// (OAR_GUARD, docs), never read from tenant a's.
	res, js := b.mustCall(t, "write", nil)
	if res.Meta["oarc/code"] == "S11_UNTRUSTED" {
		t.Errorf("tenant b's write read tenant a's result: %s", js)
	}
	res, _ = a2.mustCall(t, "write", nil)
	wantBlock(t, a2, res, "S11_UNTRUSTED")
}

// Spec 5.1 and 11: a rule that fails closed at content.tool_result blocks
// with a rejection that says why it could not be evaluated; the why must
// not carry the result it withheld: a key a transform would have redacted
// from it must not reach the client in the rejection.
func TestSpec11FailedClosedWhyHoldsNoContent(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "conv", map[string]any{"text": s11AWS})
		wantBlock(t, f, res, "S11_CONV")
		if strings.Contains(js, s11AWS) {
			t.Errorf("%s: the rejection carries the withheld result's key: %s", f.name, js)
		}
		if !strings.HasPrefix(texts(res)[0], "This rule could not be evaluated") {
			t.Errorf("%s: the rejection does not say the rule could not be evaluated: %s", f.name, js)
		}
		// A warning that fails closed: its banner rides on the result,
		// whose key the transform redacted; the banner must not bring it
		// back, nor the card number of a result that is only the card.
		for _, text := range []string{"key " + s11AWS, "4111111111111111"} {
			res, js = f.mustCall(t, "conv_warn", map[string]any{"text": text})
			if res.IsError || !strings.HasSuffix(lastText(res), "Code: S11_CONV_WARN") {
				t.Errorf("%s: %s", f.name, js)
			}
			if strings.Contains(js, s11AWS) || strings.Contains(js, "4111111111111111") {
				t.Errorf("%s: the banner carries what the transform redacted: %s", f.name, js)
			}
		}
	})
}

// Spec 5.6 and 11: a replacement is text, written back into each unit as
// a string: JSON's special characters in it (quotes, a backslash, a line
// break, U+2028) stay text in the text item, the resource and
// structuredContent, which stays valid JSON with its members unchanged;
// the first rule's replacement wins over REDACT_PII's on the same spans.
func TestSpec11ReplacementIsText(t *testing.T) {
	const repl = "<\"q\" \\ \n é 😀 \u2028>"
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "quote", map[string]any{"text": "mail " + s11Mail + " end", "structured": true, "resource": true})
		want := "mail " + repl + " end"
		if res.IsError || texts(res)[0] != want {
			t.Fatalf("%s: %s", f.name, js)
		}
		_, rs, sc := unitsOf(res)
		if len(rs) != 1 || rs[0] != want {
			t.Errorf("%s: resource %q", f.name, rs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(sc), &m); err != nil || m["copy"] != want || len(m) != 2 || !reflect.DeepEqual(m["list"], []any{want, 1.0}) {
			t.Errorf("%s: structuredContent %s (%v)", f.name, sc, err)
		}
	})
}

// Spec 11: mcp_server_configured and mcp_server_enabled come from the
// host's server registry (the middleware's Config.Server): a server the
// host has not enabled does not pass S11_PRE_SERVER's check.
func TestSpec11ServerRegistry(t *testing.T) {
	for _, reg := range []struct{ configured, enabled bool }{{true, false}, {false, false}, {false, true}} {
		g, err := guard.New(s11Set(t, s11Opts{}))
		if err != nil {
			t.Fatal(err)
		}
		cfg := s11Cfg(s11Opts{})
		cfg.Server.Configured, cfg.Server.Enabled = reg.configured, reg.enabled
		srv := spec11Server(t.TempDir() + "/ran")
		srv.AddReceivingMiddleware(mcpguard.Server(g, cfg))
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
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "probe"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), "S11_PRE_SERVER") || !strings.Contains(string(b), "S11_PRE_TOOL") {
			t.Errorf("configured %v, enabled %v: %s", reg.configured, reg.enabled, b)
		}
		cs.Close()
		ss.Wait()
	}
}

// Spec 11: a block is one text item holding the rejection, also when a
// nudge fired before it: the middleware hands the notes to the host
// (Config.Notes); without it, and in the proxy, they are in that item
// before the rejection, which still ends Code: <ID>.
func TestSpec11NudgeThenBlock(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "nudge_block", map[string]any{"path": "/etc/x"})
		wantBlock(t, f, res, "S11_ETC")
		if !strings.Contains(js, "Code: S11_A_NUDGE") {
			t.Errorf("%s: the notes were lost: %s", f.name, js)
		}
	})
	for _, side := range []string{"client", "server"} {
		f := s11Middleware(t, side, s11Opts{notes: true})
		res, js := f.mustCall(t, "nudge_block", map[string]any{"path": "/etc/x"})
		wantBlock(t, f, res, "S11_ETC")
		if strings.Contains(js, "S11_A_NUDGE") || !strings.Contains(f.notes.all(), "Code: S11_A_NUDGE") {
			t.Errorf("%s: notes %q, result %s", f.name, f.notes.all(), js)
		}
	}
}
