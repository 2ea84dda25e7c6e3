// Package codegen turns an [ir.Set] into a Go package that links against
// oarc's runtime and the set's catalog package: a bound Evaluator, one
// function per rule, named after the rule, a static dispatch function per
// anchor with its rules in evaluation order, constant regular expressions
// compiled ahead of time (string comparisons or a DFA, see
// [redfa.Compile]), and copy text as constants. It also
// generates catalog packages ([GenerateCatalog]).
//
// The code is built as typed values (jennifer statements that track their
// own imports, and [value]s that carry an expression's static type and
// whether its code can fail); nothing is ever decided by reading back the
// Go text emitted. The output is deterministic (same IR, same bytes),
// gofmt-formatted, and every string that comes from a rule file reaches it
// as a quoted Go literal, or, in comments, with what a comment cannot hold
// escaped. codegen reads only the IR.
package codegen

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/oarc/oarc/codegen/internal/redfa"
	"github.com/oarc/oarc/ir"
)

// RuntimePath is the import path of the runtime generated code links.
const RuntimePath = "github.com/oarc/oarc/runtime"

// Options configure generation.
type Options struct {
	// Package is the Go package name of the output (default "rules").
	Package string
	// CatalogImport is the import path of the generated catalog package
	// of the set's catalog (default [DefaultCatalogImport]).
	CatalogImport string
	// Version is the oarc version named in the header.
	Version string
	// Lazy are the facts (CEL names) the set reads lazily: through the
	// catalog's Env.Lazy provider, when the host sets one, at most once per
	// occurrence and only when a rule gets to the fact (oarc gen -lazy).
	Lazy []string
}

// Generate returns the Go source of the package of the compilation set s.
func Generate(s *ir.Set, opts Options) ([]byte, error) {
	if opts.Package == "" {
		opts.Package = "rules"
	}
	if opts.CatalogImport == "" {
		opts.CatalogImport = DefaultCatalogImport
	}
	pk := &packGen{p: s, cat: opts.CatalogImport, hoisted: map[string]value{}, perRule: map[string]int{},
		lazy: map[string]bool{}, lazyNum: map[string]int{}}
	for _, n := range opts.Lazy {
		if EngineReads(n) {
			return nil, fmt.Errorf("codegen: the fact %s cannot be read lazily: the engine reads it at every call (the session's record, spec 5.10)", n)
		}
		pk.lazy[n] = true
	}
	f := pk.file(opts)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("codegen: generated code does not format (a bug in oarc): %v", err)
	}
	return buf.Bytes(), nil
}

// EngineReads reports whether the engine reads a fact the host fills at
// every call, whatever the rules read, from the occurrence's Facts: tool
// and tool_args (the session's record of spec 5.10, batch_tools, the
// decision record's tool; tool_arg_* read Facts.ToolArgs). Such a fact
// cannot be read lazily (Options.Lazy, oarc gen -lazy): given only
// through Env.Lazy, the record and tool_arg_* would read it empty while
// a rule reading it by name saw it.
func EngineReads(fact string) bool { return fact == "tool" || fact == "tool_args" }

// packGen generates one package.
type packGen struct {
	p   *ir.Set
	cat string // import path of the catalog package
	// vars are the package variables holding constant data (composite
	// literals, compiled patterns, guard descriptions), in creation order.
	vars    []jen.Code
	hoisted map[string]value // rule id, prefix and IR key -> variable
	perRule map[string]int   // rule id -> number of variables made for it
	funcs   []jen.Code
	// plans are the plans of the constant patterns of matches.
	plans map[string]*redfa.Plan
	// lazy are the facts read lazily (Options.Lazy); lazyFacts those a
	// rule reads, in first-read order, each with its getter's number.
	lazy      map[string]bool
	lazyFacts []*ir.Fact
	lazyNum   map[string]int
}

// catQ names an identifier of the catalog package.
func (pk *packGen) catQ(name string) *jen.Statement { return jen.Qual(pk.cat, name) }

// hoist returns a package variable initialised with lit, made once per
// rule and key. Names are per rule (oList_RULE_1, ...), so that adding a
// rule renames nothing of another.
func (pk *packGen) hoist(r *ir.Rule, prefix, key string, lit jen.Code, t *ir.Type) value {
	k := r.ID + "\x00" + prefix + "\x00" + key
	if v, ok := pk.hoisted[k]; ok {
		return v
	}
	pk.perRule[r.ID]++
	name := fmt.Sprintf("%s_%s_%d", prefix, r.ID, pk.perRule[r.ID])
	pk.vars = append(pk.vars, jen.Id(name).Op("=").Add(lit))
	v := value{code: jen.Id(name), t: t, simple: true, constant: true}
	pk.hoisted[k] = v
	return v
}

// match is s.matches(pattern) for a constant pattern, as [redfa.Compile]
// plans it: string comparisons, or a matcher in a package variable, a DFA
// (impl.RegexDFA, constant tables) or, past the DFA's bounds, the pattern
// compiled by regexp at package init.
func (pk *packGen) match(r *ir.Rule, pattern string, s jen.Code) jen.Code {
	p := pk.plan(pattern)
	var m jen.Code
	switch p.Kind {
	case redfa.Literal:
		return p.LiteralCode(s)
	case redfa.DFA:
		m = pk.hoist(r, "oRe", pattern, p.DFA.Code(ImplPath), nil).code
	default:
		m = pk.hoist(r, "oRe", pattern, jen.Qual("regexp", "MustCompile").Call(jen.Lit(pattern)), nil).code
	}
	return jen.Add(m).Dot("MatchString").Call(s)
}

// plan is redfa's plan of pattern, made once per pattern of the set.
func (pk *packGen) plan(pattern string) *redfa.Plan {
	if pk.plans == nil {
		pk.plans = map[string]*redfa.Plan{}
	}
	p, ok := pk.plans[pattern]
	if !ok {
		p = redfa.Compile(pattern)
		pk.plans[pattern] = p
	}
	return p
}

var kindConst = map[ir.RuleKind]string{ir.KindSchema: "KindSchema", ir.KindPolicy: "KindPolicy", ir.KindInvariant: "KindInvariant", ir.KindDetector: "KindDetector"}
var effectConst = map[ir.Effect]string{ir.EffectAllow: "Allow", ir.EffectNudge: "Nudge", ir.EffectWarn: "Warn", ir.EffectTransform: "Transform", ir.EffectAsk: "Ask", ir.EffectBlock: "Block"}
var counterConst = map[ir.Counter]string{ir.Fire: "Fire", ir.Breaker: "Breaker"}

// profileConst is the runtime's constant for a profile bit.
func profileConst(p string) *jen.Statement {
	return rt("Profile" + goName(p))
}

func profileSet(ps []string) jen.Code {
	if len(ps) == 0 {
		return jen.Lit(0)
	}
	sorted := append([]string(nil), ps...)
	sort.Slice(sorted, func(i, j int) bool { return goName(sorted[i]) < goName(sorted[j]) })
	var c *jen.Statement
	for i, p := range sorted {
		if i == 0 {
			c = profileConst(p)
		} else {
			c = c.Op("|").Add(profileConst(p))
		}
	}
	return c
}

