package mcpguard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/runtime"
)

// lastText is the last text item of a result.
func lastText(r *mcp.CallToolResult) string {
	ts := texts(r)
	if len(ts) == 0 {
		return ""
	}
	return ts[len(ts)-1]
}

// Spec 11, Occurrences: tool = mcp_S_T, mcp_qualified_tool = tool,
// mcp_server_id = S, mcp_tool_name = T, configured and enabled,
// mcp_call_ok false and mcp_error_code "" before the call, tool_args the
// call's arguments; after it mcp_call_ok true and the same facts, and
// content.tool_result with the result's text. Each S11_* warning of
// internal/spec11rules fires only when its facts are as the spec says;
// the banner (5.1) is appended as one last text item. Tool names are
// forwarded unchanged.
func TestSpec11Facts(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "probe", map[string]any{"k": "v", "n": 3, "nested": map[string]any{"inner": "x"}})
		if res.IsError {
			t.Fatalf("%s: probe failed: %s", f.name, js)
		}
		ts := texts(res)
		if len(ts) != 2 || ts[0] != "probed" {
			t.Fatalf("%s: want the result's text and one banner item, got %q", f.name, ts)
		}
		banner := ts[1]
		for _, code := range []string{"S11_PRE_TOOL", "S11_PRE_SERVER", "S11_PRE_NOTYET", "S11_PRE_ARGS", "S11_POST_OK", "S11_UNBOUND", "S11_CONTENT_FACTS"} {
			if !strings.Contains(banner, "Code: "+code+"\n") && !strings.HasSuffix(banner, "Code: "+code) {
				t.Errorf("%s: the banner lacks %s (its facts are not as spec 11 says): %q", f.name, code, banner)
			}
		}
		if strings.Contains(banner, "S11_PRE_ARGS_EMPTY") {
			t.Errorf("%s: tool_args empty for a call with arguments: %q", f.name, banner)
		}
		if got := f.ran(t); !reflect.DeepEqual(got, []string{"probe"}) {
			t.Errorf("%s: the upstream ran %q, want [probe] (tool names forwarded unchanged)", f.name, got)
		}
	})
}

// Spec 11: tool_args = the call's arguments (absent or null: an empty map).
func TestSpec11AbsentAndNullArguments(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		for _, args := range []any{nil, json.RawMessage(`null`), map[string]any{}} {
			res, js := f.mustCall(t, "probe", args)
			if res.IsError || !strings.Contains(lastText(res), "Code: S11_PRE_ARGS_EMPTY") {
				t.Errorf("%s: arguments %v: tool_args is not an empty map: %s", f.name, args, js)
			}
		}
		if got := f.ran(t); len(got) != 3 {
			t.Errorf("%s: the upstream ran %q, want probe three times", f.name, got)
		}
	})
}

// Spec 11, Block: a blocked call is never forwarded; the client receives
// isError, one text item ending "Code: <ID>", and _meta oarc/code. Here by
// a rule on the arguments, and by deny-by-default for a tool no allow rule
// allows (Tool lists: a tool left out is still evaluated, and blocked).
func TestSpec11Block(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, _ := f.mustCall(t, "echo", map[string]any{"path": "/etc/passwd", "text": "hi"})
		wantBlock(t, f, res, "S11_ETC")
		res, _ = f.mustCall(t, "secret_tool", map[string]any{})
		wantBlock(t, f, res, "S11_NOT_ALLOWED")
		if got := f.ran(t); len(got) != 0 {
			t.Errorf("%s: blocked calls reached the upstream: %q", f.name, got)
		}
		if res.Meta["oarc/node"] != nil {
			t.Errorf("%s: a blocked call recorded a node: %v", f.name, res.Meta)
		}
	})
}

// s11Listed are the tools tools/list shows: every tool some enforced
// allow rule may allow, judged from the selectors: by mcp_tool_name with
// mcp_server_id (ALLOW_SRV), by tool (ALLOW_BY_TOOL), by
// mcp_qualified_tool (ALLOW_BY_QUAL, extra2), with a when (ALLOW_WHEN,
// extra4); not extra3, allowed on another server (ALLOW_OTHER, and
// ALLOW_BY_QUAL as mcp_other_extra3), not extra5, allowed by a monitored
// rule, not secret_tool, allowed by none.
func s11Listed() []string {
	return slices.DeleteFunc(slices.Clone(spec11Tools), func(s string) bool {
		return s == "secret_tool" || s == "extra3" || s == "extra5"
	})
}

