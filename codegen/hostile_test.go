package codegen_test

// Hostile catalogs (issue 18, item 11): whatever spec 9 accepts must build.
// A generator makes catalogs whose names are biased toward what Go cannot
// use as is (keywords, predeclared identifiers, the identifiers of the
// generated catalog and set packages, names that CamelCase to the same Go
// name, long names, anchors of many dots), and each accepted catalog is
// turned into its catalog package and a set package whose rules read every
// fact (in `when` and in selectors), call every function, flow over
// recent_tool_names, and use every anchor. Both packages must type-check
// against the real runtime; a few also go through `go build`.

import (
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/internal/cli"
	"github.com/oarc/oarc/ir"
)

var (
	hostileN    = flag.Int("hostile.n", 60, "random hostile catalogs TestHostileCatalogs checks (raise for long runs)")
	hostileSeed = flag.Int64("hostile.seed", 1, "seed of the random hostile catalogs (0: from the clock, logged)")
)

// The pools names are drawn from.
var (
	goKeywords = strings.Fields("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var")
	goBuiltins = strings.Fields("any append bool byte cap clear close comparable complex complex64 complex128 copy delete error false float32 float64 imag int int8 int16 int32 int64 iota len make max min new nil panic print println real recover rune string true uint uint8 uint16 uint32 uint64 uintptr")
	// In snake case, the identifiers of a generated catalog package, and
	// the methods of its types.
	catalogIdents = strings.Fields("anchor env facts fingerprint host_facts lazy_facts lazy_host_facts lazy occurrence parse_anchor providers validator validators set get string valid catalog_is lookup set_fact anchor_ids anchor_names anchors_by_name fact_names fact_fields provider_names provider_fields provider_results profiles content inputs")
	// The identifiers of a generated set package (TestHostileHostNames
	// adds every one it finds in a generated file), its imports, and names
	// Go gives a meaning to.
	setIdents = strings.Fields("ev ctx occ s d env opts o missing i id err rule c r names step n x f p v ok in out want args a j rv name digest new evaluator context counter_key runtime impl fmt regexp strings sort reflect math errors unicode utf8 rules main init")
	// Names that are special as a directory or an element of an import
	// path (oarc gen writes a catalog package to <out>/<host>).
	pathIdents = strings.Fields("con aux nul prn com1 lpt9 testdata vendor internal")
	// Names of OAR's catalog that host names collide with in Go.
	standardNames = strings.Fields("tool tool_args principal content_length session_posture path outside_scope mcp server_configured_for has_field field_bool path_outside_scope")
)

// celMacros are the receiver-style macros of CEL with their arities: a
// host function of that name and arity cannot be called (acme.exists(x, p)
// is the macro), so the rules do not call it.
var celMacros = map[string][]int{"all": {2}, "exists": {2}, "exists_one": {2}, "filter": {2}, "map": {2, 3}}

