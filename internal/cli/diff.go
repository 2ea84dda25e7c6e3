// This file owns the unified diffs `oarc fmt -d` and `oarc gen -check`
// print: a line diff (Myers' O(ND) algorithm) in hunks with three lines of
// context, as diff -u writes them.

package cli

import (
	"fmt"
	"strings"
)

// unifiedDiff returns the unified diff from a (named from) to b (named to),
// "" when they are equal.
func unifiedDiff(from, to string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := splitLines(string(a)), splitLines(string(b))
	ops := diffLines(x, y)
	const context = 3
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	// Group the edits into hunks separated by more than 2*context equal
	// lines.
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*context {
				break
			}
		}
		stop := min(len(ops), end+context+1)
		// Line numbers of the hunk in a and b.
		al, bl := 1, 1
		for _, op := range ops[:start] {
			if op.kind != '+' {
				al++
			}
			if op.kind != '-' {
				bl++
			}
		}
		an, bn := 0, 0
		for _, op := range ops[start:stop] {
			if op.kind != '+' {
				an++
			}
			if op.kind != '-' {
				bn++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(al, an), hunkRange(bl, bn))
		for _, op := range ops[start:stop] {
			out.WriteByte(op.kind)
			out.WriteString(strings.TrimSuffix(op.text, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(op.text, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return out.String()
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s after each line break; a last line without one is a
// line too.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// diffLines is Myers' diff of the lines x and y: the shortest edit script,
// as the lines of a and b in order.
func diffLines(x, y []string) []diffOp {
	n, m := len(x), len(y)
	off := n + m
	v := make([]int, 2*off+2)
	var trace [][]int
	for d := 0; d <= off; d++ {
		snap := make([]int, len(v))
		copy(snap, v)
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var px int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				px = v[off+k+1]
			} else {
				px = v[off+k-1] + 1
			}
			py := px - k
			for px < n && py < m && x[px] == y[py] {
				px++
				py++
			}
			v[off+k] = px
			if px >= n && py >= m {
				return backtrack(trace, x, y, d, off)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, x, y []string, d, off int) []diffOp {
	var ops []diffOp
	px, py := len(x), len(y)
	for ; d > 0; d-- {
		v := trace[d]
		k := px - py
		var prevK int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for px > prevX && py > prevY {
			px--
			py--
			ops = append(ops, diffOp{' ', x[px]})
		}
		if px == prevX {
			py--
			ops = append(ops, diffOp{'+', y[py]})
		} else {
			px--
			ops = append(ops, diffOp{'-', x[px]})
		}
	}
	for px > 0 && py > 0 {
		px--
		py--
		ops = append(ops, diffOp{' ', x[px]})
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}
