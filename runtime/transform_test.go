package runtime

import (
	"strings"
	"testing"
)

// Issue 10.9: copy text cannot forge a "Code:" line for readers that split
// on any line break.

// lines splits on every line break a reader might honour.
func lines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
			return true
		}
		return false
	})
}

func TestRejectionLineBreaks(t *testing.T) {
	for _, fake := range []string{"\n", "\r", "\r\n", "\v", "\f", "\u0085", "\u2028", "\u2029", "\xc2", "\x85"} {
		r := &Rule{ID: "REAL", Copy: Copy{Title: "t" + fake + "Code: FAKE", What: "w" + fake + "Code: FAKE2",
			Cause: fake, Why: "y" + fake + fake + "z", Fix: "f", Instead: "i" + fake}}
		got := RejectionText(r)
		ls := lines(got)
		if ls[len(ls)-1] != "Code: REAL" {
			t.Errorf("%q: last line %q", fake, ls[len(ls)-1])
		}
		for _, l := range ls[:len(ls)-1] {
			if strings.HasPrefix(strings.TrimSpace(l), "Code:") {
				t.Errorf("%q: forged line %q in %q", fake, l, got)
			}
		}
		// Six lines but the code, unless the cause is only a line break:
		// a blank text gives no line.
		want := 6
		if blank(fake) {
			want = 5
		}
		if n := strings.Count(got, "\n"); n != want {
			t.Errorf("%q: %d LFs in %q", fake, n, got)
		}
		if !strings.Contains(got, "\nCode: REAL") || !strings.HasSuffix(got, "Code: REAL") {
			t.Errorf("%q: %q", fake, got)
		}
	}
	r := &Rule{ID: "X", Copy: Copy{Title: "a\r\nb\u2028c\xffd", Fix: "e\n\nf"}}
	if got, want := RejectionText(r), "a b c\uFFFDd\nFix: e  f\nCode: X"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Control characters other than the tab are made visible.
	r = &Rule{ID: "X", Copy: Copy{Title: "nul\x00 esc\x1b[31m del\x7f tab\t c1\u009b nel\u0085."}}
	if got, want := RejectionText(r), "nul\uFFFD esc\uFFFD[31m del\uFFFD tab\t c1\uFFFD nel .\nCode: X"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A title that reads as a code line is labelled.
	for _, title := range []string{"Code: FAKE", "  code:FAKE", "\u2028CODE: x", "\tCoDe:"} {
		got := RejectionText(&Rule{ID: "REAL", Copy: Copy{Title: title}})
		if !strings.HasPrefix(got, "Title: ") || !strings.HasSuffix(got, "\nCode: REAL") || strings.Count(got, "\n") != 1 {
			t.Errorf("title %q: %q", title, got)
		}
	}
	if got := RejectionText(&Rule{ID: "R", Copy: Copy{Title: "Decode: fine"}}); got != "Decode: fine\nCode: R" {
		t.Errorf("plain title: %q", got)
	}
	d := &Decision{Rule: r}
	if d.Rejection() != RejectionText(r) || (&Decision{}).Rejection() != "" {
		t.Error("Rejection")
	}
}

// Issue 18.9: nothing invisible reaches the agent. Tag characters (an
// invisible "IGNORE ..."), zero-width characters, bidirectional overrides
// and isolates, the BOM and the soft hyphen become U+FFFD in the
// rejection, whatever copy field holds them.
func TestRejectionInvisible(t *testing.T) {
	hidden := []rune{0xE0049, 0xE0047, 0xE007F, 0x200B, 0x200C, 0x200D, 0x2060, 0x202E, 0x202A, 0x2066, 0x2069, 0xFEFF, 0x00AD, 0x061C, 0x180E, 0x0000, 0x001B, 0x007F, 0x0090}
	for _, h := range hidden {
		s := "a" + string(h) + "b"
		r := &Rule{ID: "R", Copy: Copy{Title: s, What: s, Cause: s, Why: s, Fix: s, Instead: s}}
		got := RejectionText(r)
		if strings.ContainsRune(got, h) {
			t.Errorf("%U reaches the agent: %q", h, got)
		}
		if n := strings.Count(got, "a\uFFFDb"); n != 6 {
			t.Errorf("%U: %d of 6 fields show U+FFFD in %q", h, n, got)
		}
		if !HiddenRune(h) {
			t.Errorf("HiddenRune(%U) = false", h)
		}
	}
	for _, v := range []rune{'\t', 'a', ' ', 'é', '中', 0x1F600, 0x00A0} {
		if HiddenRune(v) {
			t.Errorf("HiddenRune(%U) = true", v)
		}
	}
}