// goName turns snake_case or a dotted or dashed name into an exported Go
// identifier (tool.pre_invoke -> ToolPreInvoke).
func goName(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' || r == '.' || r == '-' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func ruleFunc(r *ir.Rule) string  { return "oRule_" + r.ID }
func ruleRef(r *ir.Rule) jen.Code { return jen.Op("&").Id("oRules").Index(jen.Lit(r.Index)) }
func noErr() []jen.Code           { return []jen.Code{jen.False(), rtErrNone()} }
func returnNoFire() jen.Code      { return jen.Return(noErr()...) }
func execParam() jen.Code         { return jen.Id("oX").Op("*").Id("oExec") }
func ruleResults() jen.Code       { return jen.Params(jen.Bool(), rt("Err")) }

// anchorName is the Go name of an anchor, as the catalog package names its
// constant.
func (pk *packGen) anchorName(id string) string {
	for _, a := range pk.p.Catalog.Anchors {
		if a.ID == id {
			return a.GoName
		}
	}
	return goName(id)
}

func (pk *packGen) file(opts Options) *jen.File {
	p := pk.p
	f := jen.NewFile(opts.Package)
	f.ImportName(RuntimePath, "runtime")
	f.ImportName(ImplPath, "impl")
	importCatalog(f, pk.cat, p.Catalog)
	header(f, opts.Version)
	for _, pack := range p.Packs {
		for _, s := range pack.Sources {
			f.HeaderComment("source: " + plainOrQuoted(pack.Name+"/"+s))
		}
	}
	f.PackageComment(fmt.Sprintf("Package %s holds the compiled rules of the compilation set %s", opts.Package, strconv.Quote(p.Name())))
	f.PackageComment(fmt.Sprintf("(catalog %s). Bind an Env with New, then evaluate occurrences.", strconv.Quote(p.Catalog.Host)))

	// Rule functions first: they make the package variables.
	infos := map[string]*anchorInfo{}
	for _, a := range p.Anchors {
		info := &anchorInfo{snaps: map[snapKey]int{}, codes: map[string]int{}}
		for _, ri := range a.Rules {
			r := p.Rules[ri]
			// A flow reads recent_tool_names, which the engine keeps: the
			// occurrence's override (Occurrence.Kept) applies to it too.
			info.kept = info.kept || r.Flow != nil
			info.hist = info.hist || r.Flow != nil
			info.names = info.names || r.Flow != nil
			ir.WalkRule(r, func(e ir.Expr) bool {
				switch n := e.(type) {
				case *ir.CounterRead:
					k := snapKey{n.Slot, n.Counter}
					if _, seen := info.snaps[k]; !seen {
						info.snaps[k] = len(info.keys)
						info.keys = append(info.keys, k)
					}
				case *ir.Observe:
					info.time = info.time || n.Builtin.ReadsTime()
					if n.Builtin.ReadsCallTimes() {
						// The occurrence's tool and whether it is a call,
						// through oX.Call.
						info.kept, info.callTimes = true, true
					}
				case *ir.Fact:
					if n.Source == ir.FromBatch {
						info.kept = true // the occurrence's tool, through oX.Call
					}
					if n.Source != ir.FromKept {
						break
					}
					info.kept = true
					info.hist = info.hist || n.Kept.FromRecord()
					info.names = info.names || n.Kept == ir.KeptRecentToolNames
					if _, seen := info.codes[r.ID]; n.Kept == ir.KeptCodeRejectTotal && !seen {
						info.codes[r.ID] = len(info.codeList)
						info.codeList = append(info.codeList, r.ID)
					}
				}
				return true
			})
		}
		infos[a.ID] = info
		for _, ri := range a.Rules {
			pk.rule(p.Rules[ri], info)
		}
	}
	anchorFuncs := pk.anchors(infos)

	versionGuard(f)
	f.Comment("The catalog the rules were compiled against: another version of it fails")
	f.Comment("to compile here instead of misreading facts.")
	f.Const().Id("_").Op("=").Add(pk.catQ("CatalogIs_" + p.Catalog.Fingerprint))
	f.Line()
	f.Comment("Name is the compilation set's name: its packs' names joined with \"+\".")
	f.Const().Id("Name").Op("=").Lit(p.Name())
	f.Comment("Digest identifies the rule sources of the set and its catalog (spec 10).")
	f.Const().Id("Digest").Op("=").Lit(p.Digest)
	f.Line()
	// A rule store's rules may read any fact the set reads lazily: each
	// has its getter, read once per occurrence.
	for _, cf := range p.Catalog.Facts {
		if _, ok := pk.lazyNum[cf.Name]; ok || !pk.lazy[cf.Name] || len(cf.Field) == 0 || cf.Kept != ir.NotKept {
			continue
		}
		pk.lazyGetter(cf.Name, cf.Type, cf.Field)
	}
	pk.evaluator(f)
	pk.liveHost(f)
	pk.reads(f)
	pk.context(f)
	pk.ruleTable(f)
	if len(pk.vars) > 0 {
		f.Comment("Constant values and patterns of the rules, built once.")
		f.Var().Defs(pk.vars...)
	}
	for _, c := range pk.funcs {
		f.Add(c)
		f.Line()
	}
	for _, c := range anchorFuncs {
		f.Add(c)
		f.Line()
	}
	return f
}

// providers lists the provider fields (and CEL names) the set's rules call.
func (pk *packGen) providers() [][2]string {
	seen := map[string]bool{}
	var out [][2]string
	for _, r := range pk.p.Rules {
		ir.Walk(r.When, func(e ir.Expr) bool {
			if o, ok := e.(*ir.Observe); ok && o.Builtin == ir.NotBuiltin && !seen[o.Provider] {
				seen[o.Provider] = true
				out = append(out, [2]string{o.Provider, o.Func})
			}
			return true
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1] < out[j][1] })
	return out
}

// evaluator emits the bound evaluator: New resolves the Env once
// (validators into slots), Evaluate dispatches by anchor.
func (pk *packGen) evaluator(f *jen.File) {
	p := pk.p
	nv := len(p.Validators)
	f.Comment("Evaluator evaluates occurrences against the compiled rules, with the Env")
	f.Comment("New bound. It is safe for concurrent use.")
	f.Type().Id("Evaluator").Struct(
		jen.Id("env").Add(pk.catQ("Env")),
		jen.Id("validators").Index(jen.Lit(nv)).Add(pk.catQ("Validator")),
		jen.Id("cfg").Add(rt("Config")),
	)
	ids := make([]jen.Code, nv)
	for i, v := range p.Validators {
		ids[i] = jen.Lit(v)
	}
	f.Comment("oValidatorIDs are the validators the rules name, by slot.")
	f.Var().Id("oValidatorIDs").Op("=").Index(jen.Lit(nv)).String().Values(ids...)
	body := []jen.Code{
		jen.Id("ev").Op(":=").Op("&").Id("Evaluator").Values(jen.Id("env").Op(":").Id("env")),
		jen.For(jen.List(jen.Id("_"), jen.Id("o")).Op(":=").Range().Id("opts")).Block(jen.Id("o").Call(jen.Op("&").Id("ev").Dot("cfg"))),
		jen.If(jen.Id("err").Op(":=").Add(implQ("CheckRuleStore")).Call(jen.Id("ev").Dot("cfg").Dot("RuleStore"), jen.Id("Digest")), jen.Id("err").Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Id("err")),
		),
	}
	body = append(body, pk.lazyIgnored()...)
	body = append(body,
		jen.Var().Id("missing").Add(rt("MissingError")),
		jen.For(jen.List(jen.Id("i"), jen.Id("id")).Op(":=").Range().Id("oValidatorIDs")).Block(
			jen.Id("ev").Dot("validators").Index(jen.Id("i")).Op("=").Id("env").Dot("Validators").Index(jen.Id("id")),
			jen.If(jen.Id("ev").Dot("validators").Index(jen.Id("i")).Op("==").Nil()).Block(
				jen.Id("missing").Dot("Validators").Op("=").Append(jen.Id("missing").Dot("Validators"), jen.Id("id")),
			),
		),
	)
	for _, pr := range pk.providers() {
		body = append(body, jen.If(jen.Id("env").Dot("Providers").Dot(pr[0]).Op("==").Nil()).Block(
			jen.Id("missing").Dot("Providers").Op("=").Append(jen.Id("missing").Dot("Providers"), jen.Lit(pr[1])),
		))
	}
	body = append(body,
		jen.If(jen.Len(jen.Id("missing").Dot("Validators")).Op("+").Len(jen.Id("missing").Dot("Providers")).Op(">").Lit(0)).Block(
			jen.Return(jen.Id("ev"), jen.Op("&").Id("missing")),
		),
		jen.Return(jen.Id("ev"), jen.Nil()),
	)
	f.Comment("New binds env: the validators and providers the rules use are resolved")
	f.Comment("once, here. Those env lacks are reported as a *runtime.MissingError; the")
	f.Comment("evaluator is usable all the same (a rule that reaches a missing one has an")
	f.Comment("evaluation error, and its on_error applies). A rule store")
	f.Comment("(runtime.WithRuleStore) opened for another compilation set is refused: New")
	f.Comment("returns no evaluator and an error wrapping runtime.ErrRuleStoreSet. So is an")
	f.Comment("env.Lazy provider of a fact the rules read from Facts, not lazily")
	f.Comment("(runtime.ErrLazyIgnored): the rules would read the fact's zero value.")
	f.Func().Id("New").Params(jen.Id("env").Add(pk.catQ("Env")), jen.Id("opts").Op("...").Add(rt("Option"))).
		Params(jen.Op("*").Id("Evaluator"), jen.Error()).Block(body...)

	f.Comment("oExec is the state of one evaluation: the runtime's, and the occurrence.")
	execFields := []jen.Code{
		implQ("Exec"),
		jen.Id("ev").Op("*").Id("Evaluator"),
		jen.Id("occ").Op("*").Add(pk.catQ("Occurrence")),
		jen.Id("F").Op("*").Add(pk.catQ("Facts")),
	}
	for i, n := range pk.lazyFacts {
		num := strconv.Itoa(i + 1)
		execFields = append(execFields, jen.Comment(n.Name+", read lazily: its value, its error, whether it was read.").Line().
			List(jen.Id("oLazyV"+num)).Add(repOf(n.T).goType()), jen.Id("oLazyE"+num).Add(rt("Err")), jen.Id("oLazyS"+num).Bool())
	}
	f.Type().Id("oExec").Struct(execFields...)
	for i, n := range pk.lazyFacts {
		num := strconv.Itoa(i + 1)
		v, e, st := jen.Id("oX").Dot("oLazyV"+num), jen.Id("oX").Dot("oLazyE"+num), jen.Id("oX").Dot("oLazyS"+num)
		f.Comment(fmt.Sprintf("oLazy%s reads %s: through Env.Lazy once per occurrence when the host set a provider, else from the facts.", num, n.Name))
		f.Func().Params(execParam()).Id("oLazy"+num).Params().Params(repOf(n.T).goType(), rt("Err")).Block(
			jen.If(jen.Op("!").Add(st)).Block(
				st.Clone().Op("=").True(),
				jen.If(jen.Id("p").Op(":=").Add(fieldPath(jen.Id("oX").Dot("ev").Dot("env").Dot("Lazy"), n.Field)), jen.Id("p").Op("!=").Nil()).Block(
					jen.Comment("Kept if the provider panics: a later read fails as the first did."),
					e.Clone().Op("=").Add(implQ("LazyPanicked")).Call(jen.Lit(n.Name)),
					jen.List(v.Clone(), e.Clone()).Op("=").Add(implQ("Lazy")).Call(jen.Op("&").Id("oX").Dot("Exec"), jen.Id("p"), jen.Lit(n.Name), jen.Id("oX").Dot("occ")),
				).Else().Block(v.Clone().Op("=").Add(fieldPath(jen.Id("oX").Dot("F"), n.Field))),
			),
			jen.Return(v, e),
		)
	}

	var cases []jen.Code
	for _, a := range p.Anchors {
		name := pk.anchorName(a.ID)
		cases = append(cases, jen.Case(pk.catQ(name)).Block(jen.Return(jen.Id("ev").Dot("oEval_"+name).Call(jen.Id("ctx"), jen.Id("occ"), jen.Id("s"), jen.Id("d"), jen.Nil()))))
	}
	cases = append(cases, jen.Default().Block(
		jen.If(jen.Op("!").Id("occ").Dot("Anchor").Dot("Valid").Call()).Block(
			jen.Id("err").Op(":=").Add(implQ("UnknownAnchor")).Call(jen.Id("d"), jen.Int64().Call(jen.Id("occ").Dot("Anchor"))),
			recordCall(jen.Id("occ").Dot("Anchor").Dot("String").Call()),
			jen.Return(jen.Id("err")),
		),
		jen.If(jen.Id("ev").Dot("cfg").Dot("RuleStore").Op("!=").Nil()).Block(
			jen.Return(jen.Id("ev").Dot("oLive").Call(jen.Id("ctx"), jen.Id("occ"), jen.Id("s"), jen.Id("d"), jen.Nil())),
		),
		jen.Comment("An anchor without rules: allow."),
		jen.Id("d").Dot("Reset").Call(),
		jen.Id("d").Dot("Content").Op("=").Id("occ").Dot("Content"),
		recordCall(jen.Id("occ").Dot("Anchor").Dot("String").Call()),
		jen.Return(jen.Nil()),
	))
	f.Comment("Evaluate evaluates one occurrence and fills d. s may be nil (no counters,")
	f.Comment("no provenance); ctx may be nil. It returns an error only for an occurrence")
	f.Comment("whose anchor is not an anchor of the catalog (runtime.ErrUnknownAnchor),")
	f.Comment("which d then blocks, or for a nil evaluator, occurrence or decision")
	f.Comment("(runtime.ErrBadCall; a non-nil d then blocks). It allocates nothing once")
	f.Comment("d's buffers have grown, except for validator and provider calls bound to a")
	f.Comment("context that can end and for a transform's rewritten content")
	f.Comment("(docs/choices-runtime.md).")
	f.Func().Params(jen.Id("ev").Op("*").Id("Evaluator")).Id("Evaluate").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("occ").Op("*").Add(pk.catQ("Occurrence")),
		jen.Id("s").Op("*").Add(rt("Session")), jen.Id("d").Op("*").Add(rt("Decision")),
	).Error().Block(
		jen.If(jen.Id("ev").Op("==").Nil().Op("||").Id("occ").Op("==").Nil().Op("||").Id("d").Op("==").Nil()).Block(
			jen.Return(implQ("BadCall").Call(jen.Id("ev").Op("==").Nil(), jen.Id("occ").Op("==").Nil(), jen.Id("d"))),
		),
		jen.Switch(jen.Id("occ").Dot("Anchor")).Block(cases...),
	)

	pk.evaluateCheck(f)

	f.Comment("CounterKey returns the store key of a rule's counter, for hosts that")
	f.Comment("restore or inspect counters.")
	var kc []jen.Code
	for _, r := range p.Rules {
		kc = append(kc, jen.Case(jen.Lit(r.ID)).Block(jen.Return(
			rt("CounterKey").Values(jen.Id("Slot").Op(":").Lit(r.Index), jen.Id("Rule").Op(":").Lit(r.ID), jen.Id("Counter").Op(":").Id("c")), jen.True())))
	}
	kc = append(kc, jen.Default().Block(jen.Return(rt("CounterKey").Values(), jen.False())))
	f.Func().Params(jen.Id("ev").Op("*").Id("Evaluator")).Id("CounterKey").Params(jen.Id("rule").String(), jen.Id("c").Add(rt("Counter"))).
		Params(rt("CounterKey"), jen.Bool()).Block(jen.Switch(jen.Id("rule")).Block(kc...))
}

