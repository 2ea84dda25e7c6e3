// This file owns the rune classes of a program and the construction of
// its DFA (subsets of instructions, with the previous rune's context).

package redfa

import (
	"encoding/binary"
	"fmt"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Bounds beyond which a pattern falls back to Go's regexp: the states of
// the minimal DFA (and of the one built before minimising it, which can
// be larger), the classes (a class is a byte in the tables), and the
// cells of the transition table (states are premultiplied uint16 row
// offsets).
const (
	MaxStates  = 1000
	MaxClasses = 255
	maxCells   = 1 << 16
	// maxBuild bounds the states built before minimisation.
	maxBuild = 4 * MaxStates
	// maxWork bounds the instructions visited building the DFA and the
	// cells compared minimising it (about a tenth of a second each), so
	// that no pattern makes oarc gen slow.
	maxWork = 20_000_000
)

// Tables are the tables of a DFA, field for field those of the runtime's
// impl.RegexDFA (whose doc says what each means), which the generated code
// initialises with them.
type Tables struct {
	ASCII  [128]uint8
	Lo     []rune
	Class  []uint8
	Trans  []uint16
	Stride uint16
	Start  uint16
	Skip   uint16
	Prefix string
	Rare   uint8
	Resume [3]uint16
}

// States is the number of states of the DFA, counting "matched" and "no
// match possible".
func (t *Tables) States() int { return len(t.Trans) / int(t.Stride) }

// Classes is the number of rune classes the DFA reads.
func (t *Tables) Classes() int { return int(t.Stride) - 1 }

// The previous rune, as far as an empty-width assertion sees it.
const (
	ctxBegin   = iota // no previous rune: the start of the text
	ctxNewline        // '\n'
	ctxWord           // an ASCII word character
	ctxOther
)

// ctxRune is a rune of each context, for syntax.EmptyOpContext.
var ctxRune = [...]rune{ctxBegin: -1, ctxNewline: '\n', ctxWord: 'a', ctxOther: ' '}

func ctxOf(r rune) uint8 {
	switch {
	case r == '\n':
		return ctxNewline
	case syntax.IsWordChar(r):
		return ctxWord
	}
	return ctxOther
}

// canon keeps of the previous rune's context only what the assertions ops
// can tell apart, so that states differing in nothing else are one.
func canon(ctx uint8, ops syntax.EmptyOp) uint8 {
	line := ops&syntax.EmptyBeginLine != 0
	switch ctx {
	case ctxBegin:
		if ops&syntax.EmptyBeginText != 0 {
			return ctxBegin
		}
		if line {
			return ctxNewline
		}
	case ctxNewline:
		if line {
			return ctxNewline
		}
	case ctxWord:
		if ops&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			return ctxWord
		}
	}
	return ctxOther
}

// classes partitions the runes into the classes the program's
// instructions (and the assertions' view of a rune) treat alike.
type classes struct {
	ascii [128]uint8
	lo    []rune  // runes >= utf8.RuneSelf: starts of ranges
	class []uint8 // their classes
	rep   []rune  // a rune of each class
}

// runeSet is the set of runes a rune instruction matches, as sorted
// inclusive ranges, the way Inst.MatchRune and the matching machines of
// regexp read it.
func runeSet(i *syntax.Inst) []rune {
	switch i.Op {
	case syntax.InstRuneAny:
		return []rune{0, unicode.MaxRune}
	case syntax.InstRuneAnyNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	}
	if len(i.Rune) == 1 {
		r0 := i.Rune[0]
		set := []rune{r0}
		if syntax.Flags(i.Arg)&syntax.FoldCase != 0 {
			for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
				set = append(set, r)
			}
		}
		slices.Sort(set)
		var out []rune
		for _, r := range set {
			out = append(out, r, r)
		}
		return out
	}
	return i.Rune
}

