// This file owns the check of `oarc vet` on URLs matched as text
// (OAR_VET_URL_PREFIX, spec 5.11): x.startsWith("https://api.example.com")
// also admits https://api.example.com.evil.io and
// https://api.example.com@evil.io/, so a rule that means a host says so
// with url_host.

package compiler

import (
	"net/url"
	"regexp"
	"strings"

	"cel.dev/cel-go/common/ast"
)

// urlLiteral matches the start of an absolute URL with a host.
var urlLiteral = regexp.MustCompile(`^(?i)\^?(https?|wss?|ftp)(:|\\:)//`)

// urlPrefix warns at startsWith, contains or matches of a string literal
// that starts with a URL scheme and a host: the text match does not say
// which host the URL goes to.
func (v *vetter) urlPrefix(r *Rule) {
	if r.WhenAST == nil || v.set.Catalog.Function("url_host") == nil {
		return
	}
	g := v.argReader(r)
	if g == nil {
		return
	}
	done := false
	ast.PreOrderVisit(r.WhenAST.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if done || e.Kind() != ast.CallKind {
			return
		}
		c := e.AsCall()
		fn := c.FunctionName()
		if !c.IsMemberFunction() || len(c.Args()) != 1 || fn != "startsWith" && fn != "contains" && fn != "matches" {
			return
		}
		lit, ok := stringLit(c.Args()[0])
		if !ok || !urlLiteral.MatchString(lit) {
			return
		}
		host := hostOf(lit)
		if host == "" {
			return
		}
		done = true
		target := g.text(c.Target())
		v.warnWhen(r, g.start(e), CodeVetURLPrefix,
			"`%s` matches the URL as text: it also admits https://%s.evil.io/ and https://%s@evil.io/; to allow or forbid a host, compare url_host(%s) == %q (and url_scheme, url_port, url_path as needed)",
			g.text(e), host, host, target, host)
	}))
}

// hostOf is the host a URL-like pattern names, "" when it names none
// (a literal with a regular expression's metacharacters in its host).
func hostOf(lit string) string {
	s := strings.TrimPrefix(lit, "^")
	s = strings.ReplaceAll(s, `\:`, ":")
	s = strings.ReplaceAll(s, `\.`, ".")
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || strings.ContainsAny(u.Hostname(), `\[]()*+?|{}$^`) {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
