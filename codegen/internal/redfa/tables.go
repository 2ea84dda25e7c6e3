// This file owns the minimisation of the DFA, its literal prefix, and its
// layout as the runtime's tables.

package redfa

import (
	"encoding/binary"
	"fmt"
	"regexp/syntax"
	"strings"
)

// compileDFA builds the minimal DFA of prog and lays it out as Tables.
func compileDFA(prog *syntax.Prog) (*Tables, error) {
	cl, err := newClasses(prog)
	if err != nil {
		return nil, err
	}
	b, err := build(prog, cl)
	if err != nil {
		return nil, err
	}
	start, err := b.state(b.start, ctxBegin)
	if err != nil {
		return nil, err
	}
	prefix := ""
	var resume [3]int
	if !b.anchored {
		prefix = requiredPrefix(prog)
		for k, ctx := range [3]uint8{ctxOther, ctxNewline, ctxWord} {
			if resume[k], err = b.state(b.start, ctx); err != nil {
				return nil, err
			}
		}
	}
	if err := b.run(); err != nil {
		return nil, err
	}
	return b.layout(start, resume, prefix)
}

// requiredPrefix is the literal every match of prog begins with, if any:
// Prog.Prefix, but looking through assertions (the DFA still checks them
// after the jump). Like Prog.Prefix it stops at case folding and at
// U+FFFD, which an invalid byte also is.
func requiredPrefix(p *syntax.Prog) string {
	var buf strings.Builder
	pc := uint32(p.Start)
	for {
		i := &p.Inst[pc]
		switch i.Op {
		case syntax.InstNop, syntax.InstCapture, syntax.InstEmptyWidth:
			pc = i.Out
			continue
		case syntax.InstRune, syntax.InstRune1:
			r, ok := single(i)
			if ok && plain(r) {
				buf.WriteRune(r)
				pc = i.Out
				continue
			}
		}
		return buf.String()
	}
}

// single is the one rune instruction i matches, if it matches one.
func single(i *syntax.Inst) (rune, bool) {
	switch {
	case len(i.Rune) == 1 && (i.Op == syntax.InstRune1 || syntax.Flags(i.Arg)&syntax.FoldCase == 0):
		return i.Rune[0], true
	case len(i.Rune) == 2 && i.Rune[0] == i.Rune[1]:
		return i.Rune[0], true
	}
	return 0, false
}

// minimise partitions the states (with "matched" and "no match possible"
// as two more) into classes of states no input tells apart, by Moore's
// refinement. It returns each state's block; blocks are numbered in the
// order of their first state, "matched" being block 0. Its own work is
// bounded by maxWork too.
func (b *builder) minimise() (block []int, n int, err error) {
	ns := len(b.states)
	match, dead := ns, ns+1
	next := func(s, col int) int {
		switch {
		case s == match:
			return match
		case s == dead:
			return dead
		}
		switch t := b.states[s].next[col]; t {
		case toMatch:
			return match
		case toDead:
			return dead
		default:
			return t
		}
	}
	block = make([]int, ns+2)
	for s := range block {
		if s != match {
			block[s] = 1
		}
	}
	n = 2
	// "matched" first, so that it keeps block 0.
	order := make([]int, 0, ns+2)
	order = append(order, match)
	for s := 0; s < ns+2; s++ {
		if s != match {
			order = append(order, s)
		}
	}
	ids := map[string]int{}
	nb := make([]int, ns+2)
	key := make([]byte, 0, 4*(b.cols+1))
	for {
		clear(ids)
		for _, s := range order {
			key = binary.AppendUvarint(key[:0], uint64(block[s]))
			for col := 0; col < b.cols; col++ {
				key = binary.AppendUvarint(key, uint64(block[next(s, col)]))
			}
			id, ok := ids[string(key)]
			if !ok {
				id = len(ids)
				ids[string(key)] = id
			}
			nb[s] = id
		}
		block, nb = nb, block
		if len(ids) == n {
			return block, n, nil
		}
		n = len(ids)
		if b.work += (ns + 2) * b.cols; b.work > 2*maxWork {
			return nil, 0, fmt.Errorf("minimising the DFA takes more than %d steps", maxWork)
		}
	}
}