// evaluateCheck emits EvaluateCheck: several occurrences at one anchor as
// one check (spec 5.11), each action evaluated with the check (the
// anchor's evaluation with c set), then the check's updates applied in
// one step, then the decisions recorded.
func (pk *packGen) evaluateCheck(f *jen.File) {
	p := pk.p
	each := func(stmts ...jen.Code) jen.Code {
		return jen.For(jen.Id("i").Op(":=").Range().Id("occs")).Block(stmts...)
	}
	evalEach := func(fn string) jen.Code {
		return each(jen.Id("ev").Dot(fn).Call(jen.Id("ctx"), jen.Op("&").Id("occs").Index(jen.Id("i")), jen.Id("s"), jen.Op("&").Id("ds").Index(jen.Id("i")), jen.Op("&").Id("c")))
	}
	var cases []jen.Code
	for _, a := range p.Anchors {
		name := pk.anchorName(a.ID)
		cases = append(cases, jen.Case(pk.catQ(name)).Block(evalEach("oEval_"+name)))
	}
	cases = append(cases, jen.Default().Block(
		jen.Switch().Block(
			jen.Case(jen.Op("!").Id("a").Dot("Valid").Call()).Block(
				each(jen.Id("err").Op("=").Add(implQ("UnknownAnchor")).Call(jen.Op("&").Id("ds").Index(jen.Id("i")), jen.Int64().Call(jen.Id("a")))),
			),
			jen.Case(jen.Id("ev").Dot("cfg").Dot("RuleStore").Op("!=").Nil()).Block(evalEach("oLive")),
			jen.Default().Block(
				jen.Comment("An anchor without rules: allow."),
				each(
					jen.Id("ds").Index(jen.Id("i")).Dot("Reset").Call(),
					jen.Id("ds").Index(jen.Id("i")).Dot("Content").Op("=").Id("occs").Index(jen.Id("i")).Dot("Content"),
				),
			),
		),
	))
	f.Comment("EvaluateCheck evaluates occs as one check (spec 5.11): the occurrences a")
	f.Comment("model turn proposes together, at one anchor, one decision each in ds (as")
	f.Comment("many as occs). Every action reads the session as it was before the check,")
	f.Comment("its own facts, and batch_tools, the tools of every action in order; after")
	f.Comment("every action's rules, the updates of all actions are applied in index")
	f.Comment("order as one atomic step (one Store.Apply), and a failure to apply them is")
	f.Comment("an error in every decision. A decision says nothing about another: a")
	f.Comment("blocked action does not block its siblings. Occurrences at different")
	f.Comment("anchors are an error wrapping runtime.ErrCheckAnchors, and as many")
	f.Comment("decisions as occurrences is required (runtime.ErrBadCall); every decision")
	f.Comment("then blocks and nothing is applied. An empty check does nothing. Without a")
	f.Comment("recorder it allocates nothing for a check of up to 8 actions, once the")
	f.Comment("decisions' buffers have grown, with the exceptions of Evaluate.")
	f.Func().Params(jen.Id("ev").Op("*").Id("Evaluator")).Id("EvaluateCheck").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("occs").Index().Add(pk.catQ("Occurrence")),
		jen.Id("s").Op("*").Add(rt("Session")), jen.Id("ds").Index().Add(rt("Decision")),
	).Error().Block(
		jen.If(jen.Id("ev").Op("==").Nil().Op("||").Len(jen.Id("ds")).Op("!=").Len(jen.Id("occs"))).Block(
			jen.Return(implQ("BadCheck").Call(jen.Id("ev").Op("==").Nil(), jen.Len(jen.Id("occs")), jen.Id("ds"))),
		),
		jen.If(jen.Len(jen.Id("occs")).Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.Id("a").Op(":=").Id("occs").Index(jen.Lit(0)).Dot("Anchor"),
		jen.Var().Id("c").Add(implQ("Check")),
		each(
			jen.If(jen.Id("occs").Index(jen.Id("i")).Dot("Anchor").Op("!=").Id("a")).Block(
				jen.Return(implQ("MixedCheck").Call(jen.Id("ds"), jen.Id("i"), jen.Id("a").Dot("String").Call(), jen.Id("occs").Index(jen.Id("i")).Dot("Anchor").Dot("String").Call())),
			),
			jen.Id("c").Dot("Tool").Call(jen.Id("occs").Index(jen.Id("i")).Dot("Facts").Dot("Tool")),
		),
		jen.Var().Id("err").Error(),
		jen.Switch(jen.Id("a")).Block(cases...),
		implQ("EndCheck").Call(jen.Op("&").Id("c"), jen.Id("ctx"), jen.Id("ds")),
		jen.If(jen.Id("ev").Dot("cfg").Dot("Recorder").Op("!=").Nil()).Block(
			each(implQ("RecordDecision").Call(jen.Id("ctx"), jen.Id("ev").Dot("cfg").Dot("Recorder"), jen.Id("Name"), jen.Id("Digest"), jen.Id("s"),
				jen.Id("a").Dot("String").Call(), jen.Id("occs").Index(jen.Id("i")).Dot("Facts").Dot("Tool"), jen.Op("&").Id("ds").Index(jen.Id("i")))),
		),
		jen.Return(jen.Id("err")),
	)
}

