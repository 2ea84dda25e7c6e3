// Package compiler is the front end of oarc: it loads OAR 1.0 rule packs
// from YAML, validates every field against the spec and the catalog,
// type-checks each `when` with cel-go, lowers it to [ir.Expr] through
// internal/lower, and reports every problem as a [Diagnostic] positioned in
// the YAML file.
package compiler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"cel.dev/cel-go/cel"
	"go.yaml.in/yaml/v3"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
)

// Options configures loading.
type Options struct {
	// Portable makes every use of a host fact or host function an error.
	Portable bool
	// MaxCost, when not 0, is the limit of a rule's estimated CEL cost
	// (the -max-cost flag): it overrides the packs' max_cost; without it
	// a pack's max_cost applies, else [DefaultMaxCost].
	MaxCost uint64
	// Catalog, when set, is the catalog every pack is checked against
	// (the -catalog flag), whatever its pack.yaml names.
	Catalog *catalog.Catalog
}

// Set is a compilation set (spec section 1): packs loaded together, checked
// against one catalog, evaluated in one order.
type Set struct {
	// Packs are the packs of the set, in the order they were given. A set
	// loaded from a single rule file has one pack, named after the file.
	Packs []*Pack
	// Rules of every pack, in evaluation order: kind rank (schema <
	// policy < invariant < detector), then id in byte order.
	Rules []*Rule
	// Catalog is the catalog the rules were checked against.
	Catalog *catalog.Catalog
	// Env is the CEL environment of the catalog.
	Env *cel.Env
	// Digest identifies the set's sources (spec 10): sha256 of every rule
	// file and pack.yaml, by path and content, and the catalog's
	// fingerprint, in the framing of [Set.ComputeDigest].
	Digest string
}

// Pack is a loaded rule pack.
type Pack struct {
	Dir    string // the pack directory, or the rule file for a single file
	Name   string // from pack.yaml; defaults to the directory's base name
	Origin string // "project" or "stock"
	// CatalogFile is the catalog pack.yaml names, resolved against the
	// pack's directory ("" if none).
	CatalogFile string
	// DenyByDefault is the pack's deny_by_default (stock packs only).
	DenyByDefault *DenyByDefault
	// MaxCost is the pack's limit of a rule's estimated CEL cost (spec 4:
	// max_cost in pack.yaml; 0: the default). The -max-cost flag
	// overrides it.
	MaxCost uint64
	// Bindings are the pack's result bindings (spec 11), in order.
	Bindings []Binding
	// Sources are the pack's files that make its rules (pack.yaml and the
	// rule files), with their content, for the digest.
	Sources []Source

	catalogPos Pos
	deny       *denyNodes
}

// Source is one file of a pack.
type Source struct {
	Path    string // relative to the pack directory, with forward slashes
	Content []byte
}

// DenyByDefault is a stock pack's allowlist (spec 5.8).
type DenyByDefault struct {
	Anchors []string
	Code    string
	Monitor bool // enforcement: monitor
	Copy    Copy
	Pos     Pos // of deny_by_default in pack.yaml
}

// Rule is one rule document, with defaults filled in.
type Rule struct {
	File        string
	Pos         Pos // the document's root mapping
	ID          string
	Kind        string
	Anchor      string
	Effect      string
	Enforcement string // "enforce" (default) or "monitor"
	OnError     string // "fail_closed" (default) or "fail_open"
	Selector    []SelectorClause
	Profiles    []string // requires.profiles, as written
	When        string   // "" if absent
	WhenPos     Pos      // position of the when value
	WhenAST     *cel.Ast // checked; nil if no when
	WhenIR      ir.Expr  // lowered when; nil if no when
	Flow        *Flow
	Detector    string
	Copy        Copy
	OnFire      OnFire
	// Pack is the pack the rule belongs to.
	Pack      *Pack
	Transform *Transform
	// ReadsProfiles are the profiles of the standard facts and functions
	// the rule reads in selector, flow and when, sorted in catalog order.
	ReadsProfiles []string
}

// KindRank is the evaluation rank of a rule kind; unknown kinds rank last.
func KindRank(kind string) int {
	for i, k := range kinds {
		if k == kind {
			return i
		}
	}
	return len(kinds)
}