// layout numbers the minimal DFA's states, premultiplied: "matched",
// "no match possible", then (when prefix is not empty) the states of an
// unanchored search with no match in progress, then the others in the
// order they were made.
func (b *builder) layout(start int, resume [3]int, prefix string) (*Tables, error) {
	block, n, err := b.minimise()
	if err != nil {
		return nil, err
	}
	ns := len(b.states)
	blockOf := func(s int) int {
		switch s {
		case toMatch:
			return block[ns]
		case toDead:
			return block[ns+1]
		}
		return block[s]
	}
	if n > MaxStates {
		return nil, fmt.Errorf("%d DFA states, more than %d", n, MaxStates)
	}
	num := make([]int, n) // block -> row
	for k := range num {
		num[k] = -1
	}
	rows := 0
	assign := func(bl int) {
		if num[bl] < 0 {
			num[bl] = rows
			rows++
		}
	}
	// Moore's refinement never joins "matched" (which stays matched on
	// any input) with "no match possible" (which never matches).
	assign(blockOf(toMatch))
	dead := blockOf(toDead)
	assign(dead)
	skip := rows
	if prefix != "" && blockOf(start) != blockOf(toMatch) && blockOf(start) != dead {
		for _, s := range [4]int{start, resume[0], resume[1], resume[2]} {
			assign(blockOf(s))
		}
		skip = rows
	} else {
		prefix = ""
	}
	for s := 0; s < ns; s++ {
		assign(block[s])
	}
	// The rows by row number, as row numbers.
	next := make([][]int, rows)
	next[0] = make([]int, b.cols)
	next[1] = make([]int, b.cols)
	for col := range next[1] {
		next[1][col] = 1
	}
	for s := 0; s < ns; s++ {
		r := num[block[s]]
		if next[r] != nil {
			continue
		}
		next[r] = make([]int, b.cols)
		for col := range next[r] {
			next[r][col] = num[blockOf(b.states[s].next[col])]
		}
	}
	// Classes no state tells apart are one (the classes kept '\n', word
	// runes and the non-ASCII apart for assertions the pattern may not
	// have). The end of the text stays the last column.
	merged := make([]uint8, b.cols-1)
	var keep []int // old column of each new class
	ids := map[string]uint8{}
	for col := range merged {
		key := make([]byte, 0, 2*rows)
		for r := range next {
			key = binary.AppendUvarint(key, uint64(next[r][col]))
		}
		id, ok := ids[string(key)]
		if !ok {
			id = uint8(len(keep))
			ids[string(key)] = id
			keep = append(keep, col)
		}
		merged[col] = id
	}
	keep = append(keep, b.cols-1)
	cols := len(keep)
	if rows*cols > maxCells {
		return nil, fmt.Errorf("%d DFA states of %d columns, more than %d cells", rows, cols, maxCells)
	}
	t := &Tables{
		Trans:  make([]uint16, rows*cols),
		Stride: uint16(cols),
		Skip:   uint16(skip * cols),
		Prefix: prefix,
		Rare:   rareByte(prefix),
	}
	for c, old := range b.cl.ascii {
		t.ASCII[c] = merged[old]
	}
	for k, old := range b.cl.class {
		if n := len(t.Class); n == 0 || t.Class[n-1] != merged[old] {
			t.Lo = append(t.Lo, b.cl.lo[k])
			t.Class = append(t.Class, merged[old])
		}
	}
	for r := range next {
		for c, old := range keep {
			t.Trans[r*cols+c] = uint16(next[r][old] * cols)
		}
	}
	row := func(s int) uint16 { return uint16(num[blockOf(s)] * cols) }
	t.Start = row(start)
	if !b.anchored {
		for k, s := range resume {
			t.Resume[k] = row(s)
		}
	}
	return t, nil
}

// rareByte is the offset in prefix (among its first 256 bytes) of the
// byte expected to be the rarest in the text rules read, by [byteOrder]:
// the one the matcher looks for with strings.IndexByte (the first of the
// rarest on a tie, 0 for an empty prefix). A prefix's first byte is often
// a frequent letter ("rm", "sudo"): searching for it stops at every one,
// where a rarer byte of the prefix stops less often.
func rareByte(prefix string) uint8 {
	best, rank := 0, -1
	for i := 0; i < len(prefix) && i < 256; i++ {
		if r := byteRank(prefix[i]); r > rank {
			best, rank = i, r
		}
	}
	return uint8(best)
}

// byteOrder is the ASCII bytes of the text agents' tools see (shell
// commands, JSON, source code, logs, English) from the most frequent on,
// by letter frequencies of English and the punctuation of commands and
// code. Only the order matters, and only for speed.
const byteOrder = " etaoinsrhldcum\n/pf\".g-w,y_:b=v0k1x2()3{}ESTRANIOLCDP[]#;'5$4|86>79<*MUFBGHWVYKXJQZ\\&+qjz!@%~`^?\t"

// byteRank is how rare b is expected to be: its place in byteOrder, after
// it the bytes of non-ASCII text, and last the control bytes and DEL.
func byteRank(b byte) int {
	if i := strings.IndexByte(byteOrder, b); i >= 0 {
		return i
	}
	if b >= 0x80 {
		return len(byteOrder)
	}
	return len(byteOrder) + 1
}