// liveHost emits what a rule store's rules read through the generated
// code (impl.LiveHost): facts by name, the catalog's providers by name, its
// validators by id; and the evaluation of an anchor without compiled
// rules, for the store's rules.
func (pk *packGen) liveHost(f *jen.File) {
	p := pk.p
	var cases []jen.Code
	for i, n := range pk.lazyFacts {
		cases = append(cases, jen.Case(jen.Lit(n.Name)).Block(jen.Return(jen.Id("oX").Dot("oLazy"+strconv.Itoa(i+1)).Call())))
	}
	var body []jen.Code
	if len(cases) > 0 {
		body = append(body, jen.Switch(jen.Id("name")).Block(cases...))
	}
	body = append(body,
		jen.List(jen.Id("v"), jen.Id("_")).Op(":=").Id("oX").Dot("F").Dot("Get").Call(jen.Id("name")),
		jen.Return(jen.Id("v"), rtErrNone()))
	f.Comment("LiveFact reads a fact the host fills, by CEL name, for a rule of a rule store")
	f.Comment("(impl.LiveHost); a fact the set reads lazily is read through Env.Lazy.")
	f.Func().Params(execParam()).Id("LiveFact").Params(jen.Id("name").String()).Params(jen.Any(), rt("Err")).Block(body...)

	// The arguments of a store rule's call come from the reference's
	// evaluation in the Go types of their catalog types (interp's
	// providerArg), lists and maps included.
	goArg := map[string]jen.Code{"string": jen.String(), "int": jen.Int64(), "bool": jen.Bool(), "double": jen.Float64(),
		"list(string)": jen.Index().String(), "map(string, dyn)": jen.Map(jen.String()).Any(), "list(map(string, dyn))": jen.Index().Map(jen.String()).Any()}
	cases = nil
	for _, fn := range p.Catalog.Functions {
		if fn.Provider == "" || fn.Builtin != ir.NotBuiltin || len(fn.Params) < 1 || len(fn.Params) > 4 {
			continue
		}
		var stmts []jen.Code
		args := []jen.Code{jen.Op("&").Id("oX").Dot("Exec"), jen.Id("oX").Dot("ev").Dot("env").Dot("Providers").Dot(fn.Provider), jen.Lit(fn.Name), jen.Id("oX").Dot("occ")}
		ok := true
		for i, t := range fn.Params {
			gt, known := goArg[t.String()]
			if !known {
				ok = false
				break
			}
			a, has := "a"+strconv.Itoa(i), "ok"+strconv.Itoa(i)
			stmts = append(stmts,
				jen.List(jen.Id(a), jen.Id(has)).Op(":=").Id("args").Index(jen.Lit(i)).Assert(gt),
				jen.If(jen.Op("!").Id(has)).Block(jen.Return(jen.Nil(), implQ("NoSuchOverload").Call(jen.Lit(fn.Name)))))
			args = append(args, jen.Id(a))
		}
		if !ok {
			continue
		}
		stmts = append([]jen.Code{jen.If(jen.Len(jen.Id("args")).Op("!=").Lit(len(fn.Params))).Block(jen.Return(jen.Nil(), implQ("NoSuchOverload").Call(jen.Lit(fn.Name))))}, stmts...)
		stmts = append(stmts,
			jen.List(jen.Id("v"), jen.Id("e")).Op(":=").Add(implQ("Provide"+strconv.Itoa(len(fn.Params)))).Call(args...),
			jen.Return(jen.Id("v"), jen.Id("e")))
		cases = append(cases, jen.Case(jen.Lit(fn.Name)).Block(stmts...))
	}
	body = nil
	if len(cases) > 0 {
		body = append(body, jen.Switch(jen.Id("name")).Block(cases...))
	}
	body = append(body, jen.Return(jen.Nil(), rt("Err").Values(jen.Id("Kind").Op(":").Add(rt("ErrNoProvider")), jen.Id("S").Op(":").Id("name"))))
	f.Comment("LiveProvide calls the host's provider of a catalog function, by CEL name, for a")
	f.Comment("rule of a rule store (impl.LiveHost).")
	f.Func().Params(execParam()).Id("LiveProvide").Params(jen.Id("name").String(), jen.Id("args").Index().Any()).Params(jen.Any(), rt("Err")).Block(body...)

	f.Comment("LiveDetect consults a validator by id for a rule of a rule store (impl.LiveHost).")
	f.Func().Params(execParam()).Id("LiveDetect").Params(jen.Id("id").String()).Params(jen.Op("*").Add(rt("Detection")), rt("Err")).Block(
		jen.Return(implQ("DetectLive").Call(jen.Op("&").Id("oX").Dot("Exec"), jen.Id("id"), jen.Id("oX").Dot("ev").Dot("env").Dot("Validators").Index(jen.Id("id")), jen.Id("oX").Dot("occ"))))

	f.Comment("oLive evaluates an occurrence at an anchor without compiled rules, for the rule")
	f.Comment("store's rules (spec 12).")
	f.Func().Params(jen.Id("ev").Op("*").Id("Evaluator")).Id("oLive").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("occ").Op("*").Add(pk.catQ("Occurrence")),
		jen.Id("s").Op("*").Add(rt("Session")), jen.Id("d").Op("*").Add(rt("Decision")), checkParam(),
	).Error().Block(
		jen.Id("oX").Op(":=").New(jen.Id("oExec")),
		jen.List(jen.Id("oX").Dot("ev"), jen.Id("oX").Dot("occ"), jen.Id("oX").Dot("F")).Op("=").List(jen.Id("ev"), jen.Id("occ"), jen.Op("&").Id("occ").Dot("Facts")),
		jen.Id("anchor").Op(":=").Id("occ").Dot("Anchor").Dot("String").Call(),
		implQ("Begin").Call(jen.Op("&").Id("oX").Dot("Exec"), jen.Id("ctx"), jen.Id("oRules").Index(jen.Op(":")), jen.Id("s"), jen.Id("d"),
			jen.Id("anchor"), jen.Id("occ").Dot("Profiles"), jen.Id("occ").Dot("Content"), jen.Id("occ").Dot("Inputs")),
		inCheck(),
		jen.Id("oX").Dot("Call").Call(jen.Id("occ").Dot("Facts").Dot("Tool"), jen.Id("occ").Dot("Facts").Dot("ToolArgs"),
			jen.Id("anchor").Op("==").Lit(ir.ToolPreInvoke), jen.True(), jen.Id("occ").Dot("Kept")),
		// The occurrence's time and the call's, for the store's time
		// functions (spec 5.13), as at an anchor with compiled rules.
		jen.Id("oX").Dot("When").Call(jen.Id("occ").Dot("Time"), jen.True()),
		implQ("Live").Call(jen.Op("&").Id("oX").Dot("Exec"), jen.Id("ev").Dot("cfg").Dot("RuleStore"), jen.Id("oX")),
		implQ("RunLive").Call(jen.Op("&").Id("oX").Dot("Exec")),
		jen.Id("oX").Dot("Finish").Call(),
		addOrRecord(jen.Id("anchor")),
		implQ("ObserveLive").Call(jen.Op("&").Id("oX").Dot("Exec")),
		jen.Return(jen.Nil()),
	)
}

// checkParam is the parameter of an anchor's evaluation that makes it an
// action of a check (spec 5.11; nil: evaluated alone).
func checkParam() jen.Code { return jen.Id("c").Op("*").Add(implQ("Check")) }

// inCheck makes the evaluation an action of its check, if it has one.
func inCheck() jen.Code {
	return jen.If(jen.Id("c").Op("!=").Nil()).Block(jen.Id("oX").Dot("InCheck").Call(jen.Id("c")))
}

// addOrRecord hands an action's updates to its check (which applies them,
// then records the decisions), or records the decision of an occurrence
// evaluated alone.
func addOrRecord(anchor jen.Code) jen.Code {
	return jen.If(jen.Id("c").Op("!=").Nil()).Block(
		jen.Id("c").Dot("Add").Call(jen.Op("&").Id("oX").Dot("Exec")),
	).Else().Add(recordCall(anchor))
}

// recordCall hands the decision record to the evaluator's recorder, if it
// has one: evaluation without a recorder builds nothing.
func recordCall(anchor jen.Code) jen.Code {
	return jen.If(jen.Id("ev").Dot("cfg").Dot("Recorder").Op("!=").Nil()).Block(
		implQ("RecordDecision").Call(jen.Id("ctx"), jen.Id("ev").Dot("cfg").Dot("Recorder"), jen.Id("Name"), jen.Id("Digest"), jen.Id("s"),
			anchor, jen.Id("occ").Dot("Facts").Dot("Tool"), jen.Id("d")),
	)
}

// context emits the rendered context's data (spec 10): every titled rule
// in evaluation order with its tokens, and Context.
func (pk *packGen) context(f *jen.File) {
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	var rules []jen.Code
	strs := func(l []string) jen.Code {
		v := make([]jen.Code, len(l))
		for i, s := range l {
			v[i] = jen.Lit(s)
		}
		return jen.Index().String().Values(v...)
	}
	for _, e := range ir.Context(pk.p) {
		fs := []jen.Code{jen.Id("ID").Op(":").Lit(e.ID), jen.Id("Title").Op(":").Lit(e.Title)}
		if e.Fix != "" {
			fs = append(fs, jen.Id("Fix").Op(":").Lit(e.Fix))
		}
		if e.Instead != "" {
			fs = append(fs, jen.Id("Instead").Op(":").Lit(e.Instead))
		}
		if e.Monitor {
			fs = append(fs, jen.Id("Monitor").Op(":").True())
		}
		if e.Global {
			fs = append(fs, jen.Id("Global").Op(":").True())
		}
		if e.Pinned {
			fs = append(fs, jen.Id("Pinned").Op(":").True())
		}
		if !e.Pinned {
			fs = append(fs, jen.Id("Tags").Op(":").Add(strs(e.Tags)), jen.Id("Text").Op(":").Add(strs(e.Text)))
		}
		rules = append(rules, jen.Custom(multi, fs...))
	}
	f.Comment("oContext are the entries of the rendered context (ir.Context): the enforced")
	f.Comment("deny-by-default codes with a title, then the titled rules that tell the agent")
	f.Comment("what to do, in evaluation order, tokenised when the rules were compiled.")
	f.Var().Id("oContext").Op("=").Index(jen.Lit(len(rules))).Add(implQ("ContextRule")).Custom(multi, rules...)
	f.Comment("Context renders the rules as Markdown for an agent's system prompt (spec 10):")
	f.Comment("without a hint every titled rule; with one, the global and monitored rules")
	f.Comment("and the k most relevant others (k <= 0: 8).")
	f.Func().Id("Context").Params(jen.Id("hint").String(), jen.Id("k").Int()).String().Block(
		jen.Return(implQ("Render").Call(jen.Id("oContext").Index(jen.Op(":")), jen.Id("hint"), jen.Id("k"))),
	)
}

