// Package compiler is the front end of oarc: it loads OAR 1.0 rule packs
// from YAML, validates every field against the spec and the catalog,
// type-checks each `when` with cel-go, lowers it to [ir.Expr] through
// internal/lower, and reports every problem as a [Diagnostic] positioned in
// the YAML file.
package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cel.dev/cel-go/cel"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/ir"
)

// Options configures loading.
type Options struct {
	// Portable makes every use of a host fact or host function an error.
	Portable bool
	// MaxCost is the limit of a rule's estimated CEL cost; 0 means
	// [DefaultMaxCost].
	MaxCost uint64
}

// Pack is a loaded rule pack.
type Pack struct {
	Dir    string // the pack directory, or the rule file for a single file
	Name   string // from pack.yaml; defaults to the directory's base name
	Origin string // "project" or "stock"
	// Rules in evaluation order: kind rank (schema < policy < invariant <
	// detector), then id in byte order.
	Rules []*Rule
	// Env is the CEL environment the rules were checked against.
	Env *cel.Env
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
	Transform   *Transform
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

// Load loads one pack per path (a pack directory or a single rule file) and
// merges them into one pack. Several paths must not define the same rule
// id; the merged pack takes the name and origin of the first path, and
// mixing origins is an error.
func Load(paths []string, opts Options) (*Pack, Diagnostics) {
	if len(paths) == 1 {
		return LoadPack(paths[0], opts)
	}
	var all Diagnostics
	var merged *Pack
	var files []*ruleFile
	for _, p := range paths {
		l := newPackLoader(opts)
		pk := l.readPath(p)
		if merged == nil {
			merged = pk
		} else if pk.Origin != merged.Origin {
			all = append(all, Diagnostic{Pos: Pos{File: p}, Code: CodeEffect,
				Message: fmt.Sprintf("cannot load a %s pack together with a %s pack", pk.Origin, merged.Origin)})
		}
		all = append(all, l.diags...)
		files = append(files, l.files...)
	}
	if merged == nil {
		merged = &Pack{Origin: "project"}
	}
	l := newPackLoader(opts)
	l.pack = merged
	l.files = files
	l.finish()
	all = append(all, l.diags...)
	all.Sort()
	return merged, dedupe(all)
}

// LoadPack loads a pack directory, or a single rule file as a pack of one
// rule (with the origin of the pack.yaml next to its policy directory, if
// any).
func LoadPack(path string, opts Options) (*Pack, Diagnostics) {
	l := newPackLoader(opts)
	l.pack = l.readPath(path)
	l.finish()
	l.diags.Sort()
	return l.pack, dedupe(l.diags)
}

// LoadRuleDoc loads a pack made of one inline rule document (YAML or JSON
// text), as fixtures use: the id need not match a file name. origin is
// "project" or "stock" ("" means "stock", what fixtures use).
func LoadRuleDoc(file string, doc []byte, origin string, opts Options) (*Pack, Diagnostics) {
	if origin == "" {
		origin = "stock"
	}
	l := newPackLoader(opts)
	l.pack = &Pack{Dir: file, Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), Origin: origin}
	l.addFile(file, doc, "")
	l.finish()
	l.diags.Sort()
	return l.pack, dedupe(l.diags)
}

// packLoader collects the files of one pack and their diagnostics.
type packLoader struct {
	opts    Options
	cat     *catalog.Catalog
	pack    *Pack
	files   []*ruleFile
	diags   Diagnostics
	ruleIDs map[string]bool
	// slots are the counter slots of the rules: their index in evaluation
	// order.
	slots map[string]int
}

func newPackLoader(opts Options) *packLoader {
	return &packLoader{opts: opts, cat: catalog.Default()}
}

func (l *packLoader) errorf(p Pos, code, format string, args ...any) {
	l.diags = append(l.diags, Diagnostic{Pos: p, Code: code, Message: fmt.Sprintf(format, args...)})
}

// readPath reads a pack directory or a rule file.
func (l *packLoader) readPath(path string) *Pack {
	pk := &Pack{Dir: path, Origin: "project"}
	l.pack = pk
	st, err := os.Stat(path)
	if err != nil {
		l.errorf(Pos{File: path}, CodeYAML, "cannot read: %v", err)
		return pk
	}
	if !st.IsDir() {
		// A single rule file: take the origin of <pack>/pack.yaml when
		// the file sits in <pack>/policy/.
		pk.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		dir := filepath.Dir(path)
		if filepath.Base(dir) == "policy" {
			if packFile := filepath.Join(filepath.Dir(dir), "pack.yaml"); exists(packFile) {
				l.readPackFile(packFile)
			}
		}
		text, err := readRegular(path)
		if err != nil {
			l.errorf(Pos{File: path}, CodeYAML, "cannot read: %v", err)
			return pk
		}
		stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		l.addFile(path, text, stem)
		return pk
	}
	pk.Name = filepath.Base(filepath.Clean(path))
	if abs, err := filepath.Abs(path); err == nil {
		pk.Name = filepath.Base(abs)
	}
	if packFile := filepath.Join(path, "pack.yaml"); exists(packFile) {
		l.readPackFile(packFile)
	}
	entries, err := os.ReadDir(filepath.Join(path, "policy"))
	if err != nil {
		l.errorf(Pos{File: path}, CodeYAML, "not a pack: cannot read %s: %v", filepath.Join(path, "policy"), err)
		return pk
	}
	// Every entry named like a rule file is read: one that is not a
	// regular file (a directory, or a symlink to one) is an error at its
	// path, never skipped.
	var names []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if ext == ".yaml" || ext == ".yml" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		file := filepath.Join(path, "policy", n)
		text, err := readRegular(file)
		if err != nil {
			l.errorf(Pos{File: file}, CodeYAML, "cannot read: %v", err)
			continue
		}
		l.addFile(file, text, strings.TrimSuffix(n, filepath.Ext(n)))
	}
	return pk
}

// finish runs the checks that need the whole pack: duplicate ids, counter
// references, CEL, profiles; then sorts the rules.
func (l *packLoader) finish() {
	env, err := NewEnv(l.cat)
	if err != nil {
		l.errorf(Pos{File: l.pack.Dir}, CodeCELType, "internal error: CEL environment: %v", err)
	}
	l.pack.Env = env
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
		firstFile[id] = f.src.name
		l.ruleIDs[id] = true
	}
	// The evaluation order, and with it every rule's counter slot, is known
	// before any when is checked, so that the lowering produces final IR.
	l.pack.Rules = nil
	for _, f := range l.files {
		if f.rule != nil {
			l.pack.Rules = append(l.pack.Rules, f.rule)
		}
	}
	sort.SliceStable(l.pack.Rules, func(i, j int) bool {
		a, b := l.pack.Rules[i], l.pack.Rules[j]
		if ra, rb := KindRank(a.Kind), KindRank(b.Kind); ra != rb {
			return ra < rb
		}
		return a.ID < b.ID
	})
	l.slots = map[string]int{}
	for i, r := range l.pack.Rules {
		if _, dup := l.slots[r.ID]; !dup && l.ruleIDs[r.ID] {
			l.slots[r.ID] = i
		}
	}
	for _, f := range l.files {
		if f.rule != nil {
			l.checkRefs(f)
			l.checkReads(f)
		}
	}
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