var (
	nameRE     = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	anchorRE   = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`)
	celWords   = map[string]bool{}
	factTypes  = []string{"string", "int", "bool", "double", "list(string)", "map(string, dyn)", "list(map(string, dyn))"}
	selectable = map[string]bool{"string": true, "int": true, "bool": true, "list(string)": true}
)

func init() {
	for _, w := range strings.Fields("as break const continue else false for function if import in let loop package namespace null return true var void while") {
		celWords[w] = true
	}
}

// hostileGen draws names.
type hostileGen struct{ r *rand.Rand }

func (g hostileGen) pick(l []string) string { return l[g.r.Intn(len(l))] }

// base is a name from one of the pools, or random.
func (g hostileGen) base() string {
	switch g.r.Intn(9) {
	case 0:
		return g.pick(goKeywords)
	case 1:
		return g.pick(goBuiltins)
	case 2:
		return g.pick(catalogIdents)
	case 3:
		return g.pick(setIdents)
	case 4:
		if g.r.Intn(3) == 0 {
			return g.pick(pathIdents)
		}
		return g.pick(standardNames)
	case 5:
		// Long.
		var b strings.Builder
		b.WriteByte('l')
		for n := 100 + g.r.Intn(200); b.Len() < n; {
			b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789_"[g.r.Intn(37)])
		}
		return b.String()
	}
	n := 1 + g.r.Intn(5)
	b := []byte{byte('a' + g.r.Intn(3))}
	for len(b) < n {
		b = append(b, "ab1_z0"[g.r.Intn(6)])
	}
	return string(b)
}

// variant is a name that CamelCases like s, or nearly: an "_" added or
// removed, a digit changed.
func (g hostileGen) variant(s string) string {
	b := []byte(s)
	i := 1 + g.r.Intn(len(b))
	switch g.r.Intn(4) {
	case 0:
		return string(b[:i]) + "_" + string(b[i:])
	case 1:
		return strings.Replace(s, "_", "", 1)
	case 2:
		return s + "_" + fmt.Sprint(g.r.Intn(3))
	}
	return s + fmt.Sprint(g.r.Intn(3))
}

// names draws n distinct names, mostly in families of look-alikes.
func (g hostileGen) names(n int, ok func(string) bool, taken map[string]bool) []string {
	var out []string
	var last string
	for tries := 0; len(out) < n && tries < 50*n+50; tries++ {
		s := g.base()
		if last != "" && g.r.Intn(2) == 0 {
			s = g.variant(last)
		}
		if !ok(s) || taken[s] {
			continue
		}
		taken[s] = true
		out = append(out, s)
		last = s
	}
	return out
}

func validName(s string) bool {
	return nameRE.MatchString(s) && !celWords[s] && !catalog.IsReserved(s)
}

// validHost: beyond spec 9, a host named like a map fact (tool_args) is
// refused too (docs/hosts.md: tool_args.x would read a host fact), and
// one longer than a directory name may be (255 bytes).
func validHost(s string) bool {
	return nameRE.MatchString(s) && !celWords[s] && s != "tool_args" && len(s) <= 255
}

// anchorID joins segments; a later segment may start with a digit or "_".
func (g hostileGen) anchorID() string {
	n := 1 + g.r.Intn(4)
	if g.r.Intn(6) == 0 {
		n = 5 + g.r.Intn(20)
	}
	segs := []string{g.base()}
	for len(segs) < n {
		s := g.base()
		switch g.r.Intn(5) {
		case 0:
			s = fmt.Sprint(g.r.Intn(3)) + s
		case 1:
			s = "_" + s
		}
		segs = append(segs, s)
	}
	id := strings.Join(segs, ".")
	if g.r.Intn(3) == 0 {
		// A look-alike: a "." for a "_" or the reverse.
		if i := strings.IndexAny(id[1:], "._"); i >= 0 {
			c := map[byte]string{'.': "_", '_': "."}[id[1+i]]
			id = id[:1+i] + c + id[2+i:]
		}
	}
	return id
}

type hostileFunc struct {
	name   string
	params []string
	result string
}

type hostileCatalog struct {
	host    string
	anchors []string
	facts   map[string]string // name -> type
	order   []string          // facts in catalog order
	funcs   []hostileFunc
}

func (g hostileGen) catalog() hostileCatalog {
	c := hostileCatalog{facts: map[string]string{}}
	for c.host == "" || !validHost(c.host) {
		c.host = g.base()
		if g.r.Intn(4) == 0 {
			c.host = g.variant(c.host)
		}
	}
	ids := map[string]bool{}
	for n := 1 + g.r.Intn(12); len(c.anchors) < n; {
		id := g.anchorID()
		if !anchorRE.MatchString(id) || ids[id] {
			continue
		}
		ids[id] = true
		c.anchors = append(c.anchors, id)
	}
	taken := map[string]bool{}
	for _, name := range g.names(g.r.Intn(25), validName, taken) {
		c.facts[name] = g.pick(factTypes)
		c.order = append(c.order, name)
	}
	// The other facts the engine keeps (spec 5.10), of their types.
	for _, k := range []string{"repeat_count", "same_code_reject_run", "code_reject_total"} {
		if !taken[k] && g.r.Intn(3) == 0 {
			taken[k] = true
			c.facts[k] = "int"
			c.order = append(c.order, k)
		}
	}
	if !taken["recent_tool_names"] && g.r.Intn(2) == 0 {
		taken["recent_tool_names"] = true
		c.facts["recent_tool_names"] = "list(string)"
		c.order = append(c.order, "recent_tool_names")
		// The calls a flow matches are recorded at tool.pre_invoke.
		if !ids["tool.pre_invoke"] {
			ids["tool.pre_invoke"] = true
			c.anchors = append(c.anchors, "tool.pre_invoke")
		}
	}
	for _, name := range g.names(g.r.Intn(12), validName, taken) {
		fn := hostileFunc{name: name, result: g.pick(factTypes)}
		for n := 1 + g.r.Intn(4); len(fn.params) < n; {
			fn.params = append(fn.params, g.pick(factTypes))
		}
		c.funcs = append(c.funcs, fn)
	}
	return c
}

func (c hostileCatalog) yaml() string {
	var b strings.Builder
	fmt.Fprintf(&b, "oar_catalog: '1.0'\nhost: '%s'\nanchors:\n", c.host)
	for _, a := range c.anchors {
		fmt.Fprintf(&b, "  - {id: '%s', planes: [block], title: 'Anchor */ %s'}\n", a, a)
	}
	b.WriteString("facts:\n")
	if len(c.order) == 0 {
		b.WriteString("  []\n")
	}
	for _, f := range c.order {
		fmt.Fprintf(&b, "  - {name: '%s', type: '%s', description: 'The fact %s.'}\n", f, c.facts[f], f)
	}
	b.WriteString("functions:\n")
	if len(c.funcs) == 0 {
		b.WriteString("  []\n")
	}
	for _, fn := range c.funcs {
		fmt.Fprintf(&b, "  - {name: '%s', signature: '(%s) -> %s'}\n", fn.name, strings.Join(fn.params, ", "), fn.result)
	}
	return b.String()
}

// test is a CEL condition on a value of type t.
func test(v, t string) string {
	switch t {
	case "string":
		return v + ` == "x"`
	case "int":
		return v + " == 1"
	case "bool":
		return v
	case "double":
		return v + " > 0.5"
	case "list(string)":
		return `"x" in ` + v
	case "map(string, dyn)":
		return `"k" in ` + v
	}
	return "size(" + v + ") > 0"
}

// literal is a CEL literal of type t.
func literal(t string) string {
	return map[string]string{"string": `"a"`, "int": "1", "bool": "true", "double": "1.5",
		"list(string)": `["a"]`, "map(string, dyn)": `{"k": 1}`, "list(map(string, dyn))": `[{"k": 1}]`}[t]
}

// pack writes a pack whose rules use every anchor, read every fact, and
// call every function that CEL lets a rule call.
func (c hostileCatalog) pack(t *testing.T, dir string) {
	var terms []string
	for _, f := range c.order {
		terms = append(terms, test(c.host+"."+f, c.facts[f]))
	}
	for _, fn := range c.funcs {
		macro := false
		for _, n := range celMacros[fn.name] {
			macro = macro || n == len(fn.params)
		}
		if macro {
			continue
		}
		var args []string
		for _, p := range fn.params {
			args = append(args, literal(p))
		}
		terms = append(terms, test(c.host+"."+fn.name+"("+strings.Join(args, ", ")+")", fn.result))
	}
	// The selectable facts, one clause each, spread over the rules.
	var sel []string
	for _, f := range c.order {
		if selectable[c.facts[f]] {
			sel = append(sel, f)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("pack.yaml", "oar: '1.0'\nname: hostile\n")
	for i, a := range c.anchors {
		var when []string
		for j := i; j < len(terms); j += len(c.anchors) {
			when = append(when, terms[j])
		}
		doc := fmt.Sprintf("oar: '1.0'\nid: R%d\nkind: policy\nanchor: '%s'\neffect: block\n", i, a)
		if len(when) > 0 {
			doc += fmt.Sprintf("when: '%s'\n", strings.Join(when, " || "))
		}
		var clauses []string
		for j := i; j < len(sel); j += len(c.anchors) {
			clauses = append(clauses, fmt.Sprintf("'%s.%s': %s", c.host, sel[j], map[string]string{"string": `"x"`, "int": "1", "bool": "true", "list(string)": `"x"`}[c.facts[sel[j]]]))
		}
		if len(clauses) > 0 {
			doc += "selector: {" + strings.Join(clauses, ", ") + "}\n"
		}
		// A flow matches the calls recorded at tool.pre_invoke (spec
		// 5.10): a catalog without that anchor cannot have one.
		if i == 0 && c.facts["recent_tool_names"] != "" && slices.Contains(c.anchors, "tool.pre_invoke") {
			doc += "flow: {sequence: [a, [b, c]], within: 5}\n"
		}
		write(fmt.Sprintf("policy/R%d.yaml", i), doc)
	}
}

// generated is a hostile catalog's two packages.
type generated struct {
	catSrc, setSrc, guardSrc []byte
	catName                  string
}

const hostileCatPath = "example.com/hostile/cat"

// generate checks c (spec 9 accepts it: the generator only draws names
// the spec allows) and generates its packages.
func generate(t *testing.T, c hostileCatalog) generated {
	t.Helper()
	text := c.yaml()
	cat, diags := compiler.ParseCatalog("hostile.catalog.yaml", []byte(text))
	if diags.HasErrors() {
		t.Fatalf("spec 9 accepts this catalog, oarc rejects it:\n%s\n%s", diags.Text(), text)
	}
	dir := t.TempDir()
	c.pack(t, dir)
	set, diags := compiler.LoadPack(dir, compiler.Options{Catalog: cat})
	if diags.HasErrors() {
		t.Fatalf("the rules over the catalog do not compile:\n%s\ncatalog:\n%s", diags.Text(), text)
	}
	p := compiler.Build(set)
	catSrc, err := codegen.GenerateCatalog(p.Catalog, codegen.CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every other fact the host fills is read lazily (oarc gen -lazy), and
	// the set has its guard file (oarc gen -guard): both add code, and names,
	// to the set package.
	opts := codegen.Options{Package: "rules", CatalogImport: hostileCatPath, Lazy: lazyFacts(p.Catalog)}
	setSrc, err := codegen.Generate(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	guardSrc, err := codegen.GenerateGuard(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return generated{catSrc: catSrc, setSrc: setSrc, guardSrc: guardSrc, catName: codegen.CatalogPackage(p.Catalog)}
}

// typeCheckPair type-checks a catalog package and a set package that
// imports it from hostileCatPath, against the real runtime.
func typeCheckPair(t *testing.T, g generated, what string) {
	t.Helper()
	if g.catName == "main" {
		t.Fatalf("%s: the catalog package is named main: no package can import it", what)
	}
	importerOnce.Do(func() { srcImporter = importer.ForCompiler(token.NewFileSet(), "source", nil) })
	fset := token.NewFileSet()
	cf, err := parser.ParseFile(fset, "catalog_oarc.go", g.catSrc, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: the catalog package does not parse: %v", what, err)
	}
	sf, err := parser.ParseFile(fset, "rules_oarc.go", g.setSrc, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: the set package does not parse: %v", what, err)
	}
	gf, err := parser.ParseFile(fset, "guard_oarc.go", g.guardSrc, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: the guard file does not parse: %v", what, err)
	}
	importerMu.Lock()
	defer importerMu.Unlock()
	var catPkg *types.Package
	conf := types.Config{Sizes: types.SizesFor("gc", "amd64"), Importer: importerFunc(func(path string) (*types.Package, error) {
		if path == hostileCatPath {
			return catPkg, nil
		}
		// The source importer asks go/build (go list) on every import
		// before it looks at what it has loaded: once per path is enough.
		if p := imported[path]; p != nil {
			return p, nil
		}
		p, err := srcImporter.Import(path)
		if err == nil {
			imported[path] = p
		}
		return p, err
	})}
	catPkg, err = conf.Check(hostileCatPath, fset, []*ast.File{cf}, nil)
	if err != nil {
		t.Fatalf("%s: the catalog package does not type-check: %v\n%s", what, err, g.catSrc)
	}
	if _, err := conf.Check("example.com/hostile/rules", fset, []*ast.File{sf, gf}, nil); err != nil {
		t.Fatalf("%s: the set package does not type-check: %v\n%s\n%s", what, err, g.setSrc, g.guardSrc)
	}
}

// lazyFacts are every other fact of c that oarc gen -lazy accepts (those
// the host fills), so that a set reads facts both ways.
func lazyFacts(c *ir.Catalog) []string {
	var out []string
	n := 0
	for _, f := range c.Facts {
		if (f.Tier == "standard" || f.Tier == "host") && f.Kept == ir.NotKept && !codegen.EngineReads(f.Name) {
			if n++; n%2 == 1 {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// imported are the packages typeCheckPair loaded, by path (under
// importerMu).
var imported = map[string]*types.Package{}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// hostileFixed are the catalogs of issue 18's report: each built before
// the generator renamed.
func hostileFixed() map[string]hostileCatalog {
	cat := func(host string, anchors []string, facts []string, funcs ...hostileFunc) hostileCatalog {
		c := hostileCatalog{host: host, anchors: anchors, facts: map[string]string{}}
		for i, f := range facts {
			c.facts[f] = factTypes[i%len(factTypes)]
			if f == "recent_tool_names" {
				c.facts[f] = "list(string)"
			}
			c.order = append(c.order, f)
		}
		c.funcs = funcs
		return c
	}
	pre := []string{"tool.pre_invoke"}
	fn := func(name string) hostileFunc {
		return hostileFunc{name: name, params: []string{"string"}, result: "bool"}
	}
	// More facts than the catalog package reaches through typed code
	// (maxTypedFacts): Set and Get go through reflect.
	var many, manyAnchors []string
	for i := 0; i < 2100; i++ {
		many = append(many, fmt.Sprintf("f%d", i))
		if i%2 == 1 {
			// f1 and f_1 CamelCase alike.
			many = append(many, fmt.Sprintf("f_%d", i))
		}
	}
	for i := 0; i < 40; i++ {
		manyAnchors = append(manyAnchors, fmt.Sprintf("a.x%d", i))
	}
	kept := cat("ev", []string{"tool.pre_invoke", "content.output"}, []string{"recent_tool_names"})
	for _, k := range []string{"repeat_count", "same_code_reject_run", "code_reject_total"} {
		kept.facts[k] = "int"
		kept.order = append(kept.order, k)
	}
	return map[string]hostileCatalog{
		"kept facts, host ev":           kept,
		"many facts":                    cat("acme", manyAnchors, many),
		"mangling collision":            cat("acme", pre, []string{"x1", "x_1", "x__1", "x1_", "a_b", "ab"}),
		"host like a standard fact":     cat("tool", pre, []string{"x"}),
		"host like another":             cat("content_length", pre, []string{"x"}),
		"host set":                      cat("set", pre, []string{"x"}),
		"host get":                      cat("get", pre, []string{"x"}),
		"host main":                     cat("main", pre, []string{"x"}, fn("y")),
		"host init":                     cat("init", pre, []string{"x"}, fn("y")),
		"host keyword":                  cat("func", pre, []string{"x"}, fn("y")),
		"host ctx":                      cat("ctx", pre, []string{"x"}, fn("y")),
		"host occ":                      cat("occ", pre, []string{"x"}, fn("y")),
		"host s":                        cat("s", pre, []string{"x"}, fn("y")),
		"host d":                        cat("d", pre, []string{"x"}, fn("y")),
		"host ev":                       cat("ev", pre, []string{"x"}, fn("y")),
		"host string":                   cat("string", pre, []string{"x"}, fn("y")),
		"host a":                        cat("a", pre, []string{"x"}, fn("y")),
		"host anchor":                   cat("anchor", pre, []string{"x"}, fn("y")),
		"host hint":                     cat("hint", pre, []string{"x"}, fn("y")),
		"host k":                        cat("k", pre, []string{"x"}, fn("y")),
		"host v":                        cat("v", pre, []string{"x"}, fn("y")),
		"host e":                        cat("e", pre, []string{"x"}, fn("y")),
		"host name":                     cat("name", pre, []string{"x"}, fn("y")),
		"host any":                      cat("any", pre, []string{"x"}, fn("y")),
		"host runtime":                  cat("runtime", pre, []string{"x"}, fn("y")),
		"anchors named like types":      cat("acme", []string{"facts", "env", "occurrence", "anchor", "host_facts", "providers", "validator", "parse_anchor", "fingerprint", "lazy_facts", "lazy_host_facts"}, []string{"x"}),
		"anchors colliding":             cat("acme", []string{"a.b_c", "a_b.c", "a.1", "a1", "a._b", "a__b", "a.z", "az", "a.zz"}, []string{"x"}),
		"function like a provider":      cat("path", pre, []string{"x"}, fn("outside_scope")),
		"functions colliding":           cat("mcp", pre, nil, fn("has_field"), fn("has__field"), fn("field_bool")),
		"facts named like methods":      cat("acme", pre, []string{"set", "get", "string", "valid"}),
		"facts named like keywords":     cat("acme", pre, []string{"func", "type", "map", "range", "go", "chan", "nil", "len"}),
		"recent tool names, with flow":  cat("acme", pre, []string{"recent_tool_names"}),
		"recent tool names, host ev":    cat("ev", pre, []string{"recent_tool_names", "x"}),
		"long anchor":                   cat("acme", []string{strings.Repeat("a.", 40) + "b", strings.Repeat("a_", 40) + "b"}, []string{"x"}),
		"macro-named host functions":    cat("acme", pre, nil, hostileFunc{"exists", []string{"string", "int"}, "bool"}, fn("all"), fn("map")),
		"functions of every arity":      cat("acme", pre, nil, hostileFunc{"f4", []string{"list(map(string, dyn))", "map(string, dyn)", "double", "bool"}, "list(string)"}),
		"a fact per type, host context": cat("context", pre, []string{"a", "b", "c", "d", "e", "f", "g"}, fn("h")),
	}
}

func TestHostileCatalogsFixed(t *testing.T) {
	cases := hostileFixed()
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			typeCheckPair(t, generate(t, cases[name]), name)
		})
	}
}

// TestHostileHostNames names a host after every identifier of a
// generated set file and its guard file, so that a local the generator adds later cannot
// shadow the catalog package.
func TestHostileHostNames(t *testing.T) {
	c := hostileFixed()["recent tool names, with flow"]
	c.funcs = []hostileFunc{{"f", []string{"string", "int"}, "bool"}}
	g := generate(t, c)
	seen := map[string]bool{}
	for _, src := range [][]byte{g.setSrc, g.guardSrc} {
		f, err := parser.ParseFile(token.NewFileSet(), "rules_oarc.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && validHost(id.Name) {
				seen[id.Name] = true
			}
			return true
		})
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) < 10 {
		t.Fatalf("only %d identifiers in the generated set file: %v", len(names), names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c := c
			c.host = name
			typeCheckPair(t, generate(t, c), "host "+name)
		})
	}
}

func TestHostileCatalogs(t *testing.T) {
	seed := *hostileSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d, %d catalogs (-hostile.seed, -hostile.n)", seed, *hostileN)
	g := hostileGen{rand.New(rand.NewSource(seed))}
	for i := 0; i < *hostileN; i++ {
		c := g.catalog()
		typeCheckPair(t, generate(t, c), fmt.Sprintf("catalog %d of seed %d:\n%s", i, seed, c.yaml()))
	}
}

// TestHostileCatalogsBuild puts some of the fixed hostile catalogs through
// `go build` and `go vet` (what the type checker does not know: a package
// named main cannot be imported), in one module beside this one, and runs
// a program that sets and gets every fact by CEL name, installs every
// provider by CEL name, and parses every anchor, each checked against the
// typed Go name the IR gives it: the by-name tables reach the fields and
// constants the renaming named.
func TestHostileCatalogsBuild(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go .*$`).Find(gomod)
	write := func(name string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(fmt.Sprintf("module example.com/hostile\n\n%s\n\nrequire github.com/oarc/oarc v0.0.0-00010101000000-000000000000\n\nreplace github.com/oarc/oarc => %s\n", goLine, root)))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", sum)
	var imports, body strings.Builder
	cases := hostileFixed()
	for i, name := range []string{"host main", "host init", "host keyword", "host ev", "host ctx", "host s", "kept facts, host ev", "mangling collision", "anchors colliding",
		"function like a provider", "functions colliding", "host like a standard fact", "host get", "facts named like keywords", "functions of every arity",
		"many facts"} {
		c := cases[name]
		text := c.yaml()
		cat, diags := compiler.ParseCatalog("hostile.catalog.yaml", []byte(text))
		if diags.HasErrors() {
			t.Fatalf("%s: %s", name, diags.Text())
		}
		dir := t.TempDir()
		c.pack(t, dir)
		set, diags := compiler.LoadPack(dir, compiler.Options{Catalog: cat})
		if diags.HasErrors() {
			t.Fatalf("%s: %s", name, diags.Text())
		}
		p := compiler.Build(set)
		catDir := fmt.Sprintf("c%d/%s", i, c.host)
		catSrc, err := codegen.GenerateCatalog(p.Catalog, codegen.CatalogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		opts := codegen.Options{Package: "rules", CatalogImport: "example.com/hostile/" + catDir}
		if name != "many facts" {
			// Thousands of lazy reads would only slow the Go compiler.
			opts.Lazy = lazyFacts(p.Catalog)
		}
		setSrc, err := codegen.Generate(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		guardSrc, err := codegen.GenerateGuard(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		write(catDir+"/catalog_oarc.go", catSrc)
		write(fmt.Sprintf("c%d/rules_oarc.go", i), setSrc)
		write(fmt.Sprintf("c%d/guard_oarc.go", i), guardSrc)
		pkg := fmt.Sprintf("c%d", i)
		fmt.Fprintf(&imports, "\t%s %q\n\t_ %q\n", pkg, "example.com/hostile/"+catDir, "example.com/hostile/"+pkg)
		byCEL(&body, pkg, p.Catalog)
	}
	// Random catalogs go through oarc gen itself (-guard, every other host
	// fact -lazy, the catalog package in its default directory <out>/<host>),
	// with oarc check first: what check accepts, go vet and go build must
	// accept.
	seed := *hostileSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	rg := hostileGen{rand.New(rand.NewSource(seed))}
	for i := 0; i < 4; i++ {
		c := rg.catalog()
		if i%2 == 0 {
			// The host names a directory and an import path element.
			c.host = rg.pick(pathIdents)
		}
		dir := filepath.Join(mod, fmt.Sprintf("r%d", i))
		write(fmt.Sprintf("r%d/hostile.catalog.yaml", i), []byte(c.yaml()))
		c.pack(t, filepath.Join(dir, "pack"))
		var lazy []string
		for j, f := range c.order {
			if _, kept := catalog.KeptByName[f]; !kept && j%2 == 0 {
				lazy = append(lazy, c.host+"."+f)
			}
		}
		what := fmt.Sprintf("random catalog %d of seed %d (-hostile.seed):\n%s", i, seed, c.yaml())
		var stdout, stderr strings.Builder
		args := []string{"check", "-catalog", filepath.Join(dir, "hostile.catalog.yaml"), filepath.Join(dir, "pack")}
		if code := cli.Run(args, nil, &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("%s\noarc check: exit %d\n%s%s", what, code, stdout.String(), stderr.String())
		}
		args = []string{"gen", "-guard", "-catalog", filepath.Join(dir, "hostile.catalog.yaml"), "-pack", filepath.Join(dir, "pack"), "-out", filepath.Join(dir, "rules")}
		if len(lazy) > 0 {
			args = append(args, "-lazy", strings.Join(lazy, ","))
		}
		if code := cli.Run(args, nil, &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("%s\noarc gen: exit %d\n%s%s", what, code, stdout.String(), stderr.String())
		}
		t.Logf("random catalog %d of seed %d: host %s, %d anchors, %d facts, %d functions", i, seed, c.host, len(c.anchors), len(c.order), len(c.funcs))
	}
	write("main.go", []byte(fmt.Sprintf(hostileMain, imports.String(), body.String())))
	for _, args := range [][]string{{"vet", "./..."}, {"build", "-o", "hostile", "."}, {"build", "./..."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off", "GOPROXY=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := exec.Command(filepath.Join(mod, "hostile")).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("by CEL name: %v\n%s", err, out)
	}
}

// hostileMain checks, for every catalog imported, what byCEL writes.
const hostileMain = `package main

import (
	"context"
	"fmt"
	"os"
	"reflect"

%s)

var failed bool

func check(what string, got, want any) {
	if !reflect.DeepEqual(got, want) {
		fmt.Printf("%%s: got %%#v, want %%#v\n", what, got, want)
		failed = true
	}
}

func main() {
	ctx := context.Background()
	_ = ctx
%s	if failed {
		os.Exit(1)
	}
}
`

// sample is a Go value of each catalog type, and its spelling.
var sample = map[string][2]string{
	"string": {"\"v\"", "string"}, "int": {"int64(7)", "int64"}, "bool": {"true", "bool"}, "double": {"2.5", "float64"},
	"list(string)": {"[]string{\"v\"}", "[]string"}, "map(string, dyn)": {"map[string]any{\"k\": int64(1)}", "map[string]any"},
	"list(map(string, dyn))": {"[]map[string]any{{\"k\": \"v\"}}", "[]map[string]any"},
}

// byCEL writes the checks of one catalog package: every host fact set by
// its CEL name reads back through its Go field and through Get, every
// host provider installed by CEL name answers through its Go field with
// the arguments it was given, every anchor parses to its Go constant.
func byCEL(b *strings.Builder, pkg string, c *ir.Catalog) {
	fmt.Fprintf(b, "\t{\n\t\tvar f %s.Facts\n\t\tvar p %s.Providers\n\t\t_, _ = &f, &p\n", pkg, pkg)
	n := 0
	for _, f := range c.Facts {
		if f.Tier != "host" || f.Field == nil {
			// The engine keeps it: not a field of Facts.
			continue
		}
		// Of many facts, a sample: one function of thousands of checks
		// would take the Go compiler minutes.
		if n++; n > 100 && n%97 != 0 {
			continue
		}
		v := sample[f.Type.String()][0]
		fmt.Fprintf(b, "\t\tcheck(%q, f.Set(%q, %s), nil)\n", pkg+" set "+f.Name, f.Name, v)
		fmt.Fprintf(b, "\t\tcheck(%q, f.%s, %s)\n", pkg+" field "+f.Name, strings.Join(f.Field, "."), v)
		fmt.Fprintf(b, "\t\t{\n\t\t\tv, ok := f.Get(%q)\n\t\t\tcheck(%q, []any{v, ok}, []any{%s, true})\n\t\t}\n", f.Name, pkg+" get "+f.Name, v)
	}
	for _, fn := range c.Functions {
		if fn.Tier != "host" {
			continue
		}
		var args, want []string
		for _, t := range fn.Params {
			args = append(args, sample[t.String()][0])
			want = append(want, sample[t.String()][0])
		}
		res := sample[fn.Result.String()][0]
		fmt.Fprintf(b, "\t\t{\n\t\t\tvar got []any\n")
		fmt.Fprintf(b, "\t\t\tcheck(%q, p.Set(%q, func(_ context.Context, _ *%s.Occurrence, args []any) (any, error) { got = args; return %s, nil }), nil)\n", pkg+" provider "+fn.Name, fn.Name, pkg, res)
		fmt.Fprintf(b, "\t\t\tr, err := p.%s(ctx, nil, %s)\n", fn.Provider, strings.Join(args, ", "))
		fmt.Fprintf(b, "\t\t\tcheck(%q, []any{r, err, got}, []any{%s, error(nil), []any{%s}})\n\t\t}\n", pkg+" call "+fn.Name, res, strings.Join(want, ", "))
	}
	for _, a := range c.Anchors {
		fmt.Fprintf(b, "\t\t{\n\t\t\ta, ok := %s.ParseAnchor(%q)\n\t\t\tcheck(%q, []any{a, ok, a.String()}, []any{%s.%s, true, %q})\n\t\t}\n", pkg, a.ID, pkg+" anchor "+a.ID, pkg, a.GoName, a.ID)
	}
	fmt.Fprintf(b, "\t}\n")
}

// TestHostileCatalogIdents names anchors after every exported identifier
// a generated catalog package declares at package level, a host after
// every method of Facts and a function after every method of Providers,
// so that a declaration the generator adds later is renamed around too.
func TestHostileCatalogIdents(t *testing.T) {
	c := hostileFixed()["recent tool names, with flow"]
	f, err := parser.ParseFile(token.NewFileSet(), "catalog_oarc.go", generate(t, c).catSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	snake := func(s string) string {
		var b strings.Builder
		for i, r := range s {
			if r >= 'A' && r <= 'Z' {
				if i > 0 {
					b.WriteByte('_')
				}
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	var anchors []string
	methodsOf := map[string][]string{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				if d.Name.IsExported() {
					anchors = append(anchors, snake(d.Name.Name))
				}
				continue
			}
			recv := d.Recv.List[0].Type
			if st, ok := recv.(*ast.StarExpr); ok {
				recv = st.X
			}
			if id, ok := recv.(*ast.Ident); ok && d.Name.IsExported() {
				methodsOf[id.Name] = append(methodsOf[id.Name], snake(d.Name.Name))
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					anchors = append(anchors, snake(sp.Name.Name))
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						anchors = append(anchors, snake(n.Name))
					}
				}
			}
		}
	}
	var valid []string
	for _, a := range anchors {
		if anchorRE.MatchString(a) && !strings.Contains(a, "__") && !slices.Contains(valid, a) {
			valid = append(valid, a)
		}
	}
	if len(valid) < 10 || len(methodsOf["Facts"]) == 0 || len(methodsOf["Providers"]) == 0 {
		t.Fatalf("too few identifiers in the generated catalog file: %v %v", valid, methodsOf)
	}
	c.anchors = append(c.anchors, valid...)
	typeCheckPair(t, generate(t, c), "anchors "+strings.Join(valid, ", "))
	for _, m := range methodsOf["Facts"] {
		if !validHost(m) {
			continue
		}
		h := c
		h.host = m
		typeCheckPair(t, generate(t, h), "host "+m)
	}
	for _, m := range methodsOf["Providers"] {
		if !validName(m) {
			continue
		}
		h := c
		h.funcs = append(slices.Clone(c.funcs), hostileFunc{m, []string{"string"}, "bool"})
		typeCheckPair(t, generate(t, h), "function "+m)
	}
	for _, m := range methodsOf["Facts"] {
		if !validName(m) {
			continue
		}
		h := c
		h.facts = maps.Clone(c.facts)
		h.facts[m] = "string"
		h.order = append(slices.Clone(c.order), m)
		typeCheckPair(t, generate(t, h), "fact "+m)
	}
}