// reads emits Reads: what each anchor's rules read (runtime.Reads), from
// the rules' IR.
func (pk *packGen) reads(f *jen.File) {
	p := pk.p
	strs := func(set map[string]bool) jen.Code {
		if len(set) == 0 {
			return nil
		}
		var l []string
		for s := range set {
			l = append(l, s)
		}
		sort.Strings(l)
		v := make([]jen.Code, len(l))
		for i, s := range l {
			v[i] = jen.Lit(s)
		}
		return jen.Index().String().Values(v...)
	}
	var cases []jen.Code
	for _, a := range p.Anchors {
		var rd ir.Reads
		for _, ri := range a.Rules {
			rd.Add(p.Catalog.Host, p.Rules[ri])
		}
		facts, kept, funcs, vals := rd.Facts, rd.Kept, rd.Functions, rd.Validators
		counters, prov, at, callTimes := rd.Counters, rd.Provenance, rd.Time, rd.CallTimes
		var fields []jen.Code
		for _, fl := range []struct {
			name string
			set  map[string]bool
		}{{"Facts", facts}, {"Kept", kept}, {"Functions", funcs}, {"Validators", vals}} {
			if c := strs(fl.set); c != nil {
				fields = append(fields, jen.Id(fl.name).Op(":").Add(c))
			}
		}
		if counters {
			fields = append(fields, jen.Id("Counters").Op(":").True())
		}
		if prov {
			fields = append(fields, jen.Id("Provenance").Op(":").True())
		}
		if at {
			fields = append(fields, jen.Id("Time").Op(":").True())
		}
		if callTimes {
			fields = append(fields, jen.Id("CallTimes").Op(":").True())
		}
		v := "oReads_" + pk.anchorName(a.ID)
		pk.vars = append(pk.vars, jen.Id(v).Op("=").Add(rt("Reads")).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, fields...))
		cases = append(cases, jen.Case(pk.catQ(pk.anchorName(a.ID))).Block(jen.Return(jen.Id(v))))
	}
	cases = append(cases, jen.Default().Block(jen.Return(rt("Reads").Values())))
	f.Comment("Reads returns what the rules at anchor oAnchor read: the facts the host fills, the")
	f.Comment("session facts the engine keeps, the provider functions and validators they")
	f.Comment("use, and whether they read counters, provenance, the occurrence's time or the")
	f.Comment("session's record of calls' times (nothing for an anchor without rules). A host")
	f.Comment("that computes facts itself can fill only these.")
	// The parameter has the generator's prefix: a catalog package may be
	// named like any other identifier (TestHostileHostNames).
	f.Func().Id("Reads").Params(jen.Id("oAnchor").Add(pk.catQ("Anchor"))).Add(rt("Reads")).Block(jen.Switch(jen.Id("oAnchor")).Block(cases...))
}

func counterKey(slot int, id string, c ir.Counter) jen.Code {
	return rt("CounterKey").Values(jen.Id("Slot").Op(":").Lit(slot), jen.Id("Rule").Op(":").Lit(id), jen.Id("Counter").Op(":").Add(rt(counterConst[c])))
}

func (pk *packGen) ruleTable(f *jen.File) {
	p := pk.p
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	// Keys of the counters some rule reads.
	stored := func(slot int, c ir.Counter) bool { return p.Rules[slot].Stored[c] }
	var rules []jen.Code
	for _, r := range p.Rules {
		info := []jen.Code{
			jen.Id("ID").Op(":").Lit(r.ID),
			jen.Id("Pack").Op(":").Lit(r.Pack),
			jen.Id("Kind").Op(":").Add(rt(kindConst[r.Kind])),
			jen.Id("Anchor").Op(":").Lit(r.Anchor),
			jen.Id("Effect").Op(":").Add(rt(effectConst[r.Effect])),
		}
		if r.Monitor {
			info = append(info, jen.Id("Monitor").Op(":").True())
		}
		if r.FailOpen {
			info = append(info, jen.Id("FailOpen").Op(":").True())
		}
		if c := r.Copy; c != (ir.Copy{}) {
			info = append(info, jen.Id("Copy").Op(":").Add(copyLit(c)))
		}
		fs := []jen.Code{
			jen.Id("Rule").Op(":").Add(rt("Rule")).Custom(multi, info...),
			jen.Id("Slot").Op(":").Lit(r.Index),
		}
		if len(r.Profiles) > 0 {
			fs = append(fs, jen.Id("Profiles").Op(":").Add(profileSet(r.Profiles)))
		}
		if r.Detector != "" {
			fs = append(fs, jen.Id("Detector").Op(":").Lit(r.Detector))
		}
		fs = append(fs, jen.Id("DetectorSlot").Op(":").Lit(r.DetectorSlot))
		if r.Stored[ir.Fire] {
			fs = append(fs, jen.Id("Fire").Op(":").Op("&").Add(counterKey(r.Index, r.ID, ir.Fire)))
		}
		if r.Stored[ir.Breaker] {
			fs = append(fs, jen.Id("Breaker").Op(":").Op("&").Add(counterKey(r.Index, r.ID, ir.Breaker)))
		}
		var inc []jen.Code
		for _, c := range r.Increment {
			if stored(r.Index, c) {
				inc = append(inc, counterKey(r.Index, r.ID, c))
			}
		}
		if len(inc) > 0 {
			fs = append(fs, jen.Id("Increment").Op(":").Index().Add(rt("CounterKey")).Values(inc...))
		}
		var reset []jen.Code
		for _, c := range r.Reset {
			if stored(c.Slot, c.Counter) {
				reset = append(reset, counterKey(c.Slot, c.Rule, c.Counter))
			}
		}
		if len(reset) > 0 {
			fs = append(fs, jen.Id("Reset").Op(":").Index().Add(rt("CounterKey")).Values(reset...))
		}
		// A session with a rule store keeps every counter (spec 5.9): the
		// whole of on_fire, when the lists above left some out.
		if len(inc) < len(r.Increment) {
			var all []jen.Code
			for _, c := range r.Increment {
				all = append(all, counterKey(r.Index, r.ID, c))
			}
			fs = append(fs, jen.Id("AllIncrement").Op(":").Index().Add(rt("CounterKey")).Values(all...))
		}
		if len(reset) < len(r.Reset) {
			var all []jen.Code
			for _, c := range r.Reset {
				all = append(all, counterKey(c.Slot, c.Rule, c.Counter))
			}
			fs = append(fs, jen.Id("AllReset").Op(":").Index().Add(rt("CounterKey")).Values(all...))
		}
		if len(r.Redact) > 0 {
			var rs []jen.Code
			for _, x := range r.Redact {
				rs = append(rs, jen.Lit(x))
			}
			fs = append(fs, jen.Id("Redact").Op(":").Index().String().Values(rs...))
			fs = append(fs, jen.Id("Replacement").Op(":").Lit(r.Replacement))
		}
		rules = append(rules, jen.Comment(r.ID).Line().Custom(multi, fs...))
	}
	f.Comment("oRules are the compiled rules, by slot (evaluation order).")
	f.Var().Id("oRules").Op("=").Index(jen.Lit(len(p.Rules))).Add(implQ("Rule")).Custom(multi, rules...)
	f.Line()
}

func copyLit(c ir.Copy) jen.Code {
	var cf []jen.Code
	for _, kv := range [][2]string{{"Title", c.Title}, {"What", c.What}, {"Cause", c.Cause}, {"Why", c.Why}, {"Fix", c.Fix}, {"Instead", c.Instead}} {
		if kv[1] != "" {
			cf = append(cf, jen.Id(kv[0]).Op(":").Lit(kv[1]))
		}
	}
	return rt("Copy").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, cf...)
}

// rule generates the function of one rule, in the order of spec section
// 5.1: its selector (clauses combined like CEL's &&: a clause on a fact of
// a profile the host did not supply is an error that another clause that
// is false absorbs), the rest of its profiles, flow, validator, condition.
// anchorInfo is what the rules of one anchor read of the session: the
// counters (keys, by snapshot index in snaps), whether they read a session
// fact the engine keeps (kept), one derived from the record of tool calls
// (hist), and the rules that read code_reject_total (codeList, by index in
// codes).
type anchorInfo struct {
	keys       []snapKey
	snaps      map[snapKey]int
	kept, hist bool
	names      bool // some rule reads recent_tool_names (or has a flow)
	// time: some rule reads the occurrence's time; callTimes: the calls'
	// times of the record (spec 5.13).
	time, callTimes bool
	codes           map[string]int
	codeList        []string
}

