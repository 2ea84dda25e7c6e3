// This file owns `oarc guard`: it builds the stdio MCP proxy of spec 11
// for a compilation set.

package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/oarc/oarc"
	"github.com/oarc/oarc/codegen"
	"github.com/oarc/oarc/compiler"
	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/proxy"
	"github.com/oarc/oarc/ir"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/validators"
)

func init() {
	register("guard", &Command{Summary: "build the stdio MCP proxy (the guard) for a compilation set", Help: guardHelp, Run: runGuard})
}

const guardHelp = `Builds BIN, a standalone MCP proxy with the compilation set compiled in
(spec 11): BIN [flags] -- COMMAND [ARG...] starts COMMAND as the upstream
MCP server over stdio and serves one MCP client on its own stdin and
stdout. Every tools/call is evaluated by the rules (tool.pre_invoke before
it is forwarded, tool.post_invoke and content.tool_result on its result),
tools/list is narrowed under an enforced deny-by-default, and everything
else passes through. BIN -help lists its flags (docs/mcp.md).

guard generates the Go of the set and of the proxy's main and runs go build,
so it needs the go command (as oarc test does). It builds from the sources
embedded in oarc, offline; a set with result bindings also needs the module
github.com/santhosh-tekuri/jsonschema/v6 (in the module cache when oarc was
installed with go install, else fetched through GOPROXY), -redisstore
needs the redisstore module's directory and go-redis, and -rulestore the
directory of an oarc checkout of this version and the modules of its
go.mod (cel-go among them).

A proxy has no host: the rules that call a host provider, and those whose
detector is not a built-in validator (oarc.secrets, oarc.pii), are listed
here; at run time they fail as a missing provider or validator would (their
on_error applies). So are the rules that read facts the proxy never fills
(host facts, standard facts beyond tool, tool_args, the mcp_ facts and
content_length, and a detector fact other than the one the rule's built-in
validator answers): they read as absent, the zero value, at every call. So
are the rules that require a profile the proxy does not supply at their
anchor (it supplies tool, mcp, session and provenance, and content-safety
after the call): an evaluation error at every call they select, and their
on_error applies. So are the rules and deny-by-default codes at anchors
other than the three the guard evaluates (tool.pre_invoke,
tool.post_invoke and content.tool_result): they do nothing in the proxy. So are the transform
rules at tool.pre_invoke or tool.post_invoke, where a proxy has no content
to rewrite (the call's arguments are not content). So are the rules
that select on tool or mcp_qualified_tool with no mcp_S_T value (they
apply to no call through a guard), and the server ids the selectors
name, for the proxy's -server-id.

With -rulestore the proxy takes -rules FILE, a rule store (spec 12): its
rules are in force and its tools are offered beside the upstream's
(docs/mcp.md). The packs are embedded in the proxy, which loads them at
start to check the store's rules; this links the compiler and cel-go.`