// Spec 11, Tool lists: under an enforced deny-by-default at
// tool.pre_invoke, tools/list leaves out every tool no allow rule can
// allow, and keeps the others; a tool left out is still evaluated, and
// blocked; one listed whose allow rule does not fire is blocked too.
func TestSpec11ToolList(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		lr, err := f.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range lr.Tools {
			names = append(names, tool.Name)
		}
		want := s11Listed()
		slices.Sort(names)
		slices.Sort(want)
		if !reflect.DeepEqual(names, want) {
			t.Errorf("%s: tools/list = %q, want %q", f.name, names, want)
		}
		for _, c := range []struct {
			tool string
			args map[string]any
			code string
		}{
			{"extra1", nil, ""}, {"extra2", nil, ""}, {"extra3", nil, "S11_NOT_ALLOWED"},
			{"extra4", map[string]any{"ok": "yes"}, ""}, {"extra4", nil, "S11_NOT_ALLOWED"},
			{"extra5", nil, "S11_NOT_ALLOWED"},
		} {
			res, js := f.mustCall(t, c.tool, c.args)
			if c.code == "" {
				if res.IsError {
					t.Errorf("%s: %s %v: %s", f.name, c.tool, c.args, js)
				}
				continue
			}
			wantBlock(t, f, res, c.code)
		}
		if got := f.ran(t); !reflect.DeepEqual(got, []string{"extra1", "extra2", "extra4"}) {
			t.Errorf("%s: ran %q", f.name, got)
		}
	})
}

// Spec 11, Block: a warn decision forwards the call and appends the banner
// as a last text item; notes of nudges are appended the same way by the
// proxy (and by the middleware without Config.Notes, docs/mcp.md).
func TestSpec11WarnAndNudge(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "warn_me", nil)
		ts := texts(res)
		if res.IsError || len(ts) != 2 || ts[0] != "warn_me ran" || !strings.HasSuffix(ts[1], "Code: S11_WARN") {
			t.Errorf("%s: warn: %s", f.name, js)
		}
		res, js = f.mustCall(t, "nudge_me", nil)
		ts = texts(res)
		if res.IsError || len(ts) != 2 || ts[0] != "nudge_me ran" || !strings.Contains(ts[1], "Code: S11_NUDGE") {
			t.Errorf("%s: nudge: %s", f.name, js)
		}
		if got := f.ran(t); !reflect.DeepEqual(got, []string{"warn_me", "nudge_me"}) {
			t.Errorf("%s: the upstream ran %q", f.name, got)
		}
	})
}

// Spec 11: the middleware hands nudges' notes to the host.
func TestSpec11NotesToHost(t *testing.T) {
	for _, side := range []string{"client", "server"} {
		t.Run(side, func(t *testing.T) {
			f := s11Middleware(t, side, s11Opts{notes: true})
			res, js := f.mustCall(t, "nudge_me", nil)
			if ts := texts(res); len(ts) != 1 || ts[0] != "nudge_me ran" {
				t.Errorf("%s: the notes were appended although the host takes them: %s", f.name, js)
			}
			if !strings.Contains(f.notes.all(), "Code: S11_NUDGE") {
				t.Errorf("%s: the host got no notes: %q", f.name, f.notes.all())
			}
		})
	}
}

// Spec 11, After the call: a block at tool.post_invoke withholds the
// result (the call ran); mcp_error_code is "tool_error" for a result with
// isError (a warn appends its banner); the JSON-RPC error code as a
// decimal string for a JSON-RPC error, and a block there gives the client
// the rejection instead.
func TestSpec11PostInvoke(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "post_block", nil)
		wantBlock(t, f, res, "S11_POST_BLOCK")
		if strings.Contains(js, "post_block ran") {
			t.Errorf("%s: the withheld result reached the client: %s", f.name, js)
		}
		res, js = f.mustCall(t, "fail", nil)
		ts := texts(res)
		if !res.IsError || len(ts) != 2 || ts[0] != "boom" || !strings.HasSuffix(ts[1], "Code: S11_POST_TOOLERR") {
			t.Errorf("%s: isError result: want boom and the S11_POST_TOOLERR banner: %s", f.name, js)
		}
		if res.Meta["oarc/node"] != nil {
			t.Errorf("%s: a failed call recorded a node: %s", f.name, js)
		}
		res, _, err := f.call(t, "rpcfail", nil)
		if err != nil {
			t.Fatalf("%s: a blocked JSON-RPC error reached the client as %v, want the rejection", f.name, err)
		}
		wantBlock(t, f, res, "S11_POST_RPCERR")
		if got := f.ran(t); !reflect.DeepEqual(got, []string{"post_block", "fail", "rpcfail"}) {
			t.Errorf("%s: the upstream ran %q", f.name, got)
		}
	})
}

