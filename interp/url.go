package interp

import (
	"net/url"
	"strconv"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// urlPart is one of the URL functions of spec 5.11, by the letter: Go's
// net/url.Parse; an error for a string it rejects, without a scheme or a
// host, or with a port that is not a decimal int; url_host Go's
// URL.Hostname() with ASCII letters lower-cased, url_scheme lower-cased,
// url_port the explicit port else 80 (http), 443 (https), 0; url_path Go's
// URL.EscapedPath(), "/" when empty.
func urlPart(fn, s string) ref.Val {
	u, err := url.Parse(s)
	if err != nil {
		return types.NewErr("%s: %v", fn, err)
	}
	if u.Scheme == "" || u.Hostname() == "" {
		return types.NewErr("%s: %q has no scheme or no host", fn, s)
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
			for _, c := range p {
				if c < '0' || c > '9' {
					return types.NewErr("url_port: port %q is not a decimal int", p)
				}
			}
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return types.NewErr("url_port: port %q is not a decimal int", p)
			}
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
