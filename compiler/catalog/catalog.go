// Package catalog owns the OAR 1.0 catalog: the lifecycle anchors, the facts
// rules may read and the observation functions they may call.
//
// The data lives in data/*.tsv (a copy of the catalog extracted from the OAR
// page, checked row for row against ../shared/catalog by a test) and is
// embedded into every binary that imports this package. Everything else that
// depends on the catalog (the CEL environment, profile and plane checks, the
// runtime's Facts struct) is derived from this package, never written twice.
package catalog

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
)

//go:embed data/anchors.tsv
var anchorsTSV string

//go:embed data/facts.tsv
var factsTSV string

//go:embed data/functions.tsv
var functionsTSV string

// HostNamespace is the CEL namespace of host-tier facts and functions.
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

var typeNames = map[string]Type{
	"string":                 String,
	"int":                    Int,
	"bool":                   Bool,
	"double":                 Double,
	"list<string>":           ListString,
	"map<string, dyn>":       MapStringDyn,
	"list<map<string, dyn>>": ListMapStringDyn,
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

// The tiers of the catalog.
const (
	Core     Tier = "core"
	Standard Tier = "standard"
	Host     Tier = "host"
)

// Profiles are the standard fact profiles, in the order of the runtime's
// profile bits.
var Profiles = []string{"session", "tool", "content-safety", "content-provenance", "filesystem", "mcp"}

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
	GoName      string // exported Go field name, e.g. "ToolIsState"
}

// Function is one observation function of the catalog. Every function takes
// one string argument.
type Function struct {
	Name        string
	CELName     string
	Signature   string // as written in the catalog, e.g. "(string) -> bool"
	Param       Type
	Result      Type
	Tier        Tier
	Profile     string
	Description string
	Section     string
	GoName      string
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

// Catalog is the parsed catalog.
type Catalog struct {
	Anchors   []*Anchor
	Facts     []*Fact
	Functions []*Function

	anchorByID  map[string]*Anchor
	factByCEL   map[string]*Fact
	funcByCEL   map[string]*Function
	hostByBare  map[string]string
	fingerprint string
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

// HostSpelling returns "lycaon.x" when x is the bare name of a host fact or
// function, else "".
func (c *Catalog) HostSpelling(bare string) string { return c.hostByBare[bare] }

// Fingerprint is a short hash of the catalog data; generated code and the
// runtime agree on it so that a catalog change fails compilation.
func (c *Catalog) Fingerprint() string { return c.fingerprint }

// Parse parses the three TSV files.
func Parse(anchors, facts, functions string) (*Catalog, error) {
	var ok bool
	c := &Catalog{
		anchorByID: map[string]*Anchor{},
		factByCEL:  map[string]*Fact{},
		funcByCEL:  map[string]*Function{},
		hostByBare: map[string]string{},
	}
	rows, err := parseTSV("anchors.tsv", anchors, []string{"anchor", "trigger_class", "surface", "planes", "title", "fires_when"})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		a := &Anchor{ID: r[0], TriggerClass: r[1], Surface: r[2], Planes: strings.Split(r[3], ","), Title: r[4], FiresWhen: r[5]}
		if c.anchorByID[a.ID] != nil {
			return nil, fmt.Errorf("anchors.tsv: duplicate anchor %q", a.ID)
		}
		c.Anchors = append(c.Anchors, a)
		c.anchorByID[a.ID] = a
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
		f := &Fact{Name: r[0], CELName: r[0], Type: t, Tier: Tier(r[2]), Description: r[4], Section: r[5], GoName: GoName(r[0])}
		if err := c.placeName(r[0], f.Tier, r[3], &f.CELName, &f.Profile); err != nil {
			return nil, fmt.Errorf("facts.tsv: %v", err)
		}
		if c.factByCEL[f.CELName] != nil {
			return nil, fmt.Errorf("facts.tsv: duplicate fact %q", f.CELName)
		}
		c.Facts = append(c.Facts, f)
		c.factByCEL[f.CELName] = f
	}
	rows, err = parseTSV("functions.tsv", functions, []string{"name", "signature", "tier", "profile_or_namespace", "description", "section"})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		fn := &Function{Name: r[0], CELName: r[0], Signature: r[1], Tier: Tier(r[2]), Description: r[4], Section: r[5], GoName: GoName(r[0])}
		var in, out string
		if _, err := fmt.Sscanf(strings.NewReplacer("(", "", ")", "", "->", " ").Replace(r[1]), "%s %s", &in, &out); err != nil {
			return nil, fmt.Errorf("functions.tsv: %s: bad signature %q", r[0], r[1])
		}
		if fn.Param, ok = typeNames[in]; !ok || fn.Param != String {
			return nil, fmt.Errorf("functions.tsv: %s: unsupported parameter type %q", r[0], in)
		}
		if fn.Result, ok = typeNames[out]; !ok {
			return nil, fmt.Errorf("functions.tsv: %s: unknown result type %q", r[0], out)
		}
		if err := c.placeName(r[0], fn.Tier, r[3], &fn.CELName, &fn.Profile); err != nil {
			return nil, fmt.Errorf("functions.tsv: %v", err)
		}
		fn.Provider = fn.Tier != Core && !strings.HasPrefix(fn.Name, "tool_arg_")
		if c.funcByCEL[fn.CELName] != nil || c.factByCEL[fn.CELName] != nil {
			return nil, fmt.Errorf("functions.tsv: duplicate name %q", fn.CELName)
		}
		c.Functions = append(c.Functions, fn)
		c.funcByCEL[fn.CELName] = fn
	}
	sum := sha256.Sum256([]byte(anchors + "\x00" + facts + "\x00" + functions))
	c.fingerprint = hex.EncodeToString(sum[:4])
	return c, nil
}

// placeName fills the CEL spelling and profile of a fact or function from
// its tier and profile_or_namespace column.
func (c *Catalog) placeName(name string, tier Tier, col string, celName, profile *string) error {
	switch tier {
	case Core:
		if col != "" {
			return fmt.Errorf("%s: core entries have no profile, got %q", name, col)
		}
	case Standard:
		if ProfileIndex(col) < 0 {
			return fmt.Errorf("%s: unknown profile %q", name, col)
		}
		*profile = col
	case Host:
		if col != HostNamespace+"."+name {
			return fmt.Errorf("%s: host name %q is not %s.%s", name, col, HostNamespace, name)
		}
		*celName = col
		c.hostByBare[name] = col
	default:
		return fmt.Errorf("%s: unknown tier %q", name, tier)
	}
	return nil
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

// GoName turns snake_case into an exported Go identifier: tool_args ->
// ToolArgs, mcp_server_id -> McpServerID is not attempted; initialisms are
// left as written so that names stay predictable.
func GoName(s string) string {
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

// SortedFactNames returns the CEL names of all facts, sorted.
func (c *Catalog) SortedFactNames() []string {
	var out []string
	for _, f := range c.Facts {
		out = append(out, f.CELName)
	}
	sort.Strings(out)
	return out
}
