// This file owns the loading of one rule into a compilation set that is
// already loaded: how a rule store checks a rule an agent writes at run
// time (spec 12) exactly as oarc check would check it in the set the host
// runs.

package compiler

// LoadRuleDocIn loads an inline rule document (YAML or JSON text) as one
// more rule of the compilation set base, in a pack of its own of the
// given origin ("" means "project"): it is checked against base's
// catalog; its id must be neither an id of base nor of others (rules the
// set runs with, such as the other rules of a store) nor a deny-by-default
// code of base (OAR_ID); fire_count_of, breaker_count_of and
// on_fire.reset may name rules of base and of others, and a project rule
// may not reset a stock rule (OAR_REF). The result is a set of the one
// rule, as [LoadRuleDoc] returns it; its Rules hold only that rule.
func LoadRuleDocIn(base *Set, others []*Rule, file string, doc []byte, origin string, opts Options) (*Set, Diagnostics) {
	if origin == "" {
		origin = "project"
	}
	opts.Catalog = base.Catalog
	l := newPackLoader(opts)
	l.extern = map[string]*Rule{}
	for _, r := range base.Rules {
		l.extern[r.ID] = r
	}
	for _, r := range others {
		l.extern[r.ID] = r
	}
	for _, pk := range base.Packs {
		if d := pk.DenyByDefault; d != nil {
			if _, ok := l.extern[d.Code]; !ok {
				l.extern[d.Code] = nil
			}
		}
	}
	pk := &Pack{Dir: file, Name: file, Origin: origin, Sources: []Source{{Path: file, Content: doc}}}
	l.pack = pk
	packs := []*Pack{pk}
	if l.resolveCatalog(packs) {
		l.addFile(file, doc, "")
	}
	l.finish(packs)
	l.diags.Sort()
	return l.set, dedupe(l.diags)
}
