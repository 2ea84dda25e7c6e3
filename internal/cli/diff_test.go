package cli

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnifiedDiff compares with diff -u (GNU diffutils), when installed,
// on edits of every kind, and checks that applying the hunks to a gives b.
func TestUnifiedDiff(t *testing.T) {
	lines := func(s ...string) string { return strings.Join(s, "\n") + "\n" }
	cases := []struct{ a, b string }{
		{lines("a", "b", "c"), lines("a", "x", "c")},
		{"", lines("a")},
		{lines("a"), ""},
		{lines("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"), lines("1", "2", "x", "4", "5", "6", "7", "8", "9", "10", "y", "12")},
		{lines("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"), lines("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14")},
		{"a\nb", "a\nc"},
		{"a\nb\n", "a\nb"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 30 {
		var a, b []string
		for range 40 {
			w := string(rune('a' + r.IntN(5)))
			if r.IntN(4) > 0 {
				a = append(a, w)
			}
			if r.IntN(4) > 0 {
				b = append(b, w)
			}
		}
		cases = append(cases, struct{ a, b string }{lines(a...), lines(b...)})
	}
	gnu, _ := exec.LookPath("diff")
	for i, tc := range cases {
		got := unifiedDiff("a", "b", []byte(tc.a), []byte(tc.b))
		if tc.a == tc.b {
			if got != "" {
				t.Errorf("case %d: equal inputs give a diff", i)
			}
			continue
		}
		if back := applyDiff(t, tc.a, got); back != tc.b {
			t.Errorf("case %d: applying\n%s\nto %q gives %q, want %q", i, got, tc.a, back, tc.b)
		}
		if gnu == "" {
			continue
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a"), []byte(tc.a), 0o644)
		os.WriteFile(filepath.Join(dir, "b"), []byte(tc.b), 0o644)
		cmd := exec.Command(gnu, "-u", "--label", "a", "--label", "b", "a", "b")
		cmd.Dir = dir
		want, _ := cmd.Output()
		// Both are shortest edit scripts; they may place an edit
		// differently among equal lines, but not count differently.
		if count(got) != count(string(want)) {
			t.Errorf("case %d: got\n%s\ndiff -u says\n%s", i, got, want)
		}
	}
}

func count(d string) [2]int {
	var c [2]int
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "-"):
			c[0]++
		case strings.HasPrefix(l, "+"):
			c[1]++
		}
	}
	return c
}

// applyDiff applies a unified diff to a.
func applyDiff(t *testing.T, a, d string) string {
	t.Helper()
	src := splitLines(a)
	var out []string
	pos := 0
	ls := strings.Split(strings.TrimSuffix(d, "\n"), "\n")[2:]
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		if strings.HasPrefix(l, "@@") {
			var as, an, bs, bn int
			parseRange := func(s string) (int, int) {
				p := strings.SplitN(s[1:], ",", 2)
				start := atoi(p[0])
				n := 1
				if len(p) == 2 {
					n = atoi(p[1])
				}
				return start, n
			}
			f := strings.Fields(l)
			as, an = parseRange(f[1])
			bs, bn = parseRange(f[2])
			_, _ = bs, bn
			begin := as - 1
			if an == 0 {
				begin = as
			}
			out = append(out, src[pos:begin]...)
			pos = begin
			continue
		}
		noEOL := i+1 < len(ls) && ls[i+1] == `\ No newline at end of file`
		text := l[1:]
		if !noEOL {
			text += "\n"
		}
		switch l[0] {
		case ' ':
			out = append(out, src[pos])
			pos++
		case '-':
			pos++
		case '+':
			out = append(out, text)
		}
		if noEOL {
			i++
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