func (pk *packGen) rule(r *ir.Rule, info *anchorInfo) {
	g := &fn{pk: pk, rule: r, b: &block{}, zeros: []jen.Code{jen.False()}, snaps: info.snaps, codes: info.codes}
	selErr := ""
	for _, c := range r.Selector {
		if (c.Profile != "" || !g.plainRead(c)) && selErr == "" {
			selErr = g.newTmp()
			g.emit(jen.Var().Id(selErr).Add(rt("Err")))
		}
		g.clause(c, selErr)
	}
	if selErr != "" {
		g.emit(jen.If(errSet(selErr)).Block(jen.Return(jen.False(), jen.Id(selErr))))
	}
	if len(r.Profiles) > 0 {
		e := g.newTmp()
		g.emit(jen.If(jen.Id(e).Op(":=").Id("oX").Dot("Supplied").Call(profileSet(r.Profiles)), errSet(e)).Block(jen.Return(jen.False(), jen.Id(e))))
	}
	if r.Flow != nil {
		// The flow reads recent_tool_names, which the engine keeps (spec
		// 5.4, 5.10): an error when the session's record cannot be read.
		k := g.method(nil, "KeptFact", rt("KeptRecentToolNames"))
		g.emit(jen.If(jen.Op("!").Id(pk.flowFunc(r)).Call(jen.Add(k.code).Dot("RecentToolNames"))).Block(returnNoFire()))
	}
	if r.Detector != "" {
		e := g.newTmp()
		slot := 0
		for i, v := range pk.p.Validators {
			if v == r.Detector {
				slot = i
			}
		}
		g.emit(jen.List(jen.Id("oD"), jen.Id(e)).Op(":=").Add(implQ("Detect")).Call(jen.Op("&").Id("oX").Dot("Exec"), ruleRef(r),
			jen.Id("oX").Dot("ev").Dot("validators").Index(jen.Lit(slot)), jen.Id("oX").Dot("occ")))
		g.emit(jen.If(errSet(e)).Block(jen.Return(jen.False(), jen.Id(e))))
		g.emit(jen.If(jen.Op("!").Id("oD").Dot("Hit")).Block(returnNoFire()))
	}
	if r.When == nil {
		g.emit(jen.Return(jen.True(), rtErrNone()))
	} else {
		v := g.valAs(r.When, ir.BoolType)
		g.emit(jen.Return(v.code, rtErrNone()))
	}
	body := []jen.Code{jen.If(jen.Op("!").Id("oX").Dot("Enter").Call(jen.Lit(r.Index))).Block(returnNoFire())}
	if g.facts {
		body = append(body, jen.Id("oF").Op(":=").Id("oX").Dot("F"))
	}
	body = append(body, g.b.stmts...)
	fnc := jen.Comment(fmt.Sprintf("%s evaluates rule %s (%s, pack %s).", ruleFunc(r), r.ID, r.Kind, r.Pack)).Line()
	if r.WhenSource != "" {
		fnc = fnc.Add(whenComment(r.WhenSource))
	}
	pk.funcs = append(pk.funcs, fnc.Func().Id(ruleFunc(r)).Params(execParam()).Add(ruleResults()).Block(body...))
}

// whenComment shows a rule's condition as written, one comment line per
// source line, with what a comment cannot hold (NUL, control characters,
// invalid UTF-8, a byte-order mark, bidirectional controls that could make
// the code read differently than it compiles) escaped.
func whenComment(src string) *jen.Statement {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(src, "\r\n", "\n"), "\n"), "\n")
	// A code block of the doc comment, as gofmt lays it out.
	c := jen.Comment("when:").Line().Comment("//").Line()
	for _, l := range lines {
		c = c.Comment("//\t" + commentSafe(l)).Line()
	}
	return c
}

func commentSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0xfeff || r == 0x2028 || r == 0x2029 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c:
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// clause emits one selector clause. A clause on a fact of a profile the
// host did not supply records the error in selErr (reported when no clause
// is false) instead of looking at the fact.
func (g *fn) clause(c *ir.Clause, selErr string) {
	var fact jen.Code
	var pre []jen.Code // statements computing the fact, placed before the test
	readErr := ""      // the Err of a read that can fail (a counter, provenance)
	if g.plainRead(c) {
		g.facts = true
		fact = path("oF", c.Field)
	} else {
		// Read the fact as the rule's when does; an error at the read is
		// the clause's error, which a false clause absorbs (spec 5.2).
		t := g.term(c.Read, c.Type)
		pre, fact, readErr = t.stmts, t.val.code, t.err
	}
	lits := make([]jen.Code, len(c.Values))
	for i, v := range c.Values {
		lits[i] = jen.Lit(v)
		if n, ok := v.(int64); ok {
			lits[i] = jen.Lit(n)
		}
	}
	var test []jen.Code // statements returning when the clause is false
	switch {
	case c.Type.Is(ir.KList):
		set := g.pk.hoist(g.rule, "oSel", c.Fact, jen.Index().String().Values(lits...), c.Type)
		test = []jen.Code{jen.If(jen.Op("!").Add(implQ("AnyAmong")).Call(fact, set.code)).Block(returnNoFire())}
	case len(lits) == 1:
		test = []jen.Code{jen.If(jen.Add(fact).Op("!=").Add(lits[0])).Block(returnNoFire())}
	default:
		test = []jen.Code{jen.Switch(fact).Block(jen.Case(lits...), jen.Default().Block(returnNoFire()))}
	}
	if readErr != "" {
		// The read failed: remember the error, unless an earlier clause's
		// came first; else test the value.
		test = []jen.Code{jen.If(errSet(readErr)).Block(
			jen.If(jen.Id(selErr).Dot("Kind").Op("==").Lit(0)).Block(jen.Id(selErr).Op("=").Id(readErr)),
		).Else().Block(test...)}
	}
	test = append(pre, test...)
	if c.Profile == "" {
		for _, s := range test {
			g.emit(s)
		}
		return
	}
	e := g.newTmp()
	g.emit(jen.If(jen.Id(e).Op(":=").Id("oX").Dot("Supplied").Call(profileConst(c.Profile)), errSet(e)).Block(
		jen.If(jen.Id(selErr).Dot("Kind").Op("==").Lit(0)).Block(jen.Id(selErr).Op("=").Id(e)),
	).Else().Block(test...))
}

// lazyIgnored emits New's refusal of lazy providers the set would
// ignore (runtime.ErrLazyIgnored): env.Lazy's provider of a fact the
// compiled rules read from Facts, not lazily, and of tool and tool_args,
// which the engine reads at every call. One check per such fact, not per
// fact of the catalog: a catalog of many thousand facts keeps a New that
// builds fast. With a rule store, whose rules may read any fact, every
// provider of a fact the set does not read lazily is refused, found by
// impl.LazyOthers at New.
func (pk *packGen) lazyIgnored() []jen.Code {
	read := map[string]bool{}
	for _, r := range pk.p.Rules {
		ir.WalkRule(r, func(e ir.Expr) bool {
			if f, ok := e.(*ir.Fact); ok && (f.Source == ir.FromFacts || f.Source == ir.FromDetector) {
				read[f.Name] = true
			}
			return true
		})
		// A transform's span facts are read when it fires, whatever
		// its when reads.
		for _, name := range r.Redact {
			read[name] = true
		}
	}
	// With a rule store, whose rules may read any fact (from Facts,
	// unless the set reads it lazily): every other provider is ignored.
	var lazyPaths []jen.Code
	for _, cf := range pk.p.Catalog.Facts {
		if pk.lazy[cf.Name] && len(cf.Field) > 0 && cf.Kept == ir.NotKept {
			lazyPaths = append(lazyPaths, jen.Lit(strings.Join(cf.Field, ".")))
		}
	}
	store := jen.If(jen.Id("ev").Dot("cfg").Dot("RuleStore").Op("!=").Nil()).Block(
		jen.If(jen.Id("l").Op(":=").Add(implQ("LazyOthers")).Call(append([]jen.Code{jen.Id("env").Dot("Lazy")}, lazyPaths...)...), jen.Len(jen.Id("l")).Op(">").Lit(0)).Block(
			jen.Return(jen.Nil(), implQ("LazyIgnored").Call(jen.Id("l")))))
	var code []jen.Code
	for _, cf := range pk.p.Catalog.Facts {
		if cf.Tier != "standard" && cf.Tier != "host" || cf.Kept != ir.NotKept || len(cf.Field) == 0 || pk.lazy[cf.Name] {
			continue
		}
		if !read[cf.Name] && !EngineReads(cf.Name) {
			continue
		}
		cond := fieldPath(jen.Id("env").Dot("Lazy"), cf.Field).Op("!=").Nil()
		code = append(code, jen.If(cond).Block(jen.Id("names").Op("=").Append(jen.Id("names"), jen.Lit(cf.Name))))
	}
	if len(code) == 0 {
		return []jen.Code{store}
	}
	return append(append([]jen.Code{jen.Var().Id("names").Index().String()}, code...),
		jen.If(jen.Len(jen.Id("names")).Op(">").Lit(0)).Block(jen.Return(jen.Nil(), implQ("LazyIgnored").Call(jen.Id("names")))), store)
}

// plainRead reports whether a selector clause reads a field the host fills
// (the common case, read in place), rather than a core fact, a counter, a
// derived or lazily read fact, read as a when would.
func (g *fn) plainRead(c *ir.Clause) bool {
	f, ok := c.Read.(*ir.Fact)
	return ok && f.Source == ir.FromFacts && !g.pk.lazy[f.Name]
}

// fieldPath selects fields from a Go expression.
func fieldPath(s *jen.Statement, fields []string) *jen.Statement {
	for _, f := range fields {
		s = s.Dot(f)
	}
	return s
}

// The bounds of an anchor's buffers (see anchors): beyond them an
// evaluation allocates.
const (
	maxSnapBuf  = 64
	maxDetBuf   = 16
	maxFiredBuf = 32
)

