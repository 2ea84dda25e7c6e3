// Package catalog owns host catalogs: the lifecycle anchors, the facts rules
// may read and the observation functions they may call. A catalog is OAR's
// own core and standard entries, oarc's (tier oarc), and one host's anchors,
// facts and functions under the host's namespace.
//
// The default catalog is the Painted Wolf host's (namespace lycaon): its data
// lives in data/*.tsv (a copy of the catalog extracted from the OAR page,
// checked row for row against ../shared/catalog by a test), and it is
// embedded into every binary that imports this package. The core and
// standard rows of that data are OAR's for every host. Other hosts bring a
// YAML catalog (spec section 9), which the compiler reads into the same
// [Catalog] with [New]. Everything else that depends on a catalog (the CEL
// environment, profile and plane checks, the generated facts struct) is
// derived from it, never written twice.
package catalog

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:embed data/anchors.tsv
var anchorsTSV string

//go:embed data/facts.tsv
var factsTSV string

//go:embed data/functions.tsv
var functionsTSV string

// HostNamespace is the namespace of the default catalog's host facts and
// functions.
const HostNamespace = "lycaon"

// Type is the CEL type of a fact or function parameter.
type Type int

// The CEL types the catalog uses.
const (
	String Type = iota + 1
	Int
	Bool
	Double
	ListString
	MapStringDyn
	ListMapStringDyn
)

// typeNames are the spellings of the types in the TSV data.
var typeNames = map[string]Type{
	"string":                 String,
	"int":                    Int,
	"bool":                   Bool,
	"double":                 Double,
	"list<string>":           ListString,
	"map<string, dyn>":       MapStringDyn,
	"list<map<string, dyn>>": ListMapStringDyn,
}

// Types are the catalog types, in order.
var Types = []Type{String, Int, Bool, Double, ListString, MapStringDyn, ListMapStringDyn}

// ParseType parses a type as CEL spells it (list(string)), ignoring
// spaces around commas, after "(" and before ")", as the catalog schema
// does; ok is false for anything else.
func ParseType(s string) (Type, bool) {
	norm := strings.Join(strings.Fields(strings.ReplaceAll(s, ",", ", ")), " ")
	norm = strings.ReplaceAll(norm, "( ", "(")
	norm = strings.ReplaceAll(norm, " )", ")")
	norm = strings.ReplaceAll(norm, " ,", ",")
	for _, t := range Types {
		if t.String() == norm {
			return t, true
		}
	}
	return 0, false
}

// String returns the type in CEL's spelling, e.g. "list(string)".
func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case Int:
		return "int"
	case Bool:
		return "bool"
	case Double:
		return "double"
	case ListString:
		return "list(string)"
	case MapStringDyn:
		return "map(string, dyn)"
	case ListMapStringDyn:
		return "list(map(string, dyn))"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// GoType is the Go type the runtime uses for values of t.
func (t Type) GoType() string {
	switch t {
	case String:
		return "string"
	case Int:
		return "int64"
	case Bool:
		return "bool"
	case Double:
		return "float64"
	case ListString:
		return "[]string"
	case MapStringDyn:
		return "map[string]any"
	case ListMapStringDyn:
		return "[]map[string]any"
	}
	return "any"
}

// Selectable reports whether a selector clause may name a fact of type t.
func (t Type) Selectable() bool {
	return t == String || t == Int || t == Bool || t == ListString
}

// Tier says who defines a fact or function.
type Tier string

// The tiers of the catalog: OAR's core and standard entries, oarc's own
// (spec 5.7), and the host's.
const (
	Core     Tier = "core"
	Standard Tier = "standard"
	Oarc     Tier = "oarc"
	Host     Tier = "host"
)

// Profiles are the fact profiles, in the order of the runtime's profile
// bits: OAR's six, then oarc's provenance (spec 5.7).
var Profiles = []string{"session", "tool", "content-safety", "content-provenance", "filesystem", "mcp", "provenance"}

// ProfileIndex returns the bit index of a profile, or -1.
func ProfileIndex(p string) int {
	for i, q := range Profiles {
		if q == p {
			return i
		}
	}
	return -1
}

// Fact is one fact of the catalog.
type Fact struct {
	Name        string // bare name, e.g. "tool_is_state"
	CELName     string // spelling in CEL: bare, or "lycaon.tool_is_state" for host facts
	Type        Type
	Tier        Tier
	Profile     string // standard facts only
	Description string
	Section     string
	// GoName is the fact's Go field: in Facts for a standard fact
	// (ToolArgs), in HostFacts for a host fact (RepeatCount); see names.go
	// for the renaming of names Go cannot use as they are.
	GoName string
	// Kept is the session fact the engine keeps that this fact is (spec
	// 5.10), NotKept for a fact the host fills.
	Kept Kept
}