// Spec 11: a block at content.tool_result withholds the result.
func TestSpec11ContentBlock(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		for _, args := range []map[string]any{
			{"text": "a FORBIDDEN word"},
			{"text": "FORBIDDEN", "resource": true},
		} {
			res, js := f.mustCall(t, "echo", args)
			wantBlock(t, f, res, "S11_FORBIDDEN")
			if strings.Contains(strings.ReplaceAll(js, "S11_FORBIDDEN", ""), "FORBIDDEN") {
				t.Errorf("%s: the withheld text reached the client: %s", f.name, js)
			}
		}
		// In structuredContent only: its string values are units too.
		res, js := f.mustCall(t, "echo", map[string]any{"text": "", "structured": true})
		if res.IsError {
			t.Errorf("%s: %s", f.name, js)
		}
	})
}

// Spec 11: content = the text items, the text of embedded text resources,
// and every string value of structuredContent in its JSON order, each a
// unit, joined with \n; content the engine cannot read (images, resource
// links) passes through unchanged.
func TestSpec11ContentUnits(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "rich", nil)
		// The Go SDK's client decodes structuredContent into a map before
		// the middleware on a client sees it: its members come in sorted
		// order there (docs/mcp.md), in JSON order elsewhere.
		want := "S11_ORDER"
		if f.name == "middleware on the client" {
			want = "S11_ORDER_SORTED"
		}
		if res.IsError || !strings.HasSuffix(lastText(res), "Code: "+want) {
			t.Errorf("%s: content is not the units in order (%s): %s", f.name, want, js)
		}
		var img *mcp.ImageContent
		var link *mcp.ResourceLink
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.ImageContent:
				img = c
			case *mcp.ResourceLink:
				link = c
			}
		}
		if img == nil || string(img.Data) != "PNGDATA" || img.MIMEType != "image/png" {
			t.Errorf("%s: the image did not pass unchanged: %s", f.name, js)
		}
		if link == nil || link.URI != "file:///link" {
			t.Errorf("%s: the resource link did not pass unchanged: %s", f.name, js)
		}
	})
}

// Spec 11 and 5.6: a transform rewrites each unit and writes it back, so
// that no copy of a redacted string survives anywhere in the result (text
// items, embedded resources, structuredContent); each transform rule's
// replacement stays its own.
func TestSpec11Redaction(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		text := "aws " + s11AWS + " gh " + s11GH + " mail " + s11Mail + " card " + s11Card + " end"
		res, js := f.mustCall(t, "echo", map[string]any{"text": text, "structured": true, "resource": true})
		if res.IsError {
			t.Fatalf("%s: %s", f.name, js)
		}
		for _, secret := range []string{s11AWS, s11GH, s11Mail, s11Card, "4111111111111111", "AKIA", "ghp_", "@example.com"} {
			if strings.Contains(js, secret) {
				t.Errorf("%s: %q survived the transform: %s", f.name, secret, js)
			}
		}
		want := "aws [REDACTED] gh [REDACTED] mail [PII] card [PII] end"
		if ts := texts(res); len(ts) == 0 || ts[0] != want {
			t.Errorf("%s: text item %q, want %q", f.name, ts, want)
		}
		var sc map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &sc)
		if sc["copy"] != want || !reflect.DeepEqual(sc["list"], []any{want, 1.0}) {
			t.Errorf("%s: structuredContent = %s, want each string redacted, the number kept", f.name, b)
		}
		var resText string
		for _, c := range res.Content {
			if er, ok := c.(*mcp.EmbeddedResource); ok {
				resText = er.Resource.Text
			}
		}
		if resText != want {
			t.Errorf("%s: embedded resource text %q, want %q", f.name, resText, want)
		}
	})
}

