package impl

import "testing"

// TestRenderEntities: the rendered context turned every invisible
// character of copy into U+FFFD, and escaped '<' so that no copy opens raw
// HTML where the Markdown is shown as HTML; but a character reference
// passed as it is: "&#x202E;", "&#8203;", "&zwnj;" are shown there as a
// right-to-left override, a zero-width space, a zero-width non-joiner, so
// the invisible characters came back through the HTML. An '&' that starts
// a character reference is now escaped ("\&": Markdown shows "&" and
// reads no reference), with the backslashes right before it, as for '<';
// any other '&' is left as it is.
func TestRenderEntities(t *testing.T) {
	rules := []ContextRule{
		{ID: "A", Title: "bidi &#x202E;evil&#X202C; zero&#8203;width &zwnj; &ZeroWidthSpace;", Global: true},
		{ID: "B", Title: `R&D & more; &amp &#; &#x; &#12345678; \&#8203; \\&lt;`, Fix: "a&b;c", Global: true},
	}
	got := Render(rules, "", 0)
	want := "## Rules\n\n" +
		`- **A**: bidi \&#x202E;evil\&#X202C; zero\&#8203;width \&zwnj; \&ZeroWidthSpace;` + "\n" +
		`- **B**: R&D & more; &amp &#; &#x; &#12345678; \\\&#8203; \\\\\&lt;` + "\n" +
		"  - Fix: a\\&b;c\n"
	if got != want {
		t.Errorf("Render:\n got %s\nwant %s", got, want)
	}
}