func runGuard(env *Env, args []string) int {
	fs := newFlags(env, "guard", "-pack DIR [-pack DIR]... [-catalog FILE] -o BIN [-rulestore DIR] [-redisstore DIR]")
	var packs multiFlag
	fs.Var(&packs, "pack", "a pack directory (or one rule file); repeat it to compile several packs as one compilation set")
	outBin := fs.String("o", "", "the proxy binary to write")
	redisDir := fs.String("redisstore", "", "build with -redis support, from the redisstore module in this directory (github.com/oarc/oarc/redisstore)")
	rulesDir := fs.String("rulestore", "", "build with -rules support (the rule store of spec 12 and its tools), from the oarc module in this directory (github.com/oarc/oarc, this version): links the compiler and cel-go")
	keep := fs.Bool("work", false, "keep the temporary build directory and print its name")
	var lf loadFlags
	lf.register(fs)
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if len(packs) == 0 || *outBin == "" || fs.NArg() > 0 {
		fmt.Fprintln(env.Stderr, "oarc guard: need -pack and -o, and no other arguments")
		fs.Usage()
		return ExitUsage
	}
	opts, ok := lf.options(env, "guard")
	if !ok {
		return ExitFailure
	}
	if missingPaths(env, "guard", packs) {
		return ExitUsage
	}
	if *rulesDir != "" {
		for _, pk := range packs {
			if st, err := os.Stat(pk); err == nil && !st.IsDir() {
				fmt.Fprintf(env.Stderr, "oarc guard: -rulestore: %s is a rule file; give pack directories (the proxy embeds them)\n", pk)
				return ExitUsage
			}
		}
	}
	p, cs, ok := buildSet(env, packs, opts)
	if !ok {
		return ExitFailure
	}
	var rules *guardRules
	if *rulesDir != "" {
		rules = &guardRules{dir: *rulesDir, set: cs, opts: opts, catalog: lf.catalog}
	}
	for _, id := range codegen.HostProviderRules(p) {
		fmt.Fprintf(env.Stderr, "oarc guard: rule %s calls a host provider (%s), which a proxy cannot answer: it fails as a missing provider would\n", id, strings.Join(providerFuncs(p, id), ", "))
	}
	for _, r := range p.Rules {
		if _, builtin := validators.ByID(r.Detector); r.Detector != "" && !builtin {
			fmt.Fprintf(env.Stderr, "oarc guard: rule %s names the validator %s, which a proxy does not have: it fails as a missing validator would\n", r.ID, r.Detector)
		}
	}
	for _, u := range codegen.GuardUnevaluated(p) {
		fmt.Fprintf(env.Stderr, "oarc guard: %s %s is at %s, which the guard never evaluates (it evaluates tool.pre_invoke, tool.post_invoke and content.tool_result): it does nothing in the proxy\n", u[0], u[1], u[2])
	}
	contentlessTransforms(env, "oarc guard: ", p)
	for _, u := range codegen.GuardUnfilledFacts(p) {
		what := "it is absent at every call and reads as its type's zero value"
		if strings.Contains(u[1], ", ") {
			what = "they are absent at every call and read as their types' zero values"
		}
		fmt.Fprintf(env.Stderr, "oarc guard: rule %s reads %s, which a proxy never fills (it has no host): %s\n", u[0], u[1], what)
	}
	for _, u := range codegen.GuardUnsuppliedProfiles(p, proxySupplies) {
		noun := "the profile " + u[2]
		if strings.Contains(u[2], ", ") {
			noun = "the profiles " + u[2]
		}
		fmt.Fprintf(env.Stderr, "oarc guard: rule %s requires %s, which a proxy does not supply at %s: an evaluation error at every call it selects, and its on_error applies (fail_closed blocks them)\n", u[0], noun, u[1])
	}
	for _, u := range codegen.GuardUnmatchedTools(p) {
		fmt.Fprintf(env.Stderr, "oarc guard: rule %s selects %s %s, which no call through the guard has (its tool is mcp_S_T, mcp_<server id>_<tool name>): it applies to no call; select on mcp_tool_name, or name mcp_S_T\n", u[0], u[1], u[2])
	}
	if ids := codegen.GuardServerIDs(p); len(ids) > 0 {
		flag := "-server-id " + ids[0]
		if len(ids) > 1 {
			flag = "-server-id and the one of them its server is"
		}
		fmt.Fprintf(env.Stderr, "oarc guard: the rules name the server id %s in their selectors: run %s with %s (unless the server's serverInfo.name is so), else those rules apply to none of its calls\n", strings.Join(ids, ", "), filepath.Base(*outBin), flag)
	}
	bin, err := filepath.Abs(*outBin)
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc guard: %v\n", err)
		return ExitFailure
	}
	dir, err := os.MkdirTemp("", "oarc-guard-")
	if err != nil {
		fmt.Fprintf(env.Stderr, "oarc guard: %v\n", err)
		return ExitFailure
	}
	if *keep {
		fmt.Fprintf(env.Stderr, "oarc guard: building in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if err := writeGuardModule(dir, p, *redisDir, rules); err != nil {
		fmt.Fprintf(env.Stderr, "oarc guard: %v\n", err)
		return ExitFailure
	}
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	if len(p.Bindings) == 0 && *redisDir == "" && rules == nil {
		// Nothing but oarc's embedded source: never the network.
		cmd.Env = append(cmd.Env, "GOPROXY=off")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(env.Stderr, "oarc guard: go build: %v\n%s", err, out)
		return ExitFailure
	}
	fmt.Fprintf(env.Stderr, "oarc guard: wrote %s (set %s, %s)\n", *outBin, p.Name(), p.Digest)
	return ExitOK
}