// Spec 11, Result bindings: structuredContent (else the first text item
// parsed as JSON) is validated against the bindings matching S and T;
// mcp_schema_matched and mcp_field_* read the validated result; with no
// binding matched, mcp_schema_matched is false and mcp_has_field false.
func TestSpec11Bindings(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		for _, tool := range []string{"weather", "weather_any"} {
			res, js := f.mustCall(t, tool, nil)
			if res.IsError || !strings.Contains(js, "Code: S11_BOUND") || strings.Contains(js, "S11_UNBOUND") {
				t.Errorf("%s: %s: the binding did not match or its fields read wrong: %s", f.name, tool, js)
			}
		}
		res, js := f.mustCall(t, "weather_text", nil)
		if res.IsError || strings.Contains(js, "S11_BOUND") || !strings.Contains(js, "Code: S11_UNBOUND") {
			t.Errorf("%s: weather_text has no binding: %s", f.name, js)
		}
	})
}

// Spec 11, Provenance: every successful result forwarded carries its node
// id in _meta "oarc/node" (a tool_result with the configured trust tier);
// the proxy's (and AllInputs middleware's) inputs are every node so far,
// so a write after reading an untrusted result sees "untrusted" in
// provenance_trust_tiers. A server's own oarc/ keys in _meta are not
// passed on as the guard's.
func TestSpec11Provenance(t *testing.T) {
	s11Forms(t, s11Opts{trust: "untrusted"}, func(t *testing.T, f *s11Form) {
		res, js := f.mustCall(t, "write", nil)
		if res.IsError {
			t.Fatalf("%s: a write before any result was blocked: %s", f.name, js)
		}
		node, _ := res.Meta["oarc/node"].(string)
		if node == "" {
			t.Errorf("%s: no oarc/node in a successful result: %s", f.name, js)
		}
		res, js = f.mustCall(t, "echo", map[string]any{"text": "hi", "meta": true})
		if n, _ := res.Meta["oarc/node"].(string); n == "" || n == "forged" || n == node {
			t.Errorf("%s: oarc/node %q (first %q): %s", f.name, n, node, js)
		}
		if res.Meta["oarc/code"] != nil {
			t.Errorf("%s: the server's oarc/code reached the client: %s", f.name, js)
		}
		res, _ = f.mustCall(t, "write", nil)
		wantBlock(t, f, res, "S11_UNTRUSTED")
		if got := f.ran(t); !reflect.DeepEqual(got, []string{"write", "echo"}) {
			t.Errorf("%s: the upstream ran %q", f.name, got)
		}
	})
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		f.mustCall(t, "read", nil)
		res, js := f.mustCall(t, "write", nil)
		if res.IsError {
			t.Errorf("%s: a write after a result of no trust tier was blocked: %s", f.name, js)
		}
	})
}

// Spec 5.12 via 11: an ask rule proceeds only on an explicit yes; a no
// blocks with the rule's rejection; a client that cannot be asked is
// blocked, unasked, with a rejection (Code: the ask rule's id).
func TestSpec11Ask(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name    string
		approve *bool
	}{{"yes", &yes}, {"no", &no}, {"cannot ask", nil}} {
		t.Run(c.name, func(t *testing.T) {
			s11Forms(t, s11Opts{approve: c.approve}, func(t *testing.T, f *s11Form) {
				res, js := f.mustCall(t, "ask_me", nil)
				ran := f.ran(t)
				if c.approve != nil && *c.approve {
					if res.IsError || texts(res)[0] != "ask_me ran" || !reflect.DeepEqual(ran, []string{"ask_me"}) {
						t.Errorf("%s: approved ask: %s, ran %q", f.name, js, ran)
					}
					return
				}
				wantBlock(t, f, res, "S11_ASK")
				if len(ran) != 0 {
					t.Errorf("%s: an unapproved call ran: %q", f.name, ran)
				}
			})
		})
	}
}

// failingSet is a guard.Set that panics, or fails, at tool.pre_invoke of
// the tool panic_me, and otherwise is the generated set.
type failingSet struct {
	guard.Set
	panics bool
	// at is the anchor where it fails (0: tool.pre_invoke).
	at guard.Anchor
}

func (s failingSet) Evaluate(ctx context.Context, o *guard.Occurrence, sess *runtime.Session, d *runtime.Decision) error {
	at := s.at
	if at == 0 {
		at = guard.PreInvoke
	}
	if o.ToolName == "panic_me" && o.Anchor == at {
		if s.panics {
			panic("spec11: a panic in the engine")
		}
		return fmt.Errorf("spec11: an engine error")
	}
	return s.Set.Evaluate(ctx, o, sess, d)
}

