package impl

import (
	"strings"
	"testing"
)

// A backslash of the copy right before a '<' must not undo the '<”s
// escape: "\<!--" written as "\\<!--" is an escaped backslash and a raw
// HTML comment (CommonMark), which with a "-->" in a later rule hides the
// rules between them where the Markdown is shown as HTML (docs/context.md).
// Every '<' of the output must follow an odd run of backslashes, and the
// text must show as the copy has it.
func TestRenderBackslashBeforeLessThan(t *testing.T) {
	rules := []ContextRule{
		{ID: "A", Title: `Open \<!-- here`, Global: true},
		{ID: "B", Title: "Hidden rule", Fix: `two \\<b> and none \d <i>`, Global: true},
		{ID: "C", Title: "close --> here", Global: true},
	}
	got := Render(rules, "", 0)
	want := "## Rules\n\n" +
		"- **A**: Open \\\\\\<!-- here\n" +
		"- **B**: Hidden rule\n  - Fix: two \\\\\\\\\\<b> and none \\d \\<i>\n" +
		"- **C**: close --> here\n"
	if got != want {
		t.Errorf("Render:\n got %q\nwant %q", got, want)
	}
	for i := strings.IndexByte(got, '<'); i >= 0; {
		n := 0
		for j := i - 1; j >= 0 && got[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			t.Errorf("raw '<' at %d (after %d backslashes) in %q", i, n, got)
		}
		next := strings.IndexByte(got[i+1:], '<')
		if next < 0 {
			break
		}
		i += 1 + next
	}
}
