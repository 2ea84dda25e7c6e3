package compiler

import (
	"fmt"
	"strings"
	"unicode"
)

// Tokens splits text into casefolded word tokens: maximal runs of letters
// and digits, each folded to lower case (spec 10, "Context"). The generated
// code renders with the same function (runtime/impl.Tokens); a test keeps
// the two equal.
func Tokens(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(fold(r))
			continue
		}
		flush()
	}
	flush()
	return out
}

// fold is simple case folding to lower case: the smallest rune of r's
// fold orbit that is lower case, else unicode.ToLower.
func fold(r rune) rune {
	l := unicode.ToLower(r)
	for f := unicode.SimpleFold(l); f != l; f = unicode.SimpleFold(f) {
		if f < l && unicode.IsLower(f) {
			l = f
		}
	}
	return l
}

// ruleTokens computes a rule's tags (tokens of its selector values and of
// its id) and text (tokens of its copy), distinct, in order of appearance.
func ruleTokens(r *Rule) (tags, text []string) {
	var tagSrc []string
	for _, c := range r.Selector {
		for _, v := range c.Values {
			tagSrc = append(tagSrc, fmt.Sprint(v))
		}
	}
	tagSrc = append(tagSrc, r.ID)
	c := r.Copy
	return distinct(Tokens(strings.Join(tagSrc, " "))), distinct(Tokens(strings.Join([]string{c.Title, c.What, c.Cause, c.Why, c.Fix, c.Instead}, " ")))
}

func distinct(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