// Span reports whether the fact holds spans that transform.redact can
// replace: a list(map(string, dyn)) fact the host fills, whose entries carry
// start and end. provenance_nodes, computed by the engine from the graph,
// has the same type but holds nodes, not spans.
func (f *Fact) Span() bool { return f.Type == ListMapStringDyn && f.Tier != Oarc }

// Kept names a session fact the engine keeps (spec 5.10): a fact with one
// of these names and types (the four host ones in the catalog's host
// namespace) is not a field the host fills.
type Kept uint8

// The engine-kept facts.
const (
	NotKept Kept = iota
	KeptFingerprint
	KeptRepeatCount
	KeptRecentToolNames
	KeptSameCodeRejectRun
	KeptCodeRejectTotal
)

// KeptByName is, by bare name, each engine-kept fact with its type and
// tier (tool_args_fingerprint is a standard fact, the others host facts).
var KeptByName = map[string]struct {
	Kept Kept
	Type Type
	Tier Tier
}{
	"tool_args_fingerprint": {KeptFingerprint, String, Standard},
	"repeat_count":          {KeptRepeatCount, Int, Host},
	"recent_tool_names":     {KeptRecentToolNames, ListString, Host},
	"same_code_reject_run":  {KeptSameCodeRejectRun, Int, Host},
	"code_reject_total":     {KeptCodeRejectTotal, Int, Host},
}

// keptOf says which engine-kept fact f is, if any.
func keptOf(f *Fact) Kept {
	if k, ok := KeptByName[f.Name]; ok && k.Type == f.Type && k.Tier == f.Tier {
		return k.Kept
	}
	return NotKept
}

// Function is one observation function of the catalog.
type Function struct {
	Name        string
	CELName     string
	Signature   string // as written in the catalog, e.g. "(string) -> bool"
	Params      []Type
	Result      Type
	Tier        Tier
	Profile     string
	Description string
	Section     string
	// GoName is the function's Go field in Providers for a provider-backed
	// function (PathOutsideScope; LycaonSourceIncludes for
	// lycaon.source_includes), else its CamelCase name.
	GoName string
	// Provider is true for functions answered by a provider the host
	// registers; false for the built-ins (counters and tool_arg_*).
	Provider bool
}

// Anchor is one lifecycle anchor of the catalog.
type Anchor struct {
	ID           string
	TriggerClass string
	Surface      string
	Planes       []string
	Title        string
	FiresWhen    string
	// GoName is the anchor's Go constant name (tool.pre_invoke ->
	// ToolPreInvoke), unique in the catalog (names.go).
	GoName string
}

// HasPlane reports whether the anchor has plane p.
func (a *Anchor) HasPlane(p string) bool {
	for _, q := range a.Planes {
		if q == p {
			return true
		}
	}
	return false
}

// Catalog is a parsed catalog.
type Catalog struct {
	// Host is the namespace of the host's facts and functions.
	Host string
	// File is the YAML file the catalog was read from, "" for the
	// embedded default.
	File      string
	Anchors   []*Anchor
	Facts     []*Fact
	Functions []*Function

	anchorByID  map[string]*Anchor
	factByCEL   map[string]*Fact
	funcByCEL   map[string]*Function
	hostByBare  map[string]string
	fingerprint string
	hostField   string
	goPackage   string
}

var (
	once    sync.Once
	def     *Catalog
	loadErr error
)

// Default returns the embedded catalog. It panics only if the embedded data
// is malformed, which the package's tests rule out.
func Default() *Catalog {
	once.Do(func() { def, loadErr = Parse(anchorsTSV, factsTSV, functionsTSV) })
	if loadErr != nil {
		panic("catalog: embedded data: " + loadErr.Error())
	}
	return def
}

// Raw returns the embedded TSV files by name (anchors.tsv, facts.tsv,
// functions.tsv).
func Raw() map[string]string {
	return map[string]string{"anchors.tsv": anchorsTSV, "facts.tsv": factsTSV, "functions.tsv": functionsTSV}
}

// Anchor returns the anchor with the given id, or nil.
func (c *Catalog) Anchor(id string) *Anchor { return c.anchorByID[id] }

