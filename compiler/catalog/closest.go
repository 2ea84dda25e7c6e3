package catalog

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate nearest to name by edit distance, if it is
// near enough to be a plausible typo (at most a third of name's length
// plus one, and at most 4, edits), else "". Ties keep the first
// candidate. Names longer than 64 runes are never matched, so that a long
// name costs nothing. A name of four or more characters that starts
// exactly one candidate (replace, of replacement) is taken for that
// candidate unless another is within one edit of it.
func Closest(name string, candidates []string) string {
	best, bestD := "", 0
	limit := min(utf8.RuneCountInString(name)/3+1, 4)
	prefixOf, prefixes := "", 0
	for _, c := range candidates {
		d := editDistance(name, c)
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = c, d
		}
		if len(name) >= 4 && len(c) > len(name) && strings.HasPrefix(c, name) {
			prefixOf, prefixes = c, prefixes+1
		}
	}
	if prefixes == 1 && (best == "" || bestD > 1) {
		return prefixOf
	}
	return best
}

// editDistance is the Levenshtein distance of a and b in runes; 1<<20 when
// either is longer than 64 runes.
func editDistance(a, b string) int {
	if len(a) > 4*64 && utf8.RuneCountInString(a) > 64 || len(b) > 4*64 && utf8.RuneCountInString(b) > 64 {
		return 1 << 20
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