var kinds = []string{"schema", "policy", "invariant", "detector"}

// SelectorClause is one `selector` entry: the fact must equal one of the
// values (for a list(string) fact: some element must).
type SelectorClause struct {
	Fact   string // CEL name
	Type   catalog.Type
	Values []any // string, int64 or bool
	Pos    Pos
}

// Flow is a rule's `flow`: the steps must match entries of
// lycaon.recent_tool_names in order.
type Flow struct {
	Steps      [][]string // each step: any of these tool names
	Within     int        // 0 = unbounded
	Contiguous bool
	Pos        Pos
}

// Copy is the text shown to an agent when the rule fires.
type Copy struct {
	Title, What, Cause, Why, Fix, Instead string
}

// OnFire lists counter updates done when the rule fires (beyond its own
// fire counter).
type OnFire struct {
	Increment []string // counter names of this rule: "breaker" or "fire"
	Reset     []CounterRef
}

// CounterRef names one counter of one rule of the pack.
type CounterRef struct {
	Rule    string
	Counter string // "fire" or "breaker"
}

// Transform is a `transform` rule's rewrite.
type Transform struct {
	Redact      []string // span facts (CEL names)
	Replacement string
}

// Load loads the pack directories dirs as one compilation set.
func Load(dirs []string, opts Options) (*Set, Diagnostics) {
	return LoadWith(dirs, nil, opts)
}

// LoadWith loads the pack directories dirs as Load does, with rule files
// that are not written yet: each path of added (DIR/policy/NAME.yaml or
// .yml, DIR a directory of dirs as given) reads as a rule file of that
// pack with that content, in place of any file at that path. oarc
// promote checks the files it is about to write with it, exactly as
// oarc check will check them once written.
func LoadWith(dirs []string, added map[string][]byte, opts Options) (*Set, Diagnostics) {
	l := newPackLoader(opts)
	if len(added) > 0 {
		l.added = map[string][]byte{}
		for p, text := range added {
			l.added[filepath.Clean(p)] = text
		}
	}
	var packs []*Pack
	var given []string
	for _, d := range dirs {
		// A directory given twice (pack and pack/, a shell glob) would
		// make every rule a duplicate of itself: say what happened, once.
		if i := slices.IndexFunc(given, func(g string) bool { return sameFile(g, d) }); i >= 0 {
			l.errorf(Pos{File: d}, CodeYAML, "pack %s is given twice (also as %s); the pack directories of a command form one set, each given once", d, given[i])
			continue
		}
		given = append(given, d)
		packs = append(packs, l.readPackMeta(d))
	}
	if l.resolveCatalog(packs) {
		for _, pk := range packs {
			l.readPolicies(pk)
		}
		l.checkDeny(packs)
	}
	l.finish(packs)
	l.diags.Sort()
	return l.set, dedupe(l.diags)
}

// LoadPack loads a pack directory, or a single rule file as a set of one
// rule (with the origin and catalog of the pack.yaml next to its policy
// directory, if any).
func LoadPack(path string, opts Options) (*Set, Diagnostics) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return LoadFile(path, opts)
	}
	return Load([]string{path}, opts)
}