func (pk *packGen) anchors(infos map[string]*anchorInfo) []jen.Code {
	p := pk.p
	var out []jen.Code
	for _, a := range p.Anchors {
		name := pk.anchorName(a.ID)
		info := infos[a.ID]
		keys := info.keys
		// The validators the anchor's rules consult, in slot order.
		nDet := 0
		hasTransform := false
		for _, ri := range a.Rules {
			r := p.Rules[ri]
			if r.DetectorSlot+1 > nDet {
				nDet = r.DetectorSlot + 1
			}
			hasTransform = hasTransform || r.Effect == ir.EffectTransform
		}
		// The state of an evaluation at the anchor: the exec, and buffers
		// sized for the anchor's rules (impl.Exec.Buffers): room for the
		// counters they read, the answers of the validators they consult
		// and their enforced firings. Past these bounds (kept so that the
		// state stays a small stack frame) the rest goes to slices that
		// impl allocates.
		// The counters are read all at once: past the bound, all of them
		// go to a slice.
		nSnap, nFired := len(keys), min(len(a.Rules), maxFiredBuf)
		if nSnap > maxSnapBuf {
			nSnap = 0
		}
		nDetBuf := min(nDet, maxDetBuf)
		state := "oState_" + name
		fields := []jen.Code{jen.Id("oExec")}
		bufs := []jen.Code{jen.Nil(), jen.Nil(), jen.Nil()}
		for i, b := range []struct {
			name string
			n    int
			t    jen.Code
		}{{"oSnap", nSnap, jen.Int64()}, {"oDet", nDetBuf, implQ("DetState")}, {"oFired", nFired, jen.Int32()}} {
			if b.n > 0 {
				fields = append(fields, jen.Id(b.name).Index(jen.Lit(b.n)).Add(b.t))
				bufs[i] = jen.Id("oA").Dot(b.name).Index(jen.Op(":"))
			}
		}
		room := fmt.Sprintf("room for %d counters, %d validator answers, %d firings", nSnap, nDetBuf, nFired)
		if len(keys) > maxSnapBuf {
			room += fmt.Sprintf("; its %d counters are read into a slice", len(keys))
		}
		out = append(out, jen.Comment(fmt.Sprintf("%s is the state of an evaluation at %s: the exec, and buffers sized for the", state, strconv.Quote(a.ID))).Line().
			Comment(fmt.Sprintf("anchor's rules (%s).", room)).Line().
			Type().Id(state).Struct(fields...))
		// The evaluation with a rule store is the same with the store's
		// rules added, on a state of its own on the heap (the store reads
		// it through an interface, which would move the plain path's state
		// to the heap too); the plain path does not change.
		for _, live := range []bool{false, true} {
			var body []jen.Code
			fname := "oEval_" + name
			if live {
				fname = "oLive_" + name
				body = append(body, jen.Id("oA").Op(":=").New(jen.Id(state)))
			} else {
				body = append(body,
					jen.If(jen.Id("ev").Dot("cfg").Dot("RuleStore").Op("!=").Nil()).Block(
						jen.Return(jen.Id("ev").Dot("oLive_"+name).Call(jen.Id("ctx"), jen.Id("occ"), jen.Id("s"), jen.Id("d"), jen.Id("c"))),
					),
					jen.Var().Id("oA").Id(state))
			}
			body = append(body,
				jen.Id("oX").Op(":=").Op("&").Id("oA").Dot("oExec"),
				jen.List(jen.Id("oX").Dot("ev"), jen.Id("oX").Dot("occ"), jen.Id("oX").Dot("F")).Op("=").List(jen.Id("ev"), jen.Id("occ"), jen.Op("&").Id("occ").Dot("Facts")),
				implQ("Begin").Call(jen.Op("&").Id("oX").Dot("Exec"), jen.Id("ctx"), jen.Id("oRules").Index(jen.Op(":")), jen.Id("s"), jen.Id("d"),
					jen.Lit(a.ID), jen.Id("occ").Dot("Profiles"), jen.Id("occ").Dot("Content"), jen.Id("occ").Dot("Inputs")),
			)
			if nSnap+nDetBuf+nFired > 0 {
				body = append(body, jen.Id("oX").Dot("Buffers").Call(bufs...))
			}
			body = append(body, inCheck())
			atCall := a.ID == ir.ToolPreInvoke
			switch {
			case live:
				// A store's rules may read any session fact the engine
				// keeps, and the session keeps the record (spec 5.9).
				body = append(body, jen.Id("oX").Dot("Call").Call(jen.Id("occ").Dot("Facts").Dot("Tool"), jen.Id("occ").Dot("Facts").Dot("ToolArgs"),
					jen.Lit(atCall), jen.True(), jen.Id("occ").Dot("Kept")))
			case info.kept || p.Record && atCall:
				// The session facts the engine keeps (spec 5.10).
				body = append(body, jen.Id("oX").Dot("Call").Call(jen.Id("occ").Dot("Facts").Dot("Tool"), jen.Id("occ").Dot("Facts").Dot("ToolArgs"),
					jen.Lit(atCall), jen.Lit(p.Record), jen.Id("occ").Dot("Kept")))
			}
			if info.hist {
				var codes jen.Code = jen.Nil()
				if len(info.codeList) > 0 {
					v := "oCodes_" + name
					if !live {
						lits := make([]jen.Code, len(info.codeList))
						for i, c := range info.codeList {
							lits[i] = jen.Lit(c)
						}
						pk.vars = append(pk.vars, jen.Id(v).Op("=").Index(jen.Lit(len(lits))).String().Values(lits...))
					}
					codes = jen.Id(v).Index(jen.Op(":"))
				}
				body = append(body, jen.Id("oX").Dot("History").Call(codes, jen.Lit(info.names)))
			}
			switch {
			case live:
				// A store's rules may read the time at any anchor, and
				// windows of the calls made before they were added: the
				// session records every call with its time (spec 5.13).
				body = append(body, jen.Id("oX").Dot("When").Call(jen.Id("occ").Dot("Time"), jen.True()))
			case info.time || p.Times && atCall:
				// The occurrence's time (spec 5.13): the clock is read
				// only at anchors whose rules need it, or that record it.
				body = append(body, jen.Id("oX").Dot("When").Call(jen.Id("occ").Dot("Time"), jen.Lit(p.Times)))
			}
			if info.callTimes {
				body = append(body, jen.Id("oX").Dot("Times").Call())
			}
			if len(keys) > 0 {
				v := "oSnap_" + name
				if !live {
					refs := make([]jen.Code, len(keys))
					for i, k := range keys {
						refs[i] = counterKey(k.slot, p.Rules[k.slot].ID, k.counter)
					}
					pk.vars = append(pk.vars, jen.Id(v).Op("=").Index(jen.Lit(len(keys))).Add(rt("CounterKey")).Values(refs...))
				}
				body = append(body, jen.Id("oX").Dot("Snapshot").Call(jen.Id(v).Index(jen.Op(":"))))
			}
			if nDet > nDetBuf {
				body = append(body, jen.Id("oX").Dot("Validators").Call(jen.Lit(nDet)))
			}
			if live {
				body = append(body, implQ("Live").Call(jen.Op("&").Id("oX").Dot("Exec"), jen.Id("ev").Dot("cfg").Dot("RuleStore"), jen.Id("oX")))
			}
			body = append(body, jen.For(jen.Id("oRun_"+name).Call(jen.Id("oX"))).Block())
			if live {
				body = append(body, jen.Comment("The store's rules, after the compiled ones (spec 12).").Line().
					Add(implQ("RunLive")).Call(jen.Op("&").Id("oX").Dot("Exec")))
			}
			if a.Deny != nil {
				v := "oDeny_" + name
				if !live {
					info := []jen.Code{
						jen.Id("ID").Op(":").Lit(a.Deny.Code),
						jen.Id("Pack").Op(":").Lit(a.Deny.Pack),
						jen.Id("Anchor").Op(":").Lit(a.ID),
						jen.Id("Effect").Op(":").Add(rt("Block")),
						jen.Id("DenyByDefault").Op(":").True(),
					}
					if a.Deny.Monitor {
						info = append(info, jen.Id("Monitor").Op(":").True())
					}
					if a.Deny.Copy != (ir.Copy{}) {
						info = append(info, jen.Id("Copy").Op(":").Add(copyLit(a.Deny.Copy)))
					}
					pk.vars = append(pk.vars, jen.Id(v).Op("=").Add(rt("Rule")).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, info...))
				}
				body = append(body, jen.Comment("Deny by default (spec 5.8).").Line().Id("oX").Dot("DenyByDefault").Call(jen.Op("&").Id(v)))
			}
			body = append(body, jen.Id("oX").Dot("Finish").Call())
			if hasTransform {
				body = append(body, pk.transforms(a)...)
			}
			body = append(body, addOrRecord(jen.Lit(a.ID)))
			if live {
				body = append(body, implQ("ObserveLive").Call(jen.Op("&").Id("oX").Dot("Exec")))
			}
			body = append(body, jen.Return(jen.Nil()))
			comment := fmt.Sprintf("%s evaluates an occurrence at %s.", fname, strconv.Quote(a.ID))
			if live {
				comment = fmt.Sprintf("%s evaluates an occurrence at %s with the rule store's rules.", fname, strconv.Quote(a.ID))
			}
			out = append(out, jen.Comment(comment).Line().
				Func().Params(jen.Id("ev").Op("*").Id("Evaluator")).Id(fname).Params(
				jen.Id("ctx").Qual("context", "Context"), jen.Id("occ").Op("*").Add(pk.catQ("Occurrence")),
				jen.Id("s").Op("*").Add(rt("Session")), jen.Id("d").Op("*").Add(rt("Decision")), checkParam(),
			).Error().Block(body...))
		}
		// The recovering wrapper has a single exit, so that its defer is
		// open-coded (nearly free) rather than a deferred call record.
		out = append(out, jen.Comment(fmt.Sprintf("oRun_%s runs the rules at %s. A panic that escapes a rule is recovered", name, strconv.Quote(a.ID))).Line().
			Comment("here; it then reports that the anchor must run again, resuming after that rule.").Line().
			Func().Id("oRun_"+name).Params(execParam()).Params(jen.Id("oAgain").Bool()).Block(
			jen.Defer().Func().Params().Block(
				jen.If(jen.Recover().Op("!=").Nil()).Block(jen.Id("oAgain").Op("=").Id("oX").Dot("Panicked").Call()),
			).Call(),
			jen.Id("oAnchor_"+name).Call(jen.Id("oX")),
			jen.Return(jen.False()),
		))
		out = append(out, jen.Comment(fmt.Sprintf("oAnchor_%s calls the rules at %s in order.", name, strconv.Quote(a.ID))).Line().
			Func().Id("oAnchor_"+name).Params(execParam()).Block(pk.dispatch(a)...))
	}
	return out
}

