// Command oarc compiles Open Agent Rules (OAR 1.0) rule packs into Go.
//
// A pack is a directory with rules in policy/*.yaml (one rule per file,
// named after its id), an optional pack.yaml and fixtures in
// fixtures/*.json:
//
//	oar: '1.0'
//	name: starter
//	origin: project                  # or stock (allow and transform effects, deny_by_default)
//	catalog: ../acme.catalog.yaml    # optional: the host catalog (spec 9)
//
// Directories given together to one command are one compilation set
// (their rule ids unique across them, one catalog); a rule file given
// alone is a set of its own.
//
// Usage:
//
//	oarc <command> [flags] [arguments]
//
// The commands:
//
//	check    load and check packs or rule files: every problem at
//	         path:line:col with a stable code (spec 7); -vet adds vet's
//	         warnings, -strict makes warnings errors, -portable reports
//	         host and oarc facts, -json prints JSON Lines (docs/json.md)
//	vet      report rules that load but cannot do what they mean
//	         (docs/vet.md)
//	fmt      lay out rule files and pack.yaml canonically: -l lists, -d
//	         diffs, -w writes (docs/fmt.md)
//	gen      compile packs into a Go package: gen -pack DIR [-pack DIR]...
//	         -out DIR writes DIR/rules_oarc.go, and the catalog package of
//	         a host catalog (default DIR/<host>); -check compares instead
//	         of writing, with a diff; -v says how each constant pattern of
//	         matches is compiled (string comparisons, a DFA, or regexp);
//	         -guard also writes guard_oarc.go, func Guard for the MCP
//	         guard's Go SDK middleware (docs/mcp.md)
//	guard    build the stdio MCP proxy of a compilation set: guard -pack
//	         DIR [-pack DIR]... [-catalog FILE] -o BIN; then BIN [flags]
//	         -- COMMAND [ARG...] guards the MCP server COMMAND
//	         (docs/mcp.md; BIN -help lists its flags)
//	test     run fixtures on the generated code (built with the Go
//	         toolchain in a temporary module) and on the cel-go reference;
//	         -cover reports per rule what the fixtures reached, -min PCT
//	         fails below it (docs/test.md)
//	render   print the rules as Markdown for a system prompt, ranked by
//	         -hint (docs/context.md)
//	stats    read decision records and report per digest and rule; say
//	         which monitored rules are ready to enforce (docs/stats.md)
//	store    list the rules of a rule store (spec 12): every id, its
//	         latest status (retired ones too), anchor, effect and trial;
//	         -json prints one JSON document (docs/store.md); -promote ID
//	         or -retire ID -reason TEXT (with -pack DIR...) appends a
//	         person's promotion or retirement
//	promote  promote STORE -pack DIR [-with DIR]... [ID...]: write the
//	         store's active rules into the pack as rule files (enforcement:
//	         enforce, laid out as fmt lays them out), so that go generate
//	         compiles them; each file is checked first as check will check
//	         the pack with it (-with: the other packs of its set), and a
//	         diagnostic, or a target file that exists, writes nothing
//	ir       print the typed IR the code generator reads
//	schema   print the JSON Schema of rule files, pack.yaml, fixtures or
//	         catalogs, for editors
//	version  print oarc's version (also oarc -version)
//
// "oarc help CMD" prints a command's flags and exit statuses. Every
// command exits 0 on success, 1 when it found problems, 2 on bad usage;
// nothing exits with a Go stack trace.
//
// The generated package of a compilation set exports
//
//	func New(env <catalog>.Env, opts ...runtime.Option) (*Evaluator, error)
//	func (*Evaluator) Evaluate(ctx context.Context, occ *<catalog>.Occurrence, s *runtime.Session, d *runtime.Decision) error
//	func Context(hint string, k int) string
//
// where <catalog> is the catalog package (github.com/oarc/oarc/lycaon for
// the default catalog). A host keeps one runtime.Decision per goroutine
// and one runtime.Session per agent session; evaluation then allocates
// nothing. To keep the generated code up to date, put this line next to
// the code that uses it and run go generate:
//
//	//go:generate go tool oarc gen -pack ../rules -out rules
//
// A host whose agent writes rules for itself (spec 12) opens a rule store
// (package github.com/oarc/oarc/rulestore, which links the compiler and
// cel-go) and passes it with runtime.WithRuleStore(store): its rules are
// in force at once, after the compiled ones; store.Tools() are the
// agent's tools and store.Context(hint, k) renders both. oarc promote
// moves the promoted rules to the compiled fast path (docs/store.md).
//
// docs/hosts.md in the repository is the guide for hosts.
package main