// LoadFile loads a single rule file as a set of one rule, with the origin
// and catalog of the pack.yaml next to its policy directory, if any.
func LoadFile(file string, opts Options) (*Set, Diagnostics) {
	l := newPackLoader(opts)
	pk := &Pack{Dir: file, Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), Origin: "project"}
	l.pack = pk
	dir := filepath.Dir(file)
	// The directory's own name, also when the file is given from inside
	// it (A.yaml, ./A.yaml: the directory is "."); pack.yaml is named
	// relative to the file as given, so that diagnostics in it read like
	// the file's.
	if abs, err := filepath.Abs(dir); err == nil && filepath.Base(abs) == "policy" {
		if packFile := filepath.Join(dir, "..", "pack.yaml"); exists(packFile) {
			name := pk.Name
			l.readPackFile(packFile)
			pk.Name = name
			// pack.yaml stays a source: its origin, catalog and bindings
			// are the rule's, so the digest covers it (spec 10).
			pk.DenyByDefault, pk.deny = nil, nil
		}
	}
	packs := []*Pack{pk}
	if msg := notRuleFile(file); msg != "" {
		// Read as a rule, pack.yaml or a fixture file gives a list of
		// missing and unknown fields that says nothing of the mistake.
		l.errorf(Pos{File: file}, CodeYAML, "%s", msg)
		l.finish(packs)
		return l.set, l.diags
	}
	if l.resolveCatalog(packs) {
		text, err := readRegular(file)
		if err != nil {
			l.errorf(Pos{File: file}, CodeYAML, "cannot read: %v", err)
		} else {
			pk.Sources = append(pk.Sources, Source{Path: filepath.Base(file), Content: text})
			l.addFile(file, text, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))
		}
	}
	l.finish(packs)
	l.diags.Sort()
	return l.set, dedupe(l.diags)
}

// notRuleFile says why file, given where a rule file is expected, is
// another file of a pack (spec 1): its pack.yaml, or a fixture file; ""
// when it may be a rule file.
func notRuleFile(file string) string {
	switch base := filepath.Base(file); {
	case base == "pack.yaml":
		return fmt.Sprintf("pack.yaml is the pack's own file, not a rule file: give the pack directory (%s) to load the pack with its rules", filepath.Dir(file))
	case strings.EqualFold(filepath.Ext(base), ".json"):
		return "a .json file is not a rule file (a rule file is <ID>.yaml or <ID>.yml); fixture files are run by oarc test"
	}
	return ""
}

// LoadRuleDoc loads a set made of one inline rule document (YAML or JSON
// text), as fixtures use: the id need not match a file name. origin is
// "project" or "stock" ("" means "stock", what fixtures use).
func LoadRuleDoc(file string, doc []byte, origin string, opts Options) (*Set, Diagnostics) {
	if origin == "" {
		origin = "stock"
	}
	l := newPackLoader(opts)
	pk := &Pack{Dir: file, Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), Origin: origin,
		Sources: []Source{{Path: filepath.Base(file), Content: doc}}}
	l.pack = pk
	packs := []*Pack{pk}
	if l.resolveCatalog(packs) {
		l.addFile(file, doc, "")
	}
	l.finish(packs)
	l.diags.Sort()
	return l.set, dedupe(l.diags)
}

// packLoader collects the files of a compilation set and their
// diagnostics.
type packLoader struct {
	opts Options
	cat  *catalog.Catalog
	set  *Set
	pack *Pack // the pack being read
	// added are rule files not written yet, by clean path ([LoadWith]).
	added   map[string][]byte
	files   []*ruleFile
	diags   Diagnostics
	ruleIDs map[string]bool
	// slots are the counter slots of the rules: their index in evaluation
	// order.
	slots map[string]int
	// extern are the rules outside the loaded files that the set runs
	// with ([LoadRuleDocIn]): their ids are taken, and they may be named
	// by counter references. A nil rule is a reserved id (a
	// deny-by-default code).
	extern map[string]*Rule
}

func newPackLoader(opts Options) *packLoader {
	return &packLoader{opts: opts, cat: catalog.Default(), set: &Set{}}
}

func (l *packLoader) errorf(p Pos, code, format string, args ...any) {
	l.diags = append(l.diags, Diagnostic{Pos: p, Code: code, Message: fmt.Sprintf(format, args...)})
}

// readPackMeta reads a pack directory's pack.yaml.
func (l *packLoader) readPackMeta(path string) *Pack {
	pk := &Pack{Dir: path, Origin: "project"}
	l.pack = pk
	pk.Name = filepath.Base(filepath.Clean(path))
	if abs, err := filepath.Abs(path); err == nil {
		pk.Name = filepath.Base(abs)
	}
	st, err := os.Stat(path)
	switch {
	case err != nil:
		l.errorf(Pos{File: path}, CodeYAML, "cannot read: %v", err)
		return pk
	case !st.IsDir():
		l.errorf(Pos{File: path}, CodeYAML, "not a pack directory")
		return pk
	}
	if packFile := filepath.Join(path, "pack.yaml"); exists(packFile) {
		l.readPackFile(packFile)
	}
	return pk
}