// Fact returns the fact with the given CEL spelling, or nil.
func (c *Catalog) Fact(celName string) *Fact { return c.factByCEL[celName] }

// Function returns the function with the given CEL spelling, or nil.
func (c *Catalog) Function(celName string) *Function { return c.funcByCEL[celName] }

// HostSpelling returns "<host>.x" when x is the bare name of a host fact or
// function, else "".
func (c *Catalog) HostSpelling(bare string) string { return c.hostByBare[bare] }

// BareSpelling is the reverse hint: the name a fact or function that is
// not the host's, written in the host's namespace, stands for (lycaon.tool
// is tool: spec 3 namespaces only host facts and functions), else "".
func (c *Catalog) BareSpelling(name string) string {
	rest, ok := strings.CutPrefix(name, c.Host+".")
	if !ok || c.Host == "" {
		return ""
	}
	if f := c.Fact(rest); f != nil && f.CELName == rest {
		return rest
	}
	if fn := c.Function(rest); fn != nil && fn.CELName == rest {
		return rest
	}
	return ""
}

// Fingerprint is a short hash of what the generated code depends on (the
// host, the anchors and their planes, the names, types, tiers and profiles
// of the facts and functions; not descriptions); generated packages and
// their catalog package agree on it, so that a catalog change fails
// compilation instead of misreading facts.
func (c *Catalog) Fingerprint() string { return c.fingerprint }

// IsDefault reports whether c is the embedded default catalog.
func (c *Catalog) IsDefault() bool { return c == Default() }

// HostField is the Go field of the facts struct holding the host facts
// (lycaon -> Lycaon; tool -> Tool_, since Facts.Tool is the standard fact).
func (c *Catalog) HostField() string { return c.hostField }

// GoPackage is the name of the generated catalog package: the host, or
// the host with "_" appended where Go could not import it under its own
// name (a keyword, main, init).
func (c *Catalog) GoPackage() string { return c.goPackage }

// Parse parses the three TSV files of a catalog extracted from the OAR page:
// their core and standard rows are OAR's entries, their host rows one
// host's (all under one namespace).
func Parse(anchors, facts, functions string) (*Catalog, error) {
	b, err := parseBase(anchors, facts, functions)
	if err != nil {
		return nil, err
	}
	return build(b.host, b.anchors, b.facts, b.functions, b.hostFacts, b.hostFuncs, "")
}

// base holds the parsed TSV rows.
type base struct {
	host                 string
	anchors              []*Anchor
	facts, hostFacts     []*Fact
	functions, hostFuncs []*Function
}

func parseBase(anchors, facts, functions string) (*base, error) {
	b := &base{}
	rows, err := parseTSV("anchors.tsv", anchors, []string{"anchor", "trigger_class", "surface", "planes", "title", "fires_when"})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		b.anchors = append(b.anchors, &Anchor{ID: r[0], TriggerClass: r[1], Surface: r[2], Planes: strings.Split(r[3], ","), Title: r[4], FiresWhen: r[5]})
	}
	hostOf := func(name, tier, col string) (string, error) {
		if tier != string(Host) {
			return "", nil
		}
		ns, bare, ok := strings.Cut(col, ".")
		if !ok || bare != name || (b.host != "" && ns != b.host) {
			return "", fmt.Errorf("%s: host name %q is not %s.%s", name, col, b.host, name)
		}
		b.host = ns
		return ns, nil
	}
	rows, err = parseTSV("facts.tsv", facts, []string{"name", "type", "tier", "profile_or_namespace", "description", "section"})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		t, ok := typeNames[r[1]]
		if !ok {
			return nil, fmt.Errorf("facts.tsv: fact %s: unknown type %q", r[0], r[1])
		}
		f := &Fact{Name: r[0], Type: t, Tier: Tier(r[2]), Description: r[4], Section: r[5]}
		ns, err := hostOf(r[0], r[2], r[3])
		if err != nil {
			return nil, fmt.Errorf("facts.tsv: %v", err)
		}
		if ns != "" {
			b.hostFacts = append(b.hostFacts, f)
			continue
		}
		f.Profile = r[3]
		b.facts = append(b.facts, f)
	}
	rows, err = parseTSV("functions.tsv", functions, []string{"name", "signature", "tier", "profile_or_namespace", "description", "section"})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		params, result, err := ParseSignature(r[1], typeNames)
		if err != nil {
			return nil, fmt.Errorf("functions.tsv: %s: %v", r[0], err)
		}
		fn := &Function{Name: r[0], Signature: r[1], Params: params, Result: result, Tier: Tier(r[2]), Description: r[4], Section: r[5]}
		ns, err := hostOf(r[0], r[2], r[3])
		if err != nil {
			return nil, fmt.Errorf("functions.tsv: %v", err)
		}
		if ns != "" {
			b.hostFuncs = append(b.hostFuncs, fn)
			continue
		}
		fn.Profile = r[3]
		b.functions = append(b.functions, fn)
	}
	if b.host == "" {
		b.host = HostNamespace
	}
	return b, nil
}

