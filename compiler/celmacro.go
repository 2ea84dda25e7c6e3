package compiler

// This file explains cel-go extension macros that OAR does not offer. OAR's
// CEL is the standard library and the strings extension (spec 4), so a
// rule written for another cel-go host, e.g. with cel.bind, fails to check.
// cel-go reports it as undeclared references to 'cel', 'bind' and the bound
// variable; the author then learns nothing about why. The code stays
// OAR_UNKNOWN_FACT (the macro is a name OAR does not declare), but the
// message names the macro, says it is not available in OAR and what to
// write instead, and the checker's follow-on errors inside it are dropped.

import (
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/ast"
)

// extMacro is a cel-go extension macro OAR does not offer.
type extMacro struct {
	ext     string // the cel-go extension that defines it
	instead string // what to write in OAR
}

// globalMacros are the extension macros called on a namespace
// (cel.bind(..), math.greatest(..)), by namespace and name.
var globalMacros = map[string]map[string]extMacro{
	"cel": {
		"bind":  {"bindings (ext.Bindings)", "write the bound expression out where the variable is used: `tool == \"bash\"` for `cel.bind(x, tool, x == \"bash\")`"},
		"block": {"cel-go's internal common-subexpression block", "write the expression out"},
	},
	"math": {
		"greatest": {"math (ext.Math)", "compare with ?: (`a > b ? a : b`)"},
		"least":    {"math (ext.Math)", "compare with ?: (`a < b ? a : b`)"},
	},
}

// memberMacros are the extension macros called on a receiver, by name and
// number of arguments (0: any).
var memberMacros = map[string]struct {
	args int
	m    extMacro
}{
	"sortBy":            {2, extMacro{"lists (ext.Lists)", "test the elements with all or exists, which need no order"}},
	"transformList":     {0, extMacro{"two-variable comprehensions (ext.TwoVarComprehensions)", "use map and filter over the list or the map's keys (`m.map(k, m[k])`)"}},
	"transformMap":      {0, extMacro{"two-variable comprehensions (ext.TwoVarComprehensions)", "use map and filter over the map's keys (`m.map(k, m[k])`)"}},
	"transformMapEntry": {0, extMacro{"two-variable comprehensions (ext.TwoVarComprehensions)", "use map and filter over the map's keys"}},
	"all":               {3, extMacro{"two-variable comprehensions (ext.TwoVarComprehensions)", "use the one-variable all over the keys and index (`m.all(k, m[k] > 0)`)"}},
	"exists":            {3, extMacro{"two-variable comprehensions (ext.TwoVarComprehensions)", "use the one-variable exists over the keys and index (`m.exists(k, m[k] > 0)`)"}},
	"existsOne":         {3, extMacro{"two-variable comprehensions (ext.TwoVarComprehensions)", "use exists_one over the keys and index (`m.exists_one(k, m[k] > 0)`)"}},
	"exists_one":        {3, extMacro{"two-variable comprehensions (ext.TwoVarComprehensions)", "use exists_one over the keys and index (`m.exists_one(k, m[k] > 0)`)"}},
	"optMap":            {2, extMacro{"optional types (cel.OptionalTypes)", "test has() first and read the value (`has(m.k) ? m.k : d`)"}},
	"optFlatMap":        {2, extMacro{"optional types (cel.OptionalTypes)", "test has() first and read the value (`has(m.k) ? m.k : d`)"}},
}

// macroUse is one call of an extension macro in a parsed when: where to
// report it (offset of its name) and the span of `when` it covers.
type macroUse struct {
	name       string
	at         int
	start, end int
	m          extMacro
}

// extMacroUses finds the calls of extension macros OAR does not offer in a
// parsed (not checked) when, outermost first.
func extMacroUses(parsed *cel.Ast, w *whenSource) []macroUse {
	native := parsed.NativeRep()
	info := native.SourceInfo()
	off := func(e ast.Expr) int {
		loc := info.GetStartLocation(e.ID())
		if loc.Line() < 1 {
			return -1
		}
		return w.lineColOffset(loc.Line(), loc.Column())
	}
	var out []macroUse
	ast.PreOrderVisit(native.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() != ast.CallKind {
			return
		}
		c := e.AsCall()
		if !c.IsMemberFunction() {
			return
		}
		var u macroUse
		t := c.Target()
		if t.Kind() == ast.IdentKind {
			if m, ok := globalMacros[t.AsIdent()][c.FunctionName()]; ok {
				u = macroUse{name: t.AsIdent() + "." + c.FunctionName(), at: off(t), m: m}
			}
		}
		if u.name == "" {
			mm, ok := memberMacros[c.FunctionName()]
			if !ok || mm.args != 0 && len(c.Args()) != mm.args {
				return
			}
			u = macroUse{name: c.FunctionName(), m: mm.m}
			// cel-go places a member call at its '.' or '('; the name is
			// the last occurrence of it at or before that.
			u.at = off(e)
			if u.at >= 0 {
				for i := min(u.at, len(w.text)-len(u.name)); i >= 0; i-- {
					if w.text[i:i+len(u.name)] == u.name {
						u.at = i
						break
					}
				}
			}
		}
		if u.at < 0 {
			return
		}
		u.start, u.end = u.at, u.at+len(u.name)
		ast.PreOrderVisit(e, ast.NewExprVisitor(func(s ast.Expr) {
			if s.ID() == t.ID() && u.name != c.FunctionName() {
				return
			}
			if o := off(s); o > u.end {
				u.end = o
			}
		}))
		// Follow-on errors after the last sub-expression's start, up to
		// the closing parenthesis, belong to the macro too.
		for depth := 0; u.end < len(w.text); u.end++ {
			if ch := w.text[u.end]; ch == '(' {
				depth++
			} else if ch == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		out = append(out, u)
	}))
	return out
}

// reportMacros reports each extension macro of uses once; an inner one
// inside an outer one is covered by the outer one's report.
func (w *whenSource) reportMacros(uses []macroUse) {
	var last *macroUse
	for i := range uses {
		u := &uses[i]
		if last != nil && u.at >= last.start && u.at <= last.end {
			continue
		}
		last = u
		w.report(u.at, Error, CodeUnknownFact, "%s", fmt.Sprintf("%s is a macro of cel-go's %s extension, which is not available in OAR (spec 4: the standard library and the strings extension); %s", u.name, u.m.ext, u.m.instead))
	}
}

// inMacro reports whether offset off lies inside one of uses.
func inMacro(uses []macroUse, off int) bool {
	for _, u := range uses {
		if off >= u.start && off <= u.end {
			return true
		}
	}
	return false
}
