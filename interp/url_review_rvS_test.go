package interp_test

import (
	"testing"

	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/impl"
)

// TestURLColonsWhateverGODEBUG: Go's net/url.Parse refuses an http(s)
// host with two colons ("http://example.com:80:90/") unless the binary
// runs with GODEBUG urlstrictcolons=0, the default of every module whose
// go.mod says go 1.25 or older: there url_host was "example.com:80" and
// url_port 90 where oarc test (and the reference) gave an error. A
// rule's meaning must not depend on its host's go.mod: such a URL is an
// error at the call in both engines, whatever GODEBUG says.
func TestURLColonsWhateverGODEBUG(t *testing.T) {
	e, err := interp.New(load(t, `{"oar":"1.0","id":"U","kind":"policy","anchor":"tool.pre_invoke","effect":"warn","on_error":"fail_open","requires":{"profiles":["tool"]},"when":"url_host(tool_arg_string(\"u\")) == \"\" || url_port(tool_arg_string(\"u\")) == 0"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, godebug := range []string{"", "urlstrictcolons=0", "urlstrictcolons=1"} {
		t.Setenv("GODEBUG", godebug)
		for _, u := range []string{"http://example.com:80:90/", "HTTPS://a:b:443", "http://u:p@h:1:2/x"} {
			if h, e := impl.URLHost(u); e.Kind != runtime.ErrInvalidArgument {
				t.Errorf("GODEBUG=%s: runtime url_host(%q) = %q, %v, want an invalid_argument error", godebug, u, h, e)
			}
			if p, e := impl.URLPort(u); e.Kind != runtime.ErrInvalidArgument {
				t.Errorf("GODEBUG=%s: runtime url_port(%q) = %d, %v, want an invalid_argument error", godebug, u, p, e)
			}
			d := e.Evaluate(&interp.Occurrence{Anchor: "tool.pre_invoke", Facts: map[string]any{"tool_args": map[string]any{"u": u}}}, nil)
			if len(d.Errors) != 1 || d.Errors[0].Kind != runtime.ErrInvalidArgument {
				t.Errorf("GODEBUG=%s: reference on %q: %s %+v, want one invalid_argument error", godebug, u, d.Effect, d.Errors)
			}
		}
		// Other schemes have always taken the last colon: no change.
		if h, e := impl.URLHost("ws://a:b:80/"); e.Kind != runtime.ErrNone || h != "a:b" {
			t.Errorf("GODEBUG=%s: url_host(ws://a:b:80/) = %q, %v", godebug, h, e)
		}
	}
}
