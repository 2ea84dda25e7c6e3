package impl

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oarc/oarc/runtime"
)

// ContextRule is a rule as the rendered context shows it (spec 10,
// "Context"): generated code holds one per titled rule, in evaluation
// order, with its tokens computed at compile time.
type ContextRule struct {
	ID, Title, Fix, Instead string
	Monitor                 bool // enforcement: monitor (a candidate)
	Global                  bool // no selector: always rendered
	// Pinned is an enforced deny-by-default code (spec 5.8, 10): always
	// rendered, first, and never ranked.
	Pinned bool
	// Tags are the distinct tokens of the selector values and the id;
	// Text those of the copy.
	Tags, Text []string
	// Trial is a store candidate's trial progress (spec 12), shown after
	// its title, e.g. "(trial: 2/5 sessions)"; "" for the others.
	Trial string
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
// prompt, for a task hint and k (<= 0: DefaultContextK); docs/context.md
// describes the output. Rules without a title are not rendered. Without a
// hint, or with one that matches no rule, every rule renders. Otherwise the
// global rules and the monitored ones always render, and of the enforced
// rules with a selector the k most relevant: score (2 x hint tokens among
// the tags + hint tokens in the text) / distinct hint tokens, ties in
// evaluation order. The rules shown are listed in evaluation order, the
// enforced ones under "## Rules", the monitored ones after them under
// "### Provisional rules (under evaluation)"; when the top k left rules
// out, the last line says how many. No titled rule at all renders "".
func Render(rules []ContextRule, hint string, k int) string {
	if k <= 0 {
		k = DefaultContextK
	}
	show, hidden := selectRules(rules, hint, k)
	var b strings.Builder
	enforced, provisional := 0, 0
	for i, r := range rules {
		if !show[i] {
			continue
		}
		if r.Monitor {
			provisional++
			continue
		}
		if enforced == 0 {
			b.WriteString("## Rules\n\n")
		}
		enforced++
		line(&b, r)
	}
	if enforced+provisional == 0 {
		return ""
	}
	if enforced == 0 {
		b.WriteString("## Rules\n")
	}
	if provisional > 0 {
		b.WriteString("\n### Provisional rules (under evaluation)\n\n")
		b.WriteString(ProvisionalNote)
		b.WriteString("\n\n")
		for i, r := range rules {
			if show[i] && r.Monitor {
				line(&b, r)
			}
		}
	}
	if hidden > 0 {
		b.WriteString("\n(")
		b.WriteString(strconv.Itoa(hidden))
		b.WriteString(" more rules not shown)\n")
	}
	return b.String()
}

// ProvisionalNote is the line under the heading of the monitored rules.
const ProvisionalNote = "_These rules are on trial: they are not enforced yet. Follow them all the same, as if they were._"

// selectRules says which titled rules render for hint and k, and how many
// ranked rules the top k left out.
func selectRules(rules []ContextRule, hint string, k int) (show []bool, hidden int) {
	hintTokens := distinctTokens(Tokens(hint))
	show = make([]bool, len(rules))
	var ranked []int
	scores := make([]int, len(rules))
	matched := false
	for i, r := range rules {
		if strings.TrimSpace(r.Title) == "" {
			continue
		}
		if r.Global || r.Monitor || r.Pinned || len(hintTokens) == 0 {
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
		matched = matched || scores[i] > 0
		ranked = append(ranked, i)
	}
	if !matched {
		for _, i := range ranked {
			show[i] = true
		}
		return show, 0
	}
	// The score's denominator (the distinct hint tokens) is the same for
	// every rule: rank by the numerator. The sort is stable and ranked is
	// in evaluation order, so ties keep evaluation order.
	sort.SliceStable(ranked, func(a, b int) bool { return scores[ranked[a]] > scores[ranked[b]] })
	for n, i := range ranked {
		if n < k {
			show[i] = true
		} else {
			hidden++
		}
	}
	return show, hidden
}

// line writes one rule as a list item, its fix and instead as nested items.
func line(b *strings.Builder, r ContextRule) {
	b.WriteString("- **")
	b.WriteString(r.ID)
	b.WriteString("**: ")
	oneLine(b, r.Title)
	if r.Trial != "" {
		b.WriteByte(' ')
		oneLine(b, r.Trial)
	}
	b.WriteByte('\n')
	for _, g := range [...][2]string{{"Fix", r.Fix}, {"Instead", r.Instead}} {
		if strings.TrimSpace(g[1]) != "" {
			b.WriteString("  - ")
			b.WriteString(g[0])
			b.WriteString(": ")
			oneLine(b, g[1])
			b.WriteByte('\n')
		}
	}
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

// oneLine writes s with its runs of white space (line breaks included)
// made single spaces and its ends trimmed, so that a copy text stays one
// list item and cannot start a Markdown block of its own; other control
// characters (NUL, ESC, DEL, C1), the other invisible characters
// (runtime.HiddenAfter: Unicode Cf, the Hangul fillers, variation selectors
// but a presentation selector after a visible character) and invalid
// UTF-8 become U+FFFD, so that nothing invisible reaches the prompt (spec
// 5.1); and '<' is escaped as "\<", and each backslash of a run right
// before it as "\\" (so that a backslash of the copy cannot undo the
// escape), so that no copy text opens raw HTML (an HTML comment "<!--" in
// one rule and "-->" in a later one would hide the rules between them
// where the Markdown is shown as HTML).
//
// An '&' that starts a character reference ("&#8203;", "&#x202E;",
// "&zwnj;": a name or 1 to 7 digits or 1 to 6 hex digits, then ';') is
// escaped "\&" too, with the backslashes right before it: shown as HTML,
// the reference would be the invisible character itself.
func oneLine(b *strings.Builder, s string) {
	for i, f := range strings.Fields(s) {
		if i > 0 {
			b.WriteByte(' ')
		}
		prev := rune(' ') // a field follows white space, or starts s
		for j := 0; j < len(f); {
			r, n := utf8.DecodeRuneInString(f[j:])
			switch {
			case runtime.HiddenAfter(prev, r) || r == utf8.RuneError && n == 1:
				b.WriteString("\uFFFD")
			case escaped(f[j:]):
				b.WriteByte('\\')
				b.WriteByte(f[j])
			case r == '\\':
				// A run of backslashes right before an escaped '<' or '&'
				// is escaped too: else its last would escape the
				// backslash (`\\<` is a backslash and a raw '<').
				k := j + len(f[j:]) - len(strings.TrimLeft(f[j:], `\`))
				run := f[j:k]
				if escaped(f[k:]) {
					run = strings.ReplaceAll(run, `\`, `\\`)
				}
				b.WriteString(run)
				n = k - j
			default:
				b.WriteString(f[j : j+n])
			}
			prev = r
			j += n
		}
	}
}

// escaped reports whether s starts with what oneLine escapes with a
// backslash: a '<', or an '&' that starts a character reference.
func escaped(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '<' {
		return true
	}
	if s[0] != '&' {
		return false
	}
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	isHex := func(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }
	isAlnum := func(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z' }
	// run is the length of the run of s[i:] accepted by ok, at most max.
	run := func(i int, ok func(byte) bool, max int) int {
		n := 0
		for i+n < len(s) && ok(s[i+n]) && n <= max {
			n++
		}
		return n
	}
	ref := func(i, n, max int) bool { return n >= 1 && n <= max && i+n < len(s) && s[i+n] == ';' }
	switch {
	case len(s) > 2 && s[1] == '#' && (s[2] == 'x' || s[2] == 'X'):
		return ref(3, run(3, isHex, 6), 6)
	case len(s) > 1 && s[1] == '#':
		return ref(2, run(2, isDigit, 7), 7)
	case len(s) > 1 && 'a' <= s[1]|0x20 && s[1]|0x20 <= 'z':
		return ref(1, run(1, isAlnum, 32), 32)
	}
	return false
}