// resolveCatalog decides the set's catalog: -catalog, else the one the
// packs' pack.yaml name, else the default. It reports whether the rules
// can be checked (the catalog loaded). Packs naming files that are not
// the same file may still name the same catalog: byte-identical copies
// (each pack of a set vendoring its host's file) are one catalog; files
// that differ in any byte, even only in a description or a spelling of a
// type, are OAR_CATALOG at the later pack (spec 9), since the set's rules
// are rendered and compiled with one of them.
func (l *packLoader) resolveCatalog(packs []*Pack) bool {
	if l.opts.Catalog != nil {
		l.cat = l.opts.Catalog
		return true
	}
	type named struct {
		pk   *Pack
		cat  *catalog.Catalog
		data []byte
	}
	var files []named // the first pack naming each distinct file
	ok := true
	for _, pk := range packs {
		if pk.CatalogFile == "" {
			continue
		}
		if !exists(pk.CatalogFile) {
			// Reported at every pack naming it, besides any difference:
			// each is a problem of its own (spec 7 reports them all).
			l.errorf(pk.catalogPos, CodeCatalog, "catalog %s: no such file", pk.CatalogFile)
			ok = false
		}
		seen := false
		for _, f := range files {
			if sameFile(pk.CatalogFile, f.pk.CatalogFile) {
				seen = true
				break
			}
		}
		if !seen {
			files = append(files, named{pk: pk})
		}
	}
	for i := range files {
		if !exists(files[i].pk.CatalogFile) {
			continue
		}
		cat, ds := LoadCatalog(files[i].pk.CatalogFile)
		l.diags = append(l.diags, ds...)
		if cat == nil {
			ok = false
		}
		files[i].cat = cat
		if len(files) > 1 {
			data, err := os.ReadFile(files[i].pk.CatalogFile)
			if err != nil {
				// Read a moment ago by LoadCatalog: a file that cannot be
				// read now is not shown to be a copy.
				data = nil
			}
			files[i].data = data
		}
	}
	if len(files) == 0 {
		return ok
	}
	first := files[0]
	for _, f := range files[1:] {
		if first.cat != nil && f.cat != nil && first.data != nil && bytes.Equal(f.data, first.data) {
			continue
		}
		// A file that is missing or does not load is not shown to be a
		// copy of the other: both problems are reported.
		l.errorf(f.pk.catalogPos, CodeCatalog, "pack %s names the catalog %s, but pack %s names %s: the packs of a set use one catalog",
			f.pk.Name, f.pk.CatalogFile, first.pk.Name, first.pk.CatalogFile)
		ok = false
	}
	if !ok {
		return false
	}
	l.cat = first.cat
	return true
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// readPolicies reads the rule files of a pack directory.
func (l *packLoader) readPolicies(pk *Pack) {
	l.pack = pk
	path := pk.Dir
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return
	}
	l.unreadFixtures(path)
	entries, err := os.ReadDir(filepath.Join(path, "policy"))
	if errors.Is(err, fs.ErrNotExist) {
		// A policy/ that is a symlink to nothing is not an absent
		// policy/: the rules it led to are gone (a missing mount or
		// checkout), and a pack of no rules would load in their place.
		if pol := filepath.Join(path, "policy"); isSymlink(pol) {
			target, _ := os.Readlink(pol)
			l.errorf(Pos{File: pol}, CodeYAML, "cannot read: policy/ is a symlink to %s, which does not exist", target)
			return
		}
	}
	var added []string
	for p := range l.added {
		if filepath.Dir(p) == filepath.Clean(filepath.Join(path, "policy")) {
			added = append(added, filepath.Base(p))
		}
	}
	if errors.Is(err, fs.ErrNotExist) && len(added) > 0 {
		entries, err = nil, nil
	}
	if errors.Is(err, fs.ErrNotExist) && exists(filepath.Join(path, "pack.yaml")) {
		// A pack of pack.yaml alone (a deny-by-default pack linked with
		// others, say) has no rules: git cannot even keep its empty
		// policy/ directory. It loads, with a warning: a policy/ that
		// was lost must not pass unseen as a pack without rules
		// (-strict fails on it).
		l.diags = append(l.diags, Diagnostic{Pos: Pos{File: path}, Severity: Warning, Code: CodeYAML,
			Message: "no policy/ directory: the pack has no rules, only its pack.yaml"})
		return
	}
	if err != nil {
		msg := fmt.Sprintf("not a pack: cannot read %s: %v", filepath.Join(path, "policy"), err)
		if errors.Is(err, fs.ErrNotExist) && filepath.Base(filepath.Clean(path)) == "policy" {
			// The policy directory itself, given for its pack.
			msg = fmt.Sprintf("not a pack: this is a pack's policy directory; give the pack directory %s, which holds policy/ (and pack.yaml)", filepath.Dir(filepath.Clean(path)))
		}
		l.errorf(Pos{File: path}, CodeYAML, "%s", msg)
		return
	}
	// Every entry named like a rule file is read: one that is not a
	// regular file (a directory, or a symlink to one) is an error at its
	// path, never skipped.
	var names []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		switch {
		case ext == ".yaml" || ext == ".yml":
			names = append(names, e.Name())
		case strings.EqualFold(ext, ".yaml") || strings.EqualFold(ext, ".yml"):
			// Spec 1 reads <ID>.yaml and <ID>.yml only; a rule in
			// X.YAML would be left out without a word.
			l.diags = append(l.diags, Diagnostic{Pos: Pos{File: filepath.Join(path, "policy", e.Name())}, Severity: Warning, Code: CodeYAML,
				Message: fmt.Sprintf("not read: rule files end in .yaml or .yml, lowercase; rename it %s to load it", strings.TrimSuffix(e.Name(), ext)+strings.ToLower(ext))})
		case e.IsDir():
			// Spec 1 reads policy/ itself; rules filed under a
			// subdirectory would be left out without a word.
			sub := filepath.Join(path, "policy", e.Name())
			if rel := firstNamed(sub, ".yaml", ".yml"); rel != "" {
				l.diags = append(l.diags, Diagnostic{Pos: Pos{File: sub}, Severity: Warning, Code: CodeYAML,
					Message: fmt.Sprintf("not read: this directory holds %s, but rules are read from policy/ itself only, not its subdirectories; move them to policy/ to load them", filepath.ToSlash(rel))})
			}
		}
	}
	for _, n := range added {
		if ext := filepath.Ext(n); (ext == ".yaml" || ext == ".yml") && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		file := filepath.Join(path, "policy", n)
		text, ok := l.added[filepath.Clean(file)]
		var err error
		if !ok {
			text, err = readRegular(file)
		}
		if err != nil {
			l.errorf(Pos{File: file}, CodeYAML, "cannot read: %v", err)
			continue
		}
		pk.Sources = append(pk.Sources, Source{Path: "policy/" + n, Content: text})
		l.addFile(file, text, strings.TrimSuffix(n, filepath.Ext(n)))
	}
}