// newClasses computes the classes of the rune instructions of p. It fails
// when there are more than MaxClasses.
func newClasses(p *syntax.Prog) (*classes, error) {
	// The word characters and '\n' are ranges of their own: assertions
	// tell them apart. utf8.RuneSelf splits the ASCII table from the rest.
	sets := [][]rune{{'\n', '\n'}, {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}, {utf8.RuneSelf, unicode.MaxRune}}
	seen := map[string]bool{}
	for k := range p.Inst {
		i := &p.Inst[k]
		switch i.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			s := runeSet(i)
			// Not string(s): that spells a surrogate as U+FFFD.
			key := make([]byte, 0, 4*len(s))
			for _, r := range s {
				key = binary.LittleEndian.AppendUint32(key, uint32(r))
			}
			if !seen[string(key)] {
				seen[string(key)] = true
				sets = append(sets, s)
			}
		}
	}
	bounds := []rune{0, unicode.MaxRune + 1}
	for _, s := range sets {
		for j := 0; j < len(s); j += 2 {
			bounds = append(bounds, s[j], s[j+1]+1)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	// One signature per elementary range: which sets hold it.
	pos := make([]int, len(sets))
	sig := make([]byte, len(sets))
	ids := map[string]uint8{}
	c := &classes{}
	for b := 0; b+1 < len(bounds); b++ {
		x := bounds[b]
		for k, s := range sets {
			for pos[k] < len(s) && s[pos[k]+1] < x {
				pos[k] += 2
			}
			sig[k] = 0
			if pos[k] < len(s) && s[pos[k]] <= x {
				sig[k] = 1
			}
		}
		id, ok := ids[string(sig)]
		if !ok {
			if len(c.rep) == MaxClasses {
				return nil, fmt.Errorf("more than %d rune classes", MaxClasses)
			}
			id = uint8(len(c.rep))
			ids[string(sig)] = id
			c.rep = append(c.rep, x)
		}
		if x < utf8.RuneSelf {
			for r := x; r < bounds[b+1]; r++ {
				c.ascii[r] = id
			}
		} else if n := len(c.class); n == 0 || c.class[n-1] != id {
			c.lo = append(c.lo, x)
			c.class = append(c.class, id)
		}
	}
	return c, nil
}

// of is the class of r.
func (c *classes) of(r rune) uint8 {
	if r < utf8.RuneSelf {
		return c.ascii[r]
	}
	k, _ := slices.BinarySearch(c.lo, r+1)
	return c.class[k-1]
}

// The targets of a transition other than a state.
const (
	toMatch = -1
	toDead  = -2
)

// dstate is a state of the DFA being built: the instructions the search
// is at (rune instructions, assertions not yet decided, and Match), and
// the context of the previous rune, as much of it as those assertions
// need.
type dstate struct {
	pcs  []uint32
	ctx  uint8
	next []int // by column: a state, toMatch or toDead
}

type builder struct {
	p        *syntax.Prog
	cl       *classes
	cols     int  // classes + 1: the last column is the end of the text
	anchored bool // matches can start only at the start of the text
	start    []uint32
	match    [][]bool // by pc of a rune instruction: matches each class
	states   []*dstate
	index    map[string]int
	mark     []uint32 // visited marks of the walks, by pc
	gen      uint32
	work     int // instructions visited so far, bounded by maxWork
}

// build makes the DFA of p, unminimised: the states from the start of the
// text, and those Resume names.
func build(p *syntax.Prog, cl *classes) (*builder, error) {
	b := &builder{p: p, cl: cl, cols: len(cl.rep) + 1, index: map[string]int{}, mark: make([]uint32, len(p.Inst))}
	b.anchored = p.StartCond()&syntax.EmptyBeginText != 0
	b.match = make([][]bool, len(p.Inst))
	for k := range p.Inst {
		i := &p.Inst[k]
		switch i.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			m := make([]bool, len(cl.rep))
			for c, r := range cl.rep {
				m[c] = matchRune(i, r)
			}
			b.match[k] = m
		}
	}
	b.start = b.frontier([]uint32{uint32(p.Start)})
	return b, nil
}

// matchRune is whether rune instruction i consumes r, as regexp's machines
// decide it.
func matchRune(i *syntax.Inst, r rune) bool {
	switch i.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	case syntax.InstRune1:
		return r == i.Rune[0]
	}
	return i.MatchRune(r)
}

// frontier follows the empty transitions that need no context from seeds,
// and returns the sorted instructions it stops at: rune instructions,
// assertions and Match.
func (b *builder) frontier(seeds []uint32) []uint32 {
	b.gen++
	var out []uint32
	var walk func(pc uint32)
	walk = func(pc uint32) {
		if b.mark[pc] == b.gen {
			return
		}
		b.mark[pc] = b.gen
		b.work++
		i := &b.p.Inst[pc]
		switch i.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			walk(i.Out)
			walk(i.Arg)
		case syntax.InstNop, syntax.InstCapture:
			walk(i.Out)
		case syntax.InstFail:
		default:
			out = append(out, pc)
		}
	}
	for _, pc := range seeds {
		walk(pc)
	}
	slices.Sort(out)
	return out
}

