package runtime

import (
	"unicode"
	"unicode/utf8"
)

// This file is oarc's one definition of the characters a reader cannot
// see (spec 5.1: nothing invisible reaches an agent, docs/texts.md). The
// runtime's texts (rejection, banner, notes, question) and rendered
// context, the reference interpreter's texts, the rule store's sanitising
// and tool answers ask it; the compiler, which links nothing of the
// runtime, mirrors it (compiler.HiddenRune, a test keeps the two equal
// over every rune), so that what oarc check warns about is exactly what
// an agent is shown as U+FFFD.

// HiddenRune reports whether r, on its own, is a character a reader
// cannot see, which copy text may not carry to an agent:
//
//   - a control character other than the tab and the line breaks LF, CR,
//     VT, FF and NEL (which the renderers make spaces): NUL, ESC, DEL, C1;
//   - a format character (Unicode Cf): zero-width space, joiner and
//     non-joiner, word joiner and the invisible operators U+2060-U+2064,
//     the bidirectional marks, embeddings, overrides and isolates, the
//     deprecated format characters U+206A-U+206F, the tag characters
//     U+E0001 and U+E0020-U+E007F (they spell a sentence no one sees),
//     the soft hyphen, the BOM, U+180E, U+1D173-U+1D17A, ...;
//   - the rest of Unicode's default-ignorable code points (renderers draw
//     nothing for them): the combining grapheme joiner U+034F, the Hangul
//     fillers U+115F, U+1160, U+3164 and U+FFA0 (a "blank" name), the
//     Khmer inherent vowels U+17B4 and U+17B5, and the reserved U+2065,
//     U+FFF0-U+FFF8 and U+E0000-U+E0FFF;
//   - a variation selector (U+180B-U+180D, U+180F, U+FE00-U+FE0F,
//     U+E0100-U+E01EF): after one character, a run of them shows nothing
//     and can carry any bytes (one selector per byte).
//
// The presentation selectors U+FE0E and U+FE0F are kept where they do
// their job ([HiddenAfter]). Private-use and unassigned characters outside
// those ranges are not in the class: a reader sees a glyph or a box.
// Every text built from copy shows a hidden character as U+FFFD; oarc
// check warns about them.
func HiddenRune(r rune) bool {
	switch r {
	case '\t', '\n', '\r', '\v', '\f', 0x85:
		return false
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// HiddenAfter reports whether r is hidden where it stands in a text,
// after prev (the rune before it as the text has it; -1 at the start, and
// U+FFFD for a byte of invalid UTF-8): as [HiddenRune], except that U+FE0E
// (text presentation) and U+FE0F (emoji presentation: "⚠️" is U+26A0
// U+FE0F) directly after a character a reader sees, other than white
// space, are not hidden: they only choose how that character is drawn. A
// second selector after the first, or one at the start of a text or after
// a space, is hidden.
func HiddenAfter(prev, r rune) bool {
	if r == 0xFE0E || r == 0xFE0F {
		return prev < 0 || prev == utf8.RuneError || HiddenRune(prev) || unicode.IsSpace(prev)
	}
	return HiddenRune(r)
}

// HasHidden reports whether s holds a character hidden where it stands
// ([HiddenAfter]) or a byte of invalid UTF-8.
func HasHidden(s string) bool {
	prev := rune(-1)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || HiddenAfter(prev, r) {
			return true
		}
		prev = r
		i += n
	}
	return false
}
