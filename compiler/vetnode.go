// This file owns the check of `oarc vet` on the fields of provenance nodes
// (OAR_VET_NODE_FIELD, spec 5.11): an element of provenance_nodes is a map
// with a fixed set of keys, and reading another one (a misspelling such as
// n.lables) is an error on every node, so a rule that fails open never
// fires and one that fails closed fires whenever a node is in scope.

package compiler

import (
	"strings"
	"unicode/utf8"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
)

// nodeFields are the keys of every element of provenance_nodes (spec 5.11).
var nodeFields = []string{"id", "kind", "tool", "origin", "trust_tier", "labels", "args", "input"}

// nodeField warns at every read of a key that no provenance node has: a
// field selection or an index by a string literal of a comprehension
// variable over provenance_nodes, or of an index into it.
func (v *vetter) nodeField(r *Rule) {
	if r.WhenAST == nil || v.set.Catalog.Fact("provenance_nodes") == nil {
		return
	}
	a := r.WhenAST.NativeRep()
	g := &argReader{v: v, r: r, info: a.SourceInfo(), refs: a.ReferenceMap(), local: localRefs(a.Expr())}
	isNodes := func(e ast.Expr) bool {
		if e.Kind() != ast.IdentKind || g.local[e.ID()] {
			return false
		}
		ref, ok := g.refs[e.ID()]
		return ok && ref.Name == "provenance_nodes" && ref.Value == nil
	}
	// nodeVars are the comprehension variables in scope that range over
	// provenance_nodes (true) or over something else (false, shadowing).
	var nodeVars []struct {
		name string
		node bool
	}
	isNode := func(e ast.Expr) bool {
		switch e.Kind() {
		case ast.IdentKind:
			if !g.local[e.ID()] {
				return false
			}
			for i := len(nodeVars) - 1; i >= 0; i-- {
				if nodeVars[i].name == e.AsIdent() {
					return nodeVars[i].node
				}
			}
		case ast.CallKind:
			c := e.AsCall()
			return c.FunctionName() == operators.Index && !c.IsMemberFunction() && len(c.Args()) == 2 && isNodes(c.Args()[0])
		}
		return false
	}
	// report warns at code point offset at, the start of the field.
	report := func(at int, field string, test bool) {
		if contains(nodeFields, field) {
			return
		}
		what := "reading it is an error on every node (the rule " + onErrorOutcome(r) + ")"
		if test {
			what = "so this has() test is always false"
		}
		v.warnWhen(r, at, CodeVetNodeField,
			"a provenance node has no field %q (its fields are %s): %s", field, strings.Join(nodeFields, ", "), what)
	}
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		switch e.Kind() {
		case ast.SelectKind:
			s := e.AsSelect()
			if isNode(s.Operand()) {
				// At the field: the selection's own offset is its dot.
				at := g.start(e)
				if rg, ok := g.info.GetOffsetRange(e.ID()); ok {
					at = int(rg.Start) + 1
				}
				if s.IsTestOnly() {
					// has(x.f) is at the has: find the field after it.
					b := v.offsets(r).byteOffset(g.start(e))
					if i := strings.Index(r.When[b:], "."+s.FieldName()); i >= 0 {
						at = utf8.RuneCountInString(r.When[:b+i+1])
					}
				}
				report(at, s.FieldName(), s.IsTestOnly())
			}
			walk(s.Operand())
		case ast.CallKind:
			c := e.AsCall()
			if c.FunctionName() == operators.Index && !c.IsMemberFunction() && len(c.Args()) == 2 && isNode(c.Args()[0]) {
				if s, ok := stringLit(c.Args()[1]); ok {
					report(g.start(c.Args()[1]), s, false)
				}
			}
			if c.IsMemberFunction() {
				walk(c.Target())
			}
			for _, a := range c.Args() {
				walk(a)
			}
		case ast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x)
			}
		case ast.MapKind:
			for _, en := range e.AsMap().Entries() {
				m := en.AsMapEntry()
				walk(m.Key())
				walk(m.Value())
			}
		case ast.ComprehensionKind:
			c := e.AsComprehension()
			walk(c.IterRange())
			walk(c.AccuInit())
			nodeVars = append(nodeVars, struct {
				name string
				node bool
			}{c.IterVar(), isNodes(c.IterRange())}, struct {
				name string
				node bool
			}{c.AccuVar(), false})
			walk(c.LoopCondition())
			walk(c.LoopStep())
			walk(c.Result())
			nodeVars = nodeVars[:len(nodeVars)-2]
		}
	}
	walk(r.WhenAST.NativeRep().Expr())
}
