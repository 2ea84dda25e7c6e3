package codegen

// This file owns the MCP guard's generated part (spec 11; `oarc gen
// -guard`): a file in the set's package with func Guard, which binds an
// Env as New does and returns the set as package guard drives it. It is
// the only code of the guard that depends on the catalog: typed
// assignments from a guard.Occurrence to the catalog's occurrence, the
// guard's providers and the built-in validators put into the Env, and the
// set's guard.Info, computed here from the IR.

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/oarc/oarc/ir"
)

// GuardPath is the import path of the MCP guard's generic code.
const GuardPath = "github.com/oarc/oarc/guard"

// GuardSchemaPath is the import path of the guard's schema compiler, which
// the file imports only for a set with result bindings.
const GuardSchemaPath = "github.com/oarc/oarc/guard/schema"

// GuardFileName is the name of the file GenerateGuard's output goes in.
const GuardFileName = "guard_oarc.go"

// guardProviders are the functions the guard answers, by CEL name: always
// (bindings), or when the Env has no provider (a registry of one server).
var guardProviders = []struct {
	name, fn string
	always   bool
}{
	{"mcp_has_field", "HasField", true},
	{"mcp_field_bool", "FieldBool", true},
	{"mcp_field_string", "FieldString", true},
	{"mcp_field_int", "FieldInt", true},
	{"mcp_server_configured_for", "ServerConfiguredFor", false},
	{"mcp_server_enabled_for", "ServerEnabledFor", false},
}

// guardFacts are the facts the guard sets, by CEL name, with the field of
// guard.Occurrence that holds each.
var guardFacts = [][2]string{
	{"tool", "Tool"},
	{"tool_args", "Args"},
	{"mcp_server_id", "ServerID"},
	{"mcp_tool_name", "ToolName"},
	{"mcp_qualified_tool", "Tool"},
	{"mcp_server_configured", "ServerConfigured"},
	{"mcp_server_enabled", "ServerEnabled"},
	{"mcp_call_ok", "CallOK"},
	{"mcp_error_code", "ErrorCode"},
	{"mcp_schema_matched", "SchemaMatched"},
	{"content_length", "ContentLength"},
}

// guardAnchors are the guard's anchors: catalog id and guard constant.
var guardAnchors = [][2]string{
	{"tool.pre_invoke", "PreInvoke"},
	{"tool.post_invoke", "PostInvoke"},
	{"content.tool_result", "ToolResult"},
}

// toolFacts are the facts whose selector clauses decide tools/list
// narrowing, with the field of guard.Selector for each.
var toolFacts = [][2]string{
	{"tool", "Tool"},
	{"mcp_server_id", "ServerID"},
	{"mcp_tool_name", "ToolName"},
	{"mcp_qualified_tool", "QualifiedTool"},
}

// GuardProviderFunc reports whether the MCP guard answers the function
// with the given CEL name (so a proxy needs no host provider for it).
func GuardProviderFunc(name string) bool {
	for _, p := range guardProviders {
		if p.name == name {
			return true
		}
	}
	return false
}

