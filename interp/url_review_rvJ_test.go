package interp_test

import (
	"fmt"
	"testing"

	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/impl"
)

// TestURLFunctionsAsTheRuntime: the URL functions (spec 5.11) give, on
// odd URLs, the value the runtime gives, and its error: the same kind
// and the same words. A rule of a rule store (spec 12) runs through this
// interpreter, so its error message is what an agent reads in the
// rejection of a rule that failed closed; it said "has no scheme or no
// host" where the same rule compiled says "has no host".
func TestURLFunctionsAsTheRuntime(t *testing.T) {
	urls := []string{
		"https://api.example.com/v1", "HTTP://User:Pw@[FE80::1%25ETH0]:8080/a%2Fb", "http://[::1]", "http://[::1", "http://h:65536/",
		"http://h:99999999999999999999/", "http://h:/", "http://h:+1/", "http://h:0x50/", "http://:80/", "http:///p", "mailto:a@b.c",
		"//h/p", "/p", "", " ", "http://h/../..", "http://h/%zz", "http://%41.com/", "http://%C3%A9.com/", "http://münchen.de./",
		"http://ｅｖｉｌ.com/", "http://a@b@c/", "http://evil.com\\@good.com/", "ftp://h", "http:h", "http://h\x00/", "http://1.2.3.4:0",
		"h:80", "HtTpS://X.COM", "http://h#f", "http://h?q", "http://[fe80::1%eth0]/",
	}
	type fn struct {
		name, when string
		runtime    func(string) (any, runtime.Err)
	}
	fns := []fn{
		{"url_host", `url_host(tool_arg_string("u")) == tool_arg_string("want")`, func(s string) (any, runtime.Err) { return impl.URLHost(s) }},
		{"url_scheme", `url_scheme(tool_arg_string("u")) == tool_arg_string("want")`, func(s string) (any, runtime.Err) { return impl.URLScheme(s) }},
		{"url_port", `url_port(tool_arg_string("u")) == tool_arg_int("want")`, func(s string) (any, runtime.Err) { return impl.URLPort(s) }},
		{"url_path", `url_path(tool_arg_string("u")) == tool_arg_string("want")`, func(s string) (any, runtime.Err) { return impl.URLPath(s) }},
	}
	for _, f := range fns {
		e, err := interp.New(load(t, fmt.Sprintf(`{"oar":"1.0","id":"U","kind":"policy","anchor":"tool.pre_invoke","effect":"warn","on_error":"fail_open","requires":{"profiles":["tool"]},"when":%q}`, f.when)))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range urls {
			want, werr := f.runtime(u)
			d := e.Evaluate(&interp.Occurrence{Anchor: "tool.pre_invoke", Facts: map[string]any{"tool_args": map[string]any{"u": u, "want": want}}}, nil)
			switch {
			case werr.Kind != runtime.ErrNone:
				if len(d.Errors) != 1 || d.Errors[0].Kind != werr.Kind || d.Errors[0].Message != werr.Error() {
					t.Errorf("%s(%q): %+v, want the error %s %q", f.name, u, d.Errors, werr.Kind, werr.Error())
				}
			case len(d.Errors) > 0 || d.Effect != "warn":
				t.Errorf("%s(%q): %s %+v, want %#v", f.name, u, d.Effect, d.Errors, want)
			}
		}
	}
}