// Spec 11: a panic or an internal error in the guard blocks the call with
// code OAR_GUARD: the guard never forwards a call it could not evaluate.
func TestSpec11GuardFailsClosed(t *testing.T) {
	for _, panics := range []bool{true, false} {
		t.Run(fmt.Sprint("panics=", panics), func(t *testing.T) {
			o := s11Opts{set: func(s guard.Set) guard.Set { return failingSet{s, panics, 0} }}
			s11Forms(t, o, func(t *testing.T, f *s11Form) {
				res, _ := f.mustCall(t, "panic_me", nil)
				wantBlock(t, f, res, "OAR_GUARD")
				if got := f.ran(t); len(got) != 0 {
					t.Errorf("%s: a call the guard could not evaluate ran: %q", f.name, got)
				}
				// The next call is evaluated as usual.
				res, js := f.mustCall(t, "warn_me", nil)
				if res.IsError {
					t.Errorf("%s: after the failure: %s", f.name, js)
				}
			})
		})
	}
}

// Spec 5.1 through 11: a rule whose condition cannot be evaluated fails
// closed (the default on_error): it blocks with its own code, and the
// rejection first says that the rule could not be evaluated.
func TestSpec11RuleFailsClosed(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		res, _ := f.mustCall(t, "errs", map[string]any{})
		wantBlock(t, f, res, "S11_ERRS")
		if txt := texts(res); len(txt) == 1 && strings.HasPrefix(txt[0], "Rule S11_ERRS") {
			t.Errorf("%s: the rejection does not first say the rule could not be evaluated: %q", f.name, txt[0])
		}
		if got := f.ran(t); len(got) != 0 {
			t.Errorf("%s: ran %q", f.name, got)
		}
	})
}

// Spec 11: "no copy of a redacted string survives anywhere in the
// result". A resource link is content the engine cannot read, passed
// through unchanged, but its name, title, description, uri and _meta are
// text that reaches the client: a key redacted from the text item must
// not reach it there (withheld, as a copy in an image's _meta is).
func TestSpec11RedactedCopyInResourceLink(t *testing.T) {
	s11Forms(t, s11Opts{}, func(t *testing.T, f *s11Form) {
		for _, where := range []string{"name", "title", "description", "uri", "meta"} {
			res, js := f.mustCall(t, "echo", map[string]any{"text": s11AWS, "link": where})
			if strings.Contains(js, s11AWS) {
				t.Errorf("%s: a redacted key survived in a resource link's %s: %s", f.name, where, js)
				continue
			}
			if !res.IsError && texts(res)[0] != "[REDACTED]" {
				t.Errorf("%s: %s: %s", f.name, where, js)
			}
		}
		// The same copy in an image's _meta.
		_, js := f.mustCall(t, "echo", map[string]any{"text": s11AWS, "itemmeta": true})
		if strings.Contains(js, s11AWS) {
			t.Errorf("%s: a redacted key survived in an image's _meta: %s", f.name, js)
		}
	})
}

// Spec 11: the same after the call: a panic or an error of the engine at
// tool.post_invoke or content.tool_result withholds the result (the call
// ran) with OAR_GUARD; it never reaches the client unevaluated, and no
// node is recorded for it.
func TestSpec11GuardFailsClosedAfterCall(t *testing.T) {
	for _, at := range []guard.Anchor{guard.PostInvoke, guard.ToolResult} {
		for _, panics := range []bool{true, false} {
			t.Run(fmt.Sprint(at, " panics=", panics), func(t *testing.T) {
				o := s11Opts{trust: "untrusted", set: func(s guard.Set) guard.Set { return failingSet{s, panics, at} }}
				s11Forms(t, o, func(t *testing.T, f *s11Form) {
					res, js := f.mustCall(t, "panic_me", nil)
					wantBlock(t, f, res, "OAR_GUARD")
					if strings.Contains(js, "panic_me ran") {
						t.Errorf("%s: the result reached the client: %s", f.name, js)
					}
					if got := f.ran(t); !reflect.DeepEqual(got, []string{"panic_me"}) {
						t.Errorf("%s: ran %q", f.name, got)
					}
					res, js = f.mustCall(t, "write", nil)
					if res.IsError {
						t.Errorf("%s: the withheld result was recorded: %s", f.name, js)
					}
				})
			})
		}
	}
}
