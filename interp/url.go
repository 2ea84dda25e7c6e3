package interp

import (
	"net/url"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/oarc/oarc/runtime"
)

// urlPart is one of the URL functions of spec 5.11, by the letter: Go's
// net/url.Parse; an error for a string it rejects, without a scheme or a
// host, or with a port that is not a decimal int; url_host Go's
// URL.Hostname() with ASCII letters lower-cased, url_scheme lower-cased,
// url_port the explicit port else 80 (http), 443 (https), 0; url_path Go's
// URL.EscapedPath(), "/" when empty.
//
// Its errors are of kind invalid_argument, worded as the runtime words
// them, so that a rule of a rule store (spec 12), which this interpreter
// runs, tells an agent what the same rule compiled tells it.
func urlPart(fn, s string) ref.Val {
	invalid := func(msg string) ref.Val {
		return types.WrapErr(&Error{runtime.ErrInvalidArgument, runtime.Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + msg}.Error()})
	}
	u, err := url.Parse(s)
	if err != nil {
		return invalid(err.Error())
	}
	if u.Scheme == "" {
		return invalid(strconv.Quote(s) + " has no scheme")
	}
	if u.Hostname() == "" {
		return invalid(strconv.Quote(s) + " has no host")
	}
	// An http(s) host with two colons, which Parse accepts only under
	// GODEBUG urlstrictcolons=0 (a host module of go 1.25 or older): an
	// error whatever GODEBUG says.
	afterLiteral := u.Host[strings.LastIndexByte(u.Host, ']')+1:] // the host itself without brackets
	if (u.Scheme == "http" || u.Scheme == "https") && strings.Count(afterLiteral, ":") > 1 {
		return invalid(strconv.Quote(s) + " has more than one colon after its host")
	}
	if p := u.Port(); p != "" {
		for _, c := range p {
			if c < '0' || c > '9' {
				return invalid("port " + strconv.Quote(p) + " is not a decimal int")
			}
		}
		if _, err := strconv.ParseInt(p, 10, 64); err != nil {
			return invalid("port " + strconv.Quote(p) + " is not a decimal int")
		}
	}
	lower := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b)
	}
	switch fn {
	case "url_host":
		return types.String(lower(u.Hostname()))
	case "url_scheme":
		return types.String(lower(u.Scheme))
	case "url_port":
		if p := u.Port(); p != "" {
			n, _ := strconv.ParseInt(p, 10, 64) // checked above
			return types.Int(n)
		}
		switch lower(u.Scheme) {
		case "http":
			return types.Int(80)
		case "https":
			return types.Int(443)
		}
		return types.Int(0)
	}
	if p := u.EscapedPath(); p != "" {
		return types.String(p)
	}
	return types.String("/")
}
