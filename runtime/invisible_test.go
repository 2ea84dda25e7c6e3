package runtime

import (
	"testing"
	"unicode"
)

// The class of HiddenRune, member by member: what a reader cannot see is
// in it, what rule authors write (letters, emoji, spaces, private use) is
// not.
func TestHiddenRuneClass(t *testing.T) {
	var in []rune
	add := func(lo, hi rune) {
		for r := lo; r <= hi; r++ {
			in = append(in, r)
		}
	}
	add(0x00, 0x08)
	add(0x0e, 0x1f)
	add(0x7f, 0x84)
	add(0x86, 0x9f)
	add(0xFE00, 0xFE0F)   // variation selectors
	add(0xE0100, 0xE01EF) // variation selectors supplement
	add(0x180B, 0x180F)   // Mongolian free variation selectors, vowel separator
	add(0x2060, 0x2064)   // word joiner, invisible operators
	add(0x2065, 0x2065)   // reserved default-ignorable
	add(0x206A, 0x206F)   // deprecated format characters
	add(0x200B, 0x200F)   // zero width, marks
	add(0x202A, 0x202E)   // embeddings, overrides
	add(0x2066, 0x2069)   // isolates
	add(0xE0000, 0xE0FFF) // tags and reserved
	add(0x1D173, 0x1D17A) // musical format characters
	add(0xFFF0, 0xFFF8)
	in = append(in, 0x115F, 0x1160, 0x3164, 0xFFA0, 0xFEFF, 0x00AD, 0x034F, 0x17B4, 0x17B5, 0x061C, 0x180E, 0xFFF9, 0xFFFA, 0xFFFB)
	for _, r := range in {
		if !HiddenRune(r) {
			t.Errorf("HiddenRune(%U) = false", r)
		}
	}
	for _, r := range []rune{'\t', '\n', '\r', '\v', '\f', 0x85, ' ', 'a', 'é', '中', 'ㄱ', 0x1F600, 0x26A0, 0x00A0, 0x3000, 0x2028, 0x2029, 0xE000, 0xF8FF, 0x10FFFD, 0xFFFD, 0x0301, 0x20E3} {
		if HiddenRune(r) {
			t.Errorf("HiddenRune(%U) = true", r)
		}
	}
}

func TestHiddenAfter(t *testing.T) {
	for _, c := range []struct {
		prev, r rune
		want    bool
	}{
		{0x26A0, 0xFE0F, false}, // ⚠️
		{'1', 0xFE0F, false},    // keycap 1️⃣ starts so
		{0x2764, 0xFE0E, false}, // ❤︎
		{-1, 0xFE0F, true},
		{' ', 0xFE0F, true},
		{'\n', 0xFE0F, true},
		{0x00A0, 0xFE0F, true},
		{0xFE0F, 0xFE0F, true},
		{0xFE0E, 0xFE0F, true},
		{0x200B, 0xFE0F, true},
		{0xFFFD, 0xFE0F, true},
		{0x26A0, 0xFE00, true},
		{0x26A0, 0xE0100, true},
		{'a', 'b', false},
		{'a', 0x200B, true},
	} {
		if got := HiddenAfter(c.prev, c.r); got != c.want {
			t.Errorf("HiddenAfter(%U, %U) = %v, want %v", c.prev, c.r, got, c.want)
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r != 0xFE0E && r != 0xFE0F && HiddenAfter('a', r) != HiddenRune(r) {
			t.Fatalf("HiddenAfter('a', %U) = %v, Rune = %v", r, HiddenAfter('a', r), HiddenRune(r))
		}
	}
}

func TestHasHidden(t *testing.T) {
	for s, want := range map[string]bool{
		"Stop ⚠️ now":   false,
		"plain":         false,
		"":              false,
		"\uFE0Fx":       true,
		"a\uFE0F\uFE0F": true,
		"a\u3164b":      true,
		"a\xffb":        true,
		"a\uFFFDb":      false,
	} {
		if got := HasHidden(s); got != want {
			t.Errorf("HasHidden(%q) = %v, want %v", s, got, want)
		}
	}
}