// ParseSignature parses "(T, ...) -> T" with the given spellings of types.
func ParseSignature(sig string, spellings map[string]Type) ([]Type, Type, error) {
	bad := fmt.Errorf("bad signature %q: want (T, ...) -> T", sig)
	in, out, ok := strings.Cut(sig, "->")
	if !ok {
		return nil, 0, bad
	}
	in = strings.TrimSpace(in)
	if !strings.HasPrefix(in, "(") || !strings.HasSuffix(in, ")") {
		return nil, 0, bad
	}
	lookup := func(s string) (Type, error) {
		s = strings.TrimSpace(s)
		if t, ok := spellings[s]; ok {
			return t, nil
		}
		if t, ok := ParseType(s); ok {
			return t, nil
		}
		return 0, fmt.Errorf("unknown type %q in signature %q", s, sig)
	}
	var params []Type
	inner := strings.TrimSpace(in[1 : len(in)-1])
	if inner != "" {
		for _, p := range splitTypes(inner) {
			t, err := lookup(p)
			if err != nil {
				return nil, 0, err
			}
			params = append(params, t)
		}
	}
	if len(params) == 0 {
		return nil, 0, fmt.Errorf("bad signature %q: a function takes at least one argument", sig)
	}
	res, err := lookup(out)
	if err != nil {
		return nil, 0, err
	}
	return params, res, nil
}