// providerFuncs lists the host-provided functions rule id calls.
func providerFuncs(p *ir.Set, id string) []string {
	seen := map[string]bool{}
	for _, r := range p.Rules {
		if r.ID != id {
			continue
		}
		ir.WalkRule(r, func(e ir.Expr) bool {
			if o, ok := e.(*ir.Observe); ok && o.Builtin == ir.NotBuiltin && !codegen.GuardProviderFunc(o.Func) {
				seen[o.Func] = true
			}
			return true
		})
	}
	var out []string
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// proxySupplies reports whether the proxy supplies profile at a guard
// anchor: the guard's profiles and the proxy's connection's, as they
// evaluate.
func proxySupplies(anchor, profile string) bool {
	bit := runtime.ProfileByName(profile)
	for _, a := range []guard.Anchor{guard.PreInvoke, guard.PostInvoke, guard.ToolResult} {
		if a.String() == anchor {
			return bit != 0 && guard.Profiles(a, proxy.ConnProfiles)&bit != 0
		}
	}
	return false
}

// guardModule is the module path of the proxy's temporary module.
const guardModule = "oarcguard"

// guardRules is what oarc guard -rulestore needs: the oarc module's
// directory, and the compilation set with how it was loaded, to embed.
type guardRules struct {
	dir     string
	set     *compiler.Set
	opts    compiler.Options
	catalog string // the -catalog file, if any
}

// writeGuardModule writes the proxy's module into dir: oarc's embedded
// source as github.com/oarc/oarc (with -rulestore: the oarc module of
// store.dir instead, and the packs to embed), the catalog package of a
// host catalog, the set's package (with its guard file), and main.
func writeGuardModule(dir string, p *ir.Set, redisDir string, store *guardRules) error {
	goVersion := "1.26"
	gomod, _ := oarc.RuntimeSource.ReadFile("go.mod")
	versions := map[string]string{}
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) == 2 && f[0] == "go" {
			goVersion = f[1]
		}
		if len(f) >= 2 && strings.Contains(f[0], ".") {
			versions[f[0]] = f[1]
		}
	}
	src := filepath.Join(dir, "oarcsrc")
	err := fs.WalkDir(oarc.RuntimeSource, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !oarc.IsBuildSource(path) || strings.Contains(path, "/testkit/") || strings.HasPrefix(path, "testkit/") {
			return err
		}
		data, err := oarc.RuntimeSource.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(src, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return err
	}
	// The modules the embedded packages may need beyond the standard
	// library: the JSON Schema library for bindings.
	var deps []string
	if len(p.Bindings) > 0 {
		for _, m := range []string{"github.com/santhosh-tekuri/jsonschema/v6", "golang.org/x/text"} {
			if v := versions[m]; v != "" {
				deps = append(deps, m+" "+v)
			}
		}
	}
	srcMod := fmt.Sprintf("module %s\n\ngo %s\n", harnessModule, goVersion)
	if len(deps) > 0 {
		srcMod += "\nrequire (\n\t" + strings.Join(deps, "\n\t") + "\n)\n"
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(srcMod), 0o644); err != nil {
		return err
	}
	oarcDir := "./oarcsrc"
	if store != nil {
		abs, err := filepath.Abs(store.dir)
		if err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(abs, "rulestore", "store.go")); err != nil {
			return fmt.Errorf("-rulestore %s: not the oarc module (%v)", store.dir, err)
		}
		oarcDir = abs
	}
	mod := fmt.Sprintf("module %s\n\ngo %s\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", guardModule, goVersion, harnessModule, harnessModule, oarcDir)
	if len(deps) > 0 {
		mod += "\nrequire (\n\t" + strings.Join(deps, "\n\t") + "\n)\n"
	}
	var sum bytes.Buffer
	if len(deps) > 0 {
		s, _ := oarc.RuntimeSource.ReadFile("go.sum")
		sc := bufio.NewScanner(bytes.NewReader(s))
		for sc.Scan() {
			for _, d := range deps {
				if strings.HasPrefix(sc.Text(), strings.Fields(d)[0]+" ") {
					sum.WriteString(sc.Text() + "\n")
				}
			}
		}
	}
	// The imports of main beyond the guard's: the standard library's and
	// the others', each sorted (gofmt's order).
	std, ext := []string{"os"}, []string(nil)
	rulesField, rulesDecls := "", ""
	if store != nil {
		rs, err := os.ReadFile(filepath.Join(oarcDir, "go.sum"))
		if err != nil {
			return fmt.Errorf("-rulestore: %v", err)
		}
		sum.Write(rs)
		decls, err := writeGuardPacks(dir, store)
		if err != nil {
			return fmt.Errorf("-rulestore: %v", err)
		}
		std = append(std, "embed", "fmt", "io", "path/filepath")
		ext = append(ext, "github.com/oarc/oarc/compiler", "github.com/oarc/oarc/rulestore")
		rulesField = guardRulesField
		rulesDecls = decls
	}
	redisStore := ""
	if redisDir != "" {
		abs, err := filepath.Abs(redisDir)
		if err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(abs, "store.go")); err != nil {
			return fmt.Errorf("-redisstore %s: not the redisstore module (%v)", redisDir, err)
		}
		rs, err := os.ReadFile(filepath.Join(abs, "go.sum"))
		if err != nil {
			return fmt.Errorf("-redisstore: %v", err)
		}
		sum.Write(rs)
		var redisVersion string
		if rm, err := os.ReadFile(filepath.Join(abs, "go.mod")); err == nil {
			for _, line := range strings.Split(string(rm), "\n") {
				if f := strings.Fields(strings.TrimSpace(line)); len(f) >= 2 && f[0] == "github.com/redis/go-redis/v9" {
					redisVersion = f[1]
				}
			}
		}
		mod += fmt.Sprintf("\nrequire github.com/oarc/oarc/redisstore v0.0.0\n\nreplace github.com/oarc/oarc/redisstore => %s\n", abs)
		if redisVersion != "" {
			mod += "\nrequire github.com/redis/go-redis/v9 " + redisVersion + "\n"
		}
		std = append(std, "time")
		ext = append(ext, "github.com/oarc/oarc/redisstore", "github.com/redis/go-redis/v9")
		redisStore = guardRedisStore
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum.Bytes(), 0o644); err != nil {
		return err
	}
	catImport := codegen.DefaultCatalogImport
	if p.Catalog.Fingerprint != catalog.Default().Fingerprint() {
		// The package is named as oarc gen names it (func_ for a host
		// named func); main imports it as oarccatalog.
		csrc, err := codegen.GenerateCatalog(p.Catalog, codegen.CatalogOptions{Version: Version})
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, "catalog"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "catalog", CatalogFileName), csrc, 0o644); err != nil {
			return err
		}
		catImport = guardModule + "/catalog"
	}
	gopts := codegen.Options{Package: "rules", CatalogImport: catImport, Version: Version}
	rules, err := codegen.Generate(p, gopts)
	if err != nil {
		return err
	}
	gfile, err := codegen.GenerateGuard(p, gopts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "rules"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "rules", GenFileName), rules, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "rules", codegen.GuardFileName), gfile, 0o644); err != nil {
		return err
	}
	imports := importLines(std)
	if len(ext) > 0 {
		imports += "\n" + importLines(ext)
	}
	serverIDs := ""
	if ids := codegen.GuardServerIDs(p); len(ids) > 0 {
		q := make([]string, len(ids))
		for i, id := range ids {
			q[i] = strconv.Quote(id)
		}
		serverIDs = "\t\tServerIDs: []string{" + strings.Join(q, ", ") + "},\n"
	}
	main := fmt.Sprintf(guardMain, imports, strconv.Quote(catImport), strconv.Quote(Version), serverIDs+redisStore+rulesField, rulesDecls)
	return os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644)
}

