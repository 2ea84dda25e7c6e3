package compiler

import (
	"path/filepath"
	"sort"

	"github.com/oarc/oarc/compiler/catalog"
	"github.com/oarc/oarc/compiler/internal/lower"
	"github.com/oarc/oarc/ir"
)

// Build assembles the IR of a loaded set (one without errors): rules in
// evaluation order (a rule's index is its counter slot), anchors' dispatch
// lists and deny-by-default codes, validator slots, the catalog. The
// conditions are the lowering's final IR, taken as they are.
func Build(s *Set) *ir.Set {
	cat := s.Catalog
	out := &ir.Set{Catalog: CatalogIR(cat), Digest: s.Digest}
	for _, pk := range s.Packs {
		info := ir.PackInfo{Name: pk.Name, Origin: pk.Origin}
		for _, src := range pk.Sources {
			info.Sources = append(info.Sources, src.Path)
		}
		sort.Strings(info.Sources)
		out.Packs = append(out.Packs, info)
		for _, b := range pk.Bindings {
			out.Bindings = append(out.Bindings, ir.Binding{Pack: pk.Name, Server: b.Server, Tool: b.Tool, Path: b.Path, Schema: string(b.Schema)})
		}
	}
	slot := map[string]int{}
	for i, r := range s.Rules {
		slot[r.ID] = i
	}
	validators := map[string]bool{}
	for _, r := range s.Rules {
		if r.Detector != "" {
			validators[r.Detector] = true
		}
	}
	for v := range validators {
		out.Validators = append(out.Validators, v)
	}
	sort.Strings(out.Validators)
	// The counters some rule reads (in its when or its selector): only
	// those are kept in the store.
	read := map[ir.CounterRef]bool{}
	for i, r := range s.Rules {
		for _, c := range r.Selector {
			if rd, ok := lower.FactRead(cat, c.Fact, r.ID, i).(*ir.CounterRead); ok {
				read[ir.CounterRef{Rule: rd.Rule, Slot: rd.Slot, Counter: rd.Counter}] = true
			}
		}
		ir.Walk(r.WhenIR, func(e ir.Expr) bool {
			if c, ok := e.(*ir.CounterRead); ok {
				read[ir.CounterRef{Rule: c.Rule, Slot: c.Slot, Counter: c.Counter}] = true
			}
			return true
		})
	}
	anchors := map[string]*ir.Anchor{}
	anchor := func(id string) *ir.Anchor {
		a := anchors[id]
		if a == nil {
			a = &ir.Anchor{ID: id}
			anchors[id] = a
			out.Anchors = append(out.Anchors, a)
		}
		return a
	}
	for i, r := range s.Rules {
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
		}
		pkDir := ""
		if r.Pack != nil {
			ri.Pack = r.Pack.Name
			pkDir = r.Pack.Dir
		}
		ri.Pos = ir.Pos{File: relFile(pkDir, r.File), Line: r.Pos.Line, Col: r.Pos.Col}
		ri.Tags, ri.Text = ruleTokens(r)
		for c := range ri.Stored {
			ri.Stored[c] = read[ir.CounterRef{Rule: r.ID, Slot: i, Counter: ir.Counter(c)}]
		}
		for _, c := range r.OnFire.Increment {
			cnt, _ := ir.ParseCounter(c)
			ri.Increment = append(ri.Increment, cnt)
		}
		for _, c := range r.Selector {
			f := cat.Fact(c.Fact)
			ri.Selector = append(ri.Selector, &ir.Clause{Fact: c.Fact, Profile: f.Profile, Field: lower.FactField(cat, f),
				Type: lower.IRType(c.Type), Values: distinctValues(c.Values), Read: lower.FactRead(cat, c.Fact, r.ID, i)})
		}
		if r.Flow != nil {
			ri.Flow = &ir.Flow{Steps: r.Flow.Steps, Within: r.Flow.Within, Contiguous: r.Flow.Contiguous}
			if f := cat.Fact(cat.Host + ".recent_tool_names"); f != nil {
				ri.Flow.Names = lower.FactField(cat, f)
			}
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
		a := anchor(r.Anchor)
		a.Rules = append(a.Rules, i)
	}
	// The record of tool calls (spec 5.10) is kept when a rule reads a
	// fact derived from it; then every tool.pre_invoke occurrence is
	// recorded, whether or not a rule is at that anchor.
	for _, ri := range out.Rules {
		out.Record = out.Record || ri.Flow != nil
		ir.WalkRule(ri, func(e ir.Expr) bool {
			if f, ok := e.(*ir.Fact); ok && f.Source == ir.FromKept && f.Kept.FromRecord() {
				out.Record = true
			}
			if o, ok := e.(*ir.Observe); ok && o.Builtin.ReadsCallTimes() {
				out.Record, out.Times = true, true
			}
			return true
		})
	}
	if out.Record && cat.Anchor(ir.ToolPreInvoke) != nil {
		anchor(ir.ToolPreInvoke)
	}
	for _, pk := range s.Packs {
		d := pk.DenyByDefault
		if d == nil {
			continue
		}
		for _, id := range d.Anchors {
			anchor(id).Deny = &ir.Deny{Code: d.Code, Pack: pk.Name, Monitor: d.Monitor, Copy: ir.Copy(d.Copy)}
		}
	}
	sort.Slice(out.Anchors, func(i, j int) bool { return out.Anchors[i].ID < out.Anchors[j].ID })
	// Validator slots are per anchor: a rule's index among the validators
	// its anchor's rules name, in the order of the set's validators.
	for _, a := range out.Anchors {
		local := map[string]int{}
		for _, v := range out.Validators {
			for _, ri := range a.Rules {
				if out.Rules[ri].Detector == v {
					local[v] = len(local)
					break
				}
			}
		}
		for _, ri := range a.Rules {
			if r := out.Rules[ri]; r.Detector != "" {
				r.DetectorSlot = local[r.Detector]
			}
		}
	}
	return out
}

