package ir

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Walk calls fn for e and, while fn returns true, for its children in order.
func Walk(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	for _, c := range Children(e) {
		Walk(c, fn)
	}
}

// Children returns the direct subexpressions of e.
func Children(e Expr) []Expr {
	switch n := e.(type) {
	case *Call:
		return n.Args
	case *Observe:
		return n.Args
	case *And:
		return n.Terms
	case *Or:
		return n.Terms
	case *Cond:
		return []Expr{n.C, n.Then, n.Else}
	case *Select:
		return []Expr{n.X}
	case *Index:
		return []Expr{n.X, n.I}
	case *List:
		return n.Elems
	case *Map:
		var out []Expr
		for i := range n.Keys {
			out = append(out, n.Keys[i], n.Values[i])
		}
		return out
	case *Comprehension:
		out := []Expr{n.Range}
		if n.Pred != nil {
			out = append(out, n.Pred)
		}
		if n.Body != nil {
			out = append(out, n.Body)
		}
		return out
	}
	return nil
}

// String prints an expression on one line, with the type of every node.
func String(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

func lit(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case TypeName:
		return string(v)
	case string:
		return strconv.Quote(v)
	case uint64:
		return strconv.FormatUint(v, 10) + "u"
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
		return s
	}
	return fmt.Sprint(v)
}

func writeList(b *strings.Builder, es []Expr) {
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, e)
	}
}

func writeExpr(b *strings.Builder, e Expr) {
	switch n := e.(type) {
	case nil:
		b.WriteString("true")
		return
	case *Const:
		b.WriteString(lit(n.Value))
	case *Fact:
		b.WriteString("fact(" + n.Name)
		if n.Source == FromDetector {
			b.WriteString(", detector")
		}
		b.WriteString(")")
	case *CounterRead:
		fmt.Fprintf(b, "counter(%s#%d.%s)", n.Rule, n.Slot, n.Counter)
	case *Var:
		b.WriteString("var(" + n.Name + ")")
	case *Call:
		b.WriteString(n.Op.String() + "(")
		writeList(b, n.Args)
		b.WriteString(")")
	case *Observe:
		kind := "builtin"
		if n.Builtin == NotBuiltin {
			kind = "provider"
		}
		b.WriteString(kind + " " + n.Func + "(")
		writeList(b, n.Args)
		b.WriteString(")")
	case *And:
		b.WriteString("and(")
		writeList(b, n.Terms)
		b.WriteString(")")
	case *Or:
		b.WriteString("or(")
		writeList(b, n.Terms)
		b.WriteString(")")
	case *Cond:
		b.WriteString("cond(")
		writeList(b, []Expr{n.C, n.Then, n.Else})
		b.WriteString(")")
	case *Select:
		if n.Test {
			b.WriteString("has(")
		} else {
			b.WriteString("select(")
		}
		writeExpr(b, n.X)
		b.WriteString(", " + strconv.Quote(n.Field) + ")")
	case *Index:
		b.WriteString("index(")
		writeList(b, []Expr{n.X, n.I})
		b.WriteString(")")
	case *List:
		b.WriteString("[")
		writeList(b, n.Elems)
		b.WriteString("]")
	case *Map:
		b.WriteString("{")
		for i := range n.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeExpr(b, n.Keys[i])
			b.WriteString(": ")
			writeExpr(b, n.Values[i])
		}
		b.WriteString("}")
	case *Comprehension:
		b.WriteString(n.Macro.String() + "(" + n.Var + " in ")
		writeExpr(b, n.Range)
		if n.Pred != nil {
			b.WriteString("; ")
			writeExpr(b, n.Pred)
		}
		if n.Body != nil {
			b.WriteString("; ")
			writeExpr(b, n.Body)
		}
		b.WriteString(")")
	default:
		fmt.Fprintf(b, "<%T>", e)
	}
	b.WriteString(":" + e.Type().String())
}

// Print renders a whole set, one rule after another, for `oarc ir` and
// golden tests. The output is deterministic.
func Print(p *Set) string {
	var b strings.Builder
	for _, pk := range p.Packs {
		fmt.Fprintf(&b, "pack %q origin=%s\n", pk.Name, pk.Origin)
	}
	fmt.Fprintf(&b, "rules=%d catalog=%s\n", len(p.Rules), p.Catalog.Host)
	for _, a := range p.Anchors {
		ids := make([]string, len(a.Rules))
		for i, r := range a.Rules {
			ids[i] = p.Rules[r].ID
		}
		fmt.Fprintf(&b, "anchor %s: %s", a.ID, strings.Join(ids, " "))
		if a.Deny != nil {
			fmt.Fprintf(&b, " deny_by_default=%s", a.Deny.Code)
			if a.Deny.Monitor {
				b.WriteString(" monitor")
			}
		}
		b.WriteString("\n")
	}
	if len(p.Validators) > 0 {
		fmt.Fprintf(&b, "validators: %s\n", strings.Join(p.Validators, " "))
	}
	for _, r := range p.Rules {
		fmt.Fprintf(&b, "\nrule #%d %s (%s) of %s at %s:%d:%d\n", r.Index, r.ID, r.Kind, r.Pack, r.Pos.File, r.Pos.Line, r.Pos.Col)
		fmt.Fprintf(&b, "  anchor %s effect %s", r.Anchor, r.Effect)
		if r.Monitor {
			b.WriteString(" monitor")
		}
		if r.FailOpen {
			b.WriteString(" fail_open")
		}
		b.WriteString("\n")
		if len(r.Profiles) > 0 {
			ps := append([]string(nil), r.Profiles...)
			sort.Strings(ps)
			fmt.Fprintf(&b, "  requires %s\n", strings.Join(ps, " "))
		}
		for _, c := range r.Selector {
			vals := make([]string, len(c.Values))
			for i, v := range c.Values {
				vals[i] = lit(v)
			}
			fmt.Fprintf(&b, "  select %s:%s in [%s]\n", c.Fact, c.Type, strings.Join(vals, ", "))
		}
		if r.Stored[Fire] || r.Stored[Breaker] {
			fmt.Fprintf(&b, "  stored fire=%v breaker=%v\n", r.Stored[Fire], r.Stored[Breaker])
		}
		if r.Flow != nil {
			fmt.Fprintf(&b, "  flow %v within=%d contiguous=%v\n", r.Flow.Steps, r.Flow.Within, r.Flow.Contiguous)
		}
		if r.Detector != "" {
			fmt.Fprintf(&b, "  detector %s slot %d\n", r.Detector, r.DetectorSlot)
		}
		fmt.Fprintf(&b, "  when %s\n", String(r.When))
		if len(r.Increment) > 0 || len(r.Reset) > 0 {
			fmt.Fprintf(&b, "  on_fire increment=%v reset=", r.Increment)
			for i, c := range r.Reset {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, "%s#%d.%s", c.Rule, c.Slot, c.Counter)
			}
			b.WriteString("\n")
		}
		if len(r.Redact) > 0 {
			fmt.Fprintf(&b, "  transform redact=%v replacement=%q\n", r.Redact, r.Replacement)
		}
	}
	return b.String()
}
