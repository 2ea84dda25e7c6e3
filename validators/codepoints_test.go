package validators

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// bruteBoundaries are the byte offsets where the runtime's code points
// start (`for i := range s`, as runtime/impl's prepareTransforms counts),
// and the end.
func bruteBoundaries(s string) []int {
	var b []int
	for i := range s {
		b = append(b, i)
	}
	return append(b, len(s))
}

// bruteFloor and bruteCeil: the last boundary at or before off, the first
// at or after it, as code-point offsets; off clamped to the text.
func bruteFloor(s string, off int) int64 {
	off = max(0, min(off, len(s)))
	b := bruteBoundaries(s)
	j := 0
	for j+1 < len(b) && b[j+1] <= off {
		j++
	}
	return int64(j)
}

func bruteCeil(s string, off int) int64 {
	off = max(0, min(off, len(s)))
	for j, x := range bruteBoundaries(s) {
		if x >= off {
			return int64(j)
		}
	}
	panic("unreachable")
}

var cpPieces = []string{"a", "Z", " ", "é", "e\u0301", "日", "🔑", "\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x80", "\xc0\xaf", "\xed\xa0\x80", "\xef\xbf\xbd", "\xf4\x90\x80\x80"}

func randomCPText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(cpPieces[r.IntN(len(cpPieces))])
	}
	return b.String()
}

// TestCodePointsBruteForce: one converter, offsets in random order (so the
// cursor moves both ways), offsets inside code points, before the start and
// past the end, over texts with multi-byte and invalid UTF-8 (overlong
// forms, surrogates, truncated sequences, stray continuation bytes):
// Floor and Ceil agree with counting from the start every time, and Len
// with utf8.RuneCountInString.
func TestCodePointsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		s := randomCPText(r)
		c := NewCodePoints(s)
		if c.Len() != int64(utf8.RuneCountInString(s)) || c.Len() != int64(len(bruteBoundaries(s))-1) {
			t.Fatalf("Len(%q) = %d", s, c.Len())
		}
		for range 30 {
			off := r.IntN(len(s)+5) - 2
			if got, want := c.Floor(off), bruteFloor(s, off); got != want {
				t.Fatalf("Floor(%q, %d) = %d, want %d", s, off, got, want)
			}
			if got, want := c.Ceil(off), bruteCeil(s, off); got != want {
				t.Fatalf("Ceil(%q, %d) = %d, want %d", s, off, got, want)
			}
		}
	}
}

// TestCodePointsInsideARune: the documented choice for an offset inside a
// code point: a span widens to the whole code points it touches.
func TestCodePointsInsideARune(t *testing.T) {
	s := "a日b" // 日 is bytes 1..3
	c := NewCodePoints(s)
	for _, tc := range []struct {
		off         int
		floor, ceil int64
	}{{0, 0, 0}, {1, 1, 1}, {2, 1, 2}, {3, 1, 2}, {4, 2, 2}, {5, 3, 3}, {-1, 0, 0}, {99, 3, 3}} {
		if f, e := c.Floor(tc.off), c.Ceil(tc.off); f != tc.floor || e != tc.ceil {
			t.Errorf("offset %d: floor %d ceil %d, want %d %d", tc.off, f, e, tc.floor, tc.ceil)
		}
	}
	if s, e := c.Span(2, 3); s != 1 || e != 2 {
		t.Errorf("Span(2, 3) = %d, %d: want the whole 日, 1, 2", s, e)
	}
	// Invalid bytes are code points of their own: "\xe2\x82" is a
	// truncated sequence, two code points.
	c = NewCodePoints("x\xe2\x82y")
	if f := c.Floor(2); f != 2 || c.Len() != 4 {
		t.Errorf("Floor(2) = %d, Len = %d; want 2, 4", f, c.Len())
	}
}

// TestSpansBruteForce: Spans converts ranges given in any order, overlapping
// or reversed, as Floor and Ceil do one by one.
func TestSpansBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		s := randomCPText(r)
		ranges := make([][2]int, r.IntN(8))
		for i := range ranges {
			ranges[i] = [2]int{r.IntN(len(s)+3) - 1, r.IntN(len(s)+3) - 1}
		}
		got := Spans(s, ranges)
		for i, br := range ranges {
			if want := [2]int64{bruteFloor(s, br[0]), bruteCeil(s, br[1])}; got[i] != want {
				t.Fatalf("Spans(%q, %v)[%d] = %v, want %v", s, ranges, i, got[i], want)
			}
		}
	}
}

// TestSpansFromRegexp: the use the helper is for: a host's validator that
// finds matches with regexp (byte offsets) answers spans that cut the same
// text in code points, after multi-byte and invalid UTF-8.
func TestSpansFromRegexp(t *testing.T) {
	s := "日本 \xff\xfe token=abc123 é token=zz"
	var ranges [][2]int
	for _, m := range regexpToken.FindAllStringIndex(s, -1) {
		ranges = append(ranges, [2]int{m[0], m[1]})
	}
	offs := bruteBoundaries(s)
	for i, sp := range Spans(s, ranges) {
		if got, want := s[offs[sp[0]]:offs[sp[1]]], s[ranges[i][0]:ranges[i][1]]; got != want {
			t.Errorf("span %v cuts %q, want %q", sp, got, want)
		}
	}
	if e := Entry(1, 2, "k", 0.5); e["start"] != int64(1) || e["end"] != int64(2) || e["kind"] != "k" || e["score"] != 0.5 {
		t.Errorf("Entry = %v", e)
	}
}

// FuzzCodePoints: any text and offsets, against the brute force.
func FuzzCodePoints(f *testing.F) {
	f.Add("a日b\xff", 2, 0, 5)
	f.Add("\xf0\x9f\x98\x80\xf0\x9f", 5, 1, -1)
	f.Fuzz(func(t *testing.T, s string, a, b, c int) {
		cp := NewCodePoints(s)
		for _, off := range []int{a, b, c, a} {
			if got, want := cp.Floor(off), bruteFloor(s, off); got != want {
				t.Fatalf("Floor(%q, %d) = %d, want %d", s, off, got, want)
			}
			if got, want := cp.Ceil(off), bruteCeil(s, off); got != want {
				t.Fatalf("Ceil(%q, %d) = %d, want %d", s, off, got, want)
			}
		}
	})
}

var regexpToken = regexp.MustCompile(`token=[a-z0-9]+`)
