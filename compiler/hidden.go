package compiler

import (
	"unicode"
	"unicode/utf8"
)

// HiddenRune reports whether r is a character that copy text may not
// carry to an agent (spec 5.1, docs/texts.md): a control character other
// than tab and the line breaks (which become spaces), a format character
// (Unicode Cf), another default-ignorable code point (the Hangul fillers,
// the combining grapheme joiner, ...) or a variation selector. It mirrors
// runtime.HiddenRune, the definition, which the compiler does not link; a
// test keeps the two equal over every rune.
func HiddenRune(r rune) bool {
	switch r {
	case '\t', '\n', '\r', '\v', '\f', 0x85:
		return false
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// hiddenAfter reports whether r is hidden after prev in a text (-1 at its
// start): as HiddenRune, but that a presentation selector (U+FE0E, U+FE0F)
// directly after a visible character other than white space is not. It
// mirrors runtime.HiddenAfter; a test keeps the two equal.
func hiddenAfter(prev, r rune) bool {
	if r == 0xFE0E || r == 0xFE0F {
		return prev < 0 || prev == utf8.RuneError || HiddenRune(prev) || unicode.IsSpace(prev)
	}
	return HiddenRune(r)
}
