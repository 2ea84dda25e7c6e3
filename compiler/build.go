package compiler

import (
	"path/filepath"
	"sort"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/compiler/internal/lower"
	"github.com/oarc/oarc/ir"
)

// Build assembles the IR of a loaded pack (one without errors): rules in
// evaluation order (a rule's index is its counter slot), anchors' dispatch
// lists, validator slots. The conditions are the lowering's final IR, taken
// as they are.
func Build(p *Pack) *ir.Pack {
	cat := catalog.Default()
	out := &ir.Pack{Name: p.Name, Origin: p.Origin,
		Catalog: ir.Catalog{Host: catalog.HostNamespace, Fingerprint: cat.Fingerprint()}}
	slot := map[string]int{}
	for i, r := range p.Rules {
		slot[r.ID] = i
	}
	validators := map[string]bool{}
	for _, r := range p.Rules {
		if r.Detector != "" {
			validators[r.Detector] = true
		}
	}
	for v := range validators {
		out.Validators = append(out.Validators, v)
	}
	sort.Strings(out.Validators)
	vslot := map[string]int{}
	for i, v := range out.Validators {
		vslot[v] = i
	}
	anchors := map[string]*ir.Anchor{}
	for i, r := range p.Rules {
		kind, _ := ir.ParseRuleKind(r.Kind)
		effect, _ := ir.ParseEffect(r.Effect)
		ri := &ir.Rule{
			Index:        i,
			ID:           r.ID,
			Kind:         kind,
			Anchor:       r.Anchor,
			Effect:       effect,
			Monitor:      r.Enforcement == "monitor",
			FailOpen:     r.OnError == "fail_open",
			Profiles:     append([]string(nil), r.Profiles...),
			Detector:     r.Detector,
			DetectorSlot: -1,
			When:         r.WhenIR,
			WhenSource:   r.When,
			Copy:         ir.Copy(r.Copy),
			Pos:          ir.Pos{File: relFile(p.Dir, r.File), Line: r.Pos.Line, Col: r.Pos.Col},
		}
		for _, c := range r.OnFire.Increment {
			cnt, _ := ir.ParseCounter(c)
			ri.Increment = append(ri.Increment, cnt)
		}
		if r.Detector != "" {
			ri.DetectorSlot = vslot[r.Detector]
		}
		for _, c := range r.Selector {
			ri.Selector = append(ri.Selector, &ir.Clause{Fact: c.Fact, Field: lower.FactField(cat, cat.Fact(c.Fact)),
				Type: lower.IRType(c.Type), Values: c.Values})
		}
		if r.Flow != nil {
			ri.Flow = &ir.Flow{Steps: r.Flow.Steps, Within: r.Flow.Within, Contiguous: r.Flow.Contiguous,
				Names: lower.FactField(cat, cat.Fact(catalog.HostNamespace+".recent_tool_names"))}
		}
		for _, c := range r.OnFire.Reset {
			cnt, _ := ir.ParseCounter(c.Counter)
			ri.Reset = append(ri.Reset, ir.CounterRef{Rule: c.Rule, Slot: slot[c.Rule], Counter: cnt})
		}
		if r.Transform != nil {
			ri.Redact = append([]string(nil), r.Transform.Redact...)
			ri.Replacement = r.Transform.Replacement
		}
		out.Rules = append(out.Rules, ri)
		a := anchors[r.Anchor]
		if a == nil {
			a = &ir.Anchor{ID: r.Anchor}
			anchors[r.Anchor] = a
			out.Anchors = append(out.Anchors, a)
		}
		a.Rules = append(a.Rules, i)
		out.Sources = append(out.Sources, ri.Pos.File)
	}
	sort.Slice(out.Anchors, func(i, j int) bool { return out.Anchors[i].ID < out.Anchors[j].ID })
	sort.Strings(out.Sources)
	return out
}

// relFile spells a rule file relative to its pack, with forward slashes, so
// that generated code does not depend on where the pack was checked out.
func relFile(dir, file string) string {
	if rel, err := filepath.Rel(dir, file); err == nil && dir != file && !filepath.IsAbs(rel) && rel != "." && len(rel) > 0 && rel[0] != '.' {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(filepath.Base(file))
}