// CatalogIR describes a catalog for the code generator.
func CatalogIR(cat *catalog.Catalog) *ir.Catalog {
	out := &ir.Catalog{Host: cat.Host, GoName: cat.GoPackage(), Fingerprint: cat.Fingerprint(), HostField: cat.HostField()}
	for _, a := range cat.Anchors {
		out.Anchors = append(out.Anchors, ir.CatalogAnchor{ID: a.ID, GoName: a.GoName, Title: a.Title, Planes: a.Planes})
	}
	for _, f := range cat.Facts {
		cf := ir.CatalogFact{Name: f.CELName, Type: lower.IRType(f.Type), Tier: string(f.Tier), Profile: f.Profile, Description: f.Description, Kept: ir.Kept(f.Kept)}
		if f.Tier != catalog.Core && f.Kept == catalog.NotKept {
			cf.Field = lower.FactField(cat, f)
		}
		out.Facts = append(out.Facts, cf)
	}
	for _, fn := range cat.Functions {
		cf := ir.CatalogFunction{Name: fn.CELName, Result: lower.IRType(fn.Result), Tier: string(fn.Tier), Profile: fn.Profile, Description: fn.Description}
		for _, p := range fn.Params {
			cf.Params = append(cf.Params, lower.IRType(p))
		}
		if b, ok := ir.BuiltinByName(fn.CELName); ok && !fn.Provider {
			cf.Builtin = b
		} else if fn.Provider {
			cf.Provider = lower.ProviderField(cat, fn)
		}
		out.Functions = append(out.Functions, cf)
	}
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

// distinctValues returns a selector clause's values without repeats, in
// their first order: a list may name a value twice (spec 5.2 does not
// forbid it, and "any of" means the same), and the generated code's switch
// on the values may not have two equal cases.
func distinctValues(vs []any) []any {
	out := make([]any, 0, len(vs))
	seen := map[any]bool{}
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
