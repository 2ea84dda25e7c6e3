package impl

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// ContextRule is a rule as the rendered context shows it (spec 10,
// "Context"): generated code holds one per titled rule, in evaluation
// order, with its tokens computed at compile time.
type ContextRule struct {
	ID, Title, Fix, Instead string
	Monitor                 bool // enforcement: monitor (a candidate)
	Global                  bool // no selector: always rendered
	// Tags are the distinct tokens of the selector values and the id;
	// Text those of the copy.
	Tags, Text []string
}

// DefaultContextK is how many ranked rules a hinted context shows.
const DefaultContextK = 8

// Tokens splits text into casefolded word tokens: maximal runs of letters
// and digits, each folded to lower case. The compiler tokenises rules with
// the same function (compiler.Tokens); a test keeps the two equal.
func Tokens(text string) []string {
	var out []string
	start := -1
	var b strings.Builder
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			b.WriteRune(fold(r))
			continue
		}
		if start >= 0 {
			out = append(out, b.String())
			b.Reset()
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, b.String())
	}
	return out
}

// fold is simple case folding to lower case: the smallest lower-case rune
// of r's fold orbit, else unicode.ToLower.
func fold(r rune) rune {
	l := unicode.ToLower(r)
	for f := unicode.SimpleFold(l); f != l; f = unicode.SimpleFold(f) {
		if f < l && unicode.IsLower(f) {
			l = f
		}
	}
	return l
}

// Render renders rules (in evaluation order) as Markdown for a system
// prompt, for a task hint and k (<= 0: DefaultContextK). Without a hint,
// or with one that matches no rule, every rule renders. Otherwise the
// global rules and the monitored ones always render, and of the enforced
// rules with a selector the k most relevant: score (2 x hint tokens among
// the tags + hint tokens in the text) / distinct hint tokens, ties in
// evaluation order. The rules shown are listed in evaluation order.
func Render(rules []ContextRule, hint string, k int) string {
	if k <= 0 {
		k = DefaultContextK
	}
	hintTokens := distinctTokens(Tokens(hint))
	show := make([]bool, len(rules))
	var ranked []int
	scores := make([]int, len(rules))
	any := false
	for i, r := range rules {
		if r.Global || r.Monitor || len(hintTokens) == 0 {
			show[i] = true
			continue
		}
		for _, t := range hintTokens {
			if contains(r.Tags, t) {
				scores[i] += 2
			}
			if contains(r.Text, t) {
				scores[i]++
			}
		}
		any = any || scores[i] > 0
		ranked = append(ranked, i)
	}
	hidden := 0
	if !any {
		for _, i := range ranked {
			show[i] = true
		}
	} else {
		// The score's denominator is the same for every rule: rank by the
		// numerator.
		sort.SliceStable(ranked, func(a, b int) bool { return scores[ranked[a]] > scores[ranked[b]] })
		for n, i := range ranked {
			if n < k {
				show[i] = true
			} else {
				hidden++
			}
		}
	}
	var b strings.Builder
	b.WriteString("## Rules\n")
	line := func(r ContextRule) {
		b.WriteString("\n- **")
		b.WriteString(r.ID)
		b.WriteString("**: ")
		oneLine(&b, r.Title)
		for _, g := range [][2]string{{"Fix", r.Fix}, {"Instead", r.Instead}} {
			if g[1] != "" {
				b.WriteString("\n  ")
				b.WriteString(g[0])
				b.WriteString(": ")
				oneLine(&b, g[1])
			}
		}
	}
	for i, r := range rules {
		if show[i] && !r.Monitor {
			line(r)
		}
	}
	provisional := false
	for i, r := range rules {
		if !show[i] || !r.Monitor {
			continue
		}
		if !provisional {
			b.WriteString("\n\n### Provisional rules (under evaluation)\n\n")
			b.WriteString("_These rules are not enforced yet. Follow them all the same: they are being tried before they enforce._\n")
			provisional = true
		}
		line(r)
	}
	b.WriteString("\n")
	if hidden > 0 {
		b.WriteString("\n(" + strconv.Itoa(hidden) + " more rules not shown)\n")
	}
	return b.String()
}

func distinctTokens(l []string) []string {
	var out []string
	for _, t := range l {
		if !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// oneLine writes s with its line breaks made spaces, so that a copy text
// cannot start a Markdown block of its own.
func oneLine(b *strings.Builder, s string) {
	for _, r := range s {
		switch r {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
}