// splitTypes splits a parameter list at the commas outside brackets.
func splitTypes(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

var (
	baseOnce sync.Once
	baseVal  *base
	baseErr  error
)

// New builds a host's catalog: OAR's core and standard entries (from the
// embedded data), oarc's, and the host's anchors, facts and functions,
// spelled <host>.<name> in CEL. It checks what makes a catalog unusable
// (duplicate names, a host entry named like a core, standard or oarc one);
// the compiler's YAML reader reports the same problems at their positions
// first.
func New(host string, anchors []*Anchor, facts []*Fact, functions []*Function) (*Catalog, error) {
	baseOnce.Do(func() { baseVal, baseErr = parseBase(anchorsTSV, factsTSV, functionsTSV) })
	if baseErr != nil {
		return nil, baseErr
	}
	for _, f := range facts {
		f.Tier = Host
	}
	for _, fn := range functions {
		fn.Tier = Host
	}
	return build(host, anchors, baseVal.facts, baseVal.functions, facts, functions, "")
}

// IsReserved reports whether name is the bare name of a core, standard or
// oarc fact or function, which a host catalog may not define.
func IsReserved(name string) bool {
	baseOnce.Do(func() { baseVal, baseErr = parseBase(anchorsTSV, factsTSV, functionsTSV) })
	if baseErr != nil {
		return false
	}
	for _, f := range baseVal.facts {
		if f.Name == name {
			return true
		}
	}
	for _, f := range baseVal.functions {
		if f.Name == name {
			return true
		}
	}
	for _, f := range oarcFacts {
		if f.Name == name {
			return true
		}
	}
	for _, f := range oarcFunctions {
		if f.Name == name {
			return true
		}
	}
	return false
}

// IsMapFact reports whether name is the bare name of a core, standard or
// oarc fact of type map(string, dyn) (tool_args): a host named so would
// make name.x read the host's fact x where a rule means the map's field x
// (cel-go resolves the longest declared name first), so no host may be.
func IsMapFact(name string) bool {
	baseOnce.Do(func() { baseVal, baseErr = parseBase(anchorsTSV, factsTSV, functionsTSV) })
	if baseErr != nil {
		return false
	}
	for _, fs := range [][]*Fact{baseVal.facts, oarcFacts} {
		for _, f := range fs {
			if f.Name == name && f.Type == MapStringDyn {
				return true
			}
		}
	}
	return false
}

// oarcFacts are oarc's own facts (tier oarc): the provenance facts of spec
// 5.7, derived from the session's graph. They are bare names like standard
// facts; -portable reports them like host facts.
var oarcFacts = []*Fact{
	{Name: "provenance_tools", Type: ListString, Tier: Oarc, Profile: "provenance", Section: "Provenance",
		Description: "The tool of every tool_result node in the occurrence's scope (its inputs and their ancestors), sorted and distinct."},
	{Name: "provenance_origins", Type: ListString, Tier: Oarc, Profile: "provenance", Section: "Provenance",
		Description: "Every non-empty origin in the occurrence's scope, sorted and distinct."},
	{Name: "provenance_trust_tiers", Type: ListString, Tier: Oarc, Profile: "provenance", Section: "Provenance",
		Description: "Every non-empty trust tier in the occurrence's scope, sorted and distinct."},
	{Name: "provenance_labels", Type: ListString, Tier: Oarc, Profile: "provenance", Section: "Provenance",
		Description: "Every label in the occurrence's scope, sorted and distinct."},
	{Name: "provenance_nodes", Type: ListMapStringDyn, Tier: Oarc, Profile: "provenance", Section: "Provenance",
		Description: "Every node in the occurrence's scope once, inputs first in the order given, then ancestors in recording order: id, kind, tool, origin, trust_tier, labels, args, input."},
	{Name: "batch_tools", Type: ListString, Tier: Oarc, Profile: "tool", Section: "Checks",
		Description: "The tool of every action of the check, in order (for an occurrence evaluated alone, its own tool)."},
	{Name: "tenant", Type: String, Tier: Oarc, Profile: "session", Section: "Tenants",
		Description: "The session's tenant (empty by default)."},
	{Name: "content", Type: String, Tier: Oarc, Profile: "content-safety", Section: "Content",
		Description: "The occurrence's content (empty where there is none), as the host gave it, so that a rule reads it directly instead of through a validator."},
}

// oarcFunctions are oarc's own functions (tier oarc, no profile): the URL
// functions of spec 5.11, answered by the runtime.
var oarcFunctions = []*Function{
	{Name: "url_host", Signature: "(string) -> string", Params: []Type{String}, Result: String, Tier: Oarc, Section: "URLs",
		Description: "The URL's host, as Go's URL.Hostname() gives it (no port, userinfo or brackets), ASCII-lowercased; an error for a URL that does not parse or has no scheme or host."},
	{Name: "url_scheme", Signature: "(string) -> string", Params: []Type{String}, Result: String, Tier: Oarc, Section: "URLs",
		Description: "The URL's scheme, ASCII-lowercased; an error for a URL that does not parse or has no scheme or host."},
	{Name: "url_port", Signature: "(string) -> int", Params: []Type{String}, Result: Int, Tier: Oarc, Section: "URLs",
		Description: "The URL's explicit port, else 80 for http and 443 for https, else 0; an error for a URL that does not parse, has no scheme or host, or whose port is not a decimal int."},
	{Name: "url_path", Signature: "(string) -> string", Params: []Type{String}, Result: String, Tier: Oarc, Section: "URLs",
		Description: "The URL's path as Go's URL.EscapedPath() gives it, \"/\" when empty; an error for a URL that does not parse or has no scheme or host."},
	{Name: "calls_within", Signature: "(int) -> int", Params: []Type{Int}, Result: Int, Tier: Oarc, Section: "Time",
		Description: "The session's tool.pre_invoke occurrences in the last N seconds (t - N < time <= t; at tool.pre_invoke the current one included); N from 1 to 86400; an error when the record dropped a call in the window."},
	{Name: "tool_calls_within", Signature: "(string, int) -> int", Params: []Type{String, Int}, Result: Int, Tier: Oarc, Section: "Time",
		Description: "calls_within(N) of the calls of the named tool."},
	{Name: "local_hour", Signature: "(string) -> int", Params: []Type{String}, Result: Int, Tier: Oarc, Section: "Time",
		Description: "The hour (0-23) of the occurrence's time in the named IANA time zone (\"UTC\", \"Europe/Paris\")."},
	{Name: "local_weekday", Signature: "(string) -> int", Params: []Type{String}, Result: Int, Tier: Oarc, Section: "Time",
		Description: "The day of the week (0 Sunday to 6 Saturday) of the occurrence's time in the named IANA time zone."},
}

func build(host string, anchors []*Anchor, facts []*Fact, functions []*Function, hostFacts []*Fact, hostFuncs []*Function, file string) (*Catalog, error) {
	c := &Catalog{
		Host:       host,
		File:       file,
		anchorByID: map[string]*Anchor{},
		factByCEL:  map[string]*Fact{},
		funcByCEL:  map[string]*Function{},
		hostByBare: map[string]string{},
	}
	for _, a0 := range anchors {
		a := *a0
		if c.anchorByID[a.ID] != nil {
			return nil, fmt.Errorf("duplicate anchor %q", a.ID)
		}
		c.Anchors = append(c.Anchors, &a)
		c.anchorByID[a.ID] = &a
	}
	addFact := func(f0 *Fact) error {
		f := *f0
		f.CELName = f.Name
		switch f.Tier {
		case Core:
			if f.Profile != "" {
				return fmt.Errorf("%s: core entries have no profile, got %q", f.Name, f.Profile)
			}
		case Standard, Oarc:
			if ProfileIndex(f.Profile) < 0 {
				return fmt.Errorf("%s: unknown profile %q", f.Name, f.Profile)
			}
		case Host:
			f.CELName = host + "." + f.Name
			f.Profile = ""
			c.hostByBare[f.Name] = f.CELName
		default:
			return fmt.Errorf("%s: unknown tier %q", f.Name, f.Tier)
		}
		if c.factByCEL[f.CELName] != nil {
			return fmt.Errorf("duplicate fact %q", f.CELName)
		}
		f.Kept = keptOf(&f)
		c.Facts = append(c.Facts, &f)
		c.factByCEL[f.CELName] = &f
		return nil
	}
	for _, f := range facts {
		if err := addFact(f); err != nil {
			return nil, err
		}
	}
	for _, f := range oarcFacts {
		if err := addFact(f); err != nil {
			return nil, err
		}
	}
	for _, f := range hostFacts {
		if err := addFact(f); err != nil {
			return nil, err
		}
	}
	addFunc := func(fn0 *Function) error {
		fn := *fn0
		fn.CELName = fn.Name
		switch fn.Tier {
		case Core:
		case Standard:
			if ProfileIndex(fn.Profile) < 0 {
				return fmt.Errorf("%s: unknown profile %q", fn.Name, fn.Profile)
			}
		case Host:
			fn.CELName = host + "." + fn.Name
			fn.Profile = ""
			c.hostByBare[fn.Name] = fn.CELName
		case Oarc:
		default:
			return fmt.Errorf("%s: unknown tier %q", fn.Name, fn.Tier)
		}
		fn.Provider = fn.Tier != Core && fn.Tier != Oarc && !strings.HasPrefix(fn.Name, "tool_arg_")
		if c.funcByCEL[fn.CELName] != nil || c.factByCEL[fn.CELName] != nil {
			return fmt.Errorf("duplicate name %q", fn.CELName)
		}
		c.Functions = append(c.Functions, &fn)
		c.funcByCEL[fn.CELName] = &fn
		return nil
	}
	for _, fn := range functions {
		if err := addFunc(fn); err != nil {
			return nil, err
		}
	}
	for _, fn := range oarcFunctions {
		if err := addFunc(fn); err != nil {
			return nil, err
		}
	}
	for _, fn := range hostFuncs {
		if err := addFunc(fn); err != nil {
			return nil, err
		}
	}
	c.fingerprint = c.computeFingerprint()
	if err := c.resolveGoNames(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Catalog) computeFingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "host %s\n", c.Host)
	for _, a := range c.Anchors {
		fmt.Fprintf(h, "anchor %s %s\n", a.ID, strings.Join(a.Planes, ","))
	}
	for _, f := range c.Facts {
		fmt.Fprintf(h, "fact %s %s %s %s\n", f.CELName, f.Type, f.Tier, f.Profile)
	}
	for _, fn := range c.Functions {
		fmt.Fprintf(h, "function %s %v %s %s %s\n", fn.CELName, fn.Params, fn.Result, fn.Tier, fn.Profile)
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:4])
}

func parseTSV(file, text string, header []string) ([][]string, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) == 0 || lines[0] != strings.Join(header, "\t") {
		return nil, fmt.Errorf("%s: header is not %q", file, strings.Join(header, "\t"))
	}
	var rows [][]string
	for i, l := range lines[1:] {
		cols := strings.Split(l, "\t")
		if len(cols) != len(header) {
			return nil, fmt.Errorf("%s:%d: %d columns, want %d", file, i+2, len(cols), len(header))
		}
		rows = append(rows, cols)
	}
	return rows, nil
}

// SortedFactNames returns the CEL names of all facts, sorted.
func (c *Catalog) SortedFactNames() []string {
	var out []string
	for _, f := range c.Facts {
		out = append(out, f.CELName)
	}
	sort.Strings(out)
	return out
}