// importLines is the import lines of paths, sorted.
func importLines(paths []string) string {
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		b.WriteString("\t" + strconv.Quote(p) + "\n")
	}
	return b.String()
}

// harnessModule is oarc's module path, as the embedded source declares it.
const harnessModule = "github.com/oarc/oarc"

// guardMain is the proxy's main: %[1]s the imports before the guard's,
// %[2]s the catalog package's import path (quoted; imported as
// oarccatalog, which no other import or identifier of main is, whatever
// the host's name), %[3]s the version, %[4]s the ServerIDs field, the
// Store field for Redis support and the Rules field for the rule store, %[5]s declarations after
// main (the rule store's).
const guardMain = `// Command main is an MCP guard built by oarc guard.
package main

import (
%[1]s
	"github.com/oarc/oarc/guard"
	"github.com/oarc/oarc/guard/proxy"
	"github.com/oarc/oarc/runtime"

	oarccatalog %[2]s
	"oarcguard/rules"
)

func main() {
	os.Exit(proxy.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, proxy.Config{
		Set: func(opts ...runtime.Option) (guard.Set, error) {
			return rules.Guard(oarccatalog.Env{}, nil, opts...)
		},
		Version: %[3]s,
%[4]s	}))
}
%[5]s`

// guardRedisStore opens the Redis session store (oarc guard -redisstore).
const guardRedisStore = `		Store: func(addr string, ttl time.Duration) (runtime.Store, error) {
			c := redis.NewClient(redisstore.ClientOptions(addr))
			st, err := redisstore.New(c, redisstore.Options{TTL: ttl})
			if err != nil {
				return nil, err
			}
			return st, nil
		},
`