// resolve follows from pcs the empty transitions whose assertions hold
// under flags, and returns the rune instructions reached and whether
// Match is.
func (b *builder) resolve(pcs []uint32, flags syntax.EmptyOp) (runes []uint32, matched bool) {
	b.gen++
	var walk func(pc uint32)
	walk = func(pc uint32) {
		if b.mark[pc] == b.gen {
			return
		}
		b.mark[pc] = b.gen
		b.work++
		i := &b.p.Inst[pc]
		switch i.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			walk(i.Out)
			walk(i.Arg)
		case syntax.InstNop, syntax.InstCapture:
			walk(i.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(i.Arg)&^flags == 0 {
				walk(i.Out)
			}
		case syntax.InstMatch:
			matched = true
		case syntax.InstFail:
		default:
			runes = append(runes, pc)
		}
	}
	for _, pc := range pcs {
		walk(pc)
	}
	return runes, matched
}

// ops is every assertion reachable from pcs through empty transitions:
// what the state must know of the previous rune.
func (b *builder) ops(pcs []uint32) syntax.EmptyOp {
	b.gen++
	var ops syntax.EmptyOp
	var walk func(pc uint32)
	walk = func(pc uint32) {
		if b.mark[pc] == b.gen {
			return
		}
		b.mark[pc] = b.gen
		b.work++
		i := &b.p.Inst[pc]
		switch i.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			walk(i.Out)
			walk(i.Arg)
		case syntax.InstNop, syntax.InstCapture:
			walk(i.Out)
		case syntax.InstEmptyWidth:
			ops |= syntax.EmptyOp(i.Arg)
			walk(i.Out)
		}
	}
	for _, pc := range pcs {
		walk(pc)
	}
	return ops
}

// state returns the state of the instructions pcs after a rune of context
// ctx, making it if new: toMatch when Match is among them (it needs no
// assertion), toDead when nothing is left.
func (b *builder) state(pcs []uint32, ctx uint8) (int, error) {
	if len(pcs) == 0 {
		return toDead, nil
	}
	for _, pc := range pcs {
		if b.p.Inst[pc].Op == syntax.InstMatch {
			return toMatch, nil
		}
	}
	ctx = canon(ctx, b.ops(pcs))
	key := make([]byte, 1, 1+4*len(pcs))
	key[0] = ctx
	for _, pc := range pcs {
		key = binary.LittleEndian.AppendUint32(key, pc)
	}
	if s, ok := b.index[string(key)]; ok {
		return s, nil
	}
	if len(b.states) == maxBuild {
		return 0, fmt.Errorf("more than %d DFA states", maxBuild)
	}
	if b.work > maxWork {
		return 0, fmt.Errorf("building the DFA takes more than %d steps", maxWork)
	}
	b.index[string(key)] = len(b.states)
	b.states = append(b.states, &dstate{pcs: pcs, ctx: ctx})
	return len(b.states) - 1, nil
}

// run makes every state reachable from roots, with its transitions.
func (b *builder) run() error {
	for k := 0; k < len(b.states); k++ {
		s := b.states[k]
		s.next = make([]int, b.cols)
		// The assertions before the next rune depend on the previous
		// rune's context and the next rune's: resolve once per context
		// of the next rune.
		type resolved struct {
			runes   []uint32
			matched bool
		}
		var memo [4]*resolved
		for col := 0; col < b.cols; col++ {
			next := rune(-1) // the end of the text
			nctx := uint8(ctxBegin)
			if col < b.cols-1 {
				next = b.cl.rep[col]
				nctx = ctxOf(next)
			}
			if memo[nctx] == nil {
				runes, matched := b.resolve(s.pcs, syntax.EmptyOpContext(ctxRune[s.ctx], next))
				memo[nctx] = &resolved{runes, matched}
			}
			r := memo[nctx]
			switch {
			case r.matched:
				s.next[col] = toMatch
				continue
			case col == b.cols-1:
				s.next[col] = toDead
				continue
			}
			var seeds []uint32
			for _, pc := range r.runes {
				if b.match[pc][col] {
					seeds = append(seeds, b.p.Inst[pc].Out)
				}
			}
			if !b.anchored {
				seeds = append(seeds, uint32(b.p.Start))
			}
			t, err := b.state(b.frontier(seeds), nctx)
			if err != nil {
				return err
			}
			s.next[col] = t
		}
	}
	return nil
}
