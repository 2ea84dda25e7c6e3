// This file owns host catalogs written as YAML (spec section 9): their
// decoding and validation, every problem OAR_CATALOG at its position.

package compiler

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/ext"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
)

var (
	catalogFields = []string{"oar_catalog", "host", "anchors", "facts", "functions"}
	anchorFields  = []string{"id", "trigger_class", "surface", "planes", "title", "fires_when"}
	catFactFields = []string{"name", "type", "description"}
	catFuncFields = []string{"name", "signature", "description"}
	planes        = []string{"block", "inform", "transform"}
	anchorIDRE    = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`)
	hostRE        = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	catNameRE     = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	// celReserved are the words CEL's grammar keeps for itself (the
	// language definition's reserved words and its literal keywords): a
	// fact, function or host of that name could not be written in a rule.
	celReserved = map[string]bool{
		"as": true, "break": true, "const": true, "continue": true, "else": true,
		"false": true, "for": true, "function": true, "if": true, "import": true,
		"in": true, "let": true, "loop": true, "package": true, "namespace": true,
		"null": true, "return": true, "true": true, "var": true, "void": true,
		"while": true,
	}
	maxProviderArg = 4
	// maxHostLen is the longest file name file systems allow (NAME_MAX).
	maxHostLen = 255
	// receiverMacros are CEL's standard macros called on a target, with
	// the numbers of arguments the parser expands: host.all(x, p) is the
	// all macro over host, never the host function all.
	receiverMacros = map[string][]int{
		"all": {2}, "exists": {2}, "exists_one": {2}, "filter": {2}, "map": {2, 3},
	}
)

// celFunctions are the names of the functions CEL's environment declares
// before any catalog's (the standard library and the strings extension,
// as NewEnv has them). A host function is declared as host.name: one that
// is CEL's own (strings.quote for a host named strings) would merge with
// CEL's declaration, or fail to, and a rule's call would not reach the
// host.
var celFunctions = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	env, err := cel.NewEnv(ext.Strings())
	if err != nil {
		// NewEnv fails the same way for every catalog: nothing checks.
		return names
	}
	for name := range env.Functions() {
		names[name] = true
	}
	return names
})

var catalogCache sync.Map // absolute path -> *catalogResult

type catalogResult struct {
	once  sync.Once
	cat   *catalog.Catalog
	diags Diagnostics
}

// LoadCatalog reads a host catalog file. Every problem in it is an
// OAR_CATALOG diagnostic at its position; the catalog is nil when there
// is any error. A file is read once per process (the catalog is shared by
// every pack that names it).
func LoadCatalog(file string) (*catalog.Catalog, Diagnostics) {
	key := file
	if abs, err := filepath.Abs(file); err == nil {
		key = abs
	}
	v, _ := catalogCache.LoadOrStore(key, &catalogResult{})
	r := v.(*catalogResult)
	r.once.Do(func() { r.cat, r.diags = loadCatalog(file) })
	return r.cat, r.diags
}

// maxCatalogSize bounds a catalog file, as rule files are bounded
// (docs/choices-frontend.md). The generated catalog package of a catalog
// of this size builds in at most a few hundred MB (BENCHMARKS.md).
const maxCatalogSize = maxFileSize

func loadCatalog(file string) (*catalog.Catalog, Diagnostics) {
	var diags Diagnostics
	text, err := ReadRegularFile(file, maxCatalogSize)
	if errors.Is(err, errFileTooLarge) {
		err = fmt.Errorf("the file is larger than the limit of 1 MiB (%d bytes) for catalog files", maxCatalogSize)
	}
	if err != nil {
		diags = append(diags, Diagnostic{Pos: Pos{File: file}, Code: CodeCatalog, Message: fmt.Sprintf("cannot read the catalog: %v", err)})
		return nil, diags
	}
	cat, ds := ParseCatalog(file, text)
	return cat, ds
}

// ParseCatalog parses the text of a host catalog file.
func ParseCatalog(file string, text []byte) (*catalog.Catalog, Diagnostics) {
	var diags Diagnostics
	c := &fileCtx{src: newSource(file, text), diags: &diags, only: CodeCatalog}
	root := c.parseDoc(text)
	if root == nil {
		diags.Sort()
		return nil, diags
	}
	f := c.fields(root, "catalog", catalogFields)
	switch v, ok := f["oar_catalog"]; {
	case !ok:
		c.missing(root, "oar_catalog", root, CodeCatalog, "missing oar_catalog: '1.0'")
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value == "1.0":
	case v.Kind == yaml.ScalarNode && (v.ShortTag() == "!!float" || v.ShortTag() == "!!int"):
		c.errorf(v, CodeCatalog, "oar_catalog must be the string '1.0', got the number %s (quote it: oar_catalog: '1.0')", v.Value)
	default:
		c.errorf(v, CodeCatalog, "unsupported catalog version %q; oarc implements '1.0'", v.Value)
	}
	host := ""
	if n, ok := f["host"]; !ok {
		c.missing(root, "host", root, CodeCatalog, "missing required field host")
	} else if s, ok := c.str(n, "host"); ok {
		switch {
		case !hostRE.MatchString(s):
			c.errorf(n, CodeCatalog, "host %q does not match %s", s, hostRE)
		case len(s) > maxHostLen:
			// The host's name is a directory name (oarc gen's <out>/<host>).
			c.errorf(n, CodeCatalog, "host is %d characters long; oarc gen writes the catalog package into a directory named after the host, and file systems allow at most %d", len(s), maxHostLen)
		case celReserved[s]:
			c.errorf(n, CodeCatalog, "host %q is a word CEL reserves; rules could not name the host's facts (%s.fact does not parse)", s, s)
		case catalog.IsMapFact(s):
			c.errorf(n, CodeCatalog, "host %q is the name of a map fact: %s.x would read the host's fact x where a rule means the map's field x; choose another host name", s, s)
		default:
			host = s
		}
	}
	seen := map[string]seenName{} // names of facts and functions
	var anchors []*catalog.Anchor
	anchorSeen := map[string]*yaml.Node{}
	if n, ok := f["anchors"]; !ok {
		c.missing(root, "anchors", root, CodeCatalog, "missing required field anchors")
	} else {
		for _, e := range c.list(n, "anchors") {
			af := c.fields(e, "anchor", anchorFields)
			a := &catalog.Anchor{}
			id, ok := c.requiredStr(e, af, "id", "anchor")
			if ok {
				switch {
				case !anchorIDRE.MatchString(id):
					c.errorf(af["id"], CodeCatalog, "anchor id %q does not match %s", id, anchorIDRE)
					ok = false
				case anchorSeen[id] != nil:
					prev := c.src.pos(anchorSeen[id])
					c.errorf(af["id"], CodeCatalog, "anchor %s is given twice (also at %d:%d)", id, prev.Line, prev.Col)
					ok = false
				default:
					// Seen even when another field of this entry is
					// wrong, so that a later entry with the same id is
					// reported too (spec 9: every problem).
					anchorSeen[id] = af["id"]
				}
			}
			a.ID = id
			for _, k := range []struct {
				name string
				dst  *string
			}{{"trigger_class", &a.TriggerClass}, {"surface", &a.Surface}, {"title", &a.Title}, {"fires_when", &a.FiresWhen}} {
				if v, present := af[k.name]; present {
					if s, good := c.str(v, k.name); good {
						*k.dst = s
					}
				}
			}
			if pn, present := af["planes"]; !present {
				c.missing(e, "planes", e, CodeCatalog, "anchor %s: missing required field planes", id)
				ok = false
			} else if ps, nodes, good := c.strList(pn, "planes"); good {
				if len(ps) == 0 {
					c.errorf(pn, CodeCatalog, "anchor %s: planes is empty; an anchor has at least one of %s", id, strings.Join(planes, ", "))
					ok = false
				}
				for i, p := range ps {
					if !contains(planes, p) {
						c.errorf(nodes[i], CodeCatalog, "plane %q is not one of %s", p, strings.Join(planes, ", "))
						ok = false
					} else if contains(ps[:i], p) {
						c.errorf(nodes[i], CodeCatalog, "anchor %s: plane %s is given twice", id, p)
						ok = false
					}
				}
				a.Planes = ps
			} else {
				ok = false
			}
			if ok {
				anchors = append(anchors, a)
			}
		}
	}
	var facts []*catalog.Fact
	if n, ok := f["facts"]; ok {
		for _, e := range c.list(n, "facts") {
			ff := c.fields(e, "fact", catFactFields)
			name, ok := c.catalogName(e, ff, "fact", seen)
			fact := &catalog.Fact{Name: name}
			if tn, present := ff["type"]; !present {
				c.missing(e, "type", e, CodeCatalog, "fact %s: missing required field type", name)
				ok = false
			} else if s, good := c.str(tn, "type"); good {
				t, known := catalog.ParseType(s)
				if !known {
					hint := ""
					if strings.Count(s, "(") > strings.Count(s, ")") {
						// A flow mapping split the type at its comma.
						hint = "; quote a type that has a comma: type: 'map(string, dyn)'"
					}
					c.errorf(tn, CodeCatalog, "fact %s: type %q is not one of %s%s", name, s, typeList(), hint)
					ok = false
				} else if k, kept := catalog.KeptByName[name]; kept && k.Tier == catalog.Host && k.Type != t {
					// Spec 5.10: the engine keeps this fact; a catalog
					// cannot give it another type.
					c.errorf(tn, CodeCatalog, "fact %s is a session fact the engine keeps, of type %s; a catalog that declares it must give that type, not %s", name, k.Type, t)
					ok = false
				}
				fact.Type = t
			} else {
				ok = false
			}
			if dn, present := ff["description"]; present {
				fact.Description, _ = c.str(dn, "description")
			}
			if ok {
				facts = append(facts, fact)
			}
		}
	}
	var funcs []*catalog.Function
	if n, ok := f["functions"]; ok {
		for _, e := range c.list(n, "functions") {
			ff := c.fields(e, "function", catFuncFields)
			name, ok := c.catalogName(e, ff, "function", seen)
			if ok && host != "" && celFunctions()[host+"."+name] {
				c.errorf(ff["name"], CodeCatalog, "function %s: %s.%s is a function of CEL (its standard library or the strings extension), so a rule's call would not reach the host; rename the function or the host", name, host, name)
				ok = false
			}
			fn := &catalog.Function{Name: name}
			if sn, present := ff["signature"]; !present {
				c.missing(e, "signature", e, CodeCatalog, "function %s: missing required field signature", name)
				ok = false
			} else if s, good := c.str(sn, "signature"); good {
				params, res, err := catalog.ParseSignature(s, nil)
				switch {
				case err != nil:
					hint := "; types are " + typeList()
					if strings.HasPrefix(strings.TrimSpace(s), "(") && !strings.Contains(s, ")") {
						// In a flow mapping the comma of "(string, int)"
						// ends the value.
						hint = "; quote a signature that has commas: signature: '(string, int) -> bool'"
					}
					c.errorf(sn, CodeCatalog, "function %s: %v%s", name, err, hint)
					ok = false
				case len(params) > maxProviderArg:
					c.errorf(sn, CodeCatalog, "function %s takes %d arguments; a host function takes at most %d", name, len(params), maxProviderArg)
					ok = false
				case slices.Contains(receiverMacros[name], len(params)):
					// Spec 9 accepts the name; say why no rule can call it.
					c.warnf(sn, CodeCatalog, "function %s takes %d arguments, so a call %s.%s(..) is CEL's %s macro and no rule can call the function; rename it or change its arguments", name, len(params), host, name, name)
				}
				fn.Signature, fn.Params, fn.Result = s, params, res
			} else {
				ok = false
			}
			if dn, present := ff["description"]; present {
				fn.Description, _ = c.str(dn, "description")
			}
			if ok {
				funcs = append(funcs, fn)
			}
		}
	}
	if diags.HasErrors() {
		diags.Sort()
		return nil, diags
	}
	cat, err := catalog.New(host, anchors, facts, funcs)
	if err != nil {
		diags = append(diags, Diagnostic{Pos: Pos{File: file, Line: 1, Col: 1}, Code: CodeCatalog, Message: err.Error()})
		return nil, diags
	}
	cat.File = file
	return cat, diags
}

// catalogName checks the name of a host fact or function: present, well
// formed, not OAR's or oarc's, not given twice (reported at the later one).
// seenName is where a fact or function name was first given, and which.
type seenName struct {
	node *yaml.Node
	what string
}

func (c *fileCtx) catalogName(e *yaml.Node, f map[string]*yaml.Node, what string, seen map[string]seenName) (string, bool) {
	name, ok := c.requiredStr(e, f, "name", what)
	if !ok {
		return name, false
	}
	n := f["name"]
	switch {
	case !catNameRE.MatchString(name):
		c.errorf(n, CodeCatalog, "%s name %q does not match %s", what, name, catNameRE)
	case celReserved[name]:
		c.errorf(n, CodeCatalog, "%s name %q is a word CEL reserves, so no rule could name it", what, name)
	case catalog.IsReserved(name):
		c.errorf(n, CodeCatalog, "%s %s has the name of one of OAR's or oarc's facts or functions; a catalog cannot redefine it", what, name)
	case seen[name].node != nil:
		prev, as := c.src.pos(seen[name].node), ""
		if seen[name].what != what {
			as = " as a " + seen[name].what
		}
		c.errorf(n, CodeCatalog, "%s %s is given twice (also%s at %d:%d)", what, name, as, prev.Line, prev.Col)
	default:
		seen[name] = seenName{n, what}
		return name, true
	}
	return name, false
}

// requiredStr returns the string field name of a catalog entry.
func (c *fileCtx) requiredStr(e *yaml.Node, f map[string]*yaml.Node, name, what string) (string, bool) {
	n, ok := f[name]
	if !ok {
		c.missing(e, name, e, CodeCatalog, "%s: missing required field %s", what, name)
		return "", false
	}
	return c.str(n, name)
}

// list returns the entries of a YAML sequence of mappings.
func (c *fileCtx) list(n *yaml.Node, field string) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		c.errorf(n, CodeFieldType, "%s must be a list, got %s", field, kindName(n))
		return nil
	}
	var out []*yaml.Node
	for _, e := range n.Content {
		if e.Kind != yaml.MappingNode {
			c.errorf(e, CodeFieldType, "each entry of %s must be a mapping, got %s", field, kindName(e))
			continue
		}
		out = append(out, e)
	}
	return out
}

func typeList() string {
	var names []string
	for _, t := range catalog.Types {
		names = append(names, t.String())
	}
	return strings.Join(names, ", ")
}