// transforms gathers the spans of the enforced transform firings and
// rewrites the content. A firing that happened only because its rule
// failed closed, with unknown spans (a detector rule without its
// validator's answer, or a span fact of a profile not supplied), redacts
// the whole content instead (docs/choices-runtime.md): whether the rule is
// a detector rule and the profiles of its span facts are known here, from
// the IR.
func (pk *packGen) transforms(a *ir.Anchor) []jen.Code {
	p := pk.p
	var cases []jen.Code
	for _, ri := range a.Rules {
		r := p.Rules[ri]
		if r.Effect != ir.EffectTransform {
			continue
		}
		var adds []jen.Code
		var spanProfiles []string
		for _, name := range r.Redact {
			// The fact's Go field path: a host span fact (lycaon.x) is
			// under the host field, not a field named after its CEL name.
			path := []string{goName(name)}
			cf := catalogFact(p.Catalog, name)
			if cf != nil && cf.Field != nil {
				path = cf.Field
			}
			if cf != nil && cf.Profile != "" && !slices.Contains(spanProfiles, cf.Profile) {
				spanProfiles = append(spanProfiles, cf.Profile)
			}
			has := map[string]string{"secret_matches": "HasSecretMatches", "pii_entities": "HasPiiEntities"}[name]
			if cf != nil && len(cf.Field) > 0 && cf.Kept == ir.NotKept && pk.lazy[name] {
				// Read through the fact's getter, as the rules read it;
				// its failure leaves the spans unknown.
				hasArg := jen.Lit(0)
				if has != "" && r.Detector != "" {
					hasArg = rt(has)
				}
				get := jen.Id("oX").Dot("oLazy" + strconv.Itoa(pk.lazyGetter(name, cf.Type, cf.Field)))
				adds = append(adds, jen.Id("oX").Dot("LazySpans").Call(jen.Id("i"), jen.Id("r"), hasArg, get))
				continue
			}
			var l jen.Code = fieldPath(jen.Id("oX").Dot("F"), path)
			if has != "" && r.Detector != "" {
				l = jen.Id("oX").Dot("DetectorSpans").Call(jen.Id("i"), jen.Id("r"), rt(has), l)
			}
			adds = append(adds, jen.Id("oX").Dot("AddSpans").Call(jen.Id("i"), jen.Id("r"), l))
		}
		whole := jen.Id("oX").Dot("WholeSpans").Call(jen.Id("i"), jen.Id("r"), jen.Lit(r.Detector != ""), profileSet(spanProfiles))
		cases = append(cases, jen.Case(jen.Lit(r.Index)).Block(jen.If(jen.Op("!").Add(whole)).Block(adds...)))
	}
	return []jen.Code{
		jen.If(jen.Id("d").Dot("Effect").Op("==").Add(rt("Transform")).Op("||").Id("d").Dot("Effect").Op("==").Add(rt("Ask"))).Block(
			jen.For(jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("<").Id("oX").Dot("NumFired").Call(), jen.Id("i").Op("++")).Block(
				jen.Id("r").Op(":=").Id("oX").Dot("Fired").Call(jen.Id("i")),
				jen.Switch(jen.Id("r").Dot("Slot")).Block(cases...),
			),
			jen.Id("oX").Dot("Rewrite").Call(),
		),
	}
}

// catalogFact returns the catalog's fact name, else nil.
func catalogFact(c *ir.Catalog, name string) *ir.CatalogFact {
	for i := range c.Facts {
		if cf := &c.Facts[i]; cf.Name == name {
			return cf
		}
	}
	return nil
}

// toolValues returns the values of a rule's selector clause on tool, or nil
// when the rule has none.
func toolValues(r *ir.Rule) []string {
	for _, c := range r.Selector {
		if c.Fact == "tool" {
			var out []string
			for _, v := range c.Values {
				out = append(out, v.(string))
			}
			return out
		}
	}
	return nil
}

// dispatch emits the calls of an anchor's rules. When rules select on tool
// the calls are indexed by a switch on the tool, so that rules whose
// selector cannot match are not even called: each case lists, in
// evaluation order, the rules for that tool and the rules without a tool
// clause. The index holds exactly when the profile of the tool fact was
// supplied (spec 5.1: a false clause absorbs every other clause's error);
// otherwise every rule is called and checks its own clauses.
func (pk *packGen) dispatch(a *ir.Anchor) []jen.Code {
	p := pk.p
	call := func(r *ir.Rule) jen.Code {
		return jen.If(
			jen.List(jen.Id("oFired"), jen.Id("oErr")).Op(":=").Id(ruleFunc(r)).Call(jen.Id("oX")),
			jen.Parens(jen.Id("oFired").Op("||").Add(errSet("oErr"))).Op("&&").Id("oX").Dot("Done").Call(jen.Lit(r.Index), jen.Id("oFired"), jen.Id("oErr")),
		).Block(jen.Return())
	}
	// byTool lists, per tool value, the rules that select it; free the
	// rules without a tool clause. Both are in evaluation order.
	byTool := map[string][]int{}
	var tools []string
	var free []int
	toolProfile := ""
	for _, ri := range a.Rules {
		tv := toolValues(p.Rules[ri])
		if tv == nil {
			free = append(free, ri)
		}
		for _, c := range p.Rules[ri].Selector {
			if c.Fact == "tool" {
				toolProfile = c.Profile
			}
		}
		for _, t := range tv {
			if l := byTool[t]; len(l) == 0 || l[len(l)-1] != ri {
				if len(l) == 0 {
					tools = append(tools, t)
				}
				byTool[t] = append(l, ri)
			}
		}
	}
	var out []jen.Code
	if len(tools) > 0 {
		sort.Strings(tools)
		var cases []jen.Code
		for _, t := range tools {
			// Merge the tool's rules with the free ones, in order.
			var calls []jen.Code
			sel, i, j := byTool[t], 0, 0
			for i < len(sel) || j < len(free) {
				if j == len(free) || i < len(sel) && sel[i] < free[j] {
					calls = append(calls, call(p.Rules[sel[i]]))
					i++
				} else {
					calls = append(calls, call(p.Rules[free[j]]))
					j++
				}
			}
			cases = append(cases, jen.Case(jen.Lit(t)).Block(calls...))
		}
		var dflt []jen.Code
		for _, ri := range free {
			dflt = append(dflt, call(p.Rules[ri]))
		}
		cases = append(cases, jen.Default().Block(dflt...))
		var cond jen.Code = jen.True()
		if toolProfile != "" {
			cond = jen.Id("oX").Dot("Profiles").Dot("Supplied").Call(profileConst(toolProfile))
		}
		out = append(out, jen.If(cond).Block(
			jen.Switch(jen.Id("oX").Dot("F").Dot("Tool")).Block(cases...),
			jen.Return(),
		))
	}
	for _, ri := range a.Rules {
		out = append(out, call(p.Rules[ri]))
	}
	return out
}

// flowFunc emits the matcher of a rule's flow: straight-line code over the
// recent tool names, with no allocation. Without contiguous, the earliest
// match of each step is taken (which finds a match whenever one exists);
// with contiguous, every start is tried, so overlapping prefixes (steps
// [a b] over a a b) match.
func (pk *packGen) flowFunc(r *ir.Rule) string {
	name := "oFlow_" + r.ID
	fl := r.Flow
	var body []jen.Code
	if fl.Within > 0 {
		// An int64 constant: within may exceed a 32-bit int, and then it
		// exceeds every list's length.
		n := jen.Int64().Call(jen.Len(jen.Id("names")))
		body = append(body, jen.If(jen.Add(n).Op(">").Lit(int64(fl.Within))).Block(
			jen.Id("names").Op("=").Id("names").Index(jen.Add(n).Op("-").Lit(int64(fl.Within)), jen.Empty()),
		))
	}
	test := func(v jen.Code, step []string) jen.Code {
		if len(step) == 0 {
			return jen.False()
		}
		var c *jen.Statement
		for i, s := range step {
			t := jen.Add(v).Op("==").Lit(s)
			if i == 0 {
				c = t
			} else {
				c = c.Op("||").Add(t)
			}
		}
		return c
	}
	n := len(fl.Steps)
	if fl.Contiguous {
		var conds *jen.Statement
		for j, step := range fl.Steps {
			t := jen.Parens(test(jen.Id("names").Index(jen.Id("i").Op("+").Lit(j)), step))
			if j == 0 {
				conds = t
			} else {
				conds = conds.Op("&&").Add(t)
			}
		}
		body = append(body,
			jen.For(jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("+").Lit(n).Op("<=").Len(jen.Id("names")), jen.Id("i").Op("++")).Block(
				jen.If(conds).Block(jen.Return(jen.True())),
			),
			jen.Return(jen.False()))
	} else {
		var cases []jen.Code
		for j, st := range fl.Steps {
			var then jen.Code = jen.Id("step").Op("++")
			if j == n-1 {
				then = jen.Return(jen.True())
			}
			cases = append(cases, jen.Case(jen.Lit(j)).Block(jen.If(test(jen.Id("n"), st)).Block(then)))
		}
		body = append(body,
			jen.Id("step").Op(":=").Lit(0),
			jen.For(jen.List(jen.Id("_"), jen.Id("n")).Op(":=").Range().Id("names")).Block(jen.Switch(jen.Id("step")).Block(cases...)),
			jen.Return(jen.False()))
	}
	pk.funcs = append(pk.funcs, jen.Comment(fmt.Sprintf("%s matches the flow of rule %s.", name, r.ID)).Line().
		Func().Id(name).Params(jen.Id("names").Index().String()).Bool().Block(body...))
	return name
}

// plainOrQuoted returns a path as it is when it is made of plain
// characters, else quoted.
func plainOrQuoted(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._/-", r)) {
			return strconv.Quote(s)
		}
	}
	return s
}