// guardRulesField opens the rule store (oarc guard -rulestore).
const guardRulesField = `		Rules: func(path string, warn io.Writer) (*proxy.RuleStore, error) {
			set, err := loadSet()
			if err != nil {
				return nil, err
			}
			st, err := rulestore.Open(path, set, rulestore.Options{Warn: warn, Check: checkOptions})
			if err != nil {
				return nil, err
			}
			rs := &proxy.RuleStore{Option: runtime.WithRuleStore(st), Close: st.Close}
			for _, t := range st.Tools() {
				rs.Tools = append(rs.Tools, guard.Tool(t))
			}
			return rs, nil
		},
`

// guardRulesDecls loads the embedded packs: %[1]s the pack directories
// under packs/ (a Go slice literal), %[2]s the catalog file under packs/
// (quoted, "" for none), %[3]s the load options (a Go literal).
const guardRulesDecls = `
// packs are the packs the proxy was built from, which the rule store
// checks its rules against.
//
//go:embed all:packs
var packs embed.FS

// checkOptions are the options the packs were loaded with.
var checkOptions = %[3]s

// loadSet loads the embedded packs as the compilation set: written out to
// a temporary directory for the compiler, which reads files.
func loadSet() (*compiler.Set, error) {
	dir, err := os.MkdirTemp("", "oarc-guard-packs-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(dir, packs); err != nil {
		return nil, err
	}
	opts := checkOptions
	if f := %[2]s; f != "" {
		cat, diags := compiler.LoadCatalog(filepath.Join(dir, "packs", f))
		if cat == nil {
			return nil, fmt.Errorf("the embedded catalog: %%s", diags.Text())
		}
		opts.Catalog = cat
	}
	var dirs []string
	for _, d := range %[1]s {
		dirs = append(dirs, filepath.Join(dir, "packs", d))
	}
	set, diags := compiler.Load(dirs, opts)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the embedded packs: %%s", diags.Text())
	}
	return set, nil
}
`

// writeGuardPacks writes the sources of the set's packs (pack.yaml, the
// rule files, the schemas of result bindings) under dir/packs, each pack
// in a directory of its own base name (a pack's default name), and the
// catalog file the set was checked against, if not the default; it
// returns the declarations of main that load them. The compilation set
// they load has the digest of the one the proxy was generated from, which
// the evaluator checks (runtime.WithRuleStore).
func writeGuardPacks(dir string, r *guardRules) (string, error) {
	root := filepath.Join(dir, "packs")
	var dirs []string
	catFile := r.catalog
	for i, pk := range r.set.Packs {
		d := filepath.Join(fmt.Sprintf("%02d", i), filepath.Base(pk.Dir))
		dirs = append(dirs, filepath.ToSlash(d))
		files := map[string][]byte{}
		for _, src := range pk.Sources {
			files[src.Path] = src.Content
		}
		for _, b := range pk.Bindings {
			files[b.Path] = b.Schema
		}
		for name, content := range files {
			dst := filepath.Join(root, d, filepath.FromSlash(name))
			if rel, err := filepath.Rel(filepath.Join(root, d), dst); err != nil || strings.HasPrefix(rel, "..") {
				return "", fmt.Errorf("pack %s: the file %s is outside the pack; the proxy cannot embed it", pk.Name, name)
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(dst, content, 0o644); err != nil {
				return "", err
			}
		}
		if catFile == "" {
			catFile = pk.CatalogFile
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	catName := ""
	if r.set.Catalog.Fingerprint() != catalog.Default().Fingerprint() {
		if catFile == "" {
			return "", fmt.Errorf("the set's catalog has no file to embed")
		}
		data, err := os.ReadFile(catFile)
		if err != nil {
			return "", err
		}
		catName = "catalog/" + filepath.Base(catFile)
		if err := os.MkdirAll(filepath.Join(root, "catalog"), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(catName)), data, 0o644); err != nil {
			return "", err
		}
	}
	opts := fmt.Sprintf("compiler.Options{Portable: %v, MaxCost: %d}", r.opts.Portable, r.opts.MaxCost)
	return fmt.Sprintf(guardRulesDecls, fmt.Sprintf("%#v", dirs), strconv.Quote(catName), opts), nil
}

// contentlessTransforms names the transform rules of p at a guard anchor
// without content (codegen.GuardContentlessTransforms), each line after
// prefix.
func contentlessTransforms(env *Env, prefix string, p *ir.Set) {
	for _, u := range codegen.GuardContentlessTransforms(p) {
		what := "the call goes upstream as it came"
		if u[1] != "tool.pre_invoke" {
			what = "the result goes on as it came (a result is rewritten at content.tool_result)"
		}
		fmt.Fprintf(env.Stderr, "%srule %s transforms at %s, where the guard has no content (only content.tool_result's): it rewrites nothing, and %s\n", prefix, u[0], u[1], what)
	}
}
