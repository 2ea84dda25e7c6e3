package catalog

// This file owns the Go names of a catalog: the identifiers under which the
// generated catalog package declares the anchors, the host field, the host
// facts and the providers, and the name of the package itself. Spec 9
// accepts names that Go cannot use as they are (x1 and x_1 both CamelCase to
// X1; a host named tool would be a second Facts.Tool; an anchor named facts
// would be a second Facts; a package named main cannot be imported), so the
// generator renames where Go needs it, by one documented rule
// (docs/hosts.md, "Go names"):
//
//   - A name's Go name is its CamelCase form (GoName): the first letter and
//     every letter after a "_" or "." upper-cased, the "_" and "." dropped
//     (tool.pre_invoke -> ToolPreInvoke, repeat_count -> RepeatCount).
//   - When that form is shared by another name of the same kind (anchors;
//     host facts; provider-backed functions by their CEL name, so
//     acme.outside_scope and the standard path_outside_scope meet), or is
//     an identifier the generated package already declares in the same
//     place (reserved below), the name is spelled exactly instead
//     (ExactGoName): x1 -> X1_, x_1 -> X_1_, set -> Set_.
//
// The exact spelling is injective and always ends in "_", which no CamelCase
// form contains, so a renamed name can meet neither another renamed name nor
// a name left as it is. Whether a name is renamed depends only on the names
// it would collide with, never on the order of the catalog, so that adding
// an entry can rename another (which then fails to compile in the host) but
// never hands one name's Go name to another name (which would compile and
// misread a fact). Names of OAR's own entries are never renamed: hosts and
// generated code use them as they are.

import (
	"fmt"
	"go/token"
	"strings"
	"unicode"
)

// Identifiers the generated catalog package declares, where catalog names
// become Go names beside them (codegen.GenerateCatalog).
var (
	// reservedPackage are its package-level identifiers, beside the anchor
	// constants (and CatalogIs_<fingerprint>, added per catalog).
	reservedPackage = []string{"Anchor", "Env", "Facts", "Fingerprint", "HostFacts", "LazyFacts", "LazyHostFacts", "Occurrence", "ParseAnchor", "Providers", "Validator"}
	// reservedFacts are the methods of Facts, beside the standard facts
	// and the host field.
	reservedFacts = []string{"Get", "Set"}
	// reservedProviders are the methods of Providers, beside its fields.
	reservedProviders = []string{"Set"}
)

// GoName turns snake_case or a dotted name into an exported Go identifier,
// its CamelCase form: tool_args -> ToolArgs, tool.pre_invoke ->
// ToolPreInvoke. Initialisms are left as written (mcp_server_id ->
// McpServerId) so that names stay predictable. Distinct names may share a
// CamelCase form (x1, x_1); the catalog resolves those with [ExactGoName].
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

// ExactGoName spells a catalog name (matching [a-z][a-z0-9_.]*, as spec 9
// allows for names and anchor ids) as an exported Go identifier without
// losing anything: the first letter upper-cased, every "_", digit and
// lower-case letter kept, every "." dropped and the letter after it
// upper-cased, then a final "_" (x_1 -> X_1_, tool.pre_invoke ->
// ToolPre_invoke_). "Z" is the escape of the dot: ".z" becomes "ZZ", and a
// "." before a digit or "_" becomes "Z" (a.1 -> AZ1_), so that the
// spelling stays injective.
func ExactGoName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 0:
			b.WriteByte(upper(c))
		case c == '.' && i+1 < len(s):
			i++
			n := s[i]
			switch {
			case n == 'z':
				b.WriteString("ZZ")
			case n >= 'a' && n <= 'z':
				b.WriteByte(upper(n))
			default:
				b.WriteByte('Z')
				b.WriteByte(n)
			}
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('_')
	return b.String()
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// goNames resolves the Go names of one kind of names in one place: each
// name's CamelCase form, unless another of the names shares it or it is
// taken, then its exact spelling. It fails (a bug in oarc, never a
// catalog's fault) when the result is not a set of distinct, valid,
// untaken identifiers.
func goNames(names []string, taken map[string]bool) ([]string, error) {
	count := map[string]int{}
	for _, n := range names {
		count[GoName(n)]++
	}
	out := make([]string, len(names))
	seen := map[string]string{}
	for i, n := range names {
		g := GoName(n)
		if count[g] > 1 || taken[g] {
			g = ExactGoName(n)
		}
		if !token.IsIdentifier(g) || !token.IsExported(g) || taken[g] {
			return nil, fmt.Errorf("the Go name %s of %q is not usable (a bug in oarc)", g, n)
		}
		if prev, dup := seen[g]; dup {
			return nil, fmt.Errorf("%q and %q have the same Go name %s (a bug in oarc)", prev, n, g)
		}
		seen[g] = n
		out[i] = g
	}
	return out, nil
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// resolveGoNames gives every anchor, fact and function of c its Go name,
// and c its host field and package name.
func (c *Catalog) resolveGoNames() error {
	// Anchors: package-level constants.
	taken := set(reservedPackage...)
	taken["CatalogIs_"+c.fingerprint] = true
	ids := make([]string, len(c.Anchors))
	for i, a := range c.Anchors {
		ids[i] = a.ID
	}
	names, err := goNames(ids, taken)
	if err != nil {
		return fmt.Errorf("anchors: %v", err)
	}
	for i, a := range c.Anchors {
		a.GoName = names[i]
	}

	// Facts: the standard ones as they are, fields of Facts beside the
	// host field; the host ones fields of HostFacts.
	inFacts := set(reservedFacts...)
	var host []*Fact
	for _, f := range c.Facts {
		switch f.Tier {
		case Host:
			host = append(host, f)
		case Standard:
			f.GoName = GoName(f.Name)
			if inFacts[f.GoName] {
				return fmt.Errorf("standard fact %s: Go name %s is taken", f.Name, f.GoName)
			}
			inFacts[f.GoName] = true
		default:
			f.GoName = GoName(f.Name)
		}
	}
	hf, err := goNames([]string{c.Host}, inFacts)
	if err != nil {
		return fmt.Errorf("host: %v", err)
	}
	c.hostField = hf[0]
	bare := make([]string, len(host))
	for i, f := range host {
		bare[i] = f.Name
	}
	if names, err = goNames(bare, nil); err != nil {
		return fmt.Errorf("host facts: %v", err)
	}
	for i, f := range host {
		f.GoName = names[i]
	}

	// Functions: the providers are fields of Providers, the standard ones
	// as they are, the host ones named after their CEL name.
	inProviders := set(reservedProviders...)
	var hostFns []*Function
	for _, fn := range c.Functions {
		fn.GoName = GoName(fn.Name)
		switch {
		case fn.Tier == Host:
			hostFns = append(hostFns, fn)
		case fn.Provider:
			if inProviders[fn.GoName] {
				return fmt.Errorf("function %s: Go name %s is taken", fn.Name, fn.GoName)
			}
			inProviders[fn.GoName] = true
		}
	}
	cel := make([]string, len(hostFns))
	for i, fn := range hostFns {
		cel[i] = fn.CELName
	}
	if names, err = goNames(cel, inProviders); err != nil {
		return fmt.Errorf("host functions: %v", err)
	}
	for i, fn := range hostFns {
		fn.GoName = names[i]
	}

	c.goPackage = c.Host
	if token.IsKeyword(c.Host) || c.Host == "main" || c.Host == "init" {
		// Not a package name another package can import as it is.
		c.goPackage = c.Host + "_"
	}
	return nil
}
