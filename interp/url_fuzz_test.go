package interp_test

import (
	"fmt"
	"testing"

	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/interp"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/impl"
)

// FuzzURLFunctions: for any string, the URL functions of spec 5.11 give in
// the interpreter the value the runtime gives, or its error (kind and
// words). The seeds are URLs at the edges of net/url: userinfo, IPv6
// literals and zones, ports out of range or signed, IDNA and non-ASCII
// hosts, percent-encoding, backslashes, opaque forms.
func FuzzURLFunctions(f *testing.F) {
	for _, u := range []string{
		"https://api.example.com/v1", "HTTP://User:Pw@[FE80::1%25ETH0]:8080/a%2Fb", "http://[::1]", "http://h:65536/", "http://h:+1/",
		"http://h:-1/", "http://h:99999999999999999999/", "http://h:/", "http://[::1]:/", "mailto:a@b.c", "http:///p", "//h/p", "",
		"http://xn--e1afmkfd.xn--p1ai/", "http://münchen.de./", "http://%41.com/", "http://a\\b/", "http:\\\\h", "http://[::ffff:1.2.3.4]:0",
		"http://h:٣/", "http://0x7f.1/", "git+ssh://git@h:22/x", "http://h/%zz", "http://h\x00/", "http://a@b@c/", "http://[v1.x]/",
	} {
		f.Add(u)
	}
	type fn struct {
		when    string
		runtime func(string) (any, runtime.Err)
	}
	fns := []fn{
		{`url_host(tool_arg_string("u")) == tool_arg_string("want")`, func(s string) (any, runtime.Err) { return impl.URLHost(s) }},
		{`url_scheme(tool_arg_string("u")) == tool_arg_string("want")`, func(s string) (any, runtime.Err) { return impl.URLScheme(s) }},
		{`url_port(tool_arg_string("u")) == tool_arg_int("want")`, func(s string) (any, runtime.Err) { return impl.URLPort(s) }},
		{`url_path(tool_arg_string("u")) == tool_arg_string("want")`, func(s string) (any, runtime.Err) { return impl.URLPath(s) }},
	}
	engines := make([]*interp.Engine, len(fns))
	for i, fn := range fns {
		doc := fmt.Sprintf(`{"oar":"1.0","id":"U","kind":"policy","anchor":"tool.pre_invoke","effect":"warn","on_error":"fail_open","requires":{"profiles":["tool"]},"when":%q}`, fn.when)
		set, ds := compiler.LoadRuleDoc("r.json", []byte(doc), "", compiler.Options{})
		if ds.HasErrors() {
			f.Fatal(ds.Text())
		}
		e, err := interp.New(set)
		if err != nil {
			f.Fatal(err)
		}
		engines[i] = e
	}
	f.Fuzz(func(t *testing.T, u string) {
		for i, fn := range fns {
			want, werr := fn.runtime(u)
			d := engines[i].Evaluate(&interp.Occurrence{Anchor: "tool.pre_invoke", Facts: map[string]any{"tool_args": map[string]any{"u": u, "want": want}}}, nil)
			switch {
			case werr.Kind != runtime.ErrNone:
				if len(d.Errors) != 1 || d.Errors[0].Kind != werr.Kind || d.Errors[0].Message != werr.Error() {
					t.Errorf("%s on %q: %+v, want the runtime's error %s %q", fn.when, u, d.Errors, werr.Kind, werr.Error())
				}
			case len(d.Errors) > 0 || d.Effect != "warn":
				t.Errorf("%s on %q: %s %+v, want the runtime's %#v", fn.when, u, d.Effect, d.Errors, want)
			}
		}
	})
}
