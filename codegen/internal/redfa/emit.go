// This file owns the Go code of a plan: string comparisons, or the
// impl.RegexDFA literal of a DFA's tables.

package redfa

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// LiteralCode is s.matches(pattern) for a Literal plan: string
// comparisons, joined with ||.
func (p *Plan) LiteralCode(s jen.Code) jen.Code {
	var terms []jen.Code
	for _, lit := range p.Literals {
		q := jen.Lit(lit)
		switch p.Anchor {
		case Whole:
			terms = append(terms, jen.Add(s).Op("==").Add(q))
		case Prefix:
			terms = append(terms, jen.Qual("strings", "HasPrefix").Call(s, q))
		case Suffix:
			terms = append(terms, jen.Qual("strings", "HasSuffix").Call(s, q))
		default:
			terms = append(terms, jen.Qual("strings", "Contains").Call(s, q))
		}
	}
	if len(terms) == 1 && p.Anchor != Whole {
		return terms[0]
	}
	var or *jen.Statement
	for i, t := range terms {
		if i == 0 {
			or = jen.Add(t)
		} else {
			or = or.Op("||").Add(t)
		}
	}
	return jen.Parens(or)
}

// Code is the value of the matcher of a DFA plan, &impl.RegexDFA{...},
// impl being the package at implPath. The transition table has a line per
// state.
func (t *Tables) Code(implPath string) jen.Code {
	multi := jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	rows := func(n, width int, item func(int) jen.Code) []jen.Code {
		var out []jen.Code
		for i := 0; i < n; i += width {
			var row []jen.Code
			for j := i; j < n && j < i+width; j++ {
				row = append(row, item(j))
			}
			out = append(out, jen.List(row...))
		}
		return out
	}
	hex := func(r rune) jen.Code { return jen.Op(fmt.Sprintf("%#x", r)) }
	fields := []jen.Code{
		jen.Id("ASCII").Op(":").Index(jen.Lit(128)).Uint8().Custom(multi,
			rows(128, 16, func(i int) jen.Code { return jen.Lit(int(t.ASCII[i])) })...),
		jen.Id("Lo").Op(":").Index().Rune().Custom(multi, rows(len(t.Lo), 8, func(i int) jen.Code { return hex(t.Lo[i]) })...),
		jen.Id("Class").Op(":").Index().Uint8().Custom(multi, rows(len(t.Class), 16, func(i int) jen.Code { return jen.Lit(int(t.Class[i])) })...),
		jen.Id("Trans").Op(":").Index().Uint16().Custom(multi,
			rows(len(t.Trans), int(t.Stride), func(i int) jen.Code { return jen.Lit(int(t.Trans[i])) })...),
		jen.Id("Stride").Op(":").Lit(int(t.Stride)),
		jen.Id("Start").Op(":").Lit(int(t.Start)),
		jen.Id("Skip").Op(":").Lit(int(t.Skip)),
	}
	if t.Prefix != "" {
		fields = append(fields,
			jen.Id("Prefix").Op(":").Lit(t.Prefix),
			jen.Id("Resume").Op(":").Index(jen.Lit(3)).Uint16().Values(jen.Lit(int(t.Resume[0])), jen.Lit(int(t.Resume[1])), jen.Lit(int(t.Resume[2]))),
		)
		if t.Rare != 0 {
			fields = append(fields, jen.Id("Rare").Op(":").Lit(int(t.Rare)))
		}
	}
	return jen.Op("&").Qual(implPath, "RegexDFA").Custom(multi, fields...)
}