// unreadFixtures warns of the files of the pack's fixtures/ that look
// like fixture files but that no command runs (spec 1 runs
// fixtures/*.json only): X.JSON, and .json files in a subdirectory. Like a
// rule file that is not read, a fixture with a wrong expectation there
// would sit unseen while oarc test passes.
func (l *packLoader) unreadFixtures(pack string) {
	dir := filepath.Join(pack, "fixtures")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch ext := filepath.Ext(e.Name()); {
		case ext != ".json" && strings.EqualFold(ext, ".json"):
			l.diags = append(l.diags, Diagnostic{Pos: Pos{File: p}, Severity: Warning, Code: CodeYAML,
				Message: fmt.Sprintf("not run: fixture files end in .json, lowercase; rename it %s to run it", strings.TrimSuffix(e.Name(), ext)+".json")})
		case e.IsDir():
			if rel := firstNamed(p, ".json"); rel != "" {
				l.diags = append(l.diags, Diagnostic{Pos: Pos{File: p}, Severity: Warning, Code: CodeYAML,
					Message: fmt.Sprintf("not run: this directory holds %s, but fixtures are read from fixtures/ itself only, not its subdirectories; move them to fixtures/ to run them", filepath.ToSlash(rel))})
			}
		}
	}
}

// firstNamed returns the path, relative to dir, of the first file under
// dir (in lexical order, symlinks not followed) whose extension is one of
// exts in any case; "" when there is none.
func firstNamed(dir string, exts ...string) string {
	found := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipAll
		}
		ext := filepath.Ext(p)
		if !d.IsDir() && slices.ContainsFunc(exts, func(e string) bool { return strings.EqualFold(ext, e) }) {
			found, _ = filepath.Rel(dir, p)
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// finish runs the checks that need the whole set: duplicate ids, counter
// references, CEL, profiles; then orders the rules.
func (l *packLoader) finish(packs []*Pack) {
	l.set.Packs = packs
	l.set.Catalog = l.cat
	env, err := NewEnv(l.cat)
	if err != nil {
		l.errorf(Pos{File: packs[0].Dir}, CodeCELType, "internal error: CEL environment: %v", err)
	}
	l.set.Env = env
	l.ruleIDs = map[string]bool{}
	firstFile := map[string]string{}
	for _, f := range l.files {
		if f.rule == nil || f.rule.ID == "" || !f.idValid {
			continue
		}
		id := f.rule.ID
		if prev, ok := firstFile[id]; ok {
			l.errorf(f.idPos, CodeID, "duplicate rule id %s (also defined in %s)", id, prev)
			continue
		}
		if x, ok := l.extern[id]; ok {
			where := "a deny-by-default code of the compilation set"
			if x != nil {
				where = "a rule of the compilation set (" + x.File + ")"
			}
			l.errorf(f.idPos, CodeID, "duplicate rule id %s: it is already %s", id, where)
			continue
		}
		firstFile[id] = f.src.name
		l.ruleIDs[id] = true
	}
	for id, x := range l.extern {
		if x != nil {
			l.ruleIDs[id] = true
		}
	}
	for _, pk := range packs {
		if dn := pk.deny; dn != nil && dn.code != "" && l.ruleIDs[dn.code] {
			l.errorf(dn.codePos, CodeID, "deny_by_default code %s is the id of a rule of the set (defined in %s); the code is not a rule", dn.code, firstFile[dn.code])
			pk.DenyByDefault = nil
		}
	}
	// The evaluation order, and with it every rule's counter slot, is known
	// before any when is checked, so that the lowering produces final IR.
	l.set.Rules = nil
	for _, f := range l.files {
		if f.rule != nil {
			l.set.Rules = append(l.set.Rules, f.rule)
		}
	}
	sort.SliceStable(l.set.Rules, func(i, j int) bool {
		a, b := l.set.Rules[i], l.set.Rules[j]
		if ra, rb := KindRank(a.Kind), KindRank(b.Kind); ra != rb {
			return ra < rb
		}
		return a.ID < b.ID
	})
	l.slots = map[string]int{}
	for i, r := range l.set.Rules {
		if _, dup := l.slots[r.ID]; !dup && l.ruleIDs[r.ID] && l.extern[r.ID] == nil {
			l.slots[r.ID] = i
		}
	}
	// Rules outside the files take the slots after them, in id order, so
	// that counter references to them lower like any other.
	for i, id := range slices.Sorted(maps.Keys(l.extern)) {
		if l.extern[id] != nil {
			l.slots[id] = len(l.set.Rules) + i
		}
	}
	for _, f := range l.files {
		if f.rule != nil {
			before := len(l.diags)
			l.checkRefs(f)
			l.checkReads(f, before)
		}
	}
	l.checkDuplicates()
	l.set.Digest = l.set.ComputeDigest()
}

// ComputeDigest is the digest of the set (spec 10): the hex sha256, with
// the prefix "sha256:", of
//
//	oarc-digest-v1\n
//	for every source, sorted by pack name then path (then content: two
//	packs of one name each have a pack.yaml):
//	    <pack name>/<path>\n<length in bytes>\n<content>\n
//	only when a pack has result bindings (spec 11):
//	    bindings\n
//	    for every schema file they name, once, sorted the same way:
//	        <pack name>/<path as pack.yaml gives it>\n<length in bytes>\n<content>\n
//	catalog <fingerprint>\n
//
// A binding's schema decides what mcp_schema_matched and mcp_field_* answer,
// so it is a rule source like pack.yaml: a change to it changes the digest.
// Every entry's name holds a "/", the "bindings" line none, so the framing
// stays unambiguous, and a set without bindings keeps the digest it had.
func (s *Set) ComputeDigest() string {
	type entry struct {
		name    string
		content []byte
	}
	// Two packs of one name (two directories named rules/, spec 1 does
	// not ask for distinct names) each give NAME/pack.yaml: the content
	// orders them, so the digest does not depend on the order the packs
	// were given. (Rule files cannot collide: ids are unique in a set.)
	sorted := func(es []entry) []entry {
		sort.Slice(es, func(i, j int) bool {
			if es[i].name != es[j].name {
				return es[i].name < es[j].name
			}
			return bytes.Compare(es[i].content, es[j].content) < 0
		})
		return es
	}
	var es, schemas []entry
	for _, pk := range s.Packs {
		for _, src := range pk.Sources {
			es = append(es, entry{pk.Name + "/" + src.Path, src.Content})
		}
		for _, b := range pk.Bindings {
			if b.Schema != nil {
				schemas = append(schemas, entry{pk.Name + "/" + b.Path, b.Schema})
			}
		}
	}
	h := sha256.New()
	io.WriteString(h, "oarc-digest-v1\n")
	write := func(es []entry) {
		for _, e := range sorted(es) {
			fmt.Fprintf(h, "%s\n%d\n", e.name, len(e.content))
			h.Write(e.content)
			io.WriteString(h, "\n")
		}
	}
	write(es)
	if len(schemas) > 0 {
		// Two bindings may name one schema: it is written once.
		io.WriteString(h, "bindings\n")
		write(slices.CompactFunc(sorted(schemas), func(a, b entry) bool { return a.name == b.name && bytes.Equal(a.content, b.content) }))
	}
	if s.Catalog != nil {
		fmt.Fprintf(h, "catalog %s\n", s.Catalog.Fingerprint())
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// validPackName reports whether s, the value of pack.yaml's name (node
// n), is a name a pack may have; if not, it reports OAR_VALUE at the first
// character it refuses. A pack's name is printed in reports (oarc stats,
// oarc render) and written in every decision record, where a control
// character (a line feed, an ANSI escape) or another invisible character
// (HiddenRune: Unicode Cf such as zero width, bidi controls, tag
// characters, soft hyphen, BOM; Hangul fillers; variation selectors but a
// presentation selector after a visible character), or a line or
// paragraph separator, would forge or hide what is shown; so would a
// blank name. Any other string is a name, spaces and letters of any script
// included.
func (c *fileCtx) validPackName(n *yaml.Node, s string) bool {
	if strings.TrimSpace(s) == "" {
		c.errorf(n, CodeValue, "pack name %q is blank; a pack's name tells its rules apart in reports and decision records, so give it a name or leave name out (the directory's name is the default)", s)
		return false
	}
	prev := rune(-1)
	for i, r := range s {
		hidden := hiddenAfter(prev, r) || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85
		prev = r
		if !hidden && !unicode.In(r, unicode.Zl, unicode.Zp) {
			continue
		}
		what := "the control character"
		switch {
		case unicode.In(r, unicode.Zl, unicode.Zp):
			what = "the line or paragraph separator"
		case !unicode.IsControl(r):
			what = "the invisible character"
		}
		c.errorAt(c.src.mapScalar(n).position(i), CodeValue, "pack name %q holds %s %U; a pack's name is shown in reports and decision records, so it may hold no control or invisible characters", s, what, r)
		return false
	}
	return true
}

// dedupe drops diagnostics identical to their predecessor (after sorting).
func dedupe(ds Diagnostics) Diagnostics {
	var out Diagnostics
	for i, d := range ds {
		if i > 0 && d == ds[i-1] {
			continue
		}
		out = append(out, d)
	}
	return out
}