// HostProviderRules lists the ids of the rules of s that call a function
// a host provider answers and the guard does not: a proxy has no host, so
// they fail as a missing provider would (spec 11).
func HostProviderRules(s *ir.Set) []string {
	var ids []string
	for _, r := range s.Rules {
		calls := false
		ir.WalkRule(r, func(e ir.Expr) bool {
			if o, ok := e.(*ir.Observe); ok && o.Builtin == ir.NotBuiltin && !GuardProviderFunc(o.Func) {
				calls = true
			}
			return true
		})
		if calls {
			ids = append(ids, r.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// GuardUnfilledFacts lists, for each rule of s that reads facts a proxy
// never fills (spec 11 fills tool, tool_args, the mcp_ facts and
// content_length; a proxy has no host to fill the others, host facts
// included), the rule's id and those facts' CEL names, sorted: they read
// as absent, the zero value of their type, at every call, so a rule
// that needs one to hold never fires through a proxy, and a transform's
// span facts (those a built-in validator answers aside) redact nothing.
// A detector rule's detector facts count too, but for the one its
// built-in validator answers (oarc.secrets secret_matches, oarc.pii
// pii_entities).
// The middleware's
// fill can set them; the proxy cannot.
func GuardUnfilledFacts(s *ir.Set) [][2]string {
	filled := map[string]bool{}
	for _, f := range guardFacts {
		filled[f[0]] = true
	}
	var out [][2]string
	for _, r := range s.Rules {
		seen := map[string]bool{}
		builtin := builtinSpanFact(r.Detector)
		ir.WalkRule(r, func(e ir.Expr) bool {
			f, ok := e.(*ir.Fact)
			if !ok || filled[f.Name] {
				return true
			}
			// A detector fact of a rule whose built-in validator answers
			// another: the host's value, which a proxy never has. (A
			// validator a proxy does not have fails the rule: named
			// apart.)
			if f.Source == ir.FromFacts || (f.Source == ir.FromDetector && builtin != "" && builtin != f.Name) {
				seen[f.Name] = true
			}
			return true
		})
		// A transform's span facts, which it redacts whatever its
		// when reads, unless its built-in validator answers them.
		for _, name := range r.Redact {
			if !filled[name] && builtin != name {
				seen[name] = true
			}
		}
		if len(seen) == 0 {
			continue
		}
		names := make([]string, 0, len(seen))
		for n := range seen {
			names = append(names, n)
		}
		sort.Strings(names)
		out = append(out, [2]string{r.ID, strings.Join(names, ", ")})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// builtinSpanFact is the span fact the built-in validator id answers, ""
// when id is no built-in validator. codegen reads the IR only, so it
// spells out the validators package's table (validators.ByID,
// Validator.SpanFact); TestBuiltinSpanFacts keeps the two alike.
func builtinSpanFact(id string) string {
	return map[string]string{"oarc.secrets": "secret_matches", "oarc.pii": "pii_entities"}[id]
}

// isGuardAnchor reports whether the guard evaluates the anchor id.
func isGuardAnchor(id string) bool {
	return slices.ContainsFunc(guardAnchors, func(g [2]string) bool { return g[0] == id })
}

// GuardUnevaluated lists what of s sits at an anchor the guard never
// evaluates (spec 11 evaluates tool.pre_invoke, tool.post_invoke and
// content.tool_result): each rule as {"rule", id, anchor} and each
// deny-by-default as {"deny_by_default", code, anchor}, in anchor order.
// A proxy of such a set does nothing with them: every call goes through
// as if they were not there.
func GuardUnevaluated(s *ir.Set) [][3]string {
	var out [][3]string
	for _, a := range s.Anchors {
		if isGuardAnchor(a.ID) {
			continue
		}
		for _, ri := range a.Rules {
			out = append(out, [3]string{"rule", s.Rules[ri].ID, a.ID})
		}
		if a.Deny != nil {
			out = append(out, [3]string{"deny_by_default", a.Deny.Code, a.ID})
		}
	}
	return out
}

// guardContentAnchor is the one guard anchor with content (spec 11: a
// successful call's result, at content.tool_result).
const guardContentAnchor = "content.tool_result"

// GuardContentlessTransforms lists, as {id, anchor}, the transform rules
// of s at an anchor the guard evaluates without content (tool.pre_invoke
// and tool.post_invoke: spec 11 gives content only at
// content.tool_result), in anchor order: such a rule fires on empty
// content and rewrites nothing, and the guard forwards the call, or
// passes the result on, as it came.
func GuardContentlessTransforms(s *ir.Set) [][2]string {
	var out [][2]string
	for _, a := range s.Anchors {
		if a.ID == guardContentAnchor || !isGuardAnchor(a.ID) {
			continue
		}
		for _, ri := range a.Rules {
			if r := s.Rules[ri]; r.Effect == ir.EffectTransform {
				out = append(out, [2]string{r.ID, a.ID})
			}
		}
	}
	return out
}

// GuardServerIDs lists the server ids that the selectors of the rules of
// s name (clauses on mcp_server_id), sorted: a proxy whose server id is
// none of them applies none of those rules (spec 11, -server-id).
func GuardServerIDs(s *ir.Set) []string {
	seen := map[string]bool{}
	var ids []string
	for _, r := range s.Rules {
		for _, c := range r.Selector {
			if c.Fact != "mcp_server_id" {
				continue
			}
			for _, v := range c.Values {
				if id, ok := v.(string); ok && !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// GuardUnmatchedTools lists, per rule of s in order, the selector clauses
// on tool or mcp_qualified_tool none of whose values begins with "mcp_":
// in the guard every call's tool is mcp_S_T, so the rule applies to no
// call (spec 11). Each entry is the rule's id, the fact and its values.
func GuardUnmatchedTools(s *ir.Set) [][3]string {
	var out [][3]string
	for _, r := range s.Rules {
		for _, c := range r.Selector {
			if c.Fact != "tool" && c.Fact != "mcp_qualified_tool" {
				continue
			}
			var vals []string
			mcp := false
			for _, v := range c.Values {
				if name, ok := v.(string); ok {
					vals = append(vals, name)
					mcp = mcp || strings.HasPrefix(name, "mcp_")
				}
			}
			if !mcp {
				out = append(out, [3]string{r.ID, c.Fact, strings.Join(vals, ", ")})
			}
		}
	}
	return out
}

// GenerateGuard returns the Go source of the guard file of the set's
// package (GuardFileName, beside Generate's output, same package).
func GenerateGuard(s *ir.Set, opts Options) ([]byte, error) {
	if opts.Package == "" {
		opts.Package = "rules"
	}
	if opts.CatalogImport == "" {
		opts.CatalogImport = DefaultCatalogImport
	}
	cat := func(name string) *jen.Statement { return jen.Qual(opts.CatalogImport, name) }
	g := func(name string) *jen.Statement { return jen.Qual(GuardPath, name) }
	f := jen.NewFile(opts.Package)
	f.ImportName(RuntimePath, "runtime")
	f.ImportName(GuardPath, "guard")
	f.ImportName(GuardSchemaPath, "schema")
	importCatalog(f, opts.CatalogImport, s.Catalog)
	header(f, opts.Version)

	facts := map[string]ir.CatalogFact{}
	for _, cf := range s.Catalog.Facts {
		facts[cf.Name] = cf
	}
	funcs := map[string]ir.CatalogFunction{}
	for _, fn := range s.Catalog.Functions {
		funcs[fn.Name] = fn
	}
	field := func(base jen.Code, path []string) *jen.Statement {
		st := jen.Add(base)
		for _, p := range path {
			st = st.Dot(p)
		}
		return st
	}
	occ := jen.Id("oOcc")
	factsOf := jen.Id("oOcc").Dot("Facts")

	// Guard: the Env completed with the guard's providers and the
	// built-in validators, then New.
	var body []jen.Code
	body = append(body,
		jen.Id("oVs").Op(":=").Make(jen.Map(jen.String()).Add(cat("Validator")), jen.Len(jen.Id("env").Dot("Validators"))),
		jen.For(jen.List(jen.Id("id"), jen.Id("v")).Op(":=").Range().Id("env").Dot("Validators")).Block(
			jen.Id("oVs").Index(jen.Id("id")).Op("=").Id("v"),
		),
	)
	argsRead := jen.Nil()
	if cf, ok := facts["tool_args"]; ok && cf.Field != nil {
		argsRead = field(jen.Id("occ").Dot("Facts"), cf.Field)
	}
	if len(s.Validators) > 0 {
		ids := make([]jen.Code, len(s.Validators))
		for i, v := range s.Validators {
			ids[i] = jen.Lit(v)
		}
		body = append(body,
			jen.Comment("The validators the rules name that env lacks: the built-in ones."),
			jen.For(jen.List(jen.Id("_"), jen.Id("id")).Op(":=").Range().Index().String().Values(ids...)).Block(
				jen.If(jen.Id("oVs").Index(jen.Id("id")).Op("!=").Nil()).Block(jen.Continue()),
				jen.If(jen.List(jen.Id("b"), jen.Id("ok")).Op(":=").Add(g("Builtin")).Call(jen.Id("id")), jen.Id("ok")).Block(
					jen.Id("oVs").Index(jen.Id("id")).Op("=").Func().Params(jen.Id("_").Qual("context", "Context"), jen.Id("occ").Op("*").Add(cat("Occurrence"))).Params(rt("Detection"), jen.Error()).Block(
						jen.Return(jen.Id("b").Call(jen.Id("occ").Dot("Anchor").Dot("String").Call(), jen.Id("occ").Dot("Content"), argsRead)),
					),
				),
			),
		)
	}
	body = append(body, jen.Id("env").Dot("Validators").Op("=").Id("oVs"))
	for _, p := range guardProviders {
		fn, ok := funcs[p.name]
		if !ok || fn.Provider == "" || len(fn.Params) != 1 {
			continue
		}
		res := repOf(fn.Result).goType()
		set := jen.Id("env").Dot("Providers").Dot(fn.Provider).Op("=").Func().Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("_").Op("*").Add(cat("Occurrence")), jen.Id("name").String(),
		).Params(res, jen.Error()).Block(jen.Return(g(p.fn).Call(jen.Id("ctx"), jen.Id("name"))))
		if p.always {
			body = append(body, set)
		} else {
			body = append(body, jen.If(jen.Id("env").Dot("Providers").Dot(fn.Provider).Op("==").Nil()).Block(set))
		}
	}
	body = append(body,
		jen.List(jen.Id("ev"), jen.Err()).Op(":=").Id("New").Call(jen.Id("env"), jen.Id("opts").Op("...")),
		jen.Return(jen.Op("&").Id("oGuard").Values(jen.Dict{jen.Id("ev"): jen.Id("ev"), jen.Id("fill"): jen.Id("fill")}), jen.Err()),
	)
	f.Comment("Guard binds env as New does and returns the compilation set as the MCP")
	f.Comment("guard drives it (package github.com/oarc/oarc/guard, spec 11). The guard")
	f.Comment("answers mcp_has_field and the mcp_field_* functions from result bindings,")
	f.Comment("and mcp_server_configured_for and mcp_server_enabled_for for the call's")
	f.Comment("server when env has no provider for them; the validators the rules name")
	f.Comment("that env lacks are the built-in ones (oarc.secrets, oarc.pii). fill, when")
	f.Comment("not nil, is called on every occurrence after the guard set its facts, to")
	f.Comment("add the host's own. Like New, Guard returns a usable set with a")
	f.Comment("*runtime.MissingError when env lacks providers the rules call.")
	f.Func().Id("Guard").Params(
		jen.Id("env").Add(cat("Env")),
		jen.Id("fill").Func().Params(jen.Qual("context", "Context"), jen.Op("*").Add(cat("Occurrence"))),
		jen.Id("opts").Op("...").Add(rt("Option")),
	).Params(g("Set"), jen.Error()).Block(body...)
	f.Line()

	f.Comment("oGuard is the set as the guard drives it.")
	f.Type().Id("oGuard").Struct(
		jen.Id("ev").Op("*").Id("Evaluator"),
		jen.Id("fill").Func().Params(jen.Qual("context", "Context"), jen.Op("*").Add(cat("Occurrence"))),
	)
	f.Line()

	// Evaluate: the guard's occurrence into the catalog's.
	var ev []jen.Code
	ev = append(ev, jen.Op("*").Add(occ.Clone()).Op("=").Add(cat("Occurrence")).Values(jen.Dict{
		jen.Id("Profiles"): jen.Id("o").Dot("Profiles"),
		jen.Id("Content"):  jen.Id("o").Dot("Content"),
		jen.Id("Inputs"):   jen.Id("o").Dot("Inputs"),
	}))
	var cases []jen.Code
	for _, a := range guardAnchors {
		for _, ca := range s.Catalog.Anchors {
			if ca.ID == a[0] {
				cases = append(cases, jen.Case(g(a[1])).Block(occ.Clone().Dot("Anchor").Op("=").Add(cat(ca.GoName))))
			}
		}
	}
	if len(cases) > 0 {
		ev = append(ev, jen.Switch(jen.Id("o").Dot("Anchor")).Block(cases...))
	}
	for _, gf := range guardFacts {
		cf, ok := facts[gf[0]]
		if !ok || cf.Field == nil {
			continue
		}
		ev = append(ev, field(factsOf.Clone(), cf.Field).Op("=").Id("o").Dot(gf[1]))
	}
	ev = append(ev,
		jen.If(jen.Id("g").Dot("fill").Op("!=").Nil()).Block(jen.Id("g").Dot("fill").Call(jen.Id("ctx"), occ.Clone())),
	)
	f.Comment("oOccurrence fills oOcc, the catalog's occurrence of the guard's o. An anchor")
	f.Comment("the catalog does not have stays the zero Anchor, which evaluation reports")
	f.Comment("(the guard then blocks the call).")
	f.Func().Params(jen.Id("g").Op("*").Id("oGuard")).Id("oOccurrence").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("o").Op("*").Add(g("Occurrence")), occ.Clone().Op("*").Add(cat("Occurrence")),
	).Block(ev...)
	f.Line()
	f.Comment("Evaluate evaluates the guard's occurrence o as an occurrence of the catalog.")
	f.Func().Params(jen.Id("g").Op("*").Id("oGuard")).Id("Evaluate").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("o").Op("*").Add(g("Occurrence")), jen.Id("s").Op("*").Add(rt("Session")), jen.Id("d").Op("*").Add(rt("Decision")),
	).Error().Block(
		occ.Clone().Op(":=").New(cat("Occurrence")),
		jen.Id("g").Dot("oOccurrence").Call(jen.Id("ctx"), jen.Id("o"), occ.Clone()),
		jen.Return(jen.Id("g").Dot("ev").Dot("Evaluate").Call(jen.Id("ctx"), occ.Clone(), jen.Id("s"), jen.Id("d"))),
	)
	f.Line()
	f.Comment("EvaluateCheck evaluates the guard's occurrences occs as one check of the")
	f.Comment("catalog's occurrences (spec 5.11), one decision each in ds.")
	f.Func().Params(jen.Id("g").Op("*").Id("oGuard")).Id("EvaluateCheck").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("occs").Index().Add(g("Occurrence")), jen.Id("s").Op("*").Add(rt("Session")), jen.Id("ds").Index().Add(rt("Decision")),
	).Error().Block(
		jen.Id("oOccs").Op(":=").Make(jen.Index().Add(cat("Occurrence")), jen.Len(jen.Id("occs"))),
		jen.For(jen.Id("i").Op(":=").Range().Id("occs")).Block(
			jen.Id("g").Dot("oOccurrence").Call(jen.Id("ctx"), jen.Op("&").Id("occs").Index(jen.Id("i")), jen.Op("&").Id("oOccs").Index(jen.Id("i"))),
		),
		jen.Return(jen.Id("g").Dot("ev").Dot("EvaluateCheck").Call(jen.Id("ctx"), jen.Id("oOccs"), jen.Id("s"), jen.Id("ds"))),
	)
	f.Line()

	f.Comment("Info describes the set to the guard.")
	f.Func().Params(jen.Id("g").Op("*").Id("oGuard")).Id("Info").Params().Op("*").Add(g("Info")).Block(jen.Return(jen.Op("&").Id("oGuardInfo")))
	f.Line()
	f.Comment("oGuardInfo is what the compiler knows of the set for the guard.")
	f.Var().Id("oGuardInfo").Op("=").Add(g("Info")).Values(guardInfo(s, g))
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("codegen: generated guard code does not format (a bug in oarc): %v", err)
	}
	return buf.Bytes(), nil
}

// guardInfo is the set's guard.Info, from the IR.
func guardInfo(s *ir.Set, g func(string) *jen.Statement) jen.Dict {
	d := jen.Dict{jen.Id("Name"): jen.Id("Name"), jen.Id("Digest"): jen.Id("Digest")}
	var anchors []jen.Code
	for _, a := range guardAnchors {
		for _, sa := range s.Anchors {
			if sa.ID == a[0] {
				anchors = append(anchors, g(a[1]))
			}
		}
	}
	if len(anchors) > 0 {
		d[jen.Id("Anchors")] = jen.Index().Add(g("Anchor")).Values(anchors...)
	}
	var allow []jen.Code
	for _, sa := range s.Anchors {
		if sa.ID != ir.ToolPreInvoke {
			continue
		}
		if sa.Deny != nil {
			d[jen.Id("Deny")] = jen.Op("&").Add(g("Deny")).Values(jen.Dict{jen.Id("Code"): jen.Lit(sa.Deny.Code), jen.Id("Monitor"): jen.Lit(sa.Deny.Monitor)})
		}
		for _, ri := range sa.Rules {
			r := s.Rules[ri]
			if r.Effect != ir.EffectAllow || r.Monitor {
				continue
			}
			sel := jen.Dict{}
			for _, c := range r.Selector {
				for _, tf := range toolFacts {
					if c.Fact != tf[0] {
						continue
					}
					vals := []jen.Code{}
					for _, v := range c.Values {
						if str, ok := v.(string); ok {
							vals = append(vals, jen.Lit(str))
						}
					}
					sel[jen.Id(tf[1])] = jen.Index().String().Values(vals...)
				}
			}
			allow = append(allow, jen.Comment(r.ID).Line().Values(sel))
		}
	}
	if len(allow) > 0 {
		d[jen.Id("Allow")] = jen.Index().Add(g("Selector")).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, allow...)
	}
	if len(s.Bindings) > 0 {
		var bs []jen.Code
		for _, b := range s.Bindings {
			bs = append(bs, jen.Values(jen.Dict{
				jen.Id("Pack"): jen.Lit(b.Pack), jen.Id("Server"): jen.Lit(b.Server), jen.Id("Tool"): jen.Lit(b.Tool),
				jen.Id("Path"): jen.Lit(b.Path), jen.Id("Schema"): jen.Lit(b.Schema),
			}))
		}
		d[jen.Id("Bindings")] = jen.Index().Add(g("Binding")).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, bs...)
		d[jen.Id("Compile")] = jen.Qual(GuardSchemaPath, "Compile")
	}
	if ids := HostProviderRules(s); len(ids) > 0 {
		vals := make([]jen.Code, len(ids))
		for i, id := range ids {
			vals[i] = jen.Lit(id)
		}
		d[jen.Id("HostProviders")] = jen.Index().String().Values(vals...)
	}
	return d
}

// GuardUnsuppliedProfiles lists, for each rule of s at one of the
// guard's anchors that requires a profile the proxy does not supply
// there (supplied: whether the proxy supplies a profile at an anchor,
// from guard.Profiles and guard/proxy.ConnProfiles), the rule's id, its
// anchor and those profiles, sorted by id: the rule has an evaluation
// error at every call it selects (spec 3), and its on_error applies
// (fail_closed: it blocks every such call). The middleware's
// Config.Profiles can supply them; the proxy cannot.
func GuardUnsuppliedProfiles(s *ir.Set, supplied func(anchor, profile string) bool) [][3]string {
	var out [][3]string
	for _, r := range s.Rules {
		if !isGuardAnchor(r.Anchor) {
			continue // named as an anchor the guard never evaluates
		}
		var missing []string
		for _, p := range r.Profiles {
			if supplied(r.Anchor, p) {
				continue
			}
			missing = append(missing, p)
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			out = append(out, [3]string{r.ID, r.Anchor, strings.Join(missing, ", ")})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
