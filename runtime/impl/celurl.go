package impl

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/oarc/oarc/runtime"
)

// The URL functions (spec 5.11): egress rules need a URL's parts, not a
// regular expression over it (url.startsWith("https://api.example.com")
// also admits https://api.example.com.evil.io). A string that Go's
// net/url.Parse rejects, that has no scheme or no host, or whose port is
// not a decimal int, is an evaluation error (invalid_argument) at the call.

// parseURL parses the argument of a URL function. The port is checked
// for every function, not only url_port: the spec makes the string an
// error at the call, so url_host of "http://h:99999999999999999999/" is
// not "h".
func parseURL(fn, s string) (*url.URL, Err) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + err.Error()}
	case u.Scheme == "":
		return nil, Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + strconv.Quote(s) + " has no scheme"}
	case u.Hostname() == "":
		return nil, Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + strconv.Quote(s) + " has no host"}
	case StrictColons(u):
		return nil, Err{Kind: runtime.ErrInvalidArgument, S: fn + ": " + strconv.Quote(s) + " has more than one colon after its host"}
	}
	if p := u.Port(); p != "" {
		if _, err := strconv.ParseInt(p, 10, 64); err != nil || strings.ContainsAny(p, "+-") {
			return nil, Err{Kind: runtime.ErrInvalidArgument, S: fn + ": port " + strconv.Quote(p) + " is not a decimal int"}
		}
	}
	return u, Err{}
}

// StrictColons reports whether u, which net/url.Parse accepted, is an
// http or https URL whose host (outside an IPv6 literal's brackets) holds
// more than one colon ("http://example.com:80:90/"). Parse refuses such a
// URL unless the binary runs with GODEBUG urlstrictcolons=0, the default
// of a host module whose go.mod says go 1.25 or older; there Hostname()
// would be "example.com:80". The URL functions refuse it whatever
// GODEBUG says, so that a rule means one thing in every host.
func StrictColons(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	h := u.Host
	if strings.HasPrefix(h, "[") {
		if i := strings.LastIndexByte(h, ']'); i >= 0 {
			h = h[i+1:]
		}
	}
	return strings.Count(h, ":") > 1
}

// asciiLower lower-cases the ASCII letters of s only (a host in another
// script stays as written).
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// URLHost is url_host: Go's URL.Hostname() (no port, userinfo or
// brackets), ASCII-lowercased, otherwise as written.
func URLHost(s string) (string, Err) {
	u, e := parseURL("url_host", s)
	if e.Kind != runtime.ErrNone {
		return "", e
	}
	return asciiLower(u.Hostname()), Err{}
}

// URLScheme is url_scheme, ASCII-lowercased.
func URLScheme(s string) (string, Err) {
	u, e := parseURL("url_scheme", s)
	if e.Kind != runtime.ErrNone {
		return "", e
	}
	return asciiLower(u.Scheme), Err{}
}

// URLPort is url_port: the explicit port, else 80 for http and 443 for
// https, else 0. An empty port ("https://host:/") is no explicit port.
func URLPort(s string) (int64, Err) {
	u, e := parseURL("url_port", s)
	if e.Kind != runtime.ErrNone {
		return 0, e
	}
	if p := u.Port(); p != "" {
		n, _ := strconv.ParseInt(p, 10, 64) // checked by parseURL
		return n, Err{}
	}
	switch asciiLower(u.Scheme) {
	case "http":
		return 80, Err{}
	case "https":
		return 443, Err{}
	}
	return 0, Err{}
}

// URLPath is url_path: Go's URL.EscapedPath(), "/" when empty.
func URLPath(s string) (string, Err) {
	u, e := parseURL("url_path", s)
	if e.Kind != runtime.ErrNone {
		return "", e
	}
	if p := u.EscapedPath(); p != "" {
		return p, Err{}
	}
	return "/", Err{}
}
